#!/usr/bin/env bash
# Main-loop latency of the window during a download at full loopback speed.
#
#   bench/ui-latency.sh          5 runs of a 512 MiB download
#   RUNS=1 BIG_MIB=256 bench/ui-latency.sh
#
# The window runs under Xvfb (cairo renderer, X11) with FETCHPLAY_LATENCY_PROBE=FILE: a 10 ms
# GLib timeout on the main loop records how late each tick fires (bench/Probes/
# MainLoopLatencyProbe.swift), and FETCHPLAY_LATENCY_PROBE_QUIT=1 quits the app half a second
# after the download ends. `fetchplay --cache-dir DIR URL` starts the download at once; every run
# gets a fresh cache folder. Results go to bench/results/ui-latency.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/ui-latency.sh"
for var in BIG_MIB RUNS; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
RUNS=${RUNS:-5}
BIG_MIB=${BIG_MIB:-512}
RESULTS="$BENCH_DIR/results/ui-latency.md"

bench_ensure nginx=nginx curl=curl xvfb-run=xvfb xauth=xauth sha256sum=coreutils ss=iproute2
bench_begin
bench_big_file "$BIG_MIB"
expected_sha=$BIG_SHA
site=$SITE
nginx_start "$site"
url="$NGINX_URL/big.bin"
curl -sS -o /dev/null "$url" # warm-up: the file in the page cache
sync
load_before=$(loadavg)

declare -a rows
keys=(download_s bytes frames_painted_downloading downloading_ticks downloading_p50_ms downloading_p99_ms
      downloading_max_ms downloading_mean_ms downloading_over_16ms after_ticks after_p50_ms after_p99_ms after_max_ms)
pooled="$BENCH_TMP/pooled-us.txt"
: >"$pooled"
for run in $(seq "$RUNS"); do
    cache="$BENCH_TMP/cache-$run"
    probe="$BENCH_TMP/probe-$run.txt"
    log "run $run: fetchplay --cache-dir DIR $url under Xvfb"
    # No session bus under xvfb-run: GLib's "Unable to acquire session bus" warning is harmless.
    if ! FETCHPLAY_LATENCY_PROBE="$probe" FETCHPLAY_LATENCY_PROBE_QUIT=1 GSK_RENDERER=cairo GDK_BACKEND=x11 \
        NO_AT_BRIDGE=1 timeout 300 xvfb-run -a -s "-screen 0 1280x800x24" \
        "$FETCHPLAY_BENCH_WINDOW" --cache-dir "$cache" "$url" >"$BENCH_TMP/app.log" 2>&1; then
        cat "$BENCH_TMP/app.log" >&2
        die "the app failed or did not quit within 300 s"
    fi
    [[ -s $probe ]] || { cat "$BENCH_TMP/app.log" >&2; die "the probe wrote no summary"; }
    grep -q '^end_state=completed$' "$probe" || { cat "$probe" "$BENCH_TMP/app.log" >&2; die "the download did not complete"; }
    listing=$("$FETCHPLAY" --list --cache-dir "$cache")
    path=$(printf '%s\n' "$listing" | awk -F'\t' '$1 == "complete" { print $3; exit }')
    [[ -f $path && $(sha256sum "$path" | cut -d' ' -f1) == "$expected_sha" ]] \
        || die "run $run: the cached file is missing or differs"
    declare -A value=()
    while IFS='=' read -r key val; do value[$key]=$val; done <"$probe"
    tr ',' '\n' <<<"${value[downloading_samples_us]}" | grep . >>"$pooled" || true
    row="$run"
    for key in "${keys[@]}"; do row+=$'\t'"${value[$key]:-nan}"; done
    rows+=("$row")
    log "  download ${value[download_s]} s, ${value[frames_painted_downloading]} frames painted; main-loop lateness while downloading: p50 ${value[downloading_p50_ms]} ms," \
        "p99 ${value[downloading_p99_ms]} ms, max ${value[downloading_max_ms]} ms (${value[downloading_ticks]} ticks)"
    rm -rf "$cache"
    sync
done
load_after=$(loadavg)
nginx_stop

# pooled_percentile P: nearest-rank percentile of every run's ticks while downloading, in ms
pooled_percentile() {
    sort -g "$pooled" | awk -v p="$1" '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan"; exit }
        r = int(p / 100 * NR); if (r < p / 100 * NR) r++; if (r < 1) r = 1
        printf "%.3f", v[r] / 1000 }'
}
pooled_count=$(wc -l <"$pooled")
pooled_over=$(awk '$1 > 16000' "$pooled" | wc -l)

mkdir -p "$(dirname "$RESULTS")"
{
    echo "# Main-loop latency of the window during a download"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(machine_line)"
    echo "- Command: \`$command_line\` (from the repository root; release build in \`.build-bench\`)"
    echo "- What runs: \`fetchplay --cache-dir DIR URL\` (the window, which starts the download at once) under"
    echo "  \`xvfb-run -a\` with \`GSK_RENDERER=cairo GDK_BACKEND=x11\`, downloading a ${BIG_MIB} MiB file from"
    echo "  nginx on 127.0.0.1 at full loopback speed; fresh cache folder per run; file checked by SHA-256."
    echo "- Probe: \`FETCHPLAY_LATENCY_PROBE=FILE\` (\`bench/Probes/MainLoopLatencyProbe.swift\`) runs a"
    echo "  10 ms GLib timeout on the main loop and records, for each tick, how much later than due it"
    echo "  fired (due = the loop time GLib re-armed it at + 10 ms). \"While downloading\" = ticks while the"
    echo "  window's session is in the downloading state. \`FETCHPLAY_LATENCY_PROBE_QUIT=1\` quits the app"
    echo "  0.5 s after the download ends; the summary is written at quit."
    echo "- $RUNS runs; load average before / after: $load_before / $load_after."
    echo
    echo "## Lateness of a 10 ms main-loop timer while downloading"
    echo
    echo "**All runs pooled ($pooled_count ticks while downloading): p50 $(pooled_percentile 50) ms,"
    echo "p99 $(pooled_percentile 99) ms, max $(pooled_percentile 100) ms; $pooled_over ticks more than 16 ms late.**"
    echo "For scale: one frame at 60 Hz is 16.7 ms."
    echo
    echo "| run | download s | MiB/s | frames painted | ticks | p50 ms | p99 ms | max ms | mean ms | ticks > 16 ms late |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for row in "${rows[@]}"; do
        IFS=$'\t' read -r run download bytes frames ticks p50 p99 max mean over _ <<<"$row"
        speed=$(awk -v b="$bytes" -v s="$download" 'BEGIN { if (s > 0) printf "%.0f", b / 1048576 / s; else print "n/a" }')
        echo "| $run | $download | $speed | $frames | $ticks | $p50 | $p99 | $max | $mean | $over |"
    done
    echo
    echo "With under 100 ticks per run, a run's p99 is about its worst tick; the pooled figures are"
    echo "the ones to quote. For comparison, the same timer in the 0.5 s after the download ended"
    echo "(the checkmark animation and the Play button appearing, then an idle window):"
    echo
    echo "| run | ticks | p50 ms | p99 ms | max ms |"
    echo "|---:|---:|---:|---:|---:|"
    for row in "${rows[@]}"; do
        IFS=$'\t' read -r run _ _ _ _ _ _ _ _ _ aticks ap50 ap99 amax <<<"$row"
        echo "| $run | $aticks | $ap50 | $ap99 | $amax |"
    done
} >"$RESULTS.new"
publish_results
log "results: bench/results/ui-latency.md"
sed -n '/^## Lateness/,$p' "$RESULTS" >&2
