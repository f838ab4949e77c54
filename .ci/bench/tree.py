#!/usr/bin/env python3
"""The search trees of tammi and Scan, side by side on the same positions, in one run.

Searches each international position of a file (PDN FENs, one a line; default
.ci/bench/tree_positions.txt: 20 middlegame positions) with every engine given, one
position and one engine after the other (so both see the same machine), and prints:

- per depth, the total nodes and time of each engine over the positions (from their
  `info` lines), and tammi's nodes and time over the other's;
- each engine's effective branching factor over the last (at most four) depths both
  report, (N(d) / N(d-k))^(1/k), from the totals (Scan 2.0 reports depths from about 12);
- the mean leaf depth where the engine reports one (Scan's `mean-depth`; tammi reports only
  `seldepth`, the deepest ply, so it shows `-`);
- how many best moves agree with the first engine's at the deepest common depth.

With --peer-time S the peer (the second engine) thinks S seconds a position instead, and
tammi then searches each position to the depth the peer reached there: the time each
needs for the same depth. --cap S (default 60) ends tammi's search of a position after S
seconds; a position where it did not reach the depth counts S, so the total is a lower
bound, and the summary says how many.

Usage:
  python3 .ci/bench/tree.py target/release/tammi --scan20 $PEERS/scan/scan20 \\
      [--depth 12 | --peer-time 1 [--cap 60]] [--positions FILE] [--limit N]

--scan20 DIR speaks Scan 2.0's own (first) Hub protocol to the `scan` built in DIR by the
peers kit; --peer CMD takes any Hub 2 engine instead. Book off, one thread each. Standard
library only. No figure here is asserted: the script measures.
"""
import argparse
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def hub_position(fen):
    """A PDN FEN of the international board as a Hub position string (51 characters)."""
    side, *parts = fen.strip().split(":")
    squares = ["e"] * 50
    for part in parts:
        if not part:
            continue
        colour, body = part[0], part[1:]
        for item in filter(None, body.split(",")):
            king = item.startswith("K")
            item = item.lstrip("K")
            lo, _, hi = item.partition("-")
            for sq in range(int(lo), int(hi or lo) + 1):
                c = "w" if colour == "W" else "b"
                squares[sq - 1] = c.upper() if king else c
    return side.upper() + "".join(squares)


def args_of(line):
    """The name=value fields of a Hub line (quoted values kept whole)."""
    out = {}
    for tok in shlex.split(line)[1:]:
        name, _, value = tok.partition("=")
        out[name] = value
    return out


class Engine:
    def __init__(self, command, options):
        self.command = command
        self.p = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.send("hub")
        params = set()
        self.name = command
        while True:
            line = self.read()
            if line.startswith("id"):
                self.name = args_of(line).get("name", command)
            elif line.startswith("param"):
                params.add(args_of(line).get("name"))
            elif line == "wait":
                break
        for name, value in options:
            if name in params:
                self.send(f"set-param name={name} value={value}")
        self.send("init")
        while self.read() != "ready":
            pass

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read(self):
        line = self.p.stdout.readline()
        if not line:
            sys.exit(f"{self.command}: the engine exited")
        return line.strip()

    def search(self, fen, level):
        """Search `fen` under `level`; (the info lines as dicts, the best move, seconds)."""
        self.send("new-game")
        # Scan 2.0's `pos` resets the level: the level comes after it.
        self.send(f"pos pos={hub_position(fen)}")
        self.send(f"level {level}")
        start = time.monotonic()
        # A depth alone is an analysis; with a time beside it (a cap) the search ends at
        # whichever comes first, which only `go think` honours.
        self.send("go analyze" if "depth" in level and "time" not in level else "go think")
        infos = []
        while True:
            line = self.read()
            if line.startswith("info"):
                a = args_of(line)
                if "depth" in a and "nodes" in a:
                    infos.append(a)
            elif line.startswith("done"):
                return infos, args_of(line).get("move", ""), time.monotonic() - start

    def quit(self):
        try:
            self.send("quit")
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


