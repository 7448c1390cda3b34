# Shared helpers for the bench/ scripts; sourced, not run.
#
#   bench_ensure CMD=PACKAGE…   apt-get installs the packages whose command is missing (update once)
#   bench_build                 release build into .build-bench; sets FETCHPLAY (relative to the repo)
#   bench_begin                 bench_build, bench_tmp, and the traps that clean up on exit
#   bench_site DIR              makes DIR and its files world-readable for nginx's workers
#   bench_big_file MIB          SITE/big.bin of MIB MiB of random bytes; sets SITE, BIG_SHA
#   bench_random_file PATH MIB  PATH gets MIB mebibytes of random bytes
#   nginx_start ROOT            nginx on 127.0.0.1:free port serving ROOT; sets NGINX_PORT, NGINX_URL
#                               (NGINX_LIMIT_RATE=4m: each connection limited, as many hosts do)
#                               (NGINX_ACCESS_LOG=FILE: each request's end and duration there,
#                               for peak_connections; NGINX_LOG_EXTRA='$status $request_uri…':
#                               more nginx variables after those two on each line)
#                               (NGINX_TYPES='text/html html; video/mp4 mp4;': Content-Types by
#                               extension; otherwise every file is application/octet-stream)
#   nginx_stop                  stops it (also done by bench_cleanup)
#   line_start BYTES_PER_S      a line of that speed shared by every connection: a network
#                               namespace behind a veth pair, its egress shaped by tc's token
#                               bucket; nginx_start then serves from there (NGINX_HOST, NGINX_RUN).
#                               Needs root; removed by bench_cleanup
#   median / machine_line       small reporting helpers
#   fmt VALUE [DIGITS] / ratio A B   a number with DIGITS decimals (2); A / B to 2 decimals (n/a for B = 0)
#
# Everything temporary lives in one `mktemp -d` folder (BENCH_TMP), removed on exit.
# Paths written into results are relative to the repository, never this machine's.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
BENCH_TMP=""
NGINX_PID=""
NGINX_PREFIX=""

