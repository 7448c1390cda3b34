#!/usr/bin/env bash
# How much of fetchplay's time against curl is durability and how much is the rest: runs
# fetchplay as is, fetchplay under eatmydata (fsync/fdatasync become no-ops: nothing is flushed),
# curl, and `fetchplay --list` (start-up alone), alternating, and prints the medians as markdown.
#
#   bench/fsync-cost.sh          7 rounds on a 512 MiB file
#
# An analysis aid for bench/results/download.md; it writes nothing there itself.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

ROUNDS=${ROUNDS:-7}
MIB=${MIB:-512}
bench_ensure nginx=nginx curl=curl eatmydata=eatmydata /usr/bin/time=time ss=iproute2
bench_build
bench_tmp
trap bench_cleanup EXIT
trap 'exit 130' INT TERM
bench_site "$BENCH_TMP/site"
bench_random_file "$BENCH_TMP/site/big.bin" "$MIB"
nginx_start "$BENCH_TMP/site"
url="$NGINX_URL/big.bin"
curl -sS -o /dev/null "$url"
sync

variants=("fetchplay" "fetchplay (eatmydata)" "curl" "fetchplay --list (start-up)")
raw="$BENCH_TMP/raw.tsv"
: >"$raw"
for round in $(seq "$ROUNDS"); do
    for i in "${!variants[@]}"; do
        variant=${variants[$(((i + round - 1) % ${#variants[@]}))]}
        out="$BENCH_TMP/out"
        rm -rf "$out"
        mkdir -p "$out"
        case $variant in
            "fetchplay") cmd=("$FETCHPLAY" --download "$url" --cache-dir "$out/cache") ;;
            "fetchplay (eatmydata)") cmd=(eatmydata "$FETCHPLAY" --download "$url" --cache-dir "$out/cache") ;;
            "curl") cmd=(curl -sS -o "$out/big.bin" "$url") ;;
            "fetchplay --list (start-up)") cmd=("$FETCHPLAY" --list --cache-dir "$out/cache") ;;
        esac
        /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/time" "${cmd[@]}" >/dev/null 2>"$BENCH_TMP/stderr" \
            || { cat "$BENCH_TMP/stderr" >&2; die "$variant failed"; }
        read -r wall user sys rss < <(tail -n 1 "$BENCH_TMP/time")
        printf '%s\t%s\t%s\t%s\n' "$variant" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rss" >>"$raw"
        rm -rf "$out"
        sync
    done
done

curl_wall=$(awk -F'\t' '$1 == "curl" { print $2 }' "$raw" | median)
curl_cpu=$(awk -F'\t' '$1 == "curl" { print $3 }' "$raw" | median)
echo "${MIB} MiB from nginx on loopback, $ROUNDS rounds alternating, medians ($(date -u '+%Y-%m-%d'), load $(loadavg)):"
echo
echo "| variant | wall s | CPU s | wall vs curl | CPU vs curl |"
echo "|---|---:|---:|---:|---:|"
for variant in "${variants[@]}"; do
    w=$(awk -F'\t' -v v="$variant" '$1 == v { print $2 }' "$raw" | median)
    c=$(awk -F'\t' -v v="$variant" '$1 == v { print $3 }' "$raw" | median)
    awk -v n="$variant" -v w="$w" -v c="$c" -v cw="$curl_wall" -v cc="$curl_cpu" \
        'BEGIN { printf "| %s | %.2f | %.2f | %.2f | %.2f |\n", n, w, c, w / cw, c / cc }'
done
