#!/usr/bin/env bash
# From the browser to Fetchplay: how long a clicked video link takes to reach Fetchplay.
#
#   bench/handoff.sh            10 rounds
#   ROUNDS=20 bench/handoff.sh
#
# Debian's Chromium under Xvfb on a private session bus, the extension (browser/) loaded
# unpacked, the native host the release fetchplay (through its fetchplay-browser-host name), the
# page and its video from a small HTTP server on loopback that serves the video only with the
# page's HttpOnly cookie and Referer (Tests/Browser/browser_handoff.py --rounds, the test's own
# set-up). Each round opens the page and clicks its video link for real (selenium); the time runs
# from the click to the first byte of the video sent to Fetchplay's own request: the browser's
# request and its download's creation, the extension's pause and hand-off, Chromium starting the
# host, the host's check and session-bus call, the window's start of the download. The first round
# also starts the window (none runs); the others find it running.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/handoff.sh"
[[ -n ${ROUNDS:-} ]] && command_line="ROUNDS=$ROUNDS $command_line"
ROUNDS=${ROUNDS:-10}
RESULTS="$BENCH_DIR/results/handoff.md"

"$REPO_DIR/scripts/install-deps"
bench_begin
raw="$BENCH_TMP/rounds"
(cd "$REPO_DIR" && xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- /usr/bin/python3 \
    Tests/Browser/browser_handoff.py --fetchplay "$FETCHPLAY" --rounds "$ROUNDS") 2>/dev/null | tee "$BENCH_TMP/out" >&2
sed -n 's/^round \([0-9]*\): \([0-9]*\) ms$/\1 \2/p' "$BENCH_TMP/out" >"$raw"
(($(wc -l <"$raw") == ROUNDS)) || die "the test ran $(wc -l <"$raw") of $ROUNDS rounds"
cold=$(sed -n '1s/.* //p' "$raw")
warm=$(sed -n '2,$s/.* //p' "$raw" | median)
{
    echo "# From the browser to Fetchplay"
    echo
    echo "Command: \`$command_line\` — $(date -u +%Y-%m-%d), $ROUNDS rounds."
    echo "$(machine_line)"
    echo
    echo "$(chromium --version 2>/dev/null | head -1) under Xvfb, the extension loaded unpacked, the release"
    echo "fetchplay as its native host. A real click on a page's video link (served only with the page's"
    echo "HttpOnly cookie and Referer), timed to the first byte of the video sent to Fetchplay's request."
    echo
    echo "| | ms |"
    echo "|---|---:|"
    echo "| first round: the host also starts the window | $cold |"
    echo "| median of the other $((ROUNDS - 1)): the window runs | $warm |"
    echo
    echo "Raw rounds (round, ms):"
    echo
    echo '```'
    cat "$raw"
    echo '```'
} >"$RESULTS"
log "results in ${RESULTS#"$REPO_DIR"/}"
cat "$RESULTS"
