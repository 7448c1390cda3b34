#!/usr/bin/env bash
# Playback cost under both GTK renderers: a 1080p30 H.264 clip in the Fetchplay window and in
# GTK's own GtkVideo, each with GSK_RENDERER=gl (Mesa's software GL under Xvfb) and
# GSK_RENDERER=cairo, against two floors with no window at all.
#
#   bench/playback.sh                 3 rounds on a 20 s clip
#   ROUNDS=5 SECONDS_LONG=30 bench/playback.sh
#
# Each round runs every player once, in a rotating order, on the same generated clip
# (videotestsrc SMPTE bars moving sideways, x264enc at 8 Mbit/s, MP4, no audio):
#   decode   gst-launch-1.0 playbin into fakesinks: decoding only
#   floor    the fair floor: playbin decoding and converting to BGRA at the size of Fetchplay's
#            frames (videoconvertscale, as Fetchplay's sink) into a fakesink; no display
#   fetchplay-gl, fetchplay-cairo, gtkvideo-gl, gtkvideo-cairo   the windows, same size, Xvfb
# All play in real time (sync=true). GNU time gives each process's CPU time (user + sys) and wall
# time. Fetchplay, started with FETCHPLAY_BENCH=1, also reports the time from opening the file
# to the first painted frame, frames painted and dropped, its frame size and frame path
# (texture or cairo), then quits at the end of the stream; GtkVideo's helper reports its first
# frame and the frames its stream produced.
#
# Medians and the targets of issue 12 (met or missed) go to bench/results/playback.md.
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
# The window's program with the probes (what ships has none); it takes fetchplay's arguments.
FETCHPLAY_BENCH_WINDOW="$REPO_DIR/.build-play/release/fetchplay-bench-window"
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
window_size=()   # Fetchplay's window, for GtkVideo's
frame_size=()    # Fetchplay's frames, for the fair floor
paths=()         # renderer=path pairs Fetchplay reported

run_one() { # NAME ROUND
    local name=$1 round=$2 out="$BENCH_TMP/$1-$2.out" timing="$BENCH_TMP/$1-$2.time"
    local renderer=${name##*-}
    local -a env=(env GSK_RENDERER="$renderer" GDK_BACKEND=x11 NO_AT_BRIDGE=1)
    local -a xvfb=(xvfb-run -a -s "-screen 0 1280x800x24")
    case $name in
    decode)
        /usr/bin/time -f "%U %S %e" -o "$timing" gst-launch-1.0 -q playbin uri="$uri" \
            video-sink="fakesink sync=true" audio-sink="fakesink sync=true" >"$out" 2>&1 ;;
    floor)
        /usr/bin/time -f "%U %S %e" -o "$timing" gst-launch-1.0 -q playbin uri="$uri" \
            video-sink="videoconvertscale ! video/x-raw,format=BGRA,pixel-aspect-ratio=1/1,width=${frame_size[0]},height=${frame_size[1]} ! fakesink sync=true" \
            audio-sink="fakesink sync=true" >"$out" 2>&1 ;;
    fetchplay-*)
        "${xvfb[@]}" "${env[@]}" FETCHPLAY_BENCH=1 \
            /usr/bin/time -f "%U %S %e" -o "$timing" "$FETCHPLAY_BENCH_WINDOW" --cache-dir "$BENCH_TMP/cache-$name-$round" "$clip" \
            >"$out" 2>&1 ;;
    gtkvideo-*)
        "${xvfb[@]}" "${env[@]}" \
            /usr/bin/time -f "%U %S %e" -o "$timing" "$gtkvideo" "$clip" "${window_size[@]}" >"$out" 2>&1 ;;
    esac || die "$name failed: $(tail -5 "$out")"
    read -r user sys wall <"$timing"
    local first="" shown="" dropped="" inner=""
    case $name in
    fetchplay-*)
        local line; line=$(grep '^fetchplay-bench ' "$out") || die "fetchplay reported nothing: $(tail -5 "$out")"
        field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
        first=$(field first_frame_ms); shown=$(field frames_painted); inner=$(field cpu_seconds)
        local size; size=$(field window)
        window_size=("${size%x*}" "${size#*x}")
        size=$(field frame)
        frame_size=("${size%x*}" "${size#*x}")
        paths+=("$renderer=$(field path)")
        # Late at the sink, plus published but never painted (replaced on the way or unpainted).
        dropped=$(( $(field sink_dropped_late) + $(field published) - $(field frames_painted) ))
        ((dropped >= 0)) || dropped=0 ;;
    gtkvideo-*)
        local line; line=$(grep '^gtkvideo-bench ' "$out") || die "gtkvideo reported nothing: $(tail -5 "$out")"
        first=$(sed -n 's/.*first_frame_ms=\([^ ]*\).*/\1/p' <<<"$line")
        shown=$(sed -n 's/.*frames=\([^ ]*\).*/\1/p' <<<"$line")
        # The stream invalidates once more than it has frames (601 for 600): never below 0.
        dropped=$((frames > shown ? frames - shown : 0)) ;;
    esac
    local cpu; cpu=$(echo "$user + $sys" | bc)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$round" "$cpu" "$wall" \
        "$first" "$shown" "$dropped" "$inner" >>"$raw"
    log "  $name round $round: cpu $cpu s, wall $wall s, first frame ${first:-–} ms, shown ${shown:-–}, dropped ${dropped:-–}"
}

