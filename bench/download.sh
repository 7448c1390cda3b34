#!/usr/bin/env bash
# Download speed and memory: fetchplay against curl, wget and aria2c on one nginx on loopback.
#
#   bench/download.sh            15 rounds, a 512 MiB and an 8 MiB file of random bytes
#   ROUNDS=3 BIG_MIB=256 bench/download.sh
#   OUT=tmpfs bench/download.sh  every tool writes into a tmpfs (root: it mounts one), so the disk
#                                is out of the comparison; results in download-tmpfs.md
#
# Each round runs every tool once on each file, in an order that rotates from round to round,
# and measures wall time, CPU time (user + sys) and peak RSS with GNU time. Between runs (not
# timed) the output is deleted and `sync` flushes the page cache's dirty pages, so one tool's
# write-back does not land on the next tool's clock. fetchplay gets a fresh --cache-dir each run.
#
# fetchplay makes its bytes durable (fdatasync every second and at the end, then a rename and
# directory fsyncs); curl, wget and aria2c leave them in the page cache. The row "curl + sync"
# (`curl … && sync FILE`) is curl paying the same final flush, for an honest comparison.
#
# The medians go to bench/results/download.md (and the raw runs under it).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/download.sh"
for var in SMALL_MIB BIG_MIB ROUNDS OUT; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
ROUNDS=${ROUNDS:-15}
BIG_MIB=${BIG_MIB:-512}
SMALL_MIB=${SMALL_MIB:-8}
OUT=${OUT:-disk}
[[ $OUT == disk || $OUT == tmpfs ]] || die "OUT is disk or tmpfs"
RESULTS="$BENCH_DIR/results/download.md"
[[ $OUT == tmpfs ]] && RESULTS="$BENCH_DIR/results/download-tmpfs.md"
TOOLS=(fetchplay curl curl+sync wget aria2c)

bench_ensure nginx=nginx curl=curl wget=wget aria2c=aria2 /usr/bin/time=time sha256sum=coreutils ss=iproute2
bench_begin

out_root="$BENCH_TMP"
if [[ $OUT == tmpfs ]]; then
    out_root="$BENCH_TMP/tmpfs"
    mkdir -p "$out_root"
    mount -t tmpfs -o size=$((BIG_MIB * 2 + 256))m tmpfs "$out_root" || die "mounting a tmpfs needs root"
    trap 'umount -l "$out_root" 2>/dev/null; bench_cleanup' EXIT
fi
site="$BENCH_TMP/site"
bench_site "$site"
log "making ${BIG_MIB} MiB and ${SMALL_MIB} MiB files of random bytes"
bench_random_file "$site/big.bin" "$BIG_MIB"
bench_random_file "$site/small.bin" "$SMALL_MIB"
declare -A expected_sha name_of mib_of
for file in big small; do
    expected_sha[$file]=$(sha256sum "$site/$file.bin" | cut -d' ' -f1)
    name_of[$file]=$file.bin
done
mib_of[big]=$BIG_MIB
mib_of[small]=$SMALL_MIB
nginx_start "$site"
log "nginx on $NGINX_URL"
# Warm-up (untimed): nginx and the source files in the page cache, the binaries loaded once.
for file in big small; do curl -sS -o /dev/null "$NGINX_URL/${name_of[$file]}"; done
sync

raw="$BENCH_TMP/raw.tsv"
: >"$raw"
declare -A verified
load_before=$(loadavg)
started=$(date +%s)

# run_one TOOL FILE ROUND: one timed download, appended to $raw.
run_one() {
    local tool=$1 file=$2 round=$3
    local url="$NGINX_URL/${name_of[$file]}" out="$out_root/out" name=${name_of[$file]}
    rm -rf "$out"
    mkdir -p "$out"
    local cmd
    case $tool in
        fetchplay) cmd=("$FETCHPLAY" --download "$url" --cache-dir "$out/cache") ;;
        curl) cmd=(curl -sS -o "$out/$name" "$url") ;;
        curl+sync) cmd=(sh -c 'curl -sS -o "$1" "$2" && sync "$1"' sh "$out/$name" "$url") ;;
        wget) cmd=(wget -q -O "$out/$name" "$url") ;;
        # One connection (-x1 -s1): aria2c would otherwise split the file over several.
        aria2c) cmd=(aria2c -q -x1 -s1 --file-allocation=none -d "$out" -o "$name" "$url") ;;
    esac
    if ! /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/time" "${cmd[@]}" >"$BENCH_TMP/stdout" 2>"$BENCH_TMP/stderr"; then
        cat "$BENCH_TMP/stderr" >&2
        die "$tool failed on $name"
    fi
    local wall user sys rss
    read -r wall user sys rss < <(tail -n 1 "$BENCH_TMP/time")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$file" "$round" "$wall" "$user" "$sys" "$rss" >>"$raw"
    log "$(awk -v r="$round" -v t="$tool" -v f="$file" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" \
        'BEGIN { printf "round %d  %-10s %-5s  wall %6.2f s  cpu %6.2f s  rss %7.1f MiB", r, t, f, w, u + s, m / 1024 }')"
    if [[ -z ${verified[$tool.$file]:-} ]]; then
        local got=$out/$name
        [[ $tool == fetchplay ]] && got=$(tail -n 1 "$BENCH_TMP/stdout")
        [[ -f $got ]] || die "$tool: no file at '$got'"
        local sha
        sha=$(sha256sum "$got" | cut -d' ' -f1)
        [[ $sha == "${expected_sha[$file]}" ]] || die "$tool: sha256 of $name differs ($sha)"
        verified[$tool.$file]=ok
    fi
    rm -rf "$out"
    sync
}