log() { printf '%s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# bench_ensure curl=curl aria2c=aria2 …: installs what is missing; quick when all is there.
bench_ensure() {
    local missing=() pair
    for pair in "$@"; do
        local cmd=${pair%%=*} pkg=${pair#*=}
        if [[ $cmd == /* ]]; then [[ -x $cmd ]] && continue; else command -v "$cmd" >/dev/null 2>&1 && continue; fi
        missing+=("$pkg")
    done
    ((${#missing[@]})) || return 0
    log "installing: ${missing[*]}"
    local sudo=""
    [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
}

# How the benches build fetchplay: as scripts/install and the .deb do, the Swift runtime and
# Foundation linked in statically (a dynamic build spends about 0.06 CPU s more binding Swift's
# symbols at run time: that is not what a user runs).
BENCH_BUILD_COMMAND="swift build -c release --static-swift-stdlib --scratch-path .build-bench"

# Builds fetchplay in release with the bench's own scratch path; FETCHPLAY is its absolute path,
# FETCHPLAY_BENCH_WINDOW the window's program with the probes (`fetchplay-bench-window`, built
# for the benches only: the window that ships has none), which takes the same arguments.
bench_build() {
    log "building fetchplay (release, static Swift runtime, .build-bench)"
    (cd "$REPO_DIR" && $BENCH_BUILD_COMMAND >&2) || die "swift build failed"
    FETCHPLAY="$REPO_DIR/.build-bench/release/fetchplay"
    FETCHPLAY_BENCH_WINDOW="$REPO_DIR/.build-bench/release/fetchplay-bench-window"
    [[ -x $FETCHPLAY && -x $FETCHPLAY_BENCH_WINDOW ]] || die "no binaries in .build-bench/release"
}

bench_tmp() {
    BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/fetchplay-bench.XXXXXX")
    # nginx serves from here through unprivileged workers: the folder must be world-readable
    # (mktemp makes it 0700), and so must its parents.
    chmod 755 "$BENCH_TMP"
    # Fetchplay keeps its window size and preferences in XDG_CONFIG_HOME: a bench starts from
    # the defaults, whatever size the last window on this machine was left at.
    export XDG_CONFIG_HOME="$BENCH_TMP/config"
    mkdir -p "$XDG_CONFIG_HOME"
    local dir=$BENCH_TMP
    while [[ $dir != / ]]; do
        dir=$(dirname "$dir")
        (( 8#$(stat -c %a "$dir") & 1 )) \
            || die "$dir is not world-searchable; nginx workers would answer 403 (set TMPDIR)"
    done
}

# yt-dlp, a bench tool and not a dependency, from PyPI into .build-bench/venv (once); YTDLP is
# its path.
bench_ytdlp() {
    local venv="$REPO_DIR/.build-bench/venv"
    if [[ ! -x $venv/bin/yt-dlp ]]; then
        log "installing yt-dlp into .build-bench/venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q yt-dlp
    fi
    YTDLP="$venv/bin/yt-dlp"
}

bench_begin() {
    bench_build
    bench_tmp
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM
}

bench_big_file() {
    SITE="$BENCH_TMP/site"
    bench_site "$SITE"
    log "making a $1 MiB file of random bytes"
    bench_random_file "$SITE/big.bin" "$1"
    BIG_SHA=$(sha256sum "$SITE/big.bin" | cut -d' ' -f1)
}

bench_cleanup() {
    nginx_stop
    line_stop
    [[ -n $BENCH_TMP && -d $BENCH_TMP ]] && rm -rf "$BENCH_TMP"
    BENCH_TMP=""
}

bench_site() {
    mkdir -p "$1"
    chmod 755 "$1"
}

# bench_random_file PATH MIB
bench_random_file() {
    head -c "$(($2 * 1024 * 1024))" /dev/urandom >"$1"
    chmod 644 "$1"
}

# nginx_start ROOT: like Tests/TestSupport/Nginx.swift (daemon off, everything in a temp prefix,
# one worker, sendfile), on a free loopback port (retried if another process takes it first).
nginx_start() {
    local root=$1 attempt port
    NGINX_PREFIX="$BENCH_TMP/${NGINX_NAME:-nginx}"
    mkdir -p "$NGINX_PREFIX"
    for attempt in 1 2 3 4 5 6 7 8; do
        port=$((20000 + RANDOM % 40000))
        [[ -z $(ss -Htln "sport = :$port" 2>/dev/null) ]] || continue
        cat >"$NGINX_PREFIX/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid "$NGINX_PREFIX/nginx.pid";
error_log "$NGINX_PREFIX/error.log" warn;
events { worker_connections 256; }
http {
    log_format spans '\$msec \$request_time${NGINX_LOG_EXTRA:+ $NGINX_LOG_EXTRA}';
    access_log ${NGINX_ACCESS_LOG:-off}${NGINX_ACCESS_LOG:+ spans};
    client_body_temp_path "$NGINX_PREFIX/client_body_temp";
    proxy_temp_path "$NGINX_PREFIX/proxy_temp";
    fastcgi_temp_path "$NGINX_PREFIX/fastcgi_temp";
    uwsgi_temp_path "$NGINX_PREFIX/uwsgi_temp";
    scgi_temp_path "$NGINX_PREFIX/scgi_temp";
    default_type application/octet-stream;
    ${NGINX_TYPES:+types { $NGINX_TYPES \}}
    sendfile on;
    gzip off;
    server {
        listen ${NGINX_HOST:-127.0.0.1}:$port;
        root "$root";
        ${NGINX_LIMIT_RATE:+limit_rate $NGINX_LIMIT_RATE;}
    }
}
EOF
        rm -f "$NGINX_PREFIX/nginx.pid"
        ${NGINX_RUN:-} nginx -p "$NGINX_PREFIX/" -c "$NGINX_PREFIX/nginx.conf" -e "$NGINX_PREFIX/error.log" \
            </dev/null >/dev/null 2>&1 &
        NGINX_PID=$!
        local i
        for i in $(seq 100); do
            kill -0 "$NGINX_PID" 2>/dev/null || break
            if [[ -s $NGINX_PREFIX/nginx.pid ]] && curl -s -o /dev/null "http://${NGINX_HOST:-127.0.0.1}:$port/"; then
                NGINX_PORT=$port
                NGINX_URL="http://${NGINX_HOST:-127.0.0.1}:$port"
                return 0
            fi
            sleep 0.1
        done
        nginx_stop
        grep -q "Address already in use" "$NGINX_PREFIX/error.log" 2>/dev/null || break
    done
    die "nginx did not start: $(cat "$NGINX_PREFIX/error.log" 2>/dev/null)"
}

# peak_connections LOG: the most requests nginx served at once, from a log of NGINX_ACCESS_LOG's
# "end duration" lines (seconds, millisecond resolution).
peak_connections() {
    awk '{ printf "%.3f 1\n%.3f -1\n", $1 - $2, $1 }' "$1" | sort -k1,1n -k2,2n \
        | awk '{ now += $2; if (now > peak) peak = now } END { print peak + 0 }'
}

line_start() {
    LINE_NS="fetchplay-bench-$$"
    local host=fpb$$a peer=fpb$$b
    ip netns add "$LINE_NS" || die "no network namespace (line_start needs root)"
    ip link add "$host" type veth peer name "$peer"
    ip link set "$peer" netns "$LINE_NS"
    ip addr add 10.203.0.1/30 dev "$host"
    ip link set "$host" up
    ip netns exec "$LINE_NS" ip addr add 10.203.0.2/30 dev "$peer"
    ip netns exec "$LINE_NS" ip link set "$peer" up
    ip netns exec "$LINE_NS" ip link set lo up
    ip netns exec "$LINE_NS" tc qdisc add dev "$peer" root tbf rate "$(($1 * 8))bit" burst 32kb latency 1s
    LINE_HOST=$host
    NGINX_HOST=10.203.0.2
    NGINX_RUN="ip netns exec $LINE_NS"
}

line_stop() {
    [[ -n ${LINE_NS:-} ]] || return 0
    ip netns del "$LINE_NS" 2>/dev/null || true
    ip link del "$LINE_HOST" 2>/dev/null || true
    LINE_NS=""
}

nginx_stop() {
    [[ -n $NGINX_PID ]] || return 0
    kill -TERM "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=""
}

# median of the numbers on stdin (one a line)
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# One line describing this machine, for the results.
machine_line() {
    local model
    model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
    printf '%s CPUs (nproc), %s; %s MiB RAM; %s; kernel %s' "$(nproc)" "${model:-unknown CPU}" \
        "$(awk '/^MemTotal/ { printf "%d", $2 / 1024 }' /proc/meminfo)" \
        "$(. /etc/os-release && echo "$PRETTY_NAME")" "$(uname -r)"
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# watch_play OUT CACHE URL: `fetchplay --play URL` in the window under Xvfb (GL renderer, its own
# session bus) with the watch probe seeking to $SEEK; its output in OUT, its report line in
# $watch_line, read with watch_field NAME.
watch_play() {
    xvfb-run -a -s "-screen 0 1280x800x24" env GSK_RENDERER=gl GDK_BACKEND=x11 NO_AT_BRIDGE=1 \
        FETCHPLAY_WATCH_BENCH="$SEEK" timeout 120 dbus-run-session -- \
        "$FETCHPLAY_BENCH_WINDOW" --cache-dir "$2" --play "$3" >"$1" 2>&1 \
        || die "fetchplay failed: $(tail -5 "$1")"
    watch_line=$(grep '^fetchplay-watch ' "$1") || die "fetchplay reported nothing: $(tail -5 "$1")"
}
watch_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$watch_line"; }
fmt() { awk -v v="$1" -v d="${2:-2}" 'BEGIN { printf "%.*f", d, v }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }


# Moves "$RESULTS.new" over "$RESULTS", keeping the hand-written "## Analysis" section (from its
# heading to the end) that the old file may have.
publish_results() {
    if [[ -f $RESULTS ]] && grep -q '^## Analysis' "$RESULTS"; then
        { echo; sed -n '/^## Analysis/,$p' "$RESULTS"; } >>"$RESULTS.new"
    fi
    mv "$RESULTS.new" "$RESULTS"
}
