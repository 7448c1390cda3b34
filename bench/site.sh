#!/usr/bin/env bash
# Site support (issue 38, its Speed part): pages only yt-dlp reads, yt-dlp finding the media and
# Fetchplay's engine fetching it, against yt-dlp fetching it itself, on nginx with
# `limit_rate 4m` per connection (as many hosts and CDNs do).
#
#   bench/site.sh                       3 rounds
#   ROUNDS=5 MIB=128 ENTRIES=500 bench/site.sh
#
# The video is a real MP4 made once by ffmpeg (32 s of 1080p30 H.264 with noise, AAC, about MIB
# MiB, `+faststart`), and the same streams cut by ffmpeg's DASH muxer (`-seg_duration 2`,
# SegmentTemplate with a SegmentTimeline, video and audio apart). Two pages name them only in a
# JW Player setup script, which Fetchplay's page scanner cannot read and yt-dlp's generic
# extractor can: one as DASH (`"type": "dash"`), one as a progressive file (`"type": "mp4"`).
#
#   fetchplay   fetchplay --download PAGE, its defaults: yt-dlp (the bench's, on PATH) reads the
#               page, the engine fetches (a file: 4 connections, up to 8; DASH: 4 segments at
#               once, joined by the remux)
#   yt-dlp      yt-dlp PAGE, its defaults (one connection; DASH one fragment at a time, then
#               ffmpeg merges)
#   yt-dlp-N4   yt-dlp -N 4 PAGE (4 fragments at once; a progressive file has none)
#
# Then a flat playlist: an RSS feed of ENTRIES player pages, listed by `fetchplay --list-videos
# FEED` and by `yt-dlp --flat-playlist -J FEED` (the anchor), on nginx without a limit.
#
# Every run must exit 0; a progressive file must have the served file's SHA-256, a DASH one a
# video and an audio stream of the right length (ffprobe). Rounds rotate the order; wall time
# from the shell's clock; medians. Between runs (untimed) the output is deleted and `sync` run.
# yt-dlp comes from PyPI into .build-bench/venv (a bench tool, not a dependency); Fetchplay runs
# with an empty XDG_DATA_HOME, so it finds that same yt-dlp on PATH.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/site.sh"
for var in ROUNDS MIB ENTRIES; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
ROUNDS=${ROUNDS:-3}
MIB=${MIB:-64}
ENTRIES=${ENTRIES:-200}
RATE=4m
SECONDS_LONG=32
RESULTS="$BENCH_DIR/results/site.md"
TOOLS=(fetchplay yt-dlp yt-dlp-N4)
PAGES=(dash file)

bench_ensure nginx=nginx ffmpeg=ffmpeg ffprobe=ffmpeg /usr/bin/time=time sha256sum=coreutils python3=python3
"$REPO_DIR/scripts/install-deps"
bench_ytdlp
bench_begin

site="$BENCH_TMP/site"
bench_site "$site"
mkdir -p "$site/watch" "$site/media" "$site/dash"
media="$site/media/a-test-clip"
log "making the video: ${SECONDS_LONG} s of 1080p30 H.264 and AAC, about $MIB MiB, and its DASH cut"
video_bits=$((MIB * 8 * 1024 * 1024 / SECONDS_LONG - 128000))
timeout 900 ffmpeg -nostdin -loglevel error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$SECONDS_LONG" \
    -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$SECONDS_LONG" -vf "noise=alls=12:allf=t" \
    -c:v libx264 -preset ultrafast -b:v "$video_bits" -maxrate "$video_bits" -bufsize "$video_bits" -g 60 \
    -pix_fmt yuv420p -c:a aac -b:a 128k -ac 2 -movflags +faststart -f mp4 "$media" \
    || die "ffmpeg could not make the video"
ffmpeg -nostdin -loglevel error -i "$media" -map 0:v -map 0:a -c copy -f dash -seg_duration 2 \
    -use_template 1 -use_timeline 1 "$site/dash/index.mpd" || die "ffmpeg could not cut the DASH presentation"
