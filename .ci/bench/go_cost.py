#!/usr/bin/env python3
"""Cost of a Hub `pos` + `go` round (a benchmark, not a test: the figure goes in protocol.md).

    go_cost.py TAMMI_BINARY VARIANT THREADS [ROUNDS]

Sends `pos`, `level depth=1`, `go think` ROUNDS times (default 500), each after the
previous `done`, and reports the median and mean time from sending `pos` to reading
`done`: what a search costs beyond its search (threads, tables, the answer).
"""
import statistics, subprocess, sys, time
b, variant, threads = sys.argv[1], sys.argv[2], sys.argv[3]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 500
p = subprocess.Popen([b, "hub"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(l): p.stdin.write(l + "\n"); p.stdin.flush()
def until(w):
    while True:
        l = p.stdout.readline()
        if not l: raise SystemExit("exited")
        if l.startswith(w): return l
send("hub"); until("wait")
send(f"set-param name=variant value={variant}")
send(f"set-param name=threads value={threads}")
send("init"); until("ready")
times = []
for r in range(rounds):
    t = time.perf_counter()
    send("pos"); send("level depth=1"); send("go think"); until("done")
    times.append((time.perf_counter() - t) * 1000)
times = times[rounds // 10:]  # the first rounds warm up
print(f"{b} {variant} threads={threads}: median {statistics.median(times):.3f} ms, "
      f"mean {statistics.mean(times):.3f} ms per pos + go depth 1 ({len(times)} rounds)")
send("quit")
