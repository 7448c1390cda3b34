#!/usr/bin/env python3
"""Builds a Fetchplay library of N finished videos for bench/library.sh.

    make-library.py CACHE N CLIP

CACHE gets what `fetchplay --download` leaves for each video: `videos/KEY.json` (the record,
KEY the SHA-256 of the link) naming `videos/clip-NNNNN.webm`. Each video is a copy of CLIP with
its number appended, so every file has its own content (and so its own thumbnail), and a date a
minute apart, so "newest first" has an order to keep. Like a library that older versions of
Fetchplay downloaded, each video also left its empty `partial/KEY.lock` behind. Links are `http://127.0.0.1:9/…`, already
in the form Fetchplay normalises to, so each record's name is the hash of its own link.
"""
import datetime
import hashlib
import json
import os
import sys

cache, count, clip = sys.argv[1], int(sys.argv[2]), sys.argv[3]
videos = os.path.join(cache, "videos")
os.makedirs(videos, exist_ok=True)
os.makedirs(os.path.join(cache, "partial"), exist_ok=True)
with open(clip, "rb") as f:
    body = f.read()
start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
for number in range(count):
    name = f"clip-{number:05d}.webm"
    url = f"http://127.0.0.1:9/library/{name}"
    key = hashlib.sha256(url.encode()).hexdigest()
    path = os.path.join(videos, name)
    data = body + f"fetchplay-bench-{number:05d}".encode()
    with open(path, "wb") as f:
        f.write(data)
    when = (start + datetime.timedelta(minutes=number)).strftime("%Y-%m-%dT%H:%M:%SZ")
    record = {
        "url": url, "displayName": name, "contentType": "video/webm", "etag": f"\"{number}\"",
        "total": len(data), "durableBytes": len(data), "file": path,
        "created": when, "completed": when,
    }
    with open(os.path.join(videos, key + ".json"), "w") as f:
        json.dump(record, f, indent=2, sort_keys=True)
    open(os.path.join(cache, "partial", key + ".lock"), "w").close()