# Round 1 starts with Fetchplay, which tells the window and frame sizes the others use; then
# the order rotates so no player always follows the same one.
players=(fetchplay-gl gtkvideo-gl floor fetchplay-cairo gtkvideo-cairo decode)
n=${#players[@]}
for round in $(seq "$ROUNDS"); do
    log "round $round (load $(loadavg))"
    for i in $(seq 0 $((n - 1))); do
        run_one "${players[$(((i + (round - 1) * 2) % n))]}" "$round"
    done
done

col() { awk -F'\t' -v n="$1" -v c="$2" '$1 == n { print $c }' "$raw" | median; }
ratio() { printf '%.3f' "$(echo "$1 / $2" | bc -l)"; }
floor_cpu=$(col floor 3)
verdict() { # VALUE LIMIT: "met" when VALUE <= LIMIT
    if [[ $(echo "$1 <= $2" | bc -l) == 1 ]]; then echo "met"; else echo "**missed**"; fi
}
{
    echo "# Playback: 1080p30 H.264 under both GTK renderers"
    echo
    echo "Command: \`$command_line\` — $(date -u +%Y-%m-%d), $ROUNDS rounds, medians."
    echo "Machine: $(machine_line)."
    echo "Clip: ${SECONDS_LONG} s, 1920x1080, 30 fps ($frames frames), x264 High 8 Mbit/s, no audio;"
    echo "decoded by avdec_h264. Windows ${window_size[0]:-?}x${window_size[1]:-?} (Fetchplay's default size) under Xvfb;"
    echo "GL is Mesa's llvmpipe (software GL). Fetchplay's frames: ${frame_size[0]:-?}x${frame_size[1]:-?}; frame path by renderer: $(printf '%s\n' "${paths[@]:-?}" | sort -u | paste -sd' ')."
    echo
    echo "| player | renderer | CPU s (process) | CPU s / s of video | × fair floor | × GtkVideo (same renderer) | first frame ms | frames shown | dropped |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    for name in decode floor fetchplay-gl gtkvideo-gl fetchplay-cairo gtkvideo-cairo; do
        cpu=$(col "$name" 3)
        case $name in
        decode) label="gst-launch playbin, fakesinks (decoding only)"; renderer="–" ;;
        floor) label="gst-launch playbin → BGRA ${frame_size[0]:-?}x${frame_size[1]:-?} → fakesink (fair floor)"; renderer="–" ;;
        fetchplay-*) label="Fetchplay window"; renderer=${name##*-} ;;
        gtkvideo-*) label="GtkVideo (GTK's media backend)"; renderer=${name##*-} ;;
        esac
        versus="–"
        [[ $renderer != "–" ]] && versus=$(ratio "$cpu" "$(col "gtkvideo-$renderer" 3)")
        first=$(col "$name" 5); shown=$(col "$name" 6); dropped=$(col "$name" 7)
        [[ $first == nan ]] && first="–"; [[ $shown == nan ]] && shown="–"; [[ $dropped == nan ]] && dropped="–"
        printf '| %s | %s | %.2f | %.3f | %.2f | %s | %s | %s | %s |\n' "$label" "$renderer" "$cpu" \
            "$(echo "$cpu / $SECONDS_LONG" | bc -l)" "$(echo "$cpu / $floor_cpu" | bc -l)" "$versus" \
            "$first" "$shown" "$dropped"
    done
    echo
    gl_ratio=$(ratio "$(col fetchplay-gl 3)" "$(col gtkvideo-gl 3)")
    cairo_ratio=$(ratio "$(col fetchplay-cairo 3)" "$floor_cpu")
    limit_dropped=$(echo "$frames / 100" | bc -l)
    echo "Targets (issue 12):"
    echo
    echo "- GL: Fetchplay ≤ 0.8× GtkVideo's CPU — ${gl_ratio}×, $(verdict "$gl_ratio" 0.8)."
    echo "- cairo: Fetchplay ≤ 1.5× the fair floor — ${cairo_ratio}×, $(verdict "$cairo_ratio" 1.5)."
    for renderer in gl cairo; do
        first=$(col "fetchplay-$renderer" 5); dropped=$(col "fetchplay-$renderer" 7)
        echo "- $renderer: first frame ≤ 300 ms — ${first} ms, $(verdict "$first" 300); dropped ≤ 1% ($(printf '%.0f' "$limit_dropped") frames) — ${dropped}, $(verdict "$dropped" "$limit_dropped")."
    done
    echo
    echo "Fetchplay's own count from opening the file to the end of the stream (without process and GTK"
    echo "start-up): $(printf '%.2f' "$(col fetchplay-gl 8)") CPU s under GL, $(printf '%.2f' "$(col fetchplay-cairo 8)") under cairo."
    echo "\"First frame\" is from opening the file to the first frame painted (Fetchplay: after the frame"
    echo "clock painted it; GtkVideo: its stream's first new frame). \"Dropped\": for Fetchplay, frames the"
    echo "sink dropped as late plus frames replaced before the main thread painted them; for GtkVideo,"
    echo "$frames minus the frames its stream handed to the main thread (it cannot see frames the"
    echo "renderer skipped, so its figure can only be lower than the truth)."
    echo
    echo "<details><summary>Raw runs</summary>"
    echo
    echo "| player | round | CPU s | wall s | first frame ms | shown | dropped | CPU s after open |"
    echo "|---|---|---|---|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$raw"
    echo
    echo "</details>"
} >"$RESULTS.new"
publish_results
log "wrote ${RESULTS#"$REPO_DIR"/}"
cat "$RESULTS"
