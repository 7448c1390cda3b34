#!/usr/bin/env bash
# Screenshots of the window for the README: mid-download and done, taken under Xvfb against a
# local nginx that serves a throttled file.
#
#   scripts/screenshots.sh            writes data/screenshots/downloading.png and done.png, then
#                                     narrow.png, video.png, failed-row.png, row-menu.png,
#                                     preferences.png, quality.png, watching.png (and their dark-*.png twins) from the window
#                                     tests that make them
#
# Needs: xvfb-run, imagemagick (import, convert), nginx, openbox, xdotool. Builds fetchplay
# first; set SCRATCH_PATH to use another build folder (default .build).
set -euo pipefail

cd "$(dirname "$0")/.."
out="data/screenshots"
mkdir -p "$out"

swift build --scratch-path "${SCRATCH_PATH:-.build}" --product fetchplay >/dev/null
swift build --scratch-path "${SCRATCH_PATH:-.build}" --product fetchplay-window >/dev/null
bin="$(swift build --scratch-path "${SCRATCH_PATH:-.build}" --show-bin-path)/fetchplay"

work="$(mktemp -d /tmp/fetchplay-shots-XXXXXX)"
chmod 755 "$work"
mkdir -p "$work/www" "$work/cache"
chmod 755 "$work/www"
nginx_pid=""
cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# A 12 MB "video" served at 1.5 MB/s: about eight seconds of ring to photograph.
head -c 12000000 /dev/urandom > "$work/www/big-buck-bunny.webm"
chmod 644 "$work/www/big-buck-bunny.webm"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
cat > "$work/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid "$work/nginx.pid";
error_log "$work/error.log" warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path "$work/t1"; proxy_temp_path "$work/t2"; fastcgi_temp_path "$work/t3";
    uwsgi_temp_path "$work/t4"; scgi_temp_path "$work/t5";
    types { video/webm webm; }
    gzip off;
    server { listen 127.0.0.1:$port; root "$work/www"; limit_rate 1500000; }
}
CONF
nginx -p "$work/" -c "$work/nginx.conf" -e "$work/error.log" &
nginx_pid=$!
for _ in $(seq 50); do [ -f "$work/nginx.pid" ] && break; sleep 0.1; done

# Inside Xvfb: start the app on the URL, shoot at about 40 %, then once the checkmark is drawn.
cat > "$work/inside.sh" <<'INSIDE'
set -euo pipefail
export GSK_RENDERER=cairo GDK_BACKEND=x11 FETCHPLAY_CACHE_DIR="$WORK/cache" NO_AT_BRIDGE=1
"$BIN" "$URL" 2>"$WORK/app.log" &
app=$!
shoot() { sleep 0.5; import -window root "$WORK/raw.png"; convert "$WORK/raw.png" -trim +repage "$OUT/$1.png"; }
for _ in $(seq 300); do
    size=$(stat -c %s "$WORK"/cache/partial/*.part 2>/dev/null | head -n1 || true)
    [ "${size:-0}" -gt 4800000 ] && break
    sleep 0.1
done
shoot downloading
for _ in $(seq 300); do
    ls "$WORK"/cache/videos/*.webm >/dev/null 2>&1 && break
    sleep 0.1
done
sleep 1
shoot done
kill "$app"
INSIDE
WORK="$work" BIN="$bin" URL="http://127.0.0.1:$port/big-buck-bunny.webm" OUT="$PWD/$out" \
    xvfb-run -a -s "-screen 0 700x800x24" bash "$work/inside.sh"
echo "wrote $out/downloading.png and $out/done.png"

# The window tests drive these states with real input under openbox and save what they see in
# artifacts/ui/; run them once light and once dark (libadwaita's
# ADW_DEBUG_COLOR_SCHEME, as if the desktop preferred dark), and keep the four that matter.
swift build --scratch-path "${SCRATCH_PATH:-.build}" --build-tests >/dev/null
for theme in light dark; do
    prefix=""
    themeVar=()
    if [ "$theme" = dark ]; then prefix="dark-"; themeVar=(ADW_DEBUG_COLOR_SCHEME=prefer-dark); fi
    env "${themeVar[@]}" GSK_RENDERER=cairo GDK_BACKEND=x11 NO_AT_BRIDGE=1 \
        xvfb-run -a -s "-screen 0 1280x800x24" swift test --scratch-path "${SCRATCH_PATH:-.build}" --skip-build --no-parallel \
        --filter 'WindowLayoutTests|FailedLinkTests|LibraryMenuTests|PreferencesWindowTests|VariantChoiceTests|WatchPositionTests' >/dev/null
    cp artifacts/ui/layout-narrow.png "$out/${prefix}narrow.png"
    cp artifacts/ui/layout-narrow-video.png "$out/${prefix}video.png"
    cp artifacts/ui/library-failed-row.png "$out/${prefix}failed-row.png"
    cp artifacts/ui/library-row-menu.png "$out/${prefix}row-menu.png"
    cp artifacts/ui/preferences.png "$out/${prefix}preferences.png"
    cp artifacts/ui/hls-variant-chooser.png "$out/${prefix}quality.png"
    cp artifacts/ui/watching-presentation.png "$out/${prefix}watching.png"
done
echo "wrote $out/{,dark-}{narrow,video,failed-row,row-menu,preferences,quality,watching}.png"
