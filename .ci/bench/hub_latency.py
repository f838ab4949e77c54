#!/usr/bin/env python3
"""Measure tammi hub's answer times (a benchmark, not a test: the figures go in protocol.md).

    hub_latency.py [TAMMI_BINARY] [--threads N]

- pong during a running search (20 pings);
- done after stop (20 searches, each stopped after 0.3 s of analysis);
- done after go think with a single legal move (20 times);
- done after go think in a position of the opening book (the start, book on, 20 times);
- done for a 0.5 s move sent right after set-param hash=4096, then hash=64 again (5 times):
  the table is prepared in the background, so the move takes its 0.5 s, not the seconds
  the allocation takes.
The other rows search (book=false): from the start position a `go think` would be a book move.
Prints median and maximum in milliseconds.
"""
import statistics
import subprocess
import sys
import time

tammi = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "target/release/tammi"
threads = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "1"
p = subprocess.Popen([tammi, "hub"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def send(line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def until(word):
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit("tammi hub exited")
        if line.startswith(word):
            return line


send("hub"); until("wait"); send(f"set-param name=threads value={threads}"); send("set-param name=book value=false"); send("init"); until("ready")

pong, done, forced = [], [], []
send("pos"); send("go analyze"); until("info"); time.sleep(0.3)
for _ in range(20):
    t = time.perf_counter(); send("ping"); until("pong"); pong.append(time.perf_counter() - t)
    time.sleep(0.02)
send("stop"); until("done")
for _ in range(20):
    send("pos"); send("go analyze"); until("info"); time.sleep(0.3)
    t = time.perf_counter(); send("stop"); until("done"); done.append(time.perf_counter() - t)
for _ in range(20):
    send("pos pos=W:W32:B28,5"); send("level move-time=60")
    t = time.perf_counter(); send("go think"); until("done"); forced.append(time.perf_counter() - t)
booked = []
send("set-param name=book value=true")
for _ in range(20):
    send("pos"); send("level move-time=60")
    t = time.perf_counter(); send("go think"); until("done"); booked.append(time.perf_counter() - t)
send("set-param name=book value=false")
big = []
for _ in range(5):
    send("set-param name=hash value=4096"); send("pos"); send("level move-time=0.5")
    t = time.perf_counter(); send("go think"); until("done"); big.append(time.perf_counter() - t)
    send("set-param name=hash value=64"); send("ping"); until("pong")
send("quit")
for name, xs in [("pong during a search", pong), ("done after stop", done), ("done for a forced move", forced),
                 ("done for a book move", booked),
                 ("done for a 0.5 s move after hash=4096", big)]:
    ms = [x * 1000 for x in xs]
    print(f"{name}: median {statistics.median(ms):.2f} ms, max {max(ms):.2f} ms ({len(ms)} runs)")
