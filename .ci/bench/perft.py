#!/usr/bin/env python3
"""The perft figures of the README's speed table, side by side with the peers.

    perft.py [--tammi target/release/tammi] [--runs 3] [--scan "CMD {depth}"] [--kish]

Each figure is the median of --runs whole-process wall times. --scan takes a command
that runs Scan's move generator perft from the international start at depth {depth},
counting the last ply in bulk (Scan has no perft command of its own; build your own
driver around its generator — nothing of Scan is part of this project). --kish times
kish's turkish perft(8) through .venv/bin/python (pip install kish).
"""
import argparse
import shlex
import statistics
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("--tammi", default="target/release/tammi")
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--scan")
ap.add_argument("--scan-nobulk")
ap.add_argument("--kish", action="store_true")
a = ap.parse_args()


def timed(cmd):
    times = []
    for _ in range(a.runs):
        t = time.perf_counter()
        out = subprocess.run(cmd, shell=isinstance(cmd, str), capture_output=True, text=True, check=True).stdout
        times.append(time.perf_counter() - t)
    return statistics.median(times), out.strip().splitlines()[-1]


rows = [
    ("international perft(10), bulk, 1 thread", [a.tammi, "perft", "-d", "10"]),
    ("international perft(10), bulk, 2 threads", [a.tammi, "perft", "-d", "10", "-t", "2"]),
    ("international perft(10), every leaf made, 1 thread", [a.tammi, "perft", "-d", "10", "--no-bulk"]),
    ("international perft(9), every leaf made, 1 thread", [a.tammi, "perft", "-d", "9", "--no-bulk"]),
    ("turkish perft(8), 1 thread", [a.tammi, "perft", "-v", "turkish", "-d", "8"]),
    ("english perft(12), 1 thread", [a.tammi, "perft", "-v", "english", "-d", "12"]),
    ("canadian perft(8), 1 thread", [a.tammi, "perft", "-v", "canadian", "-d", "8"]),
]
if a.scan:
    rows.insert(1, ("Scan 3.1 generator: international perft(10), bulk", a.scan.format(depth=10)))
if a.scan_nobulk:
    rows.insert(3, ("Scan 3.1 generator: international perft(10), every leaf made", a.scan_nobulk.format(depth=10)))
if a.kish:
    rows.append(("kish: turkish perft(8)", ".venv/bin/python .ci/differential/kish_perft.py 8"))
for name, cmd in rows:
    secs, last = timed(cmd)
    print(f"{name}: {secs:.3f} s   [{last}]")
