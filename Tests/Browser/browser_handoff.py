#!/usr/bin/python3
"""The whole hand-off in a real Chromium: a page's link, the extension, the native host, Fetchplay.

    browser_handoff.py --fetchplay BIN [--extension DIR] [--rounds N]

BIN is the built `fetchplay`; the browser starts it as its native host through a symlink named
fetchplay-browser-host, as an install does. Needs a display (Xvfb) and a private session bus
(dbus-run-session), Debian's chromium, chromium-driver and python3-selenium: scripts/test-browser
sets all of that up. Everything runs under a temporary HOME with a fresh browser profile.

The page (a stdlib HTTP server of this script's own, on 127.0.0.1) sets an HttpOnly cookie and
serves its video only to a request that carries that cookie and the page's URL as Referer, so a
download that arrives proves the context went along. A page handed over whole (the popup's
"This page", the page's own context menu item, chosen with a real right-click and an XTest key
press) is asked for by Fetchplay with that cookie, so its scanner sees the page as the person
did; a page with one video (one-video.html) ends with that video in Fetchplay's videos folder.
Prints one line per case, then
"browser: P passed, F failed", and exits 1 when any case failed.

With --rounds N (bench/handoff.sh) it clicks N video links instead and prints each hand-off's
time: from the click to the first byte of the video sent to Fetchplay's own request.
"""
import argparse
import base64
import hashlib
import http.server
import json
import os
import secrets
import shutil
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
import zipfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

HOST_NAME = "io.github.fetchplay.fetchplay"
EXTENSION_ID = "peobkohdifbjbdcfmfmpemobecfkeiif"
APP_ID = "io.github.fetchplay.Fetchplay"
CHECKOUT = Path(__file__).resolve().parents[2]
# Seconds. Generous bounds for waits on a condition (a loaded 2-core machine), never sleeps.
PATIENCE = 60


def wait_for(condition, what, timeout=PATIENCE):
    """Polls `condition` until it returns something true, which it returns; fails naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def extension_id(key):
    """Chromium's id of an extension with this manifest key: the first 32 hex digits of the key's SHA-256, 0-f written a-p."""
    digest = hashlib.sha256(base64.b64decode(key)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(digit, 16)) for digit in digest)


class Site:
    """The test page's server: records every request, and when the first byte of each answer left."""

    def __init__(self, video):
        self.video = video
        self.archive = self._make_archive()
        self.cookie = secrets.token_hex(16)
        # The same cookie's value in the private window's store: which one a request carries
        # tells which store the extension read.
        self.private_cookie = secrets.token_hex(16)
        self.requests = []  # dicts: path, headers, status, first_byte (time.monotonic())
        self.lock = threading.Lock()
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                site.answer(self)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def _make_archive():
        path = Path(tempfile.mkdtemp()) / "notes.zip"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("notes.txt", "Not a video: the browser keeps this one.\n" * 100)
        data = path.read_bytes()
        shutil.rmtree(path.parent)
        return data

    def page_url(self, round_number):
        return f"{self.base}/page.html?round={round_number}"

    def video_path(self, round_number):
        return f"/media/clip-{round_number}.webm"

    def one_video_url(self, round_number):
        """A page with one <video src> and no link, for Fetchplay to read when it is handed the page."""
        return f"{self.base}/one-video.html?round={round_number}"

    def one_video_path(self, round_number):
        return f"/media/only-{round_number}.webm"

    def one_video_page(self, round_number):
        return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>One video {round_number}</title></head>
