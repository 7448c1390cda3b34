#!/usr/bin/env bash
# A link to the page a video is on (issue 35, its Speed part): fetchplay --download PAGE against
# fetchplay --download MEDIA and against yt-dlp's generic extractor, one page with one video
# from nginx on loopback.
#
#   bench/page.sh                           10 first-request rounds, 3 whole-download rounds
#   FIRST_ROUNDS=20 ROUNDS=5 bench/page.sh
#   MIB=128 PAGE_KIB=512 bench/page.sh      a bigger video, a bigger page
#
# The video is a real MP4 made once by ffmpeg: its moving test pattern with noise (so that x264
# has something to spend its bits on) at 1080p30, H.264 ultrafast at the bitrate that makes
# about MIB MiB in 32 s, AAC, `+faststart`. The page is an article of about PAGE_KIB KiB (text,
# links, pictures, a JSON state blob in a script, as a news or video site's page) that offers
# the video three ways, all the same link: `<video src>`, og:video and a JSON-LD VideoObject.
# nginx serves both with their Content-Types (text/html, video/mp4).
#
# 1. Time to the first media request, on an nginx without a limit, FIRST_ROUNDS rounds:
#
#      fetchplay-page   fetchplay --download PAGE
#      fetchplay-media  fetchplay --download MEDIA (the link the page offers)
#      yt-dlp-page, yt-dlp-media: the same two with yt-dlp's defaults (anchors, no target)
#
#    The clock: the script reads $EPOCHREALTIME (CLOCK_REALTIME, microseconds) just before it
#    starts the command; nginx logs each request with `$msec` (when the request ended, the same
#    clock, milliseconds) and `$request_time` (from nginx reading the request's first bytes to
#    the end), so a request began at `$msec - $request_time`. nginx refreshes its clock each time
#    epoll returns and answers a file in the page cache in the same pass, so that start is also
#    when the first byte of the answer went out, to the millisecond. The first media request of
#    a run is the earliest start among the requests for the media's path; every request of the
#    run is counted (the page's, the media's).
#
# 2. The whole download from the page, on nginx with `limit_rate 4m` per connection (as many
#    hosts and CDNs do), ROUNDS rounds:
#
#      fetchplay        fetchplay --download PAGE, its defaults (4 connections, up to 8)
#      fetchplay-media  fetchplay --download MEDIA: what the page costs on top
#      yt-dlp           yt-dlp PAGE, its defaults (its own HTTP downloader: one connection)
#      yt-dlp-N4        yt-dlp -N 4 PAGE (-N counts fragments at once: a progressive file has none)
#      yt-dlp-aria2c    yt-dlp --downloader aria2c PAGE (yt-dlp gives aria2c -x16 -s16 -j16)
#
# Every run: the exit status must be 0, the saved file's SHA-256 must be the served file's, and
# nginx's access log gives the requests, the bytes served and the most connections at once.
# Rounds rotate the order; wall time from the shell's clock (ms), CPU and peak RSS from GNU time
# (children included); medians. Between runs (untimed) the output is deleted and `sync` flushes
# dirty pages. Outputs go into one folder of the bench's temporary folder for every tool:
# fetchplay `--cache-dir OUT/cache` (its videos in OUT/cache/videos), yt-dlp `-o OUT/video.%(ext)s`.
# yt-dlp comes from PyPI into a virtualenv under .build-bench (a bench tool, not a dependency).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/page.sh"
for var in FIRST_ROUNDS ROUNDS MIB PAGE_KIB; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
FIRST_ROUNDS=${FIRST_ROUNDS:-10}
ROUNDS=${ROUNDS:-3}
MIB=${MIB:-64}
PAGE_KIB=${PAGE_KIB:-256}
RATE=4m
SECONDS_LONG=32
RESULTS="$BENCH_DIR/results/page.md"
FIRST_TOOLS=(fetchplay-page fetchplay-media yt-dlp-page yt-dlp-media)
WHOLE_TOOLS=(fetchplay fetchplay-media yt-dlp yt-dlp-N4 yt-dlp-aria2c)
PAGE_PATH=/watch/a-test-clip.html
MEDIA_PATH=/media/a-test-clip.mp4

