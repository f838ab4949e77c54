#!/usr/bin/env python3
"""Time kish's Turkish draughts perft from the start position.

    kish_perft.py [DEPTH]        (default 8)

Prints `kish perft(D) = N in T s`.  kish counts one leaf per capture route
(the `path` convention of perft.tsv).  The time is the wall-clock time of the
single Board.perft call (kish's own Rust perft, one thread), without the
Python start-up, for a side-by-side comparison with tammi's perft.
"""

import argparse
import sys
import time

import kish


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("depth", nargs="?", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=1, help="run N times and report the fastest")
    args = ap.parse_args(argv)
    board = kish.Board()
    best = None
    nodes = None
    for _ in range(max(1, args.repeat)):
        t0 = time.perf_counter()
        nodes = board.perft(args.depth)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    print(f"kish perft({args.depth}) = {nodes} in {best:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