<body><h1>A page with one video behind its cookie</h1>
<video src="{self.one_video_path(round_number)}" controls width="160" height="90"></video>
</body></html>""".encode()

    def page(self, round_number):
        return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>Round {round_number}</title></head>
<body><h1>A page with a video behind its cookie</h1>
<p><a id="video" href="{self.video_path(round_number)}" download="Handed clip {round_number}.webm">The video</a></p>
<p><a id="archive" href="/files/notes.zip">An archive</a></p>
<p><a id="program" href="/files/player.exe">A program that says it is a video</a></p>
<p><a id="untyped" href="/files/untyped.mp4">A video's name with no type</a></p>
<p><video id="shown" src="/media/shown.webm" preload="none" width="160" height="90"></video></p>
<p><a id="other" href="/media/other.mkv">Another video</a></p>
<script>fetch("/stream/playlist?id=7")</script>
</body></html>""".encode()

    def requests_to(self, path):
        with self.lock:
            return [r for r in self.requests if r["path"] == path]

    def answer(self, handler):
        url = urllib.parse.urlsplit(handler.path)
        record = {"path": url.path, "query": url.query, "headers": dict(handler.headers.items()), "status": 0, "first_byte": None}
        with self.lock:
            self.requests.append(record)
        cookies = handler.headers.get("Cookie", "")
        pairs = [c.strip() for c in cookies.split(";")]
        has_cookie = f"fpsession={self.cookie}" in pairs or f"fpsession={self.private_cookie}" in pairs
        headers = {}
        pages = {"/page.html": self.page, "/one-video.html": self.one_video_page}
        if url.path in pages:
            # A page sets the session cookie its media asks for (HttpOnly, as sites do).
            round_number = urllib.parse.parse_qs(url.query).get("round", ["0"])[0]
            status, body, headers = 200, pages[url.path](round_number), {
                "Content-Type": "text/html; charset=utf-8",
                "Set-Cookie": f"fpsession={self.cookie}; Path=/; HttpOnly; SameSite=Lax",
            }
        elif url.path.startswith("/media/clip-") and url.path.endswith(".webm"):
            round_number = url.path[len("/media/clip-"):-len(".webm")]
            if has_cookie and handler.headers.get("Referer") == self.page_url(round_number):
                status, body = 200, self.video
                headers = {"Content-Type": "video/webm", "ETag": f'"clip-{round_number}"'}
            else:
                status, body = 403, b"Only for the page's visitors.\n"
                headers = {"Content-Type": "text/plain"}
        elif url.path.startswith("/media/only-") and url.path.endswith(".webm"):
            # Only with the page's cookie: a video Fetchplay gets proves the page's context went along.
            if has_cookie:
                status, body, headers = 200, self.video, {"Content-Type": "video/webm", "ETag": '"only"'}
            else:
                status, body, headers = 403, b"Only for the page's visitors.\n", {"Content-Type": "text/plain"}
        elif url.path == "/stream/playlist":
            # Known as HLS by its type only: the popup lists what the tab loaded, not just its links.
            status, body, headers = 200, b"#EXTM3U\n", {"Content-Type": "application/vnd.apple.mpegurl"}
        elif url.path == "/files/player.exe":
            # A video's type on a program's name: the name decides, so the browser keeps it.
            status, body = 200, b"MZ" + b"\0" * 4000
            headers = {"Content-Type": "video/mp4", "Content-Disposition": 'attachment; filename="player.exe"'}
        elif url.path == "/files/untyped.mp4":
            # A video's name with a type that says nothing: both must say media, so the browser keeps it.
            status, body = 200, self.video
            headers = {"Content-Type": "application/octet-stream", "Content-Disposition": 'attachment; filename="untyped.mp4"'}
        elif url.path == "/files/notes.zip":
            status, body = 200, self.archive
            headers = {"Content-Type": "application/zip", "Content-Disposition": 'attachment; filename="notes.zip"'}
        else:
            status, body, headers = 404, b"Not here.\n", {"Content-Type": "text/plain"}
        record["status"] = status
        try:
            handler.send_response(status)
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.flush()
            record["first_byte"] = time.monotonic()
            handler.wfile.write(body)
        except OSError:
            pass  # the browser cancelled its own copy: its connection goes mid-body


def is_browser_request(record):
    """Chromium's own requests carry Fetch metadata; Fetchplay's do not."""
    return "Sec-Fetch-Mode" in record["headers"]