bench_ensure nginx=nginx ffmpeg=ffmpeg /usr/bin/time=time sha256sum=coreutils ss=iproute2 aria2c=aria2 \
    python3=python3
"$REPO_DIR/scripts/install-deps"
bench_ytdlp
bench_begin

site="$BENCH_TMP/site"
bench_site "$site"
mkdir -p "$site/watch" "$site/media"
media="$site$MEDIA_PATH"
log "making the video: ${SECONDS_LONG} s of 1080p30 H.264 and AAC, about $MIB MiB"
video_bits=$((MIB * 8 * 1024 * 1024 / SECONDS_LONG - 128000))
timeout 900 ffmpeg -nostdin -loglevel error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$SECONDS_LONG" \
    -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$SECONDS_LONG" -vf "noise=alls=12:allf=t" \
    -c:v libx264 -preset ultrafast -b:v "$video_bits" -maxrate "$video_bits" -bufsize "$video_bits" -g 60 \
    -pix_fmt yuv420p -c:a aac -b:a 128k -ac 2 -movflags +faststart "$media" \
    || die "ffmpeg could not make the video"
media_bytes=$(stat -c %s "$media")
media_sha=$(sha256sum "$media" | cut -d' ' -f1)
media_mib=$(awk -v b="$media_bytes" 'BEGIN { printf "%.1f", b / 1048576 }')

# The page: a head as video sites write it, then an article of filler up to PAGE_KIB KiB, the
# player in its middle, and a JSON state blob in a script (no media link in it).
make_page() {
    cat <<HTML
<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>A test clip | The Bench Times</title>
<meta name="description" content="Thirty-two seconds of a moving test pattern, with a tone.">
<link rel="canonical" href="$PAGE_PATH">
<meta property="og:type" content="video.other">
<meta property="og:title" content="A test clip">
<meta property="og:video" content="$MEDIA_PATH">
<meta property="og:video:type" content="video/mp4">
<meta property="og:video:width" content="1920">
<meta property="og:video:height" content="1080">
<link rel="stylesheet" href="/static/site.css">
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "VideoObject", "name": "A test clip",
 "description": "Thirty-two seconds of a moving test pattern, with a tone.",
 "thumbnailUrl": "/static/a-test-clip.jpg", "uploadDate": "2026-12-01T08:00:00Z",
 "duration": "PT32S", "contentUrl": "$MEDIA_PATH"}