for round in $(seq "$ROUNDS"); do
    n=${#TOOLS[@]}
    for i in $(seq 0 $((n - 1))); do
        tool=${TOOLS[$(((i + round - 1) % n))]}
        for file in big small; do run_one "$tool" "$file" "$round"; done
    done
done
elapsed=$(($(date +%s) - started))
load_after=$(loadavg)
nginx_stop

# ---- report ----
# median_of TOOL FILE COLUMN: the median of a column over the rounds (cpu = user + sys, rss in MiB).
median_of() {
    awk -F'\t' -v t="$1" -v f="$2" -v c="$3" '$1 == t && $2 == f {
        if (c == "wall") print $4; else if (c == "cpu") print $5 + $6; else print $7 / 1024 }' "$raw" | median
}
# least_cpu TOOL FILE: the smallest CPU time over the rounds (the run the host disturbed least).
least_cpu() {
    awk -F'\t' -v t="$1" -v f="$2" '$1 == t && $2 == f { c = $5 + $6; if (m == "" || c < m) m = c } END { print m }' "$raw"
}
declare -A med least
for tool in "${TOOLS[@]}"; do
    for file in big small; do
        for c in wall cpu rss; do med[$tool.$file.$c]=$(median_of "$tool" "$file" "$c"); done
        least[$tool.$file]=$(least_cpu "$tool" "$file")
    done
done

wall_ratio=$(ratio "${med[fetchplay.big.wall]}" "${med[curl.big.wall]}")
cpu_ratio=$(ratio "${med[fetchplay.big.cpu]}" "${med[curl.big.cpu]}")
wall_ratio_sync=$(ratio "${med[fetchplay.big.wall]}" "${med[curl+sync.big.wall]}")
cpu_ratio_sync=$(ratio "${med[fetchplay.big.cpu]}" "${med[curl+sync.big.cpu]}")
rss_diff=$(awk -v a="${med[fetchplay.big.rss]}" -v b="${med[fetchplay.small.rss]}" 'BEGIN { printf "%.1f", a - b }')
verdict() { awk -v v="$1" -v limit="$2" 'BEGIN { print (v <= limit) ? "met" : "**missed**" }'; }
# On the disk, fetchplay's contract (every finished video synced) is compared with curl paying
# the same flush, wall and CPU alike (the write-back that fsync submits is charged to the process
# that calls it; curl leaves it to the kernel's flusher threads, whose time no tool's figure
# shows); in a tmpfs there is no disk to wait for, so with plain curl.
against=curl wall_against=$wall_ratio cpu_against=$cpu_ratio
if [[ $OUT == disk ]]; then
    against="curl + sync" wall_against=$wall_ratio_sync cpu_against=$cpu_ratio_sync
fi
wall_verdict=$(verdict "$wall_against" 1.10)
cpu_verdict=$(verdict "$cpu_against" 1.10)
wall_target="within 10% of $against"
cpu_target="within 10% of $against"
least_ratio=$(ratio "${least[fetchplay.big]}" "${least[curl.big]}")
least_ratio_sync=$(ratio "${least[fetchplay.big]}" "${least[curl+sync.big]}")
rss_verdict=$(awk -v d="$rss_diff" 'BEGIN { print (d <= 16 && d >= -16) ? "met" : "**missed**" }')
throughput() { awk -v mib="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", mib / s; else print "n/a" }'; }