class Run:
    """One temporary home: the browser profile, its downloads, Fetchplay's folders, the host."""

    def __init__(self, fetchplay, extension):
        self.root = Path(tempfile.mkdtemp(prefix="fetchplay-browser-"))
        self.extension = extension
        self.profile = self.root / "profile"
        self.browser_downloads = self.root / "browser-downloads"
        self.cache = self.root / "fetchplay"
        self.videos = self.cache / "videos"
        for folder in (self.profile, self.browser_downloads, self.root / "home", self.root / "bin"):
            folder.mkdir(parents=True)
        self.host = self.root / "bin" / "fetchplay-browser-host"
        self.host.symlink_to(Path(fetchplay).resolve())
        self.host_manifest = self.profile / "NativeMessagingHosts" / f"{HOST_NAME}.json"
        self.driver = None
        self.starts = 0
        self.environment = dict(os.environ)
        self.environment.update({
            "HOME": str(self.root / "home"),
            "XDG_CONFIG_HOME": str(self.root / "config"),
            "XDG_DATA_HOME": str(self.root / "data"),
            "XDG_CACHE_HOME": str(self.root / "cache"),
            "FETCHPLAY_CACHE_DIR": str(self.cache),
            "GSK_RENDERER": "cairo", "GDK_BACKEND": "x11", "NO_AT_BRIDGE": "1", "GTK_A11Y": "none",
        })

    def install_host(self):
        self.host_manifest.parent.mkdir(parents=True, exist_ok=True)
        self.host_manifest.write_text(json.dumps({
            "name": HOST_NAME, "description": "Fetchplay", "path": str(self.host), "type": "stdio",
            "allowed_origins": [f"chrome-extension://{EXTENSION_ID}/"],
        }))

    def install_recording_host(self):
        """Installs a host that copies what the browser sends it to messages.bin, then runs the real one."""
        wrapper = self.root / "bin" / "recording-host"
        wrapper.write_text(f"""#!/bin/bash
tee -a {self.root / 'messages.bin'} | exec -a {self.host} {self.host} "$@"
""")
        wrapper.chmod(0o700)
        self.install_host()
        manifest = json.loads(self.host_manifest.read_text())
        manifest["path"] = str(wrapper)
        self.host_manifest.write_text(json.dumps(manifest))

    def recorded_messages(self):
        """The messages the recording host was sent (native messaging frames: a length, then JSON)."""
        path = self.root / "messages.bin"
        data = path.read_bytes() if path.is_file() else b""
        messages = []
        while len(data) >= 4:
            length = int.from_bytes(data[:4], sys.byteorder)
            messages.append(json.loads(data[4:4 + length]))
            data = data[4 + length:]
        return messages

    def context_files(self):
        partial = self.cache / "partial"
        return sorted(p.name for p in partial.iterdir() if p.suffix == ".context") if partial.is_dir() else []

    def allow_in_incognito(self):
        """Lets the extension run in private windows, as its switch in chrome://extensions does.

        Allowing it reloads it, and Chromium 156 then disables an unpacked extension loaded with
        --load-extension ("unsupportedDeveloperExtension") unless developer mode is on: it is
        switched on first, and the extension enabled again should it still be disabled.
        """
        self.navigate("chrome://extensions/", "typeof chrome.developerPrivate === 'object'", "chrome://extensions")
        def call(script):
            return self.driver.execute_async_script(
                f"const done = arguments[arguments.length - 1]; Promise.resolve({script}).then(done, e => done('error: ' + e));")
        call("chrome.developerPrivate.updateProfileConfiguration({inDeveloperMode: true})")
        answer = call(f"chrome.developerPrivate.updateExtensionConfiguration({{extensionId: '{EXTENSION_ID}', incognitoAccess: true}})")
        assert not str(answer).startswith("error"), answer
        def enabled():
            info = call(f"chrome.developerPrivate.getExtensionInfo('{EXTENSION_ID}')")
            if info.get("state") == "ENABLED" and info.get("incognitoAccess", {}).get("isActive"):
                return True
            if info.get("state") == "DISABLED":
                call(f"chrome.management.setEnabled('{EXTENSION_ID}', true)")
            return False
        wait_for(enabled, "the extension to run again, allowed in private windows")
        self.open_extension_page("options.html")

    def remove_host(self):
        self.host_manifest.unlink(missing_ok=True)

    def start_browser(self, language=None):
        """Starts Chromium on the run's profile, in `language` (e.g. "zh_CN") when given."""
        environment = dict(self.environment)
        options = webdriver.ChromeOptions()
        if language:
            environment.update({"LANGUAGE": language, "LANG": "C.UTF-8"})
            options.add_argument("--lang=" + language.replace("_", "-"))
        options.binary_location = "/usr/bin/chromium"
        for argument in [f"--user-data-dir={self.profile}", f"--load-extension={self.extension}",
                         "--disable-features=DisableLoadExtensionCommandLineSwitch",
                         "--window-size=1000,800", "--no-first-run", "--no-default-browser-check",
                         "--disable-gpu", "--password-store=basic"]:
            options.add_argument(argument)
        if os.geteuid() == 0:
            options.add_argument("--no-sandbox")
        options.page_load_strategy = "none"
        options.add_experimental_option("prefs", {
            "download.default_directory": str(self.browser_downloads),
            "download.prompt_for_download": False,
        })
        self.starts += 1
        service = Service("/usr/bin/chromedriver", env=environment, service_args=["--verbose"],
                          log_path=str(self.root / f"chromedriver-{self.starts}.log"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_script_timeout(PATIENCE)
        self.driver.set_page_load_timeout(PATIENCE)
        # The extension is running once its own page loads and reads its storage.
        self.open_extension_page("options.html")

    def stop_browser(self):
        if self.driver:
            self.driver.quit()
            self.driver = None

    def navigate(self, url, ready, what):
        """Loads `url` in the current tab and waits until the script `ready` is true there.

        The driver itself does not wait (page load strategy "none"): chromedriver's own wait for
        pending navigations can hang on a restarted profile's first tab.
        """
        self.driver.get(url)
        wait_for(lambda: self.driver.execute_script(f"return location.href === {json.dumps(url)} && ({ready})"), what)

    def open_extension_page(self, page):
        self.navigate(f"chrome-extension://{EXTENSION_ID}/{page}", "document.body?.dataset.ready === 'true'",
                      f"the extension's {page}")

    def extension_call(self, script):
        """Runs `script` (an expression giving a promise) in an extension page; returns its value."""
        if not self.driver.current_url.startswith(f"chrome-extension://{EXTENSION_ID}/"):
            self.open_extension_page("options.html")
        return self.driver.execute_async_script(
            f"const done = arguments[arguments.length - 1]; Promise.resolve({script}).then(done, e => done({{error: String(e)}}));")

    def browser_downloads_list(self):
        self.driver.switch_to.window(self.driver.window_handles[0])
        return self.extension_call("chrome.downloads.search({})")

    def open_page(self, round_number, site):
        self.open_url(site.page_url(round_number), f"the page of round {round_number}")

    def open_url(self, url, what=None):
        """Loads `url` in the first tab and waits until it is loaded."""
        self.driver.switch_to.window(self.driver.window_handles[0])
        self.navigate(url, "document.readyState === 'complete'", what or url)

    def fetchplay_requests(self, site, path, query):
        """Fetchplay's own requests for `path?query` on the site (the browser's carry Fetch metadata)."""
        return [r for r in site.requests_to(path) if r["query"] == query and not is_browser_request(r)]

    @staticmethod
    def visible_windows():
        """The display's mapped X windows (a context menu of Chromium's is one of its own)."""
        answer = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", ""], capture_output=True, text=True)
        return set(answer.stdout.split())

    def choose_from_context_menu(self, element, letter):
        """Right-clicks `element` and picks the menu's item that starts with `letter`, by real input.

        WebDriver opens the browser's own context menu (a right-click) but cannot reach it: its
        item is chosen with a key press sent through XTest (xdotool without --window), as a
        person's keyboard would. In a views menu a letter that starts one item alone activates it.
        """
        before = self.visible_windows()
        ActionChains(self.driver).context_click(element).perform()
        menu = wait_for(lambda: self.visible_windows() - before, "the browser's context menu")
        subprocess.run(["xdotool", "key", letter], check=True)
        wait_for(lambda: not (self.visible_windows() & menu), "the context menu to close")

    def videos_named(self, name):
        path = self.videos / name
        return path.read_bytes() if path.is_file() else None

    def video_files(self):
        return sorted(p.name for p in self.videos.iterdir()) if self.videos.is_dir() else []

    def browser_files(self):
        return sorted(p.name for p in self.browser_downloads.iterdir())

    def quit_fetchplay(self):
        """Quits the window the host started (its own quit action, as a desktop shell would)."""
        def owned():
            answer = subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus",
                                     "--object-path", "/org/freedesktop/DBus", "--method",
                                     "org.freedesktop.DBus.NameHasOwner", APP_ID],
                                    capture_output=True, text=True)
            return "true" in answer.stdout
        if not owned():
            return
        subprocess.run(["gdbus", "call", "--session", "--dest", APP_ID, "--object-path",
                        "/" + APP_ID.replace(".", "/"), "--method", "org.gtk.Actions.Activate",
                        "quit", "[]", "{}"], capture_output=True)
        wait_for(lambda: not owned(), "Fetchplay's window to quit", timeout=20)