</script>
</head><body>
<header><nav><a href="/">Home</a> <a href="/news/">News</a> <a href="/video/">Video</a> <a href="/about/">About</a></nav></header>
<main><article><h1>A test clip</h1>
HTML
    local target=$((PAGE_KIB * 1024)) written=0 i=0 player=0 paragraph
    while ((written < target)); do
        i=$((i + 1))
        paragraph="<section id=\"s$i\"><h2>Part $i of the story</h2><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. <a href=\"/news/$i/related-story\">A related story, number $i</a>, ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.</p><figure><img src=\"/static/pictures/$i.jpg\" alt=\"Picture $i\" width=\"640\" height=\"360\" loading=\"lazy\"><figcaption>Picture $i: duis aute irure dolor in reprehenderit.</figcaption></figure></section>"
        printf '%s\n' "$paragraph"
        written=$((written + ${#paragraph} + 1))
        if ((player == 0 && written > target / 3)); then
            printf '<div class="player"><video controls preload="metadata" poster="/static/a-test-clip.jpg" src="%s">Your browser cannot play this video.</video></div>\n' "$MEDIA_PATH"
            player=1
        fi
        if ((i % 40 == 0)); then
            printf '<script>window.__STATE__ = window.__STATE__ || []; window.__STATE__.push({"block": %d, "related": [%s], "ads": {"slot": "mid-%d", "sizes": [[300, 250], [728, 90]]}});</script>\n' \
                "$i" "$(awk -v a=$((i - 39)) -v b="$i" 'BEGIN { for (k = a; k <= b; k++)
                    printf "%s{\"id\": %d, \"path\": \"\\/news\\/%d\\/related-story\"}", (k > a ? ", " : ""), k, k }')" "$i"
        fi
    done
    printf '</article></main>\n<footer><p>The Bench Times</p></footer>\n</body></html>\n'
}
make_page >"$site$PAGE_PATH"
page_bytes=$(stat -c %s "$site$PAGE_PATH")
chmod -R a+rX "$site"

export NGINX_TYPES='text/html html; video/mp4 mp4;'
export NGINX_LOG_EXTRA='$status $request_method $request_uri $bytes_sent $connection $http_range'
declare -A URL
declare -A ACCESS=([open]="$BENCH_TMP/open.log" [limited]="$BENCH_TMP/limited.log")
NGINX_NAME=nginx-open NGINX_LIMIT_RATE="" NGINX_ACCESS_LOG=${ACCESS[open]} nginx_start "$site"
URL[open]=$NGINX_URL
OPEN_PID=$NGINX_PID
NGINX_NAME=nginx-limited NGINX_LIMIT_RATE=$RATE NGINX_ACCESS_LOG=${ACCESS[limited]} nginx_start "$site"
URL[limited]=$NGINX_URL
trap 'kill -TERM "$OPEN_PID" 2>/dev/null || true; wait "$OPEN_PID" 2>/dev/null || true; bench_cleanup' EXIT
log "nginx on ${URL[open]} (no limit) and ${URL[limited]} (limit_rate $RATE per connection)"
log "the page: $page_bytes bytes; the video: $media_bytes bytes"

# Both tools find the one video before anything is timed.
listed=$("$FETCHPLAY" --list-videos "${URL[open]}$PAGE_PATH") || die "fetchplay --list-videos failed"
[[ $(wc -l <<<"$listed") -eq 1 && $(cut -f4 <<<"$listed") == "${URL[open]}$MEDIA_PATH" ]] \
    || die "fetchplay --list-videos: not the one video: $listed"
yt_found=$("$YTDLP" --no-warnings --print url "${URL[open]}$PAGE_PATH") || die "yt-dlp --print url failed"
[[ $yt_found == "${URL[open]}$MEDIA_PATH" ]] || die "yt-dlp found '$yt_found', not the video"
yt_extractor=$("$YTDLP" --no-warnings --print extractor "${URL[open]}$PAGE_PATH")
# Warm-up (untimed): the files in the page cache.
cat "$media" "$site$PAGE_PATH" >/dev/null
sync

raw="$BENCH_TMP/raw.tsv"
: >"$raw"

# run_one PART SERVER TOOL ROUND: one timed run, checked; one line of raw.tsv.
run_one() {
    local part=$1 server=$2 tool=$3 round=$4 out="$BENCH_TMP/out"
    local page="${URL[$server]}$PAGE_PATH" link="${URL[$server]}$MEDIA_PATH" access=${ACCESS[$server]}
    rm -rf "$out"
    mkdir -p "$out"
    local cmd got="$out/video.mp4"
    case $tool in
        fetchplay | fetchplay-page) cmd=("$FETCHPLAY" --download "$page" --cache-dir "$out/cache") ;;
        fetchplay-media) cmd=("$FETCHPLAY" --download "$link" --cache-dir "$out/cache") ;;
        yt-dlp | yt-dlp-page) cmd=("$YTDLP" -q --no-progress -o "$out/video.%(ext)s" "$page") ;;
        yt-dlp-media) cmd=("$YTDLP" -q --no-progress -o "$out/video.%(ext)s" "$link") ;;
        yt-dlp-N4) cmd=("$YTDLP" -q --no-progress -N 4 -o "$out/video.%(ext)s" "$page") ;;
        yt-dlp-aria2c) cmd=("$YTDLP" -q --no-progress --downloader aria2c -o "$out/video.%(ext)s" "$page") ;;
        *) die "no tool $tool" ;;
    esac
    : >"$access"
    local status=0 began ended
    began=$EPOCHREALTIME
    /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/time" "${cmd[@]}" >"$BENCH_TMP/stdout" 2>"$BENCH_TMP/stderr" || status=$?
    ended=$EPOCHREALTIME
    if ((status != 0)); then
        cat "$BENCH_TMP/stderr" >&2
        die "$tool exited with $status (round $round)"
    fi
    [[ $tool == fetchplay* ]] && got=$(tail -n 1 "$BENCH_TMP/stdout")
    [[ -f $got ]] || die "$tool: no file at '$got'"
    [[ $(stat -c %s "$got") -eq $media_bytes && $(sha256sum "$got" | cut -d' ' -f1) == "$media_sha" ]] \
        || die "$tool: the saved file is not the served one"
    # nginx logs a request when it has sent its last byte: by now every line is there, but a
    # log write may trail the client's exit by a moment.
    local tries
    for tries in $(seq 50); do
        awk -v m="$MEDIA_PATH" '$5 == m { n += $6 } END { exit !(n >= '"$media_bytes"') }' "$access" && break
        sleep 0.02
    done
    local wall user sys rss
    read -r wall user sys rss < <(tail -n 1 "$BENCH_TMP/time")
    wall=$(awk -v a="$began" -v b="$ended" 'BEGIN { printf "%.3f", b - a }')
    # From the log: first page request and first media request (seconds after the start), how
    # many of each, the media bytes served, other statuses than 200/206, connections used.
    local found
    found=$(awk -v t0="$began" -v p="$PAGE_PATH" -v m="$MEDIA_PATH" '
        { start = $1 - $2; conn[$7] = 1 }
        $3 != 200 && $3 != 206 { odd++ }
        $5 == p { np++; if (!fp || start < fp) fp = start; if (start > lp) lp = start }
        $5 == m { nm++; mb += $6; if (!fm || start < fm) fm = start }
        END { printf "%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t%d\t%d", fp ? fp - t0 : -1, lp ? lp - t0 : -1, fm ? fm - t0 : -1,
            np, nm, mb, odd, length(conn) }' "$access")
    local peak
    peak=$(peak_connections "$access")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$part" "$tool" "$round" "$status" "$wall" "$user" "$sys" "$rss" \
        "$found" "$peak" "$(loadavg | cut -d' ' -f1)" >>"$raw"
    log "$(awk -F'\t' -v r="$round" -v p="$part" -v t="$tool" -v line="$found" -v w="$wall" 'BEGIN { split(line, f, "\t")
        printf "%-5s round %2d  %-15s wall %7.3f s  page at %6.3f s  media at %6.3f s  (%d page, %d media requests)",
            p, r, t, w, f[1], f[3], f[4], f[5] }')"
    rm -rf "$out"
    sync
}

