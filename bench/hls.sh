#!/usr/bin/env bash
# HLS: fetchplay against yt-dlp (its native HLS downloader) and `ffmpeg -c copy`, one 60 s
# three-variant presentation from nginx on loopback, each tool saving the best variant as MP4.
#
#   bench/hls.sh                 5 rounds
#   ROUNDS=3 SECONDS_LONG=30 bench/hls.sh
#   FORMAT=fmp4 bench/hls.sh     fragmented-MP4 segments (CMAF-style) instead; results in hls-fmp4.md
#
# The presentation is made once with GStreamer: SMPTE bars with a moving pattern and a tone,
# H.264 (x264) and AAC in MPEG-TS, 4 s segments, variants 360p / 720p / 1080p under a master
# playlist. With FORMAT=fmp4, by ffmpeg's HLS muxer instead (`-hls_segment_type fmp4`): its
# moving test pattern and a tone, H.264 (x264) and AAC in one fragmented-MP4 stream behind an
# EXT-X-MAP init section, 4 s .m4s segments, the same variants. Every tool reads the master, picks 1080p, fetches its segments and writes one MP4:
#
#   fetchplay  --download URL                      segments through its engine, 4 at once, each
#                                                  fsynced; GStreamer remux (mp4mux faststart)
#   yt-dlp     --downloader m3u8:native            one segment at a time, then ffmpeg's fixup
#                                                  into MP4 (aac_adtstoasc); its default
#   yt-dlp -N 4                                    the same with 4 segments at once
#   ffmpeg     -i URL -c copy out.mp4              its HLS demuxer and mp4 muxer, no re-encoding
#   ffmpeg+sync  the same, then `sync out.mp4`: the flush to disk fetchplay always pays
#
# Rounds rotate the order; wall time, CPU (user + sys, children included) and peak RSS from GNU
# time; medians. Between runs (untimed) the output is deleted and `sync` flushes dirty pages.
# Each tool's file is checked once with gst-discoverer-1.0: 1080 lines, the right duration.
# yt-dlp comes from PyPI into a virtualenv under .build-bench (a bench tool, not a dependency).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/hls.sh"
for var in ROUNDS SECONDS_LONG FORMAT; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
ROUNDS=${ROUNDS:-5}
SECONDS_LONG=${SECONDS_LONG:-60}
FORMAT=${FORMAT:-ts}
case $FORMAT in
    ts) RESULTS="$BENCH_DIR/results/hls.md" ;;
    fmp4) RESULTS="$BENCH_DIR/results/hls-fmp4.md" ;;
    *) die "FORMAT is ts or fmp4, not '$FORMAT'" ;;
esac
TOOLS=(fetchplay yt-dlp yt-dlp-N4 ffmpeg ffmpeg+sync)

bench_ensure nginx=nginx ffmpeg=ffmpeg /usr/bin/time=time gst-launch-1.0=gstreamer1.0-tools \
    gst-discoverer-1.0=gstreamer1.0-plugins-base-apps python3=python3
"$REPO_DIR/scripts/install-deps"
bench_ytdlp
bench_begin