class Cases:
    def __init__(self, run, site, artifacts):
        self.run = run
        self.site = site
        self.artifacts = artifacts
        self.handoff_ms = []

    def screenshot(self, name):
        """Saves the current extension page as artifacts/browser/NAME.png, and dark-NAME.png in the dark style."""
        driver = self.run.driver
        self.artifacts.mkdir(parents=True, exist_ok=True)
        for prefix, scheme in (("", "light"), ("dark-", "dark")):
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                   {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            wait_for(lambda: driver.execute_script(
                f"return matchMedia('(prefers-color-scheme: {scheme})').matches"), f"the {scheme} style")
            driver.find_element(By.TAG_NAME, "body").screenshot(str(self.artifacts / f"{prefix}{name}.png"))
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

    def click_video(self, round_number):
        """Clicks the page's video link (a real click); returns the click's time (time.monotonic())."""
        self.run.open_page(round_number, self.site)
        link = self.run.driver.find_element(By.ID, "video")
        clicked = time.monotonic()
        link.click()
        return clicked

    def wait_for_fetchplay(self, round_number, clicked):
        """Waits for the exact video in Fetchplay's videos folder; returns the hand-off in milliseconds."""
        name = f"Handed clip {round_number}.webm"
        wait_for(lambda: self.run.videos_named(name) == self.site.video,
                 f"{name} in Fetchplay's videos folder (there: {self.run.video_files()})")
        path = self.site.video_path(round_number)
        fetchplay = [r for r in self.site.requests_to(path) if not is_browser_request(r) and r["status"] == 200]
        assert fetchplay, f"no request of Fetchplay's was served {path}: {self.site.requests_to(path)}"
        return (fetchplay[0]["first_byte"] - clicked) * 1000, fetchplay[0]

    def test_extension_id_is_fixed(self):
        manifest = json.loads((self.run.extension / "manifest.json").read_text())
        assert extension_id(manifest["key"]) == EXTENSION_ID, extension_id(manifest["key"])
        assert manifest["browser_specific_settings"]["gecko"]["id"] == "fetchplay@fetchplay.github.io"
        # Its pages and worker load only its own scripts and may open no connection at all, so
        # the cookies it reads can go nowhere but to the native host.
        policy = manifest["content_security_policy"]["extension_pages"]
        assert "default-src 'none'" in policy and "script-src 'self';" in policy and "connect-src" not in policy, policy

    def popup(self, round_number, url=None):
        """Opens the popup's page for the tab of the test page (or of `url`); returns its driver on that page."""
        driver = self.run.driver
        if url:
            self.run.open_url(url)
        else:
            self.run.open_page(round_number, self.site)
        # The page's tab id, read by an extension page opened beside it: the window's first tab
        # (the extension cannot match a page that is not http or https by its URL).
        driver.switch_to.new_window("tab")
        self.run.open_extension_page("options.html")
        tab = self.run.extension_call("chrome.tabs.query({currentWindow: true, index: 0}).then(t => t[0].id)")
        self.run.open_extension_page(f"popup.html?tab={tab}")
        return driver

    def close_popup(self):
        self.run.driver.close()
        self.run.driver.switch_to.window(self.run.driver.window_handles[0])

    def test_popup_without_host_says_how_to_install(self):
        self.run.remove_host()
        driver = self.popup(0)
        try:
            notice = driver.find_element(By.ID, "host-missing")
            assert notice.is_displayed(), "the host-missing notice is hidden"
            assert "scripts/install" in notice.text and "Fetchplay" in notice.text, notice.text
            self.screenshot("popup-no-host")
        finally:
            self.close_popup()
            self.run.install_host()

    def test_popup_lists_the_pages_media(self):
        driver = self.popup(0)
        try:
            assert not driver.find_element(By.ID, "host-missing").is_displayed(), "the host is there"
            # A video's name with no media type is listed too: handed over from here, Fetchplay
            # judges its bytes (only the browser's own download of it stays the browser's).
            expected = sorted(self.site.base + p for p in (self.site.video_path(0), "/media/shown.webm", "/media/other.mkv",
                                                            "/files/untyped.mp4", "/stream/playlist?id=7"))
            listed = lambda: sorted(b.get_attribute("title") for b in driver.find_elements(By.CSS_SELECTOR, "#media button"))
            # The playlist the page fetched is listed once its answer came: reopened until then.
            if listed() != expected:
                wait_for(lambda: self.run.open_extension_page(driver.current_url.split("/")[-1]) or listed() == expected,
                         f"the popup to list {expected} (it lists {listed()})")
            kinds = [k.text for k in driver.find_elements(By.CSS_SELECTOR, "#media .kind")]
            assert "HLS" in kinds and "MKV" in kinds, kinds
            self.screenshot("popup")
            self.run.open_extension_page("options.html")
            self.screenshot("options")
        finally:
            self.close_popup()

    def test_popup_click_goes_to_fetchplay(self):
        """One click in the popup hands the link over with the tab's page as referrer and its cookies."""
        driver = self.popup(4)
        try:
            url = self.site.base + self.site.video_path(4)
            button = next(b for b in driver.find_elements(By.CSS_SELECTOR, "#media button") if b.get_attribute("title") == url)
            clicked = time.monotonic()
            button.click()
            self.wait_for_fetchplay(4, clicked)
            status = driver.find_element(By.ID, "status").text
            assert "Handed clip 4.webm" in status and "error" not in driver.find_element(By.ID, "status").get_attribute("class"), status
        finally:
            self.close_popup()

    def expect_page_request(self, page, request):
        """Fetchplay's request for `page` is the one a person's browser makes: its cookie (HttpOnly), its User-Agent, the page as Referer."""
        user_agent = self.run.driver.execute_script("return navigator.userAgent")
        headers = request["headers"]
        assert headers.get("Cookie") == f"fpsession={self.site.cookie}", f"not the browser's cookie: {headers.get('Cookie')}"
        assert headers.get("User-Agent") == user_agent, headers.get("User-Agent")
        assert headers.get("Referer") == page, headers.get("Referer")

    def press_this_page(self, driver, page):
        """Presses the popup's "This page" from the keyboard: it is the first control Tab reaches."""
        button = driver.find_element(By.ID, "this-page")
        assert button.is_enabled() and button.get_attribute("title") == page, (button.is_enabled(), button.get_attribute("title"))
        assert button.find_element(By.CSS_SELECTOR, ".where").text == page
        ActionChains(driver).send_keys(Keys.TAB).perform()
        wait_for(lambda: driver.execute_script("return document.activeElement?.id") == "this-page", "Tab to reach This page")
        self.screenshot("popup-this-page-focused")
        ActionChains(driver).send_keys(Keys.ENTER).perform()

    def test_popup_this_page_hands_over_the_page(self):
        """"This page" hands the tab's page to Fetchplay, which asks for it as the person's browser did.

        A page of several videos, where Fetchplay downloads none by itself: nothing of it lands
        in the videos folder while later cases count it.
        """
        page = self.site.page_url(8)
        driver = self.popup(8)
        try:
            self.press_this_page(driver, page)
            requests = wait_for(lambda: self.run.fetchplay_requests(self.site, "/page.html", "round=8"),
                                "Fetchplay's request for the page")
            self.expect_page_request(page, requests[0])
            status = driver.find_element(By.ID, "status")
            wait_for(lambda: "error" not in status.get_attribute("class") and "127.0.0.1" in status.text,
                     f"the popup to say Fetchplay took the page (it says {status.text!r})")
        finally:
            self.close_popup()

    def test_popup_this_page_with_one_video_saves_it(self):
        """A page handed over with one <video src> on it: Fetchplay reads it and saves that video.

        Needs the window's side of a handed page (it reads the page with the engine's PageReader
        and downloads a page's only video directly); the page's request is checked before.
        """
        page = self.site.one_video_url(9)
        before = set(self.run.video_files())
        driver = self.popup(9, url=page)
        try:
            driver.find_element(By.ID, "this-page").click()
            requests = wait_for(lambda: self.run.fetchplay_requests(self.site, "/one-video.html", "round=9"),
                                "Fetchplay's request for the page")
            self.expect_page_request(page, requests[0])
        finally:
            self.close_popup()
        saved = lambda: [name for name in set(self.run.video_files()) - before
                         if not name.endswith(".json") and self.run.videos_named(name) == self.site.video]
        found = wait_for(saved, "the page's one video in Fetchplay's videos folder (the window reads a handed page: "
                                f"its side must be there); the folder has {self.run.video_files()}")
        video = [r for r in self.site.requests_to(self.site.one_video_path(9)) if not is_browser_request(r)]
        assert video and all(r["status"] == 200 for r in video), f"Fetchplay asked for the video as {video}"
        # Saved whole, with its record beside it, before the next case counts the folder.
        wait_for(lambda: any(name.endswith(".json") for name in set(self.run.video_files()) - before),
                 f"the record of {found[0]}")

    def test_page_menu_hands_over_the_page(self):
        """"Download with Fetchplay" on the page itself (a right-click on no link) hands the page
        over, with its cookie and as its own Referer; on a link the same item still hands the link."""
        run, site = self.run, self.site
        page = site.page_url(7)
        run.open_page(7, site)
        run.choose_from_context_menu(run.driver.find_element(By.TAG_NAME, "h1"), "d")
        # Asked for twice: the link's own answer, found to be a page, then the scanner's reading.
        requests = wait_for(lambda: (lambda got: got if len(got) >= 2 else None)(run.fetchplay_requests(site, "/page.html", "round=7")),
                            "Fetchplay's two requests for the page")
        for request in requests:
            self.expect_page_request(page, request)
        run.open_page(7, site)
        run.choose_from_context_menu(run.driver.find_element(By.ID, "other"), "d")
        link = wait_for(lambda: run.fetchplay_requests(site, "/media/other.mkv", ""), "Fetchplay's request for the link")
        assert link[0]["headers"].get("Referer") == page, link[0]["headers"].get("Referer")
        assert len(run.fetchplay_requests(site, "/page.html", "round=7")) == len(requests), "the link's item handed the page too"

    def test_this_page_is_disabled_on_a_page_that_is_not_on_the_web(self):
        """No "This page" for the browser's own pages or a file: nothing there for Fetchplay to ask for."""
        catalogue = json.loads((self.run.extension / "_locales" / "en" / "messages.json").read_text())
        # The tab first shows a web page whose playlist the extension notes: the popup of the
        # page that follows it lists none of it.
        self.run.open_page(10, self.site)
        self.run.driver.switch_to.new_window("tab")
        self.run.open_extension_page("options.html")
        noted = ("chrome.tabs.query({currentWindow: true, index: 0})"
                 ".then(t => chrome.storage.session.get('media:' + t[0].id)).then(o => Object.values(o)[0] ?? [])")
        wait_for(lambda: any(e["url"] == self.site.base + "/stream/playlist?id=7" for e in self.run.extension_call(noted)),
                 "the page's playlist noted by the extension")
        self.close_popup()
        local = self.run.root / "local.html"
        local.write_text("<!DOCTYPE html><title>A file</title><p>A page on this computer.</p>")
        for url in ("chrome://version/", local.as_uri()):
            driver = self.popup(0, url=url)
            try:
                button = driver.find_element(By.ID, "this-page")
                assert not button.is_enabled(), f"This page is enabled on {url}"
                reason = button.find_element(By.CSS_SELECTOR, ".where").text
                assert reason == catalogue["popupPageNotWeb"]["message"], reason
                listed = [b.get_attribute("title") for b in driver.find_elements(By.CSS_SELECTOR, "#media button")]
                assert listed == [], f"the popup of {url} lists an earlier page's media: {listed}"
                if url.startswith("chrome:"):
                    self.screenshot("popup-not-a-web-page")
            finally:
                self.close_popup()

    def test_popup_in_chinese(self):
        """The popup and options in the browser's language (Simplified Chinese here)."""
        catalogue = json.loads((self.run.extension / "_locales" / "zh_CN" / "messages.json").read_text())
        self.run.stop_browser()
        self.run.start_browser(language="zh_CN")
        try:
            driver = self.popup(0)
            heading = driver.find_element(By.TAG_NAME, "h1").text
            assert heading == catalogue["popupHeading"]["message"], heading
            this_page = driver.find_element(By.CSS_SELECTOR, "#this-page .name").text
            assert this_page == catalogue["popupThisPage"]["message"], this_page
            self.screenshot("zh_CN-popup")
            self.run.remove_host()
            self.run.open_extension_page(driver.current_url.split("/")[-1])
            notice = driver.find_element(By.ID, "host-missing")
            assert notice.is_displayed() and catalogue["hostMissingTitle"]["message"] in notice.text, notice.text
            self.screenshot("zh_CN-popup-no-host")
            self.run.open_extension_page("options.html")
            assert driver.find_element(By.TAG_NAME, "h1").text == catalogue["optionsTitle"]["message"]
            self.screenshot("zh_CN-options")
            self.close_popup()
        finally:
            self.run.install_host()
            self.run.stop_browser()
            self.run.start_browser()

    def test_video_link_goes_to_fetchplay(self):
        clicked = self.click_video(1)
        user_agent = self.run.driver.execute_script("return navigator.userAgent")
        milliseconds, request = self.wait_for_fetchplay(1, clicked)
        self.handoff_ms.append(milliseconds)
        assert request["headers"].get("User-Agent") == user_agent, request["headers"].get("User-Agent")
        assert request["headers"].get("Referer") == self.site.page_url(1)
        wait_for(lambda: self.run.browser_downloads_list() == [], "the browser's list of downloads to be empty")
        assert self.run.browser_files() == [], f"the browser kept {self.run.browser_files()}"
        # Fetchplay saves it whole, with its record beside it; the next test counts the videos
        # folder, which must no longer be changing under it.
        name = "Handed clip 1.webm"
        wait_for(lambda: name in self.run.video_files()
                 and any(f.endswith(".json") for f in self.run.video_files())
                 and (self.run.videos / name).read_bytes() == self.site.video,
                 f"{name} saved whole by Fetchplay")
        print(f"  hand-off: {milliseconds:.0f} ms from the click to the first byte of Fetchplay's request")

    def test_zip_stays_with_the_browser(self):
        before = self.run.video_files()
        self.run.open_page(1, self.site)
        self.run.driver.find_element(By.ID, "archive").click()
        done = lambda: [d for d in self.run.browser_downloads_list()
                        if d.get("state") == "complete" and d.get("filename", "").endswith("notes.zip")]
        wait_for(done, "notes.zip downloaded by the browser")
        assert (self.run.browser_downloads / "notes.zip").read_bytes() == self.site.archive
        requests = self.site.requests_to("/files/notes.zip")
        assert len(requests) == 1 and is_browser_request(requests[0]), f"notes.zip was asked for {requests}"
        assert self.run.video_files() == before, f"Fetchplay got {self.run.video_files()}"

    def test_program_with_a_video_type_stays_with_the_browser(self):
        """A download must be media by its name and its type: a video type on an .exe is the browser's."""
        before = self.run.video_files()
        self.run.open_page(1, self.site)
        self.run.driver.find_element(By.ID, "program").click()
        done = lambda: [d for d in self.run.browser_downloads_list()
                        if d.get("state") == "complete" and d.get("filename", "").endswith("player.exe")]
        wait_for(done, "player.exe downloaded by the browser")
        requests = self.site.requests_to("/files/player.exe")
        assert requests and all(is_browser_request(r) for r in requests), f"player.exe was asked for {requests}"
        assert self.run.video_files() == before, f"Fetchplay got {self.run.video_files()}"

    def test_a_video_name_without_a_media_type_stays_with_the_browser(self):
        """The name and the type must both say media: a .mp4 sent as application/octet-stream is the browser's."""
        before = self.run.video_files()
        self.run.open_page(1, self.site)
        self.run.driver.find_element(By.ID, "untyped").click()
        done = lambda: [d for d in self.run.browser_downloads_list()
                        if d.get("state") == "complete" and d.get("filename", "").endswith("untyped.mp4")]
        wait_for(done, "untyped.mp4 downloaded by the browser")
        requests = self.site.requests_to("/files/untyped.mp4")
        assert requests and all(is_browser_request(r) for r in requests), f"untyped.mp4 was asked for {requests}"
        assert self.run.video_files() == before, f"Fetchplay got {self.run.video_files()}"

    def test_without_host_the_browser_keeps_the_video(self):
        """When Fetchplay's host cannot be started, the paused download goes on in the browser, whole."""
        self.run.remove_host()
        try:
            self.run.open_page(5, self.site)
            self.run.driver.find_element(By.ID, "video").click()
            name = "Handed clip 5.webm"
            wait_for(lambda: [d for d in self.run.browser_downloads_list()
                              if d.get("state") == "complete" and d.get("filename", "").endswith(name)],
                     f"{name} downloaded by the browser")
            assert (self.run.browser_downloads / name).read_bytes() == self.site.video
            assert name not in self.run.video_files()
            # The popup tells why, and how to install the host.
            driver = self.popup(5)
            try:
                assert driver.find_element(By.ID, "host-missing").is_displayed()
                status = driver.find_element(By.ID, "status")
                assert "error" in status.get_attribute("class") and "Fetchplay" in status.text, status.text
            finally:
                self.close_popup()
        finally:
            self.run.install_host()

    def set_catching(self, on):
        self.run.driver.switch_to.window(self.run.driver.window_handles[0])
        self.run.open_extension_page("options.html")
        box = self.run.driver.find_element(By.ID, "catch")
        if box.is_selected() != on:
            box.click()
        wait_for(lambda: self.run.extension_call("chrome.storage.local.get('catchDownloads')")
                 .get("catchDownloads", True) == on, "the option to be saved")

    def test_private_window_sends_its_own_cookies_and_keeps_nothing(self):
        """A video clicked in an incognito window goes with that window's cookie, marked private, and
        Fetchplay writes no context file for it."""
        run, site, driver = self.run, self.site, self.run.driver
        run.install_recording_host()
        try:
            run.allow_in_incognito()
            page = site.page_url(6)
            # The normal store's cookie (the page sets it); the private window gets its own.
            run.open_page(6, site)
            main = driver.current_window_handle
            before = set(driver.window_handles)
            run.extension_call(f"chrome.windows.create({{incognito: true, url: {json.dumps(page)}}})")
            handle = wait_for(lambda: next(iter(set(driver.window_handles) - before), None), "the private window")
            driver.switch_to.window(handle)
            wait_for(lambda: driver.execute_script(f"return location.href === {json.dumps(page)} && document.readyState === 'complete'"),
                     "the page in the private window")
            driver.switch_to.window(main)
            private_store = wait_for(lambda: next((s["id"] for s in run.extension_call("chrome.cookies.getAllCookieStores()")
                                                   if s["id"] != "0"), None), "the private window's cookie store")
            answer = run.extension_call(f"chrome.cookies.set({{url: {json.dumps(site.base + '/')}, name: 'fpsession', "
                                        f"value: '{site.private_cookie}', httpOnly: true, storeId: '{private_store}'}})")
            assert isinstance(answer, dict) and answer.get("value") == site.private_cookie, answer
            normal = run.extension_call(f"chrome.cookies.get({{url: {json.dumps(site.base + '/')}, name: 'fpsession', storeId: '0'}})")
            assert normal and normal["value"] == site.cookie, normal
            driver.switch_to.window(handle)
            clicked = time.monotonic()
            driver.find_element(By.ID, "video").click()
            name = "Handed clip 6.webm"
            path = site.video_path(6)
            while run.videos_named(name) != site.video:
                assert run.context_files() == [], f"a private download's context was written: {run.context_files()}"
                assert time.monotonic() - clicked < PATIENCE, f"{name} never reached Fetchplay's videos folder"
                time.sleep(0.02)
            assert run.context_files() == [], run.context_files()
            fetchplay = [r for r in site.requests_to(path) if not is_browser_request(r)]
            assert fetchplay, f"Fetchplay never asked for {path}: {site.requests_to(path)}"
            for request in fetchplay:
                cookie = request["headers"].get("Cookie", "")
                assert cookie == f"fpsession={site.private_cookie}", f"not the private window's cookie: {cookie}"
            sent = [m for m in run.recorded_messages() if m.get("type") == "download" and m.get("url", "").endswith(path)]
            assert sent and all(m.get("private") is True for m in sent), f"not marked private: {[m.get('private') for m in sent]}"
        finally:
            for extra in driver.window_handles[1:]:
                driver.switch_to.window(extra)
                driver.close()
            driver.switch_to.window(driver.window_handles[0])
            run.install_host()

    def test_switched_off_then_history_is_not_taken(self):
        # Switched off, a video download stays with the browser.
        self.set_catching(False)
        self.run.open_page(2, self.site)
        self.run.driver.find_element(By.ID, "video").click()
        name = "Handed clip 2.webm"
        wait_for(lambda: (self.run.browser_downloads / name).is_file()
                 and (self.run.browser_downloads / name).read_bytes() == self.site.video,
                 f"{name} downloaded by the browser")
        self.set_catching(True)
        # A new browser session on the same profile brings that download back from the history;
        # it must stay there, whatever the browser tells extensions about it at startup. A video
        # clicked after the list is loaded shows the extension at work, handed only the new one.
        self.run.stop_browser()
        self.run.start_browser()
        restored = self.run.browser_downloads_list()
        history = [d for d in restored if d.get("filename", "").endswith(name)]
        assert history and history[0]["state"] == "complete", f"the browser's history lost {name}: {history}"
        clicked = self.click_video(3)
        self.handoff_ms.append(self.wait_for_fetchplay(3, clicked)[0])
        takers = [r for r in self.site.requests_to(self.site.video_path(2)) if not is_browser_request(r)]
        assert takers == [], f"Fetchplay was handed a download from the history: {takers}"
        left = self.run.browser_downloads_list()
        assert sorted(d["id"] for d in left) == sorted(d["id"] for d in restored), \
            f"the browser's list should be its history: {restored}, not {left}"
        assert name not in self.run.video_files()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fetchplay", required=True, help="the built fetchplay program")
    parser.add_argument("--extension", default=str(CHECKOUT / "browser"), help="the unpacked extension")
    parser.add_argument("--rounds", type=int, default=0, help="measure the hand-off this many times instead")
    parser.add_argument("--only", action="append", default=[], help="run only this case (repeatable)")
    arguments = parser.parse_args()
    for needed in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
        if not os.access(needed, os.X_OK):
            sys.exit(f"browser: {needed} is missing (scripts/install-deps installs chromium and chromium-driver)")
    if not os.environ.get("DISPLAY") or not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        sys.exit("browser: needs a display and a session bus (run it through scripts/test-browser)")

    site = Site((CHECKOUT / "data" / "sample.webm").read_bytes())
    run = Run(arguments.fetchplay, Path(arguments.extension).resolve())
    cases = Cases(run, site, CHECKOUT / "artifacts" / "browser")
    passed = failed = 0
    try:
        run.install_host()
        run.start_browser()
        if arguments.rounds:
            for round_number in range(100, 100 + arguments.rounds):
                clicked = cases.click_video(round_number)
                milliseconds, _ = cases.wait_for_fetchplay(round_number, clicked)
                print(f"round {round_number - 99}: {milliseconds:.0f} ms")
                cases.handoff_ms.append(milliseconds)
            warm = cases.handoff_ms[1:]
            print(f"hand-off, click to first byte: first {cases.handoff_ms[0]:.0f} ms (window started by the host)"
                  + (f", then median {statistics.median(warm):.0f} ms over {len(warm)} (window running)" if warm else ""))
            return 0
        tests = [getattr(cases, name) for name in dir(cases) if name.startswith("test_")]
        order = ["test_extension_id_is_fixed", "test_popup_without_host_says_how_to_install",
                 "test_popup_lists_the_pages_media", "test_video_link_goes_to_fetchplay",
                 "test_zip_stays_with_the_browser", "test_program_with_a_video_type_stays_with_the_browser",
                 "test_a_video_name_without_a_media_type_stays_with_the_browser",
                 "test_without_host_the_browser_keeps_the_video",
                 "test_switched_off_then_history_is_not_taken",
                 "test_popup_click_goes_to_fetchplay", "test_private_window_sends_its_own_cookies_and_keeps_nothing",
                 "test_popup_this_page_hands_over_the_page", "test_page_menu_hands_over_the_page",
                 "test_this_page_is_disabled_on_a_page_that_is_not_on_the_web",
                 "test_popup_this_page_with_one_video_saves_it",
                 "test_popup_in_chinese"]
        tests.sort(key=lambda test: order.index(test.__name__))
        if arguments.only:
            tests = [test for test in tests if test.__name__ in arguments.only]
        for test in tests:
            try:
                test()
                passed += 1
                print(f"PASS {test.__name__}", flush=True)
            except Exception:
                failed += 1
                print(f"FAIL {test.__name__}\n{traceback.format_exc()}", flush=True)
    finally:
        try:
            run.stop_browser()
            run.quit_fetchplay()
        except Exception:
            failed += 1
            print(f"FAIL cleanup\n{traceback.format_exc()}", flush=True)
        if failed == 0:
            shutil.rmtree(run.root, ignore_errors=True)
        else:
            print(f"browser: the run's files are kept in {run.root}")
    print(f"browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