class Scan20(Engine):
    """Scan 2.0 in its own directory, spoken to in its first Hub protocol: `pos` takes the
    side in lower case, `depth N` or `time MS` set the limit, `info` fields are positional
    (depth, mean depth, score in centi-men, nodes, seconds, nps, pv) and the answer is
    `move M`. Its book is turned off and it gets one thread."""

    def __init__(self, directory):
        self.command = os.path.join(directory, "scan")
        self.name = "Scan 2.0"
        self.p = subprocess.Popen(
            [self.command, "hub"],
            cwd=directory,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.send("hub")
        while self.read() != "wait":
            pass
        self.send("set book false")
        self.send("set threads 1")
        self.send("init")
        while self.read() != "ready":
            pass

    def search(self, fen, level):
        self.send("new")
        pos = hub_position(fen)
        self.send("pos " + pos[0].lower() + pos[1:])
        name, _, value = level.partition("=")
        if name == "depth":
            self.send(f"depth {value}")
        else:
            self.send(f"time {int(float(value) * 1000)}")
        start = time.monotonic()
        self.send("analyse" if name == "depth" else "go")
        infos = []
        while True:
            t = self.read().split()
            if t and t[0] == "info" and len(t) >= 7:
                infos.append({"depth": t[1], "mean-depth": t[2], "nodes": t[4], "time": t[5]})
            elif t and t[0] == "move":
                return infos, t[1] if len(t) > 1 else "", time.monotonic() - start


def same_move(a, b):
    """Two Hub moves are the same: the same squares, captured ones in any order."""
    def norm(m):
        parts = m.replace("-", "x").split("x")
        return (parts[0], parts[1] if len(parts) > 1 else "", tuple(sorted(parts[2:])))
    return bool(a) and bool(b) and norm(a) == norm(b)


def per_depth(infos):
    """depth -> (nodes, seconds, mean leaf depth or None), the last line of each depth."""
    out = {}
    for a in infos:
        d = int(a["depth"])
        mean = a.get("mean-depth")
        out[d] = (int(a["nodes"]), float(a.get("time", 0)), float(mean) if mean else None)
    return out


def ebf(totals, depths):
    """(N(last) / N(first)) ^ (1 / (last - first)) over the depths compared (at most 4)."""
    last = depths[-1]
    first = max(depths[0], last - 4)
    if last > first and totals[first][0] > 0:
        return first, last, (totals[last][0] / totals[first][0]) ** (1 / (last - first))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tammi", help="the tammi binary")
    ap.add_argument("--peer", help="Hub 2 command of an engine to compare with")
    ap.add_argument("--scan20", metavar="DIR",
                    help="compare with Scan 2.0 built in DIR (the peers kit's scan/scan20)")
    ap.add_argument("--depth", type=int, default=15, help="depth of every search (default 15)")
    ap.add_argument("--peer-time", type=float, help="seconds a position for the peer instead")
    ap.add_argument("--cap", type=float, default=60.0,
                    help="with --peer-time: seconds at most for tammi a position (default 60)")
    ap.add_argument("--positions", default=os.path.join(HERE, "tree_positions.txt"))
    ap.add_argument("--limit", type=int, help="only the first N positions")
    a = ap.parse_args()
    if not 1 <= a.depth <= 40:
        ap.error("--depth must be from 1 to 40")
    if a.peer and a.scan20:
        ap.error("give --peer or --scan20, not both")
    if a.peer_time is not None and not (0 < a.peer_time <= 600 and (a.peer or a.scan20)):
        ap.error("--peer-time needs --peer and a time from 0 to 600 s")
    if not 0 < a.cap <= 3600:
        ap.error("--cap must be above 0 and at most 3600 s")
    with open(a.positions) as f:
        fens = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    fens = fens[: a.limit] if a.limit else fens
    common = [("threads", "1"), ("book", "false")]
    engines = [Engine(f"{a.tammi} hub", common + [("hash", "64")])]
    if a.peer:
        engines.append(Engine(a.peer, common))
    elif a.scan20:
        engines.append(Scan20(a.scan20))
    names = [e.name for e in engines]

    runs = [[] for _ in engines]  # per engine: (per_depth, best, seconds) per position
    missed = 0  # positions where tammi hit the cap before the peer's depth
    forced = 0  # positions the peer answered without a search
    for i, fen in enumerate(fens):
        if a.peer_time is not None:
            infos, best, secs = engines[1].search(fen, f"move-time={a.peer_time}")
            peer = per_depth(infos)
            if max(peer, default=0) < 1:
                # No depth reported: a forced move answered at once. There is no depth to
                # reach (and `depth=0` is no level), so the position is left out.
                forced += 1
                print(f"position {i + 1}: {names[1]} answered without a search "
                      f"(a forced move?); left out", file=sys.stderr, flush=True)
                continue
            reached = max(peer)
            runs[1].append((peer, best, secs))
            infos, best0, secs0 = engines[0].search(fen, f"depth={reached} move-time={a.cap}")
            mine = per_depth(infos)
            if max(mine, default=0) < reached:
                missed += 1
                how = f"depth {max(mine, default=0)} only, stopped at the cap ({secs0:.2f} s)"
            else:
                how = f"to depth {reached} in {secs0:.2f} s"
            runs[0].append((mine, best0, secs0))
            print(f"position {i + 1}: {names[1]} depth {reached} in {secs:.2f} s; "
                  f"{names[0]} {how}", file=sys.stderr, flush=True)
        else:
            for e, run in zip(engines, runs):
                infos, best, secs = e.search(fen, f"depth={a.depth}")
                run.append((per_depth(infos), best, secs))
            print(f"position {i + 1} of {len(fens)} done", file=sys.stderr)
    for e in engines:
        e.quit()

    print(f"{len(fens)} positions ({os.path.relpath(a.positions)}), one thread each, "
          f"{'peer ' + str(a.peer_time) + ' s a position' if a.peer_time else 'depth ' + str(a.depth)}")
    if a.peer_time is not None:
        t0 = sum(r[2] for r in runs[0])
        t1 = sum(r[2] for r in runs[1])
        depths = [max(r[0]) if r[0] else 0 for r in runs[1]]
        if not depths:
            sys.exit(f"{names[1]} searched none of the positions")
        print(f"{names[1]}: median depth {sorted(depths)[len(depths) // 2]}, {t1:.2f} s in all"
              + (f" ({forced} positions left out: answered without a search)" if forced else ""))
        bound = "at least " if missed else ""
        print(f"{names[0]} to the same depths: {bound}{t0:.2f} s in all ({bound}{t0 / t1:.2f}x)"
              + (f"; {missed} of {len(runs[0])} positions stopped at the {a.cap:g} s cap"
                 if missed else ""))
    else:
        deepest = min(max(r[0], default=0) for run in runs for r in run)
        totals = []
        for run in runs:
            t = {}
            for d in range(1, deepest + 1):
                if all(d in r[0] for r in run):
                    t[d] = (sum(r[0][d][0] for r in run), sum(r[0][d][1] for r in run),
                            [r[0][d][2] for r in run])
            totals.append(t)
        head = "depth"
        for n in names:
            head += f" | {n} nodes | {n} s | {n} mean leaf"
        if len(names) > 1:
            head += f" | nodes {names[0]}/{names[1]} | time {names[0]}/{names[1]}"
        print(head)
        compared = sorted(set.intersection(*(set(t) for t in totals)))
        if not compared:
            sys.exit("no depth was reported by every engine for every position "
                     "(Scan 2.0 reports depths from about 12 on: search deeper)")
        for d in compared:
            row = f"{d:5}"
            for t in totals:
                n, s, means = t[d]
                m = (f"{sum(means) / len(means):.1f}" if all(x is not None for x in means) else "-")
                row += f" | {n:>12,} | {s:8.2f} | {m:>5}"
            if len(totals) > 1 and totals[1][d][0] and totals[1][d][1]:
                row += (f" | {totals[0][d][0] / totals[1][d][0]:.2f}"
                        f" | {totals[0][d][1] / max(totals[1][d][1], 1e-3):.2f}")
            print(row)
        for n, t in zip(names, totals):
            b = ebf(t, compared)
            print(f"{n}: effective branching factor "
                  + (f"over depths {b[0]}-{b[1]}: {b[2]:.2f}" if b else ": - (one depth only)"))
    if len(runs) > 1:
        agree = sum(same_move(r0[1], r1[1]) for r0, r1 in zip(runs[0], runs[1]))
        print(f"best moves agree: {agree} of {len(runs[0])}")


if __name__ == "__main__":
    main()