load_before=$(loadavg)
started=$(date +%s)
for round in $(seq "$FIRST_ROUNDS"); do
    n=${#FIRST_TOOLS[@]}
    for i in $(seq 0 $((n - 1))); do run_one first open "${FIRST_TOOLS[$(((i + round - 1) % n))]}" "$round"; done
done
for round in $(seq "$ROUNDS"); do
    n=${#WHOLE_TOOLS[@]}
    for i in $(seq 0 $((n - 1))); do run_one whole limited "${WHOLE_TOOLS[$(((i + round - 1) % n))]}" "$round"; done
done
elapsed=$(($(date +%s) - started))
load_after=$(loadavg)

# Columns of raw.tsv: part tool round status wall user sys rss first_page_at last_page_at media_at
# page_requests media_requests media_bytes odd_statuses connections peak load1
median_of() {
    awk -F'\t' -v p="$1" -v t="$2" -v c="$3" '$1 == p && $2 == t {
        if (c == "wall") print $5; else if (c == "cpu") print $6 + $7; else if (c == "rss") print $8 / 1024
        else if (c == "page") print $9; else if (c == "lastpage") print $10; else if (c == "media") print $11
        else if (c == "np") print $12; else if (c == "nm") print $13; else if (c == "served") print $14
        else if (c == "peak") print $17 }' "$raw" | median
}
declare -A med
for tool in "${FIRST_TOOLS[@]}"; do for c in wall cpu rss page lastpage media np nm; do
    med[first.$tool.$c]=$(median_of first "$tool" "$c")
done; done
for tool in "${WHOLE_TOOLS[@]}"; do for c in wall cpu rss media np nm served peak; do
    med[whole.$tool.$c]=$(median_of whole "$tool" "$c")
done; done
# The page's cost, round by round: the page run's first media request less the media run's.
paired() {
    awk -F'\t' -v a="$1" -v b="$2" '$1 == "first" && $2 == a { x[$3] = $11 } $1 == "first" && $2 == b { y[$3] = $11 }
        END { for (r in x) if (r in y) print x[r] - y[r] }' "$raw" | median | awk '{ printf "%.3f", $1 }'
}
# The most and the least of a column, for the spread beside a median.
spread() {
    awk -F'\t' -v p="$1" -v t="$2" -v c="$3" '$1 == p && $2 == t { v = $c; if (n++ == 0 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
        END { printf "%.3f–%.3f", lo, hi }' "$raw"
}
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? "met" : "**missed**" }'; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }
page_cost=$(minus "${med[first.fetchplay-page.media]}" "${med[first.fetchplay-media.media]}")
page_cost_paired=$(paired fetchplay-page fetchplay-media)
yt_page_cost=$(minus "${med[first.yt-dlp-page.media]}" "${med[first.yt-dlp-media.media]}")
odd_total=$(awk -F'\t' '{ n += $15 } END { print n + 0 }' "$raw")

