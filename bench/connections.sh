#!/usr/bin/env bash
# Connections that adapt, in one run, against nginx limiting each connection (`limit_rate 4m`, as
# many hosts and CDNs do) and against the same nginx without a limit: fetchplay with its defaults
# (four at once, more while the total rate grows, up to 8), fetchplay --connections 16, aria2c
# -x4 -s4, -x8 -s8 and -x16 -s16 (-k2M, so that 64 MiB may be cut in 16), curl and wget (and,
# without a limit, `curl && sync FILE`, curl paying the flush fetchplay pays). The
# physical floors on the limited host are printed beside them: MIB / (N × 4 MiB/s) for N = 4, 8
# and 16; nginx sends a connection's first 2 MiB at once, so a tool may come in under them.
# The most connections nginx served at once in each run is read from its access log.
#
#   bench/connections.sh                 3 rounds, a 64 MiB file of random bytes
#   ROUNDS=1 MIB=128 bench/connections.sh
#   OPEN_ROUNDS=21 bench/connections.sh  more rounds on the unlimited server (default 3 × ROUNDS)
#
# Each round runs every tool once per server, the order rotating from round to round; wall time,
# CPU time (user + sys) and peak RSS from GNU time; the medians go to bench/results/connections.md.
# The unlimited server gets three times the rounds: its runs take a tenth of a second, which the
# disk's own pace moves by a third from one run to the next, and they cost little.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/connections.sh"
for var in MIB ROUNDS OPEN_ROUNDS; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
ROUNDS=${ROUNDS:-3}
OPEN_ROUNDS=${OPEN_ROUNDS:-$((ROUNDS * 3))}
declare -A ROUNDS_OF=([limited]=$ROUNDS [open]=$OPEN_ROUNDS)
MIB=${MIB:-64}
RATE=4m
RESULTS="$BENCH_DIR/results/connections.md"
TOOLS=(fetchplay fetchplay-16 aria2c-4 aria2c-8 aria2c-16 curl wget)
# Without a limit curl also runs as `curl … && sync FILE`: curl paying the flush to disk that
# fetchplay pays before it returns (on the limited host a flush is a few ms of 15 s).
declare -A TOOLS_OF=([limited]="${TOOLS[*]}" [open]="${TOOLS[*]} curl+sync")
SERVERS=(limited open)

bench_ensure nginx=nginx curl=curl wget=wget aria2c=aria2 /usr/bin/time=time sha256sum=coreutils ss=iproute2
bench_begin
bench_big_file "$MIB"
expected=$BIG_SHA
declare -A URL
declare -A ACCESS=([open]="$BENCH_TMP/open.log" [limited]="$BENCH_TMP/limited.log")
NGINX_NAME=nginx-open NGINX_LIMIT_RATE="" NGINX_ACCESS_LOG=${ACCESS[open]} nginx_start "$SITE"
URL[open]=$NGINX_URL
OPEN_PID=$NGINX_PID
NGINX_NAME=nginx-limited NGINX_LIMIT_RATE=$RATE NGINX_ACCESS_LOG=${ACCESS[limited]} nginx_start "$SITE"
URL[limited]=$NGINX_URL
trap 'kill -TERM "$OPEN_PID" 2>/dev/null || true; bench_cleanup' EXIT
log "nginx on ${URL[limited]} (limit_rate $RATE per connection) and ${URL[open]} (no limit)"

raw="$BENCH_TMP/raw.tsv"
: >"$raw"
load_before=$(loadavg)
started=$(date +%s)

