#!/usr/bin/env bash
# Playback cost: a 1080p30 H.264 clip in the Fetchplay window, against the decoding floor
# (gst-launch-1.0 playbin with fakesinks) and GTK's own GtkVideo, all under Xvfb.
#
#   bench/playback.sh                 3 rounds on a 20 s clip
#   ROUNDS=5 SECONDS_LONG=30 bench/playback.sh
#
# Each round runs the three players once, in a rotating order, on the same generated clip
# (videotestsrc SMPTE bars moving sideways with a ball, x264enc at 8 Mbit/s, MP4). For each run
# GNU time gives the whole process's CPU time (user + sys) and wall time. Fetchplay, started with
# FETCHPLAY_BENCH=1, also reports from the moment the file is opened: CPU seconds, the time to the
# first painted frame, frames painted and frames dropped (late at the sink, or replaced before
# the main thread got them), then quits at the end of the stream. GtkVideo's helper reports its
# first frame and the frames its stream produced. Both windows have Fetchplay's default size, with GSK_RENDERER=cairo,
# as in the tests (Xvfb has no GL). The floor plays in real time too (sync=true fakesinks).
#
# Medians go to bench/results/playback.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

command_line="bench/playback.sh"
for var in ROUNDS SECONDS_LONG; do
    [[ -n ${!var:-} ]] && command_line="$var=${!var} $command_line"
done
ROUNDS=${ROUNDS:-3}
SECONDS_LONG=${SECONDS_LONG:-20}
RESULTS="$BENCH_DIR/results/playback.md"

# x264enc (plugins-ugly) makes the clip; avdec_h264 (libav) decodes it; GtkVideo needs GTK's
# GStreamer media backend.
bench_ensure gst-launch-1.0=gstreamer1.0-tools xvfb-run=xvfb xauth=xauth /usr/bin/time=time bc=bc \
    cc=gcc pkg-config=pkg-config
need_element() { gst-inspect-1.0 "$1" >/dev/null 2>&1 || bench_ensure "/nonexistent/$1=$2"; }
need_element x264enc gstreamer1.0-plugins-ugly
need_element avdec_h264 gstreamer1.0-libav
need_element mp4mux gstreamer1.0-plugins-good
pkg-config --exists gtk4 || bench_ensure /nonexistent/gtk4-dev=libgtk-4-dev
ls /usr/lib/*/gtk-4.0/4.0.0/media/libmedia-gstreamer.so >/dev/null 2>&1 \
    || bench_ensure /nonexistent/gtk-media=libgtk-4-media-gstreamer

log "building fetchplay (release, .build-play)"
(cd "$REPO_DIR" && swift build -c release --scratch-path .build-play >&2) || die "swift build failed"
FETCHPLAY="$REPO_DIR/.build-play/release/fetchplay"
bench_tmp
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

gtkvideo="$BENCH_TMP/gtkvideo"
# shellcheck disable=SC2046
cc -O2 "$BENCH_DIR/playback-gtkvideo.c" -o "$gtkvideo" $(pkg-config --cflags --libs gtk4)

clip="$BENCH_TMP/clip-1080p30.mp4"
frames=$((SECONDS_LONG * 30))
log "making a ${SECONDS_LONG} s 1080p30 H.264 clip"
gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=smpte horizontal-speed=4 \
    ! video/x-raw,width=1920,height=1080,framerate=30/1 ! videoconvert \
    ! x264enc bitrate=8000 speed-preset=veryfast key-int-max=60 ! video/x-h264,profile=high \
    ! mp4mux ! filesink location="$clip" >&2
uri="file://$clip"

raw="$BENCH_TMP/raw.tsv"
: >"$raw"
run_one() { # NAME ROUND
    local name=$1 round=$2 out="$BENCH_TMP/$1-$2.out" timing="$BENCH_TMP/$1-$2.time"
    local -a env=(env GSK_RENDERER=cairo GDK_BACKEND=x11 NO_AT_BRIDGE=1)
    case $name in
    floor)
        "${env[@]}" /usr/bin/time -f "%U %S %e" -o "$timing" gst-launch-1.0 -q playbin uri="$uri" \
            video-sink="fakesink sync=true" audio-sink="fakesink sync=true" >"$out" 2>&1 ;;
    fetchplay)
        xvfb-run -a -s "-screen 0 1280x800x24" "${env[@]}" FETCHPLAY_BENCH=1 \
            /usr/bin/time -f "%U %S %e" -o "$timing" "$FETCHPLAY" --cache-dir "$BENCH_TMP/cache-$round" "$clip" \
            >"$out" 2>&1 ;;
    gtkvideo)
        xvfb-run -a -s "-screen 0 1280x800x24" "${env[@]}" \
            /usr/bin/time -f "%U %S %e" -o "$timing" "$gtkvideo" "$clip" "${window_size[@]}" >"$out" 2>&1 ;;
    esac
    read -r user sys wall <"$timing"
    local first="" shown="" dropped="" inner=""
    case $name in
    fetchplay)
        local line; line=$(grep '^fetchplay-bench ' "$out") || die "fetchplay reported nothing: $(tail -5 "$out")"
        field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
        first=$(field first_frame_ms); shown=$(field frames_painted); inner=$(field cpu_seconds)
        local size; size=$(field window)
        window_size=("${size%x*}" "${size#*x}")
        # Late at the sink, plus published but never painted (replaced on the way or unpainted).
        dropped=$(( $(field sink_dropped_late) + $(field published) - $(field frames_painted) )) ;;
    gtkvideo)
        local line; line=$(grep '^gtkvideo-bench ' "$out") || die "gtkvideo reported nothing: $(tail -5 "$out")"
        first=$(sed -n 's/.*first_frame_ms=\([^ ]*\).*/\1/p' <<<"$line")
        shown=$(sed -n 's/.*frames=\([^ ]*\).*/\1/p' <<<"$line")
        # The stream invalidates once more than it has frames (601 for 600): never below 0.
        dropped=$((frames > shown ? frames - shown : 0)) ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$round" "$(echo "$user + $sys" | bc)" "$wall" \
        "$first" "$shown" "$dropped" "$inner" "$(echo "($user + $sys) / $SECONDS_LONG" | bc -l)" >>"$raw"
    log "  $name round $round: cpu $(echo "$user + $sys" | bc) s, wall $wall s, first frame ${first:-–} ms, shown ${shown:-–}, dropped ${dropped:-–}"
}