mkdir -p "$(dirname "$RESULTS")"
{
    echo "# A link to a page: fetchplay against itself on the media link and against yt-dlp"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(machine_line)"
    echo "- Command: \`$command_line\` (from the repository root; fetchplay built with"
    echo "  \`$BENCH_BUILD_COMMAND\`)"
    echo "- The video: $media_mib MiB ($media_bytes bytes), ${SECONDS_LONG} s of 1080p30 H.264 (x264 ultrafast, noise over"
    echo "  ffmpeg's testsrc2) and AAC, \`+faststart\`, served as video/mp4."
    echo "- The page: $page_bytes bytes of HTML (an article with links, pictures and script blobs), served as"
    echo "  text/html, offering the one video as \`<video src>\`, og:video and a JSON-LD VideoObject, all the same"
    echo "  root-relative link. \`fetchplay --list-videos\` lists exactly that video; yt-dlp's \`$yt_extractor\`"
    echo "  extractor finds exactly that link."
    echo "- Servers: nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1, files in the page cache: one without a limit"
    echo "  (first requests), one with \`limit_rate $RATE\` per connection (whole downloads)."
    echo "- Tools: fetchplay $("$FETCHPLAY" --version | cut -d' ' -f2) (its defaults), yt-dlp $("$YTDLP" --version) (its defaults; \`-N 4\`;"
    echo "  \`--downloader aria2c\` with aria2 $(aria2c --version | head -n 1 | cut -d' ' -f3), to which yt-dlp passes \`-x16 -s16 -j16\`)."
    echo "- $FIRST_ROUNDS rounds of first requests, then $ROUNDS rounds of whole downloads, the order rotating; medians."
    echo "  Wall time from the shell's clock, CPU (user + sys, children included) and peak RSS from GNU time."
    echo "  Untimed between runs: output deleted, \`sync\`."
    echo "- Load average before / after: $load_before / $load_after; the runs took ${elapsed} s."
    echo "- Every run exited 0, and every saved file had the served file's size and SHA-256. Requests"
    echo "  answered with another status than 200 or 206, in all runs: $odd_total."
    echo
    echo "## Time to the first media request (no limit)"
    echo
    echo "Seconds from the command's start (\`\$EPOCHREALTIME\` read just before it) to the start of a"
    echo "request in nginx's access log (\`\$msec - \$request_time\`: when nginx read the request, the same"
    echo "clock, to the millisecond; nginx answers a file in the page cache in that same pass). Each"
    echo "run downloads the whole file; wall is that run's whole time."
    echo
    echo "| tool | first page request s | last page request s | first media request s (min–max) | page requests | media requests | wall s | peak RSS MiB |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for tool in "${FIRST_TOOLS[@]}"; do
        pg=$(fmt "${med[first.$tool.page]}" 3) lpg=$(fmt "${med[first.$tool.lastpage]}" 3)
        [[ $tool == *-media ]] && pg="–" lpg="–"
        echo "| $tool | $pg | $lpg | $(fmt "${med[first.$tool.media]}" 3) ($(spread first "$tool" 11)) | $(fmt "${med[first.$tool.np]}" 0) | $(fmt "${med[first.$tool.nm]}" 0) | $(fmt "${med[first.$tool.wall]}" 3) | $(fmt "${med[first.$tool.rss]}" 1) |"
    done
    echo
    echo "| target (issue 35) | measured | verdict |"
    echo "|---|---|---|"
    echo "| the page costs at most 0.2 s more before the first media byte | ${page_cost} s (medians $(fmt "${med[first.fetchplay-page.media]}" 3) − $(fmt "${med[first.fetchplay-media.media]}" 3)); round by round, median ${page_cost_paired} s | $(verdict "$page_cost" 0.2) |"
    echo "| (beside it, no target) yt-dlp's page cost, the same way | ${yt_page_cost} s | – |"
    echo
    echo "## The whole download from the page (limit_rate $RATE per connection)"
    echo
    echo "| tool | wall s (min–max) | CPU s | peak RSS MiB | MiB/s | peak connections | media requests | bytes served / file | wall vs fetchplay |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for tool in "${WHOLE_TOOLS[@]}"; do
        w=${med[whole.$tool.wall]}
        echo "| $tool | $(fmt "$w" 3) ($(spread whole "$tool" 5)) | $(fmt "${med[whole.$tool.cpu]}") | $(fmt "${med[whole.$tool.rss]}" 1) | $(awk -v b="$media_bytes" -v s="$w" 'BEGIN { printf "%.1f", b / 1048576 / s }') | $(fmt "${med[whole.$tool.peak]}" 0) | $(fmt "${med[whole.$tool.nm]}" 0) | $(ratio "${med[whole.$tool.served]}" "$media_bytes") | $(ratio "$w" "${med[whole.fetchplay.wall]}") |"
    done
    echo
    echo "| target (issue 35) | measured | verdict |"
    echo "|---|---|---|"
    echo "| fetchplay with its defaults faster than yt-dlp with its defaults | $(fmt "${med[whole.fetchplay.wall]}" 3) s against $(fmt "${med[whole.yt-dlp.wall]}" 3) s ($(ratio "${med[whole.yt-dlp.wall]}" "${med[whole.fetchplay.wall]}")× as fast) | $(verdict "${med[whole.fetchplay.wall]}" "${med[whole.yt-dlp.wall]}") |"
    echo "| (beside it) against \`yt-dlp -N 4\` | $(fmt "${med[whole.fetchplay.wall]}" 3) s against $(fmt "${med[whole.yt-dlp-N4.wall]}" 3) s | $(verdict "${med[whole.fetchplay.wall]}" "${med[whole.yt-dlp-N4.wall]}") |"
    echo "| (beside it) against \`yt-dlp --downloader aria2c\` (16 connections) | $(fmt "${med[whole.fetchplay.wall]}" 3) s against $(fmt "${med[whole.yt-dlp-aria2c.wall]}" 3) s | $(verdict "${med[whole.fetchplay.wall]}" "${med[whole.yt-dlp-aria2c.wall]}") |"
    echo
    echo "<details><summary>Every run (seconds; page and media: a request's start after the command's; -1: none)</summary>"
    echo
    echo "| part | tool | round | exit | wall | user | sys | max RSS KiB | first page at | last page at | media at | page req. | media req. | media bytes served | other statuses | connections | peak | load 1 min |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' '{ printf "| %s |", $1; for (i = 2; i <= NF; i++) printf " %s |", $i; printf "\n" }' "$raw"
    echo
    echo "</details>"
} >"$RESULTS.new"
publish_results
log "results: bench/results/page.md"
sed -n '/^## /,$p' "$RESULTS" | sed '/<details>/,$d' >&2