site="$BENCH_TMP/site"
bench_site "$site"
log "making a ${SECONDS_LONG} s HLS presentation in three variants"
frames=$((SECONDS_LONG * 30))
declare -A bandwidth
for variant in 640x360:800 1280x720:2500 1920x1080:5000; do
    size=${variant%%:*} kbps=${variant##*:}
    w=${size%x*} h=${size#*x}
    mkdir -p "$site/v$h"
    if [[ $FORMAT == fmp4 ]]; then
        timeout 900 ffmpeg -nostdin -loglevel error -f lavfi -i "testsrc2=size=${w}x$h:rate=30:duration=$SECONDS_LONG" \
            -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$SECONDS_LONG" -ac 2 \
            -c:v libx264 -preset ultrafast -tune zerolatency -b:v "${kbps}k" -g 60 -keyint_min 60 -sc_threshold 0 \
            -c:a aac -b:a 128k -f hls -hls_time 4 -hls_playlist_type vod -hls_segment_type fmp4 \
            -hls_segment_filename "$site/v$h/seg%05d.m4s" "$site/v$h/index.m3u8" \
            || die "ffmpeg could not make the $size variant"
        bandwidth[$h]=$((kbps * 1100))
        continue
    fi
    # Unbounded queues: hlssink2's splitmuxsink otherwise can starve one stream and hang. Even
    # so GStreamer 1.22 sometimes never exits after the last segment (about one run in four
    # here): the playlist's #EXT-X-ENDLIST is what says the variant is whole, as in the tests.
    gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=smpte horizontal-speed=4 \
        ! "video/x-raw,width=$w,height=$h,framerate=30/1" \
        ! x264enc speed-preset=ultrafast tune=zerolatency bitrate="$kbps" key-int-max=60 ! h264parse \
        ! queue max-size-time=0 max-size-buffers=0 max-size-bytes=0 \
        ! hlssink2 name=h target-duration=4 max-files=0 playlist-length=0 \
            location="$site/v$h/seg%05d.ts" playlist-location="$site/v$h/index.m3u8" \
        audiotestsrc num-buffers=$((SECONDS_LONG * 100)) samplesperbuffer=441 ! audio/x-raw,rate=44100,channels=2 \
        ! avenc_aac ! aacparse ! queue max-size-time=0 max-size-buffers=0 max-size-bytes=0 ! h.audio </dev/null &
    maker=$!
    for ((tenths = 0; tenths < 6000; tenths++)); do
        grep -q '#EXT-X-ENDLIST' "$site/v$h/index.m3u8" 2>/dev/null && break
        kill -0 "$maker" 2>/dev/null || break
        sleep 0.1
    done
    kill "$maker" 2>/dev/null || true
    wait "$maker" 2>/dev/null || true
    grep -q '#EXT-X-ENDLIST' "$site/v$h/index.m3u8" 2>/dev/null || die "gst-launch-1.0 could not make the $size variant"
    bandwidth[$h]=$((kbps * 1100))
done
cat >"$site/master.m3u8" <<M3U8
#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=${bandwidth[360]},RESOLUTION=640x360,CODECS="avc1.42c01e,mp4a.40.2"
v360/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=${bandwidth[720]},RESOLUTION=1280x720,CODECS="avc1.42c01f,mp4a.40.2"
v720/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=${bandwidth[1080]},RESOLUTION=1920x1080,CODECS="avc1.42c028,mp4a.40.2"
v1080/index.m3u8
M3U8
chmod -R a+rX "$site"
segments=$(grep -vc '^#' "$site/v1080/index.m3u8")
best_mib=$(du -sm "$site/v1080" | cut -f1)
nginx_start "$site"
URL="$NGINX_URL/master.m3u8"
log "nginx on $NGINX_URL: $segments segments, $best_mib MiB in the 1080p variant"
# Warm-up (untimed): every file in the page cache.
cat "$site"/*/* >/dev/null
sync

raw="$BENCH_TMP/raw.tsv"
: >"$raw"
declare -A verified
load_before=$(loadavg)
started=$(date +%s)

run_one() {
    local tool=$1 round=$2 out="$BENCH_TMP/out"
    rm -rf "$out"
    mkdir -p "$out"
    local cmd got="$out/video.mp4"
    case $tool in
        fetchplay) cmd=("$FETCHPLAY" --download "$URL" --cache-dir "$out/cache") ;;
        yt-dlp) cmd=("$YTDLP" -q --no-progress --downloader m3u8:native -o "$got" "$URL") ;;
        yt-dlp-N4) cmd=("$YTDLP" -q --no-progress --downloader m3u8:native -N 4 -o "$got" "$URL") ;;
        ffmpeg) cmd=(ffmpeg -nostdin -loglevel error -i "$URL" -c copy "$got") ;;
        # ffmpeg paying the final flush to disk that fetchplay always pays (it also syncs each segment).
        ffmpeg+sync) cmd=(sh -c 'ffmpeg -nostdin -loglevel error -i "$1" -c copy "$2" && sync "$2"' sh "$URL" "$got") ;;
    esac
    if ! /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/time" "${cmd[@]}" >"$BENCH_TMP/stdout" 2>"$BENCH_TMP/stderr"; then
        cat "$BENCH_TMP/stderr" >&2
        die "$tool failed"
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
        verified[$tool]="$duration"
    fi
    rm -rf "$out"
    sync
}

for round in $(seq "$ROUNDS"); do
    n=${#TOOLS[@]}
    for i in $(seq 0 $((n - 1))); do
        run_one "${TOOLS[$(((i + round - 1) % n))]}" "$round"
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
    echo "# HLS benchmark ($([[ $FORMAT == fmp4 ]] && echo "fragmented MP4" || echo "MPEG-TS")): fetchplay against yt-dlp and ffmpeg"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(machine_line)"
    echo "- Command: \`$command_line\` (from the repository root; fetchplay built with"
    echo "  \`$BENCH_BUILD_COMMAND\`)"
    echo "- Presentation: ${SECONDS_LONG} s, 360p / 720p / 1080p (H.264 ultrafast at 0.8 / 2.5 / 5 Mbit/s, AAC),"
    if [[ $FORMAT == fmp4 ]]; then
        echo "  4 s fragmented-MP4 segments (video and audio in one stream, an EXT-X-MAP init section) made by"
        echo "  ffmpeg's HLS muxer; the 1080p variant is $segments segments and its init section, $best_mib MiB."
    else
        echo "  4 s MPEG-TS segments made by hlssink2; the 1080p variant is $segments segments, $best_mib MiB."
    fi
    echo "- Server: nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1, files in the page cache."
    echo "- Tools: fetchplay $("$FETCHPLAY" --version | cut -d' ' -f2), yt-dlp $("$YTDLP" --version),"
    echo "  $(ffmpeg -version | head -n 1 | cut -d' ' -f1-3)."
    echo "- $ROUNDS rounds, the order rotating; medians. Wall, CPU (user + sys, children included) and peak"
    echo "  RSS from \`/usr/bin/time -f '%e %U %S %M'\`. Untimed between runs: output deleted, \`sync\`."
    echo "- Load average before / after: $load_before / $load_after; the runs took ${elapsed} s."
    echo "- Every tool's MP4 was checked once with gst-discoverer-1.0: 1080 lines; durations"
    for tool in "${TOOLS[@]}"; do echo "  $tool ${verified[$tool]}"; done
    echo
    echo "| tool | wall s | CPU s | peak RSS MiB | wall vs fetchplay | CPU vs fetchplay |"
    echo "|---|---:|---:|---:|---:|---:|"
    for tool in "${TOOLS[@]}"; do
        echo "| $tool | $(fmt "${med[$tool.wall]}") | $(fmt "${med[$tool.cpu]}") | $(fmt "${med[$tool.rss]}" 1) | $(ratio "${med[$tool.wall]}" "${med[fetchplay.wall]}") | $(ratio "${med[$tool.cpu]}" "${med[fetchplay.cpu]}") |"
    done
    echo
    echo "## Target (issues 13, and 25 for fragmented MP4): at least as fast as yt-dlp and ffmpeg"
    echo
    echo "| against | fetchplay wall | theirs | verdict |"
    echo "|---|---:|---:|---|"
    for tool in yt-dlp yt-dlp-N4 ffmpeg ffmpeg+sync; do
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
