#!/usr/bin/env python3
"""A stand-in for `tammi moves --variant V --notation numeric|letter --json`,
backed by one of the oracle libraries.  It exists to test the harness before
tammi's command exists, and to compare the oracles with each other through the
very same pipeline (FEN writing, JSON parsing, notation) as tammi:

    check.py --tammi ".venv/bin/python .ci/differential/fake_tammi.py"
    check.py --tammi ".venv/bin/python .ci/differential/fake_tammi.py --backend turkish=pydraughts"

Default backends: english=clatsop, international=dame, russian=pydraughts,
brazilian=pydraughts, turkish=kish.  Reads one FEN per line from stdin (or
--fen), answers one JSON object per line, in order; a bad FEN gets
{"fen": ..., "error": ...}.  Equal captures (same from, to and captured set) are
listed once.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from oracles import GEOMETRY, ORACLE_CLASSES, parse_fen  # noqa: E402

DEFAULT_BACKENDS = {
    "english": "clatsop",
    "international": "dame",
    "russian": "pydraughts",
    "brazilian": "pydraughts",
    "turkish": "kish",
}


def answer(oracle, geo, fen: str, notation: str) -> dict:
    try:
        pos = parse_fen(fen, geo)
        if pos.white & pos.black:
            raise ValueError("a square holds two pieces")
        state = oracle.from_position(pos)
        moves = oracle.moves(state)
    except Exception as e:  # noqa: BLE001
        return {"fen": fen, "error": str(e) or type(e).__name__}
    name = (lambda n: n) if notation == "numeric" else geo.letter
    out = []
    seen = set()
    for m in moves:
        if m.key in seen:
            continue
        seen.add(m.key)
        route = list(m.route) if m.route is not None else [m.frm, m.to]
        sep = "x" if m.captured else "-"
        out.append(
            {
                "move": sep.join(str(name(s)) for s in (route if m.captured and len(route) > 2 else [m.frm, m.to])),
                "from": name(m.frm),
                "to": name(m.to),
                "captured": [name(c) for c in m.captured],
                "route": [name(s) for s in route],
            }
        )
    return {"fen": fen, "moves": out}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", action="append", default=[], metavar="VARIANT=ORACLE")
    sub = ap.add_subparsers(dest="command", required=True)
    mv = sub.add_parser("moves")
    mv.add_argument("--variant", required=True)
    mv.add_argument("--notation", choices=("numeric", "letter"), default="numeric")
    mv.add_argument("--json", action="store_true")
    mv.add_argument("--fen")
    args = ap.parse_args(argv)

    backends = dict(DEFAULT_BACKENDS)
    for b in args.backend:
        v, _, o = b.partition("=")
        backends[v] = o
    if args.variant not in backends:
        print(f"error: unsupported variant {args.variant}", file=sys.stderr)
        return 2
    oracle = ORACLE_CLASSES[backends[args.variant]](args.variant)
    geo = GEOMETRY[args.variant]
    lines = [args.fen] if args.fen else sys.stdin
    for line in lines:
        fen = line.strip()
        if not fen:
            continue
        print(json.dumps(answer(oracle, geo, fen, args.notation)), flush=False)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
