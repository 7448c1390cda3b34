#!/usr/bin/env bash
# Watching HLS and DASH while they download: how soon the picture comes after --play, and how
# soon it comes back after a seek to 80 %, on a line at twice the presentation's bitrate (nginx in
# a network namespace behind a shaped veth: every connection shares it); GStreamer's own playbin
# opening the same remote playlist, side by side. Needs root for the namespace.
#
#   bench/watch-stream.sh             3 rounds, a 60 s 720p H.264 + AAC presentation, 2 s segments
#   ROUNDS=5 SEEK=0.8 bench/watch-stream.sh
#   KINDS=dash bench/watch-stream.sh  one kind only
#
# Each round, for HLS (fMP4 segments, ffmpeg's HLS muxer) and DASH (SegmentTimeline, ffmpeg's
# DASH muxer):
#   fetchplay   `fetchplay --play URL` under Xvfb with FETCHPLAY_WATCH_BENCH=SEEK (the probe of
#               bench/watch.sh): from the process's start to the first frame shown; a second later
#               a seek to SEEK of the duration, timed until a frame from there is shown.
#   playbin     `gst-launch-1.0 playbin uri=URL` with fake sinks that end at their first buffer:
#               from the process's start to its end (GStreamer reading the playlist itself,
#               showing nothing and saving nothing).
#
# Targets of issue 37: first frame ≤ 1.5 s and ≤ playbin + 0.3 s; after the seek, ≤ 2 s.
# Medians go to bench/results/watch-stream.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/watch-stream.sh"
for var in ROUNDS SEEK SECONDS_LONG KINDS; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
ROUNDS=${ROUNDS:-3}
SEEK=${SEEK:-0.8}
SECONDS_LONG=${SECONDS_LONG:-60}
RESULTS="$BENCH_DIR/results/watch-stream.md"

bench_ensure gst-launch-1.0=gstreamer1.0-tools xvfb-run=xvfb xauth=xauth nginx=nginx-light ffmpeg=ffmpeg bc=bc \
    ip=iproute2 tc=iproute2
bench_begin
SITE="$BENCH_TMP/site"
bench_site "$SITE"
source=(-f lavfi -i "testsrc2=size=1280x720:rate=30:duration=$SECONDS_LONG"
        -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$SECONDS_LONG"
        -c:v libx264 -preset veryfast -b:v 2000k -maxrate 2000k -bufsize 2000k -g 60 -keyint_min 60 -sc_threshold 0
        -c:a aac -b:a 128k)
log "making a ${SECONDS_LONG} s 720p HLS (fMP4) and DASH presentation"
mkdir -p "$SITE/hls" "$SITE/dash"
ffmpeg -nostdin -loglevel error "${source[@]}" -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_type fmp4 \
    -hls_segment_filename "$SITE/hls/seg%05d.m4s" "$SITE/hls/index.m3u8" || die "ffmpeg could not make the HLS presentation"
ffmpeg -nostdin -loglevel error "${source[@]}" -f dash -seg_duration 2 -use_template 1 -use_timeline 1 \
    "$SITE/dash/index.mpd" || die "ffmpeg could not make the DASH presentation"
chmod -R a+rX "$SITE"
size=$(du -sb "$SITE/hls" | cut -f1)
bitrate=$((size / SECONDS_LONG))
limit=$((bitrate * 2))
line_start "$limit"
nginx_start "$SITE"
log "presentation: about $((bitrate * 8 / 1000)) kbit/s; the line $((limit / 1024)) KiB/s"

since() { printf '%.3f' "$(echo "$(date +%s.%N) - $1" | bc -l)"; }
raw="$BENCH_TMP/raw.tsv"
: >"$raw"
for round in $(seq "$ROUNDS"); do
    for kind in ${KINDS:-hls dash}; do
        url="$NGINX_URL/$kind/index.$([[ $kind == hls ]] && echo m3u8 || echo mpd)"
        log "round $round, $kind (load $(loadavg))"
        out="$BENCH_TMP/fetchplay-$kind-$round.out"
        watch_play "$out" "$BENCH_TMP/cache-$kind-$round" "$url"
        first=$(watch_field first_frame_s); seek=$(watch_field seek_frame_s)

        start=$(date +%s.%N)
        timeout 60 gst-launch-1.0 -q playbin uri="$url" video-sink="fakesink num-buffers=1" \
            audio-sink="fakesink num-buffers=1" >/dev/null 2>&1 || die "playbin could not play $url"
        playbin=$(since "$start")
        printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$round" "$first" "$seek" "$playbin" >>"$raw"
        log "  fetchplay first frame $first s, after the seek to $SEEK: $seek s; playbin first buffers: $playbin s"
        rm -rf "$BENCH_TMP/cache-$kind-$round"
    done
done

col() { awk -F'\t' -v k="$1" -v c="$2" '$1 == k { print $c }' "$raw" | median; }
verdict() { if [[ $(echo "$1 <= $2" | bc -l) == 1 ]]; then echo "met"; else echo "**missed**"; fi; }
{
    echo "# Watching HLS and DASH while they download"
    echo
    echo "Command: \`$command_line\` — $(date -u +%Y-%m-%d), $ROUNDS rounds, medians."
    echo "$(machine_line)"
    echo
    echo "A ${SECONDS_LONG} s 720p30 H.264 + AAC presentation in 2 s segments (about $((bitrate * 8 / 1000)) kbit/s), as HLS"
    echo "with fMP4 segments and as DASH with a SegmentTimeline, from nginx behind a line of twice the"
    echo "bitrate ($((limit / 1024)) KiB/s, tc's token bucket on a veth, shared by every connection)."
    echo "Fetchplay: \`--play URL\` in the window under"
    echo "Xvfb (\`GSK_RENDERER=gl\`), timed from the process's start; the seek goes to ${SEEK} of the"
    echo "duration one second after the first frame. playbin: \`gst-launch-1.0 playbin\` on the same"
    echo "link, ending at its first video and audio buffers (nothing shown, nothing saved)."
    echo
    echo "| | HLS | DASH | target |"
    echo "|---|---:|---:|---|"
    for row in "fetchplay: first frame:3" "fetchplay: first frame after the seek to $SEEK:4" "playbin: first buffers:5"; do
        name=${row%:*} c=${row##*:}
        h=$(col hls "$c") d=$(col dash "$c")
        case $c in
            3) target="≤ 1.5 s and ≤ playbin + 0.3 s: HLS $(verdict "$h" "$(echo "if ($(col hls 5) + 0.3 < 1.5) $(col hls 5) + 0.3 else 1.5" | bc -l)"), DASH $(verdict "$d" "$(echo "if ($(col dash 5) + 0.3 < 1.5) $(col dash 5) + 0.3 else 1.5" | bc -l)")" ;;
            4) target="≤ 2 s: HLS $(verdict "$h" 2), DASH $(verdict "$d" 2)" ;;
            *) target="" ;;
        esac
        printf '| %s | %.2f | %.2f | %s |\n' "$name" "$h" "$d" "$target"
    done
    echo
    echo "Raw rounds (kind, round, first frame s, seek s, playbin s):"
    echo
    echo '```'
    cat "$raw"
    echo '```'
} >"$RESULTS"
log "results in ${RESULTS#"$REPO_DIR"/}"
cat "$RESULTS"