run_one() {
    local server=$1 tool=$2 round=$3 url="${URL[$1]}/big.bin" out="$BENCH_TMP/out"
    rm -rf "$out"
    mkdir -p "$out"
    : >"${ACCESS[$server]}"
    local cmd
    case $tool in
        fetchplay) cmd=("$FETCHPLAY" --download "$url" --cache-dir "$out/cache") ;;
        fetchplay-16) cmd=("$FETCHPLAY" --download "$url" --cache-dir "$out/cache" --connections 16) ;;
        aria2c-4) cmd=(aria2c -q -x4 -s4 -k2M --file-allocation=none -d "$out" -o big.bin "$url") ;;
        aria2c-8) cmd=(aria2c -q -x8 -s8 -k2M --file-allocation=none -d "$out" -o big.bin "$url") ;;
        aria2c-16) cmd=(aria2c -q -x16 -s16 -k2M --file-allocation=none -d "$out" -o big.bin "$url") ;;
        curl) cmd=(curl -sS -o "$out/big.bin" "$url") ;;
        curl+sync) cmd=(sh -c 'curl -sS -o "$1" "$2" && sync "$1"' sh "$out/big.bin" "$url") ;;
        wget) cmd=(wget -q -O "$out/big.bin" "$url") ;;
    esac
    # Wall time to the millisecond from the shell's clock (GNU time's %e has 10 ms steps, as
    # long as a tenth of an unthrottled download here); CPU and RSS from GNU time.
    local began=$EPOCHREALTIME
    /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/time" "${cmd[@]}" >"$BENCH_TMP/stdout" 2>"$BENCH_TMP/stderr" \
        || { cat "$BENCH_TMP/stderr" >&2; die "$tool failed"; }
    local ended=$EPOCHREALTIME
    local wall user sys rss got=$out/big.bin
    read -r wall user sys rss < <(tail -n 1 "$BENCH_TMP/time")
    wall=$(awk -v a="$began" -v b="$ended" 'BEGIN { printf "%.3f", b - a }')
    [[ $tool == fetchplay* ]] && got=$(tail -n 1 "$BENCH_TMP/stdout")
    [[ $(sha256sum "$got" | cut -d' ' -f1) == "$expected" ]] || die "$tool: the file differs"
    # nginx logs a request when it has sent the last byte; the hash above gave it time to.
    local peak
    peak=$(peak_connections "${ACCESS[$server]}")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$server" "$tool" "$round" "$wall" "$user" "$sys" "$rss" "$peak" >>"$raw"
    log "$(printf 'round %d  %-8s %-13s wall %6.2f s  peak %2d connections' "$round" "$server" "$tool" "$wall" "$peak")"
    rm -rf "$out"
    sync
}

