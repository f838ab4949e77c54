#!/usr/bin/env python3
"""Cost of a Hub `pos` line (a benchmark, not a test: the figure goes in protocol.md).

    pos_cost.py TAMMI_BINARY VARIANT

Sends 1,000 `pos` lines, then `ping`, and times the `pong`: best of 5 rounds, per `pos`.
"""
import subprocess, sys, time
b = sys.argv[1]; variant = sys.argv[2]
p = subprocess.Popen([b, "hub"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(l): p.stdin.write(l + "\n"); p.stdin.flush()
def until(w):
    while True:
        l = p.stdout.readline()
        if not l: raise SystemExit("exited")
        if l.startswith(w): return
send("hub"); until("wait"); send(f"set-param name=variant value={variant}"); send("init"); until("ready")
best = None
for r in range(5):
    t = time.time()
    for i in range(1000): send("pos")
    send("ping"); until("pong")
    d = (time.time() - t) / 1000 * 1000
    best = d if best is None else min(best, d)
print(f"{b} {variant}: {best:.4f} ms per pos (best of 5 x 1000)")
send("quit")