# Fetchplay runs first in round 1 and tells its window size; GtkVideo's window gets the same.
window_size=()
players=(floor fetchplay gtkvideo)
for round in $(seq "$ROUNDS"); do
    log "round $round"
    for i in 0 1 2; do
        run_one "${players[$(((i + round) % 3))]}" "$round"
    done
done

col() { awk -F'\t' -v n="$1" -v c="$2" '$1 == n { print $c }' "$raw" | median; }
floor_cpu=$(col floor 3)
{
    echo "# Playback: 1080p30 H.264 in the window"
    echo
    echo "Command: \`$command_line\` — $(date -u +%Y-%m-%d), $ROUNDS rounds, medians."
    echo "Machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(uname -sr)."
    echo "Clip: ${SECONDS_LONG} s, 1920x1080, 30 fps ($frames frames), x264 High 8 Mbit/s, no audio;"
    echo "decoded by avdec_h264. Windows of the same size under Xvfb, GSK_RENDERER=cairo."
    echo
    echo "| player | CPU s (process) | CPU s / s of video | × floor | first frame ms | frames shown | dropped |"
    echo "|---|---|---|---|---|---|---|"
    for name in floor fetchplay gtkvideo; do
        cpu=$(col "$name" 3)
        label=$name
        [[ $name == floor ]] && label="gst-launch playbin, fakesinks (floor)"
        [[ $name == fetchplay ]] && label="Fetchplay window"
        [[ $name == gtkvideo ]] && label="GtkVideo (GTK's media backend)"
        first=$(col "$name" 5); shown=$(col "$name" 6); dropped=$(col "$name" 7)
        printf '| %s | %.2f | %.3f | %.2f | %s | %s | %s |\n' "$label" "$cpu" "$(echo "$cpu / $SECONDS_LONG" | bc -l)" \
            "$(echo "$cpu / $floor_cpu" | bc -l)" "${first:-–}" "${shown:-–}" "${dropped:-–}"
    done
    inner=$(col fetchplay 8)
    echo
    echo "Fetchplay's own count from opening the file to the end of the stream (without process and"
    echo "GTK start-up): $(printf '%.2f' "$inner") CPU s, $(printf '%.3f' "$(echo "$inner / $SECONDS_LONG" | bc -l)") per second of video."
    echo "\"First frame\" is from opening the file to the first frame painted (Fetchplay: after the frame"
    echo "clock painted it; GtkVideo: its stream's first new frame). \"Dropped\" is $frames minus frames shown"
    echo "for GtkVideo; for Fetchplay, frames the sink dropped as late plus frames replaced before the"
    echo "main thread showed them. Targets (issue 4): ≤ 1.5× floor, ≤ GtkVideo, first frame ≤ 300 ms."
    echo "Both windows: ${window_size[0]:-?}x${window_size[1]:-?} (Fetchplay's default size)."
    echo
    echo "<details><summary>Raw runs</summary>"
    echo
    echo "| player | round | CPU s | wall s | first frame ms | shown | dropped | CPU s after open |"
    echo "|---|---|---|---|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$raw"
    echo
    echo "</details>"
} >"$RESULTS"
log "wrote ${RESULTS#"$REPO_DIR"/}"
cat "$RESULTS"