for round in $(seq "$((ROUNDS > OPEN_ROUNDS ? ROUNDS : OPEN_ROUNDS))"); do
    for server in "${SERVERS[@]}"; do
        ((round <= ${ROUNDS_OF[$server]})) || continue
        read -ra tools <<<"${TOOLS_OF[$server]}"
        n=${#tools[@]}
        for i in $(seq 0 $((n - 1))); do run_one "$server" "${tools[$(((i + round - 1) % n))]}" "$round"; done
    done
done
elapsed=$(($(date +%s) - started))
load_after=$(loadavg)

median_of() {
    awk -F'\t' -v s="$1" -v t="$2" -v c="$3" '$1 == s && $2 == t { if (c == "wall") print $4; else if (c == "cpu") print $5 + $6; else if (c == "peak") print $8; else print $7 / 1024 }' "$raw" | median
}
declare -A med
for server in "${SERVERS[@]}"; do for tool in ${TOOLS_OF[$server]}; do for c in wall cpu rss peak; do
    med[$server.$tool.$c]=$(median_of "$server" "$tool" "$c")
done; done; done
# The verdicts compare the medians themselves: a ratio rounded to 1.00 can still be over.
verdict() { awk -v v="$1" -v limit="$2" 'BEGIN { print (v <= limit) ? "met" : "**missed**" }'; }
floor_of() { awk -v m="$MIB" -v n="$1" 'BEGIN { printf "%.2f", m / (n * 4) }'; }
floor=$(floor_of 16) floor4=$(floor_of 4) floor8=$(floor_of 8)
L=limited O=open
fast=$(ratio "${med[$L.aria2c-4.wall]}" "${med[$L.fetchplay.wall]}")
# Issue 22: with the defaults, at least 1.5 times as fast as aria2c -x4 -s4.
fast_verdict=$(verdict "${med[$L.fetchplay.wall]}" "$(awk -v a="${med[$L.aria2c-4.wall]}" 'BEGIN { print a / 1.5 }')")
vs8=$(ratio "${med[$L.fetchplay.wall]}" "${med[$L.aria2c-8.wall]}")
vs8_verdict=$(verdict "${med[$L.fetchplay.wall]}" "$(awk -v a="${med[$L.aria2c-8.wall]}" 'BEGIN { print a * 1.10 }')")
vs16=$(ratio "${med[$L.fetchplay-16.wall]}" "${med[$L.aria2c-16.wall]}")
vs16_verdict=$(verdict "${med[$L.fetchplay-16.wall]}" "$(awk -v a="${med[$L.aria2c-16.wall]}" 'BEGIN { print a * 1.03 }')")
vscurl=$(ratio "${med[$O.fetchplay.wall]}" "${med[$O.curl.wall]}")
# The middle half of the runs, beside the medians: how far the disk moves a tenth of a second.
quartiles() {
    awk -F'\t' -v s="$1" -v t="$2" '$1 == s && $2 == t { print $4 }' "$raw" | sort -g \
        | awk '{ v[NR] = $1 } END { printf "%.3f–%.3f", v[int(NR / 4) + 1], v[int(3 * NR / 4) + (NR % 4 ? 1 : 0)] }'
}
vscurl_verdict=$(verdict "${med[$O.fetchplay.wall]}" "$(awk -v a="${med[$O.curl.wall]}" 'BEGIN { print a * 1.10 }')")

mkdir -p "$(dirname "$RESULTS")"
{
    echo "# Connections that adapt: fetchplay against aria2c, curl and wget"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(machine_line)"
    echo "- Command: \`$command_line\` (fetchplay built with \`$BENCH_BUILD_COMMAND\`)"
    echo "- Servers: nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1, one with \`limit_rate $RATE\` (each connection"
    echo "  at most 4 MiB/s after nginx's first burst), one without; one ${MIB} MiB file of random bytes."
    echo "- Clients: fetchplay with its defaults (four at once, growing up to 8) and \`--connections 16\` (16 at once);"
    echo "  $(aria2c --version | head -n 1) \`-x4 -s4 -k2M\`, \`-x8 -s8 -k2M\` and \`-x16 -s16 -k2M\`;"
    echo "  $(curl --version | head -n 1 | cut -d' ' -f1-2) and $(wget --version | head -n 1 | cut -d' ' -f1-3) (one connection each);"
    echo "  without a limit also curl+sync, \`curl -o FILE URL && sync FILE\` timed as one command."
    echo "- Physical floors on the limited host, ${MIB} MiB / (N × 4 MiB/s): ${floor4} s with 4 connections,"
    echo "  ${floor8} s with 8, ${floor} s with 16 (nginx sends each connection's first 2 MiB at once)."
    echo "- Peak: the most requests nginx served at once in the run, from its access log."
    echo "- $ROUNDS rounds on the limited server, $OPEN_ROUNDS on the unlimited one, the order rotating; medians."
    echo "  Load average before / after: $load_before / $load_after; ${elapsed} s."
    echo "- Every file was checked against the source's SHA-256."
    for server in "${SERVERS[@]}"; do
        echo
        if [[ $server == limited ]]; then
            echo "## limit_rate $RATE per connection (floors: ${floor4} s at 4, ${floor8} s at 8, ${floor} s at 16)"
        else
            echo "## No limit"
        fi
        echo
        echo "| tool | wall s | CPU s | peak RSS MiB | MiB/s | wall vs curl | peak connections |"
        echo "|---|---:|---:|---:|---:|---:|---:|"
        for tool in ${TOOLS_OF[$server]}; do
            w=${med[$server.$tool.wall]}
            echo "| $tool | $(fmt "$w" 3) | $(fmt "${med[$server.$tool.cpu]}") | $(fmt "${med[$server.$tool.rss]}" 1) | $(awk -v m="$MIB" -v s="$w" 'BEGIN { printf "%.1f", m / s }') | $(ratio "$w" "${med[$server.curl.wall]}") | $(fmt "${med[$server.$tool.peak]}" 0) |"
        done
    done
    echo
    echo "## Targets (issue 22, connections that adapt)"
    echo
    echo "| target | measured | verdict |"
    echo "|---|---|---|"
    echo "| defaults at least 1.5× as fast as aria2c -x4 -s4 (limited) | ${fast}× ($(fmt "${med[$L.fetchplay.wall]}") s against $(fmt "${med[$L.aria2c-4.wall]}") s) | $fast_verdict |"
    echo "| defaults within 1.10× of aria2c -x8 -s8 (limited) | ${vs8}× ($(fmt "${med[$L.fetchplay.wall]}") s against $(fmt "${med[$L.aria2c-8.wall]}") s) | $vs8_verdict |"
    echo "| --connections 16 within 3% of aria2c -x16 -s16 (limited) | ${vs16}× ($(fmt "${med[$L.fetchplay-16.wall]}") s against $(fmt "${med[$L.aria2c-16.wall]}") s) | $vs16_verdict |"
    echo "| defaults within 1.10× of curl (no limit) | ${vscurl}× ($(fmt "${med[$O.fetchplay.wall]}" 3) s against $(fmt "${med[$O.curl.wall]}" 3) s; middle half $(quartiles open fetchplay) against $(quartiles open curl) s) | $vscurl_verdict |"
    echo "| (beside it, no target) the defaults against curl + sync, which pays the same flush (no limit) | $(ratio "${med[$O.fetchplay.wall]}" "${med[$O.curl+sync.wall]}")× ($(fmt "${med[$O.fetchplay.wall]}" 3) s against $(fmt "${med[$O.curl+sync.wall]}" 3) s) | – |"
    echo
    echo "<details><summary>Every run</summary>"
    echo
    echo "| server | tool | round | wall | user | sys | max RSS KiB | peak connections |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$raw"
    echo
    echo "</details>"
} >"$RESULTS.new"
publish_results
log "results: bench/results/connections.md"
sed -n '/^## /,$p' "$RESULTS" | sed '/<details>/,$d' >&2
