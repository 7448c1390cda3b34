#!/usr/bin/env python3
"""Starts the window on a library and measures it from outside, for bench/library.sh.

    watch-window.py FETCHPLAY CACHE PROBE LOG

Runs `FETCHPLAY --cache-dir CACHE` (under the caller's X display) with
FETCHPLAY_LIBRARY_BENCH=PROBE, samples its CPU time and resident memory every 20 ms from /proc,
and prints `key=value` lines, times in seconds from the launch:
  first_rows   the first frame with library rows on screen (from the probe)
  loaded       every record read and listed (from the probe)
  idle         the start of the first second after `loaded` in which the process used less than
               3% of a core (30 ms of CPU): nothing left to do
  rss_mib      resident memory at the end of that second; peak_rss_mib: the highest it was
Then it ends the window with SIGTERM and checks it exits with 0.
"""
import os
import signal
import subprocess
import sys
import time

exe, cache, probe, log = sys.argv[1:5]
TIMEOUT = 90.0
WINDOW = 1.0
BUDGET = 0.03

if os.path.exists(probe):
    os.remove(probe)
env = dict(os.environ, FETCHPLAY_LIBRARY_BENCH=probe)
start = time.monotonic()
with open(log, "w") as err:
    process = subprocess.Popen([exe, "--cache-dir", cache], env=env, stdout=subprocess.DEVNULL, stderr=err)
ticks = os.sysconf("SC_CLK_TCK")


def sample():
    with open(f"/proc/{process.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss = 0
    with open(f"/proc/{process.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return cpu, rss


def probed():
    values = {}
    if os.path.exists(probe):
        with open(probe) as f:
            for line in f:
                key, _, value = line.strip().partition("=")
                values[key] = value
    return values


samples = []
idle = None
while time.monotonic() - start < TIMEOUT and process.poll() is None:
    now = time.monotonic()
    cpu, rss = sample()
    samples.append((now, cpu, rss))
    values = probed()
    if "loaded" in values or os.environ.get("NO_PROBE") == "1":
        loaded = int(values["loaded"]) / 1e6 if "loaded" in values else start + 0.5
        # The earliest sample after `loaded` followed by a quiet second.
        for t, c, _ in samples:
            if t < loaded - 0.02 or now - t < WINDOW:
                continue
            later = [s for s in samples if s[0] >= t + WINDOW]
            if later and later[0][1] - c < BUDGET:
                idle = (t, later[0])
                break
        if idle:
            break
    time.sleep(0.02)

values = probed()
process.send_signal(signal.SIGTERM)
try:
    status = process.wait(timeout=20)
except subprocess.TimeoutExpired:
    process.kill()
    status = "killed"


def since(key):
    return f"{int(values[key]) / 1e6 - start:.3f}" if key in values else "nan"


print(f"first_rows={since('first_rows')}")
print(f"loaded={since('loaded')}")
print(f"settled={since('settled')}")
print(f"rows={values.get('rows', 'nan')}")
print(f"bound_rows={values.get('bound_rows', 'nan')}")
if idle:
    print(f"idle={idle[0] - start:.3f}")
    print(f"rss_mib={idle[1][2] / 1024:.1f}")
else:
    print("idle=nan")
    print(f"rss_mib={samples[-1][2] / 1024 if samples else float('nan'):.1f}")
print(f"peak_rss_mib={max((s[2] for s in samples), default=0) / 1024:.1f}")
print(f"cpu_s={samples[-1][1] if samples else float('nan'):.2f}")
print(f"exit={status}")
