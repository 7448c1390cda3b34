#!/usr/bin/env bash
# DASH: fetchplay against `ffmpeg -i URL -c copy` and yt-dlp (`-N 4`), one 60 s presentation in
# three video Representations and an audio one, from nginx on loopback throttled per connection
# as many hosts are, each tool saving the best video and the audio as one MP4.
#
#   bench/dash.sh                          3 rounds, SegmentTimeline, 2 MB/s per connection
#   ROUNDS=5 SECONDS_LONG=30 bench/dash.sh
#   NGINX_LIMIT_RATE=0 bench/dash.sh       unthrottled (nginx: 0 is no limit)
#   LAYOUT=number bench/dash.sh            $Number$ with a fixed duration (-use_timeline 0)
#   LAYOUT=single bench/dash.sh            one file per Representation, a SegmentList of byte ranges
#
# The presentation is made once by ffmpeg's DASH muxer: its moving test pattern and a tone,
# H.264 (x264 ultrafast) at 1080p / 720p / 360p (5 / 2.5 / 0.8 Mbit/s) and AAC, 4 s segments.
# Every tool reads the manifest, picks 1080p and the audio, fetches their segments and writes
# one MP4:
#
#   fetchplay  --download URL          segments through its engine, 4 at once, each fsynced;
#                                      GStreamer remux (mp4mux faststart)
#   yt-dlp -N 4                        video and audio 4 segments at once, then ffmpeg's merge
#   ffmpeg     -i URL -c copy out.mp4  its DASH demuxer and mp4 muxer, one request at a time
#   ffmpeg+sync  the same, then `sync out.mp4`: the flush to disk fetchplay always pays
#
# Rounds rotate the order; wall time, CPU (user + sys, children included) and peak RSS from GNU
# time; medians. Between runs (untimed) the output is deleted and `sync` flushes dirty pages.
# Each tool's file is checked once with gst-discoverer-1.0: 1080 lines, an audio stream, its
# duration. yt-dlp comes from PyPI into a virtualenv under .build-bench (a bench tool, not a
# dependency).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/dash.sh"
for var in ROUNDS SECONDS_LONG LAYOUT NGINX_LIMIT_RATE; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
ROUNDS=${ROUNDS:-3}
SECONDS_LONG=${SECONDS_LONG:-60}
LAYOUT=${LAYOUT:-timeline}
export NGINX_LIMIT_RATE=${NGINX_LIMIT_RATE:-2m}
case $LAYOUT in
    timeline) RESULTS="$BENCH_DIR/results/dash.md"; layout=(-use_template 1 -use_timeline 1) ;;
    number) RESULTS="$BENCH_DIR/results/dash-number.md"; layout=(-use_template 1 -use_timeline 0) ;;
    single) RESULTS="$BENCH_DIR/results/dash-single.md"; layout=(-single_file 1) ;;
    *) die "LAYOUT is timeline, number or single, not '$LAYOUT'" ;;
esac
TOOLS=(fetchplay yt-dlp-N4 ffmpeg ffmpeg+sync)

bench_ensure nginx=nginx ffmpeg=ffmpeg /usr/bin/time=time gst-discoverer-1.0=gstreamer1.0-plugins-base-apps python3=python3
"$REPO_DIR/scripts/install-deps"
bench_ytdlp
bench_begin

site="$BENCH_TMP/site"
bench_site "$site"
log "making a ${SECONDS_LONG} s DASH presentation ($LAYOUT) in three video Representations"
timeout 1800 ffmpeg -nostdin -loglevel error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$SECONDS_LONG" \
    -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$SECONDS_LONG" \
    -map 0:v -map 0:v -map 0:v -map 1:a -c:v libx264 -preset ultrafast -tune zerolatency -g 60 -keyint_min 60 -sc_threshold 0 \
    -s:v:0 1920x1080 -b:v:0 5000k -s:v:1 1280x720 -b:v:1 2500k -s:v:2 640x360 -b:v:2 800k \
    -c:a aac -b:a 128k -ac 2 -adaptation_sets "id=0,streams=v id=1,streams=a" \
    -f dash -seg_duration 4 "${layout[@]}" "$site/index.mpd" || die "ffmpeg could not make the presentation"
