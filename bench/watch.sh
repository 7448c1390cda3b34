#!/usr/bin/env bash
# Watching while it downloads: how soon the picture comes, and how soon it comes back after a seek
# far ahead, on a server that sends each connection at 1.5x the clip's bitrate (nginx limit_rate),
# against the time the whole download takes.
#
#   bench/watch.sh                    3 rounds, a 60 s 720p H.264 MP4 at about 2 Mbit/s
#   ROUNDS=5 SEEK=0.8 bench/watch.sh
#
# Each round:
#   fetchplay   `fetchplay --play URL` under Xvfb with FETCHPLAY_WATCH_BENCH=SEEK: from the
#               process's start to the first frame shown; a second later a seek to SEEK of the
#               duration (as a click on the seek bar), and the time until a frame from there shows;
#               then it quits. It also says how much of the file was on disk at each moment.
#   curl        the same file at the same limit, whole: the time a download manager makes you wait
#               before you can watch anything.
#
# Targets of issue 11: first frame within 2 s; after a seek ahead, frames within 3 s.
# Medians go to bench/results/watch.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/watch.sh"
for var in ROUNDS SEEK SECONDS_LONG; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
ROUNDS=${ROUNDS:-3}
SEEK=${SEEK:-0.8}
SECONDS_LONG=${SECONDS_LONG:-60}
RESULTS="$BENCH_DIR/results/watch.md"

bench_ensure gst-launch-1.0=gstreamer1.0-tools xvfb-run=xvfb xauth=xauth nginx=nginx-light curl=curl bc=bc
need_element() { gst-inspect-1.0 "$1" >/dev/null 2>&1 || bench_ensure "/nonexistent/$1=$2"; }
need_element x264enc gstreamer1.0-plugins-ugly
need_element avdec_h264 gstreamer1.0-libav
need_element mp4mux gstreamer1.0-plugins-good

bench_begin
SITE="$BENCH_TMP/site"
bench_site "$SITE"
clip="$SITE/clip.mp4"
log "making a ${SECONDS_LONG} s 720p30 H.264 clip (index at the start, key frame every 2 s)"
gst-launch-1.0 -q videotestsrc num-buffers=$((SECONDS_LONG * 30)) pattern=smpte horizontal-speed=4 \
    ! video/x-raw,width=1280,height=720,framerate=30/1 ! videoconvert ! timeoverlay font-desc="Sans 48" \
    ! x264enc bitrate=2000 speed-preset=veryfast key-int-max=60 ! video/x-h264,profile=high \
    ! mp4mux faststart=true ! filesink location="$clip" >&2
chmod 644 "$clip"
size=$(stat -c %s "$clip")
bitrate=$((size / SECONDS_LONG))                  # bytes per second of video
limit=$((bitrate * 3 / 2))                         # 1.5x, per connection
NGINX_LIMIT_RATE=$limit nginx_start "$SITE"
url="$NGINX_URL/clip.mp4"
log "clip: $size bytes, $((bitrate * 8 / 1000)) kbit/s; each connection limited to $((limit / 1024)) KiB/s"

raw="$BENCH_TMP/raw.tsv"
: >"$raw"
for round in $(seq "$ROUNDS"); do
    log "round $round (load $(loadavg))"
    out="$BENCH_TMP/fetchplay-$round.out"
    watch_play "$out" "$BENCH_TMP/cache-$round" "$url"
    first=$(watch_field first_frame_s); seek=$(watch_field seek_frame_s)
    first_pct=$(printf '%.1f' "$(echo "100 * $(watch_field first_frame_bytes) / $size" | bc -l)")
    seek_pct=$(printf '%.1f' "$(echo "100 * $(watch_field seek_frame_bytes) / $size" | bc -l)")

    start=$(date +%s.%N)
    curl -s -o "$BENCH_TMP/curl.mp4" "$url" || die "curl failed"
    curl_s=$(printf '%.2f' "$(echo "$(date +%s.%N) - $start" | bc -l)")
    cmp -s "$clip" "$BENCH_TMP/curl.mp4" || die "curl's copy differs"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$first" "$seek" "$first_pct" "$seek_pct" "$curl_s" >>"$raw"
    log "  first frame $first s (${first_pct%.*}% on disk), after the seek to $SEEK: $seek s (${seek_pct%.*}% on disk); curl whole: $curl_s s"
    rm -rf "$BENCH_TMP/cache-$round"
done

col() { awk -F'\t' -v c="$1" '{ print $c }' "$raw" | median; }
verdict() { if [[ $(echo "$1 <= $2" | bc -l) == 1 ]]; then echo "met"; else echo "**missed**"; fi; }
first=$(col 2); seek=$(col 3); first_pct=$(col 4); seek_pct=$(col 5); curl_s=$(col 6)
{
    echo "# Watching while it downloads"
    echo
    echo "Command: \`$command_line\` — $(date -u +%Y-%m-%d), $ROUNDS rounds, medians."
    echo "$(machine_line)"
    echo
    echo "A ${SECONDS_LONG} s 720p30 H.264 MP4 ($((size / 1024)) KiB, $((bitrate * 8 / 1000)) kbit/s, \`moov\` at the start,"
    echo "a key frame every 2 s) from nginx on loopback, each connection limited to 1.5x the bitrate"
    echo "($((limit / 1024)) KiB/s). Fetchplay: \`--play URL\` in the window under Xvfb (\`GSK_RENDERER=gl\`),"
    echo "timed from the process's start; the seek goes to ${SEEK} of the duration one second after the"
    echo "first frame, and is timed until a frame from there is shown."
    echo
    echo "| | seconds | of the file on disk then | target |"
    echo "|---|---:|---:|---|"
    printf '| fetchplay: first frame | %.2f | %.0f%% | ≤ 2 s: %s |\n' "$first" "$first_pct" "$(verdict "$first" 2)"
    printf '| fetchplay: first frame after the seek to %s | %.2f | %.0f%% | ≤ 3 s: %s |\n' "$SEEK" "$seek" "$seek_pct" "$(verdict "$seek" 3)"
    printf '| curl: the whole file (nothing to watch before) | %.2f | 100%% | |\n' "$curl_s"
    echo
    echo "Raw rounds (round, first frame s, seek s, % on disk at first frame, % at the seek's frame, curl s):"
    echo
    echo '```'
    cat "$raw"
    echo '```'
} >"$RESULTS"
log "results in ${RESULTS#"$REPO_DIR"/}"
cat "$RESULTS"