media_bytes=$(stat -c %s "$media")
media_sha=$(sha256sum "$media" | cut -d' ' -f1)
media_mib=$(awk -v b="$media_bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
dash_pieces=$(find "$site/dash" -name '*.m4s' | wc -l)

# player_page FILE TYPE TITLE: a page whose video only its player script names.
player_page() {
    printf '<!DOCTYPE html>\n<html><head><title>%s | The Bench Times</title></head><body>\n' "$3"
    printf '<div id="player"></div>\n<script src="/static/jwplayer.js"></script>\n'
    printf '<script>jwplayer("player").setup({"file": "%s", "title": "%s", "type": "%s"});</script>\n' "$1" "$3" "$2"
    printf '</body></html>\n'
}
player_page /dash/index.mpd dash "A test clip" >"$site/watch/dash.html"
player_page /media/a-test-clip mp4 "A test clip" >"$site/watch/file.html"
chmod -R a+rX "$site"

export NGINX_TYPES='text/html html; application/dash+xml mpd; video/mp4 m4s; application/rss+xml xml;'
declare -A URL
NGINX_NAME=nginx-open NGINX_LIMIT_RATE="" NGINX_ACCESS_LOG="$BENCH_TMP/open.log" nginx_start "$site"
URL[open]=$NGINX_URL
OPEN_PID=$NGINX_PID
NGINX_NAME=nginx-limited NGINX_LIMIT_RATE=$RATE NGINX_ACCESS_LOG="$BENCH_TMP/limited.log" nginx_start "$site"
URL[limited]=$NGINX_URL
trap 'kill -TERM "$OPEN_PID" 2>/dev/null || true; wait "$OPEN_PID" 2>/dev/null || true; bench_cleanup' EXIT
log "nginx on ${URL[open]} (no limit) and ${URL[limited]} (limit_rate $RATE per connection)"

# The feed: ENTRIES player pages, as a channel's RSS lists its videos.
{
    printf '<?xml version="1.0"?>\n<rss version="2.0"><channel><title>The Bench Times videos</title><link>%s/</link>\n' "${URL[open]}"
    for i in $(seq "$ENTRIES"); do
        printf '<item><title>Clip %d</title><link>%s/watch/file.html?clip=%d</link><guid>clip-%d</guid></item>\n' \
            "$i" "${URL[open]}" "$i" "$i"
    done
    printf '</channel></rss>\n'
} >"$site/feed.xml"
chmod a+r "$site/feed.xml"

# Fetchplay asks the bench's yt-dlp (on PATH), never a managed copy of this machine's user.
FETCHPLAY_ENV=(env "XDG_DATA_HOME=$BENCH_TMP/data" "PATH=$(dirname "$YTDLP"):$PATH")
cat "$media" "$site"/dash/* >/dev/null
sync

raw="$BENCH_TMP/raw.tsv"
: >"$raw"

# check_saved PAGE FILE: the file is the served one (progressive), or a video and an audio
# stream of the whole length (DASH).
check_saved() {
    if [[ $1 == file ]]; then
        [[ $(sha256sum "$2" | cut -d' ' -f1) == "$media_sha" ]] || die "the saved file is not the served one"
        return
    fi
    local streams duration
    streams=$(ffprobe -v error -show_entries stream=codec_type -of csv=p=0 "$2" | sort | tr '\n' ' ')
    duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$2")
    [[ $streams == "audio video " ]] || die "DASH saved with streams: $streams"
    awk -v d="$duration" -v s="$SECONDS_LONG" 'BEGIN { exit !(d > s - 1 && d < s + 1) }' || die "DASH saved $duration s long"
}

# run_one PAGE TOOL ROUND: one timed download, checked; one line of raw.tsv.
run_one() {
    local page=$1 tool=$2 round=$3 out="$BENCH_TMP/out" link="${URL[limited]}/watch/$1.html"
    rm -rf "$out"
    mkdir -p "$out"
    local cmd
    case $tool in
        fetchplay) cmd=("${FETCHPLAY_ENV[@]}" "$FETCHPLAY" --download "$link" --cache-dir "$out/cache") ;;
        yt-dlp) cmd=("$YTDLP" -q --no-progress -o "$out/video.%(ext)s" "$link") ;;
        yt-dlp-N4) cmd=("$YTDLP" -q --no-progress -N 4 -o "$out/video.%(ext)s" "$link") ;;
        *) die "no tool $tool" ;;
    esac
    local status=0 began ended got
    began=$EPOCHREALTIME
    /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/time" "${cmd[@]}" >"$BENCH_TMP/stdout" 2>"$BENCH_TMP/stderr" || status=$?
    ended=$EPOCHREALTIME
    if ((status != 0)); then
        cat "$BENCH_TMP/stderr" >&2
        die "$tool on the $page page exited with $status (round $round)"
    fi
    if [[ $tool == fetchplay ]]; then got=$(tail -n 1 "$BENCH_TMP/stdout"); else got=$(ls "$out"/video.* | head -n 1); fi
    [[ -f $got ]] || die "$tool: no file at '$got'"
    check_saved "$page" "$got"
    local wall user sys rss
    read -r wall user sys rss < <(tail -n 1 "$BENCH_TMP/time")
    wall=$(awk -v a="$began" -v b="$ended" 'BEGIN { printf "%.3f", b - a }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$page" "$tool" "$round" "$wall" "$user" "$sys" "$rss" >>"$raw"
    log "$(printf '%-4s round %2d  %-10s wall %7.3f s' "$page" "$round" "$tool" "$wall")"
    rm -rf "$out"
    sync
}

# list_one TOOL ROUND: the feed listed flat, checked (ENTRIES entries); one line of raw.tsv.
list_one() {
    local tool=$1 round=$2 feed="${URL[open]}/feed.xml" cmd count began ended
    case $tool in
        fetchplay) cmd=("${FETCHPLAY_ENV[@]}" "$FETCHPLAY" --list-videos "$feed" --cache-dir "$BENCH_TMP/list-cache") ;;
        yt-dlp) cmd=("$YTDLP" --no-warnings --flat-playlist -J "$feed") ;;
    esac
    began=$EPOCHREALTIME
    "${cmd[@]}" >"$BENCH_TMP/stdout" 2>"$BENCH_TMP/stderr" || { cat "$BENCH_TMP/stderr" >&2; die "$tool could not list the feed"; }
    ended=$EPOCHREALTIME
    if [[ $tool == fetchplay ]]; then
        count=$(wc -l <"$BENCH_TMP/stdout")
    else
        count=$(python3 -c 'import json, sys; print(len(json.load(sys.stdin)["entries"]))' <"$BENCH_TMP/stdout")
    fi
    ((count == ENTRIES)) || die "$tool listed $count entries, not $ENTRIES"
    printf 'list\t%s\t%s\t%s\t0\t0\t0\n' "$tool" "$round" "$(awk -v a="$began" -v b="$ended" 'BEGIN { printf "%.3f", b - a }')" >>"$raw"
    log "$(printf 'list round %2d  %-10s wall %7.3f s' "$round" "$tool" "$(tail -n 1 "$raw" | cut -f4)")"
}

load_before=$(loadavg)
started=$(date +%s)
for round in $(seq "$ROUNDS"); do
    for page in "${PAGES[@]}"; do
        n=${#TOOLS[@]}
        for i in $(seq 0 $((n - 1))); do run_one "$page" "${TOOLS[$(((i + round - 1) % n))]}" "$round"; done
    done
    list_one fetchplay "$round"
    list_one yt-dlp "$round"
done
elapsed=$(($(date +%s) - started))
load_after=$(loadavg)

median_of() { awk -F'\t' -v p="$1" -v t="$2" -v c="$3" '$1 == p && $2 == t {
    if (c == "wall") print $4; else if (c == "cpu") print $5 + $6; else if (c == "rss") print $7 / 1024 }' "$raw" | median; }
spread() { awk -F'\t' -v p="$1" -v t="$2" '$1 == p && $2 == t { v = $4; if (n++ == 0 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
    END { printf "%.2f–%.2f", lo, hi }' "$raw"; }
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? "met" : "**missed**" }'; }

mkdir -p "$(dirname "$RESULTS")"
{
    echo "# Site support: yt-dlp finds, Fetchplay fetches; against yt-dlp fetching itself"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(machine_line)"
    echo "- Command: \`$command_line\` (from the repository root; fetchplay built with \`$BENCH_BUILD_COMMAND\`)"
    echo "- The video: $media_mib MiB ($media_bytes bytes), ${SECONDS_LONG} s of 1080p30 H.264 and AAC, \`+faststart\`; its"
    echo "  DASH cut: $dash_pieces pieces of 2 s, video and audio apart (ffmpeg's DASH muxer, SegmentTimeline)."
    echo "- Two pages name them only in a JW Player setup script (the scanner finds nothing; yt-dlp's generic"
    echo "  extractor reads them): as DASH, and as a progressive file. nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1,"
    echo "  files in the page cache, \`limit_rate $RATE\` per connection; the feed from one without a limit."
    echo "- Tools: fetchplay $("$FETCHPLAY" --version | cut -d' ' -f2) (its defaults, asking the same yt-dlp), yt-dlp $("$YTDLP" --version)"
    echo "  (its defaults, and \`-N 4\`; it merges DASH video and audio with ffmpeg)."
    echo "- $ROUNDS rounds, the order rotating; medians. Load average before / after: $load_before / $load_after; ${elapsed} s."
    echo "- Every run exited 0; every progressive file had the served file's SHA-256, every DASH one a video and"
    echo "  an audio stream of ${SECONDS_LONG} s."
    echo
    echo "| page | tool | wall s (min–max) | CPU s | peak RSS MiB | MiB/s | wall vs fetchplay |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    for page in "${PAGES[@]}"; do for tool in "${TOOLS[@]}"; do
        w=$(median_of "$page" "$tool" wall)
        echo "| $page | $tool | $(fmt "$w" 2) ($(spread "$page" "$tool")) | $(fmt "$(median_of "$page" "$tool" cpu)") | $(fmt "$(median_of "$page" "$tool" rss)" 1) | $(awk -v b="$media_bytes" -v s="$w" 'BEGIN { printf "%.1f", b / 1048576 / s }') | $(ratio "$w" "$(median_of "$page" fetchplay wall)") |"
    done; done
    echo
    echo "| a flat playlist of $ENTRIES entries (RSS), listed | wall s (min–max) |"
    echo "|---|---:|"
    echo "| \`fetchplay --list-videos FEED\` | $(fmt "$(median_of list fetchplay wall)") ($(spread list fetchplay)) |"
    echo "| \`yt-dlp --flat-playlist -J FEED\` | $(fmt "$(median_of list yt-dlp wall)") ($(spread list yt-dlp)) |"
    echo
    echo "| target (issue 38) | measured | verdict |"
    echo "|---|---|---|"
    for page in "${PAGES[@]}"; do for tool in yt-dlp yt-dlp-N4; do
        echo "| $page: fetchplay faster than \`$tool\` | $(fmt "$(median_of "$page" fetchplay wall)") s against $(fmt "$(median_of "$page" "$tool" wall)") s | $(verdict "$(median_of "$page" fetchplay wall)" "$(median_of "$page" "$tool" wall)") |"
    done; done
    echo "| a flat playlist of $ENTRIES entries listed in under 5 s | $(fmt "$(median_of list fetchplay wall)") s | $(verdict "$(median_of list fetchplay wall)" 5) |"
    echo
    echo "<details><summary>Every run (seconds; RSS KiB)</summary>"
    echo
    echo "| page | tool | round | wall | user | sys | max RSS |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    awk -F'\t' '{ printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n" }' "$raw"
    echo
    echo "</details>"
} >"$RESULTS.new"
publish_results
log "results: bench/results/site.md"
sed -n '/^| page/,/^<details>/p' "$RESULTS" | sed '/<details>/d' >&2