chmod -R a+rX "$site"
site_mib=$(du -sm "$site" | cut -f1)
nginx_start "$site"
URL="$NGINX_URL/index.mpd"
log "nginx on $NGINX_URL (limit_rate $NGINX_LIMIT_RATE per connection): $site_mib MiB in all Representations"
# Warm-up (untimed): every file in the page cache.
cat "$site"/* >/dev/null
sync

raw="$BENCH_TMP/raw.tsv"
: >"$raw"
declare -A verified failed
load_before=$(loadavg)
started=$(date +%s)

run_one() {
    local tool=$1 round=$2 out="$BENCH_TMP/out"
    rm -rf "$out"
    mkdir -p "$out"
    local cmd got="$out/video.mp4"
    case $tool in
        fetchplay) cmd=("$FETCHPLAY" --download "$URL" --cache-dir "$out/cache") ;;
        # Best video and best audio, each fetched 4 segments at once, merged by ffmpeg into MP4.
        yt-dlp-N4) cmd=("$YTDLP" -q --no-progress -N 4 --merge-output-format mp4 -o "$out/video.%(ext)s" "$URL") ;;
        ffmpeg) cmd=(ffmpeg -nostdin -loglevel error -i "$URL" -c copy "$got") ;;
        # ffmpeg paying the final flush to disk that fetchplay always pays (it also syncs each segment).
        ffmpeg+sync) cmd=(sh -c 'ffmpeg -nostdin -loglevel error -i "$1" -c copy "$2" && sync "$2"' sh "$URL" "$got") ;;
    esac
    if ! /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/time" "${cmd[@]}" >"$BENCH_TMP/stdout" 2>"$BENCH_TMP/stderr"; then
        # Recorded, not fatal: the table says which tool cannot save this layout, and why.
        failed[$tool]=$(grep -v '^Command exited' "$BENCH_TMP/stderr" | grep -i 'error' | tail -n 1 | cut -c1-160)
        log "round $round  $tool failed: ${failed[$tool]}"
        rm -rf "$out"
        return 0
    fi
    local wall user sys rss
    read -r wall user sys rss < <(tail -n 1 "$BENCH_TMP/time")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$round" "$wall" "$user" "$sys" "$rss" >>"$raw"
    log "$(awk -v r="$round" -v t="$tool" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" \
        'BEGIN { printf "round %d  %-10s wall %6.2f s  cpu %6.2f s  rss %7.1f MiB", r, t, w, u + s, m / 1024 }')"
    if [[ -z ${verified[$tool]:-} ]]; then
        [[ $tool == fetchplay ]] && got=$(tail -n 1 "$BENCH_TMP/stdout")
        [[ -f $got ]] || die "$tool: no file at '$got'"
        local probe duration height
        probe=$(gst-discoverer-1.0 "$got")
        duration=$(sed -n 's/^ *Duration: //p' <<<"$probe" | head -n 1)
        height=$(sed -n 's/^ *Height: //p' <<<"$probe" | head -n 1)
        [[ $height == 1080 ]] || die "$tool: height $height, not 1080"
        grep -q '^ *audio #' <<<"$probe" || die "$tool: no audio stream"
        verified[$tool]="$duration"
    fi
    rm -rf "$out"
    sync
}

for round in $(seq "$ROUNDS"); do
    n=${#TOOLS[@]}
    for i in $(seq 0 $((n - 1))); do
        tool=${TOOLS[$(((i + round - 1) % n))]}
        [[ -n ${failed[$tool]:-} ]] || run_one "$tool" "$round"
    done
done
elapsed=$(($(date +%s) - started))
load_after=$(loadavg)
nginx_stop

median_of() {
    awk -F'\t' -v t="$1" -v c="$2" '$1 == t {
        if (c == "wall") print $3; else if (c == "cpu") print $4 + $5; else print $6 / 1024 }' "$raw" | median
}
declare -A med
for tool in "${TOOLS[@]}"; do
    for c in wall cpu rss; do med[$tool.$c]=$(median_of "$tool" "$c"); done
done
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? "met" : "**missed**" }'; }

mkdir -p "$(dirname "$RESULTS")"
{
    echo "# DASH benchmark ($LAYOUT): fetchplay against ffmpeg and yt-dlp on a throttled server"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(machine_line)"
    echo "- Command: \`$command_line\` (from the repository root; fetchplay built with"
    echo "  \`$BENCH_BUILD_COMMAND\`)"
    echo "- Presentation: ${SECONDS_LONG} s, video 1080p / 720p / 360p (H.264 ultrafast at 5 / 2.5 / 0.8 Mbit/s) and"
    echo "  AAC 128 kbit/s, 4 s segments, made by ffmpeg's DASH muxer (\`${layout[*]}\`); $site_mib MiB in all."
    echo "- Server: nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1, files in the page cache,"
    echo "  \`limit_rate $NGINX_LIMIT_RATE\` per connection."
    echo "- Tools: fetchplay $("$FETCHPLAY" --version | cut -d' ' -f2), yt-dlp $("$YTDLP" --version),"
    echo "  $(ffmpeg -version | head -n 1 | cut -d' ' -f1-3)."
    echo "- $ROUNDS rounds, the order rotating; medians. Wall, CPU (user + sys, children included) and peak"
    echo "  RSS from \`/usr/bin/time -f '%e %U %S %M'\`. Untimed between runs: output deleted, \`sync\`."
    echo "- Load average before / after: $load_before / $load_after; the runs took ${elapsed} s."
    echo "- Every tool's MP4 was checked once with gst-discoverer-1.0: 1080 lines and an audio stream; durations"
    for tool in "${TOOLS[@]}"; do echo "  $tool ${verified[$tool]:-(no file: ${failed[$tool]:-})}"; done
    echo
    echo "| tool | wall s | CPU s | peak RSS MiB | wall vs fetchplay | CPU vs fetchplay |"
    echo "|---|---:|---:|---:|---:|---:|"
    for tool in "${TOOLS[@]}"; do
        if [[ -n ${failed[$tool]:-} ]]; then echo "| $tool | failed | | | | |"; continue; fi
        echo "| $tool | $(fmt "${med[$tool.wall]}") | $(fmt "${med[$tool.cpu]}") | $(fmt "${med[$tool.rss]}" 1) | $(ratio "${med[$tool.wall]}" "${med[fetchplay.wall]}") | $(ratio "${med[$tool.cpu]}" "${med[fetchplay.cpu]}") |"
    done
    echo
    echo "## Target: at least as fast as the tools people would pick"
    echo
    echo "| against | fetchplay wall | theirs | verdict |"
    echo "|---|---:|---:|---|"
    for tool in yt-dlp-N4 ffmpeg ffmpeg+sync; do
        if [[ -n ${failed[$tool]:-} ]]; then echo "| $tool | $(fmt "${med[fetchplay.wall]}") | failed | met |"; continue; fi
        echo "| $tool | $(fmt "${med[fetchplay.wall]}") | $(fmt "${med[$tool.wall]}") | $(verdict "${med[fetchplay.wall]}" "${med[$tool.wall]}") |"
    done
    echo
    echo "<details><summary>Every run (wall s, user s, sys s, peak RSS KiB)</summary>"
    echo
    echo "| round | tool | wall | user | sys | max RSS KiB |"
    echo "|---:|---|---:|---:|---:|---:|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $2, $1, $3, $4, $5, $6 }' "$raw"
    echo
    echo "</details>"
} >"$RESULTS.new"
publish_results
log "results: bench/results/$(basename "$RESULTS")"
sed -n '/^| tool/,/^$/p;/^## Target/,/^$/p;/^| against/,/^$/p' "$RESULTS" >&2
