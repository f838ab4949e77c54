#!/usr/bin/env python3
"""Pick the positions of tests/data/tactics.tsv from the generator's output.

    select.py VARIANT=[+]FOUND.tsv[,[+]FOUND.tsv...] ... > tests/data/tactics.tsv

Per variant, at most QUOTA positions: every position of the files marked `+`, then, to
fill the quota, evenly spaced ones from the other files in the order the generator found
them (game by game). The choice depends on nothing but that order — in particular not on
whether tammi's search solves a position. Positions seen before (same variant and FEN) are dropped.
The header of the output says how the positions were obtained and what "proved" means.
"""

import sys

QUOTA = {
    "english": 32,
    "international": 32,
    "russian": 8,
    "brazilian": 8,
    "turkish": 8,
}

HEADER = """\
# Tactics: positions with a single winning move, each PROVED by exhaustive search, for
# tests/search_tactics.rs, `tammi bench --tactics tests/data/tactics.tsv` (how many tammi
# solves in 1 s each) and `tammi bench --tactics tests/data/tactics.tsv --prove` (re-proves
# every claim). Columns (tab-separated): variant, FEN, the key move, comment. The comment
# starts with the claim `proof dN:` that tammi's prover (src/oracle/proof.rs) checks.
#
# "Proved at depth N": a full-width minimax to N plies (alpha-beta only, which is exact; no
# transposition-table cut-offs, no pruning, no evaluation but material), where the search
# goes on past the horizon while a capture is compulsory, leaves are worth their material,
# a side without a legal move has lost, and draws follow the variant's rules counted from
# this position (threefold repetition, move-count rules). At that depth the key move wins at
# least two men both with a king worth 3 men and counting a king as one man (so the gain is
# in pieces captured, not a man crowned), or it wins the game; and every other legal move
# gains nothing (+0 at best, king 3). The prover uses only the rules core (move generation
# and making), nothing of tammi's search. "exact" in a comment is the key's exact minimax
# value at N. A proof says nothing beyond N plies: another move may win later.
#
# How the positions were obtained (scripts and details in .ci/tactics/README.md):
# 1. Games: tammi self-play (`tammi match`, both sides `tammi hub` at a fixed depth of 4 to
#    6 plies; english from the ACF three-move ballots or random openings, the other variants
#    from random balanced openings) and the annotated games of tests/data/pdn/.
# 2. Candidates: every position of each game's main line, and the position after every
#    other legal move than the one played (the comment then says "(A instead of B)"). Kept
#    when the side to move has no compulsory capture (so the key move is a quiet move or a
#    sacrifice, never a capture) and at least 3 legal moves, the shallowest depth N at which
#    one move gains two men (king 3) while all others gain nothing is at least 5, the whole
#    claim above holds at N, N+1 and N+2 (no horizon effect), and the position is new; at
#    most 2 positions per game, 12 plies apart. English had an extra pass over positions
#    with 10 pieces or more, where such shots are rarer than endgame wins; all it found
#    are kept.
# 3. Per variant at most {quota} positions, evenly spaced in the order found (never chosen
#    by whether tammi's search solves them). The comment names the source game and ply (the
#    self-play files are not kept: the name gives variant, search depth and seed; rerun
#    .ci/tactics/generate.sh to rebuild them).
"""


def read(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            assert len(fields) == 4 and fields[3].startswith("proof d"), line
            rows.append(fields)
    return rows


def main():
    seen = set()
    out = [HEADER.format(quota=", ".join(f"{v} {n}" for v, n in QUOTA.items()))]
    for arg in sys.argv[1:]:
        variant, files = arg.split("=", 1)
        quota = QUOTA[variant]
        forced, pool = [], []
        for name in files.split(","):
            target = forced if name.startswith("+") else pool
            for r in read(name.lstrip("+")):
                assert r[0] == variant, (name, r[0])
                if (variant, r[1]) not in seen:
                    seen.add((variant, r[1]))
                    target.append(r)
        forced = forced[:quota]
        n = min(quota - len(forced), len(pool))
        picked = forced + ([pool[i * len(pool) // n] for i in range(n)] if n else [])
        print(f"{variant}: {len(forced)} + {len(pool)} found, {len(picked)} kept", file=sys.stderr)
        out.extend("\t".join(r) + "\n" for r in picked)
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
