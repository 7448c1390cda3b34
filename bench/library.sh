#!/usr/bin/env bash
# A library of thousands of videos: `fetchplay --list` and the window, at 1,000, 5,000 and
# 10,000 videos.
#
#   bench/library.sh                   sizes 1000 5000 10000, --list 5 times each
#   SIZES="1000 5000" bench/library.sh
#   FETCHPLAY=path/to/fetchplay NO_PROBE=1 bench/library.sh    another build (an older version,
#                                      without the probe: idle is then the first quiet second)
#
# Each library is made by bench/lib/make-library.py as `fetchplay --download` leaves one: a
# record in videos/ per video naming its file (a 2 s VP8 clip made here with GStreamer, each
# copy with its number appended so every file is its own content), and, as older versions left
# them, an empty partial/KEY.lock per video. --list runs ROUNDS times (wall time, median; the
# first run also tidies the old locks, and is given apart). The window runs once per size under
# Xvfb (cairo renderer) with FETCHPLAY_LIBRARY_BENCH (bench/Probes/LibraryBench.swift):
# bench/lib/watch-window.py times the first rows and the full listing from its probe, and finds
# from /proc when the process went idle (a second under 3% of a core) and its resident memory
# then. Results go to bench/results/library.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/library.sh"
for var in SIZES ROUNDS; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
SIZES=${SIZES:-1000 5000 10000}
ROUNDS=${ROUNDS:-5}
RESULTS="$BENCH_DIR/results/library.md"

bench_ensure xvfb-run=xvfb xauth=xauth gst-launch-1.0=gstreamer1.0-tools python3=python3
if [[ -n ${FETCHPLAY:-} ]]; then
    FETCHPLAY=$(cd "$(dirname "$FETCHPLAY")" && pwd)/$(basename "$FETCHPLAY")
    # Its window with the probes when it has one beside it; another build's own window else.
    FETCHPLAY_BENCH_WINDOW="$(dirname "$FETCHPLAY")/fetchplay-bench-window"
    [[ -x $FETCHPLAY_BENCH_WINDOW ]] || FETCHPLAY_BENCH_WINDOW=$FETCHPLAY
    bench_tmp
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM
else
    bench_begin
fi
clip="$BENCH_TMP/clip.webm"
gst-launch-1.0 -q videotestsrc num-buffers=20 pattern=smpte ! video/x-raw,width=160,height=90,framerate=10/1 \
    ! vp8enc ! webmmux ! filesink location="$clip"
load_before=$(loadavg)

now_s() { python3 -c 'import time; print(time.monotonic())'; }

table=$'| videos | `--list` s (median) | first `--list` s | ms per video | window: first rows s | all listed s | idle s | RSS MiB at idle | peak RSS MiB | locks left |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
for size in $SIZES; do
    cache="$BENCH_TMP/library-$size"
    log "making a library of $size videos"
    python3 "$BENCH_DIR/lib/make-library.py" "$cache" "$size" "$clip"
    sync
    times=()
    for round in $(seq "$ROUNDS"); do
        start=$(now_s)
        lines=$("$FETCHPLAY" --list --cache-dir "$cache" 2>"$BENCH_TMP/list.log" | wc -l)
        end=$(now_s)
        ((lines == size)) || { cat "$BENCH_TMP/list.log" >&2; die "--list printed $lines lines for $size videos"; }
        times+=("$(python3 -c "print(f'{$end - $start:.3f}')")")
    done
    first=${times[0]}
    list_s=$(printf '%s\n' "${times[@]}" | median)
    per_video=$(python3 -c "print(f'{$list_s * 1000 / $size:.3f}')")
    log "--list of $size: median $list_s s (first $first s)"
    measured=$(GSK_RENDERER=cairo GDK_BACKEND=x11 NO_AT_BRIDGE=1 xvfb-run -a -s "-screen 0 1280x800x24" \
        python3 "$BENCH_DIR/lib/watch-window.py" "$FETCHPLAY_BENCH_WINDOW" "$cache" "$BENCH_TMP/probe-$size.txt" "$BENCH_TMP/window-$size.log")
    declare -A value=()
    while IFS='=' read -r key val; do value[$key]=$val; done <<<"$measured"
    [[ ${value[exit]} == 0 ]] || { cat "$BENCH_TMP/window-$size.log" >&2; die "the window exited with ${value[exit]}"; }
    locks=$(find "$cache" -name '*.lock' -o -name '*.tmp-*' | wc -l)
    log "window with $size: first rows ${value[first_rows]} s, listed ${value[loaded]} s, idle ${value[idle]} s, ${value[rss_mib]} MiB"
    table+=$'\n'"| $size | $list_s | $first | $per_video | ${value[first_rows]} | ${value[loaded]} | ${value[idle]} | ${value[rss_mib]} | ${value[peak_rss_mib]} | $locks |"
    rm -rf "$cache"
done

{
    echo "# Library bench"
    echo
    echo "\`$command_line\` — $(date -u '+%Y-%m-%d %H:%M UTC'); $(machine_line); load before: $load_before"
    echo
    echo "$table"
} >"$RESULTS.new"
publish_results
cat "$RESULTS"