mkdir -p "$(dirname "$RESULTS")"
{
    echo "# Download benchmark: fetchplay against curl, wget and aria2c"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(machine_line)"
    echo "- Output: $([[ $OUT == tmpfs ]] && echo "a tmpfs (memory): the disk is out of the comparison" || echo "the disk (ext4 on a virtual disk)")"
    echo "- Command: \`$command_line\` (from the repository root; fetchplay built with"
    echo "  \`$BENCH_BUILD_COMMAND\`)"
    echo "- Server: nginx $(nginx -v 2>&1 | sed 's|.*/||') on 127.0.0.1 (1 worker, sendfile), files of random bytes"
    echo "  in the page cache; clients: $(curl --version | head -n 1 | cut -d' ' -f1-2),"
    echo "  $(wget --version | head -n 1 | cut -d' ' -f1-3), $(aria2c --version | head -n 1)."
    echo "- $ROUNDS rounds; each round runs every tool on each file, the order rotating from round to round;"
    echo "  medians below. Wall, CPU (user + sys) and peak RSS from \`/usr/bin/time -f '%e %U %S %M'\`."
    echo "  Between runs, untimed: the output is deleted and \`sync\` flushes dirty pages."
    echo "- Load average before / after: $load_before / $load_after (other work on this machine adds noise);"
    echo "  the runs took ${elapsed} s."
    echo "- Every tool's file was checked once per size against the source's SHA-256: all equal."
    echo
    echo "| tool | size | wall s | CPU s | least CPU s | peak RSS MiB | MiB/s | wall vs curl | CPU vs curl |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    for file in big small; do
        for tool in "${TOOLS[@]}"; do
            w=${med[$tool.$file.wall]} c=${med[$tool.$file.cpu]} r=${med[$tool.$file.rss]}
            echo "| $tool | ${mib_of[$file]} MiB | $(fmt "$w") | $(fmt "$c") | $(fmt "${least[$tool.$file]}") | $(fmt "$r" 1) | $(throughput "${mib_of[$file]}" "$w") | $(ratio "$w" "${med[curl.$file.wall]}") | $(ratio "$c" "${med[curl.$file.cpu]}") |"
        done
    done
    echo
    echo "Notes:"
    echo
    echo "- **curl + sync** is \`curl -sS -o FILE URL && sync FILE\` timed as one command: curl plus the"
    echo "  final flush to disk that fetchplay always pays (fetchplay also fdatasyncs every second while"
    echo "  downloading, and fsyncs the cache folders after the final rename). curl, wget and aria2c"
    echo "  return with the file still in the page cache."
    echo "- aria2c runs with one connection (\`-x1 -s1\`) and \`--file-allocation=none\` so that it is"
    echo "  compared on the same terms; by default it may split a download over several connections."
    echo "- **CPU time on this machine is noisy.** It is a virtual machine that hands memory freed in"
    echo "  it back to its host; the next process to touch such a page waits while the host maps it"
    echo "  again, and that wait counts as the process's system time. Whoever gets such pages for its"
    echo "  512 MiB of page cache pays up to seconds (a loop touching 4 GiB of fresh memory took 17.1 s,"
    echo "  then 5.5 s and 3.7 s run again), so the same tool's CPU time can double from one run to"
    echo "  the next. Hence many rounds, medians, and beside them the least CPU time of each tool (its"
    echo "  run the host disturbed least), which no desktop's figures would carry."
    echo "- On the 8 MiB file, process start-up dominates and 1/100 s is GNU time's resolution: its"
    echo "  ratios say little; the targets are judged on the ${BIG_MIB} MiB file."
    echo
    echo "## Targets (issue: Speed and memory)"
    echo
    echo "| target | measured | verdict |"
    echo "|---|---|---|"
    echo "| fetchplay wall time $wall_target (${BIG_MIB} MiB) | ${wall_ratio}x curl (${wall_ratio_sync}x curl + sync) | $wall_verdict |"
    echo "| fetchplay CPU time $cpu_target (${BIG_MIB} MiB) | ${cpu_ratio}x curl (${cpu_ratio_sync}x curl + sync); least: ${least_ratio}x curl (${least_ratio_sync}x curl + sync) | $cpu_verdict |"
    echo "| fetchplay peak RSS independent of size: ${BIG_MIB} MiB minus ${SMALL_MIB} MiB within 16 MiB | $(fmt "${med[fetchplay.big.rss]}" 1) − $(fmt "${med[fetchplay.small.rss]}" 1) = ${rss_diff} MiB | $rss_verdict |"
    echo
    echo "<details><summary>Every run (wall s, user s, sys s, peak RSS KiB)</summary>"
    echo
    echo "| round | tool | file | wall | user | sys | max RSS KiB |"
    echo "|---:|---|---|---:|---:|---:|---:|"
    awk -F'\t' -v big="$BIG_MIB MiB" -v small="$SMALL_MIB MiB" \
        '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $3, $1, ($2 == "big" ? big : small), $4, $5, $6, $7 }' "$raw"
    echo
    echo "</details>"
} >"$RESULTS.new"
publish_results
log "results: bench/results/download.md"
sed -n '/^| tool/,/^$/p;/^## Targets/,/^$/p;/^| target/,/^$/p' "$RESULTS" >&2
