#!/usr/bin/env bash
# Several connections against a server that limits each connection (nginx `limit_rate 4m`, as
# many hosts and CDNs do): fetchplay (4 connections) against aria2c -x4 -s4 -k2M, curl and wget.
#
#   bench/connections.sh                 3 rounds, a 128 MiB file of random bytes
#   ROUNDS=1 MIB=64 bench/connections.sh
#
# Each round runs every tool once, the order rotating from round to round; wall time, CPU time
# (user + sys) and peak RSS from GNU time; the medians go to bench/results/connections.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/connections.sh"
for var in MIB ROUNDS; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
ROUNDS=${ROUNDS:-3}
MIB=${MIB:-128}
RATE=4m
RESULTS="$BENCH_DIR/results/connections.md"
TOOLS=(fetchplay aria2c curl wget)

bench_ensure nginx=nginx curl=curl wget=wget aria2c=aria2 /usr/bin/time=time sha256sum=coreutils ss=iproute2
bench_begin
bench_big_file "$MIB"
expected=$BIG_SHA
NGINX_LIMIT_RATE=$RATE nginx_start "$SITE"
log "nginx on $NGINX_URL, limit_rate $RATE per connection"

raw="$BENCH_TMP/raw.tsv"
: >"$raw"
load_before=$(loadavg)
started=$(date +%s)

run_one() {
    local tool=$1 round=$2 url="$NGINX_URL/big.bin" out="$BENCH_TMP/out"
    rm -rf "$out"
    mkdir -p "$out"
    local cmd
    case $tool in
        fetchplay) cmd=("$FETCHPLAY" --download "$url" --cache-dir "$out/cache" --connections 4) ;;
        aria2c) cmd=(aria2c -q -x4 -s4 -k2M --file-allocation=none -d "$out" -o big.bin "$url") ;;
        curl) cmd=(curl -sS -o "$out/big.bin" "$url") ;;
        wget) cmd=(wget -q -O "$out/big.bin" "$url") ;;
    esac
    /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/time" "${cmd[@]}" >"$BENCH_TMP/stdout" 2>"$BENCH_TMP/stderr" \
        || { cat "$BENCH_TMP/stderr" >&2; die "$tool failed"; }
    local wall user sys rss got=$out/big.bin
    read -r wall user sys rss < <(tail -n 1 "$BENCH_TMP/time")
    [[ $tool == fetchplay ]] && got=$(tail -n 1 "$BENCH_TMP/stdout")
    [[ $(sha256sum "$got" | cut -d' ' -f1) == "$expected" ]] || die "$tool: the file differs"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$round" "$wall" "$user" "$sys" "$rss" >>"$raw"
    log "$(printf 'round %d  %-10s wall %6.2f s' "$round" "$tool" "$wall")"
    rm -rf "$out"
    sync
}

for round in $(seq "$ROUNDS"); do
    n=${#TOOLS[@]}
    for i in $(seq 0 $((n - 1))); do run_one "${TOOLS[$(((i + round - 1) % n))]}" "$round"; done
done
elapsed=$(($(date +%s) - started))
load_after=$(loadavg)
nginx_stop

median_of() {
    awk -F'\t' -v t="$1" -v c="$2" '$1 == t { if (c == "wall") print $3; else if (c == "cpu") print $4 + $5; else print $6 / 1024 }' "$raw" | median
}
declare -A med
for tool in "${TOOLS[@]}"; do for c in wall cpu rss; do med[$tool.$c]=$(median_of "$tool" "$c"); done; done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
fmt() { awk -v v="$1" -v d="${2:-2}" 'BEGIN { printf "%.*f", d, v }'; }
vs_aria=$(ratio "${med[fetchplay.wall]}" "${med[aria2c.wall]}")
vs_curl=$(ratio "${med[fetchplay.wall]}" "${med[curl.wall]}")
# The verdicts compare the medians themselves: a ratio rounded to 1.00 can still be over.
verdict() { awk -v v="$1" -v limit="$2" 'BEGIN { print (v <= limit) ? "met" : "**missed**" }'; }
aria_verdict=$(verdict "${med[fetchplay.wall]}" "${med[aria2c.wall]}")
curl_verdict=$(verdict "${med[fetchplay.wall]}" "$(awk -v c="${med[curl.wall]}" 'BEGIN { print 0.3 * c }')")

mkdir -p "$(dirname "$RESULTS")"
{
    echo "# Several connections: fetchplay against aria2c, curl and wget on a per-connection limit"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(machine_line)"
    echo "- Command: \`$command_line\` (fetchplay built with \`$BENCH_BUILD_COMMAND\`)"
    echo "- Server: nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1 with \`limit_rate $RATE\` (each connection"
    echo "  at most 4 MiB/s after nginx's first burst), one ${MIB} MiB file of random bytes."
    echo "- Clients: fetchplay \`--connections 4\`; $(aria2c --version | head -n 1) \`-x4 -s4 -k2M\`;"
    echo "  $(curl --version | head -n 1 | cut -d' ' -f1-2) and $(wget --version | head -n 1 | cut -d' ' -f1-3) (one connection each)."
    echo "- $ROUNDS rounds, the order rotating; medians. Load average before / after: $load_before / $load_after; ${elapsed} s."
    echo "- Every file was checked against the source's SHA-256."
    echo
    echo "| tool | wall s | CPU s | peak RSS MiB | MiB/s | wall vs aria2c | wall vs curl |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for tool in "${TOOLS[@]}"; do
        w=${med[$tool.wall]}
        echo "| $tool | $(fmt "$w") | $(fmt "${med[$tool.cpu]}") | $(fmt "${med[$tool.rss]}" 1) | $(awk -v m="$MIB" -v s="$w" 'BEGIN { printf "%.1f", m / s }') | $(ratio "$w" "${med[aria2c.wall]}") | $(ratio "$w" "${med[curl.wall]}") |"
    done
    echo
    echo "## Targets (issue: several connections)"
    echo
    echo "| target | measured | verdict |"
    echo "|---|---|---|"
    echo "| fetchplay wall ≤ aria2c -x4 -s4 | ${vs_aria}x aria2c ($(fmt "${med[fetchplay.wall]}") s against $(fmt "${med[aria2c.wall]}") s) | $aria_verdict |"
    echo "| fetchplay wall ≤ 0.3× curl | ${vs_curl}x curl | $curl_verdict |"
    echo
    echo "<details><summary>Every run</summary>"
    echo
    echo "| tool | round | wall | user | sys | max RSS KiB |"
    echo "|---|---:|---:|---:|---:|---:|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$raw"
    echo
    echo "</details>"
} >"$RESULTS.new"
publish_results
log "results: bench/results/connections.md"
sed -n '/^| tool/,/^$/p;/^| target/,/^$/p' "$RESULTS" >&2
