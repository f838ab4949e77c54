#!/usr/bin/env python3
"""Interop check: pydraughts' PDN reader reads the PDN that tammi writes.

    .venv/bin/python .ci/pdn_interop.py [TAMMI_BINARY]    # default target/release/tammi

For each source (the project's fixtures tests/data/pdn/{english,international,russian,
brazilian}.pdn, a 20-game nodes-limited self-play match of tammi in frisian and in frysk!,
and, when ../shared/pdn-corpus exists, its three real game files), tammi
rewrites the file (`tammi pdn convert`); draughts.PDN.PDNReader reads the result; every game
is replayed on a pydraughts Board, each move must be one of pydraughts' legal moves, and the
final position must equal `tammi pdn fen` for that game. Exit status 1 on any failure.

Known pydraughts limitations worked around here (not tammi's output being wrong):
- without a GameType tag pydraughts guesses the variant from the first move; PDN's default
  is GameType 20, so such games are replayed as international ("standard");
- its Move parser splits captures on "x" only, so russian/brazilian "c3:e5" is given to it
  as "c3xe5" (its letter-to-number conversion accepts either);
- its move-list extraction assumes each move number is followed by the first mover's move
  and breaks on games from a FEN where the other side starts (english FENs, or "B:" on the
  other boards): those games are skipped and counted.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from draughts import Board, Move
from draughts.PDN import PDNReader

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = [ROOT / "tests/data/pdn" / f"{v}.pdn" for v in ("english", "international", "russian", "brazilian")]
CORPUS = ROOT.parent / "shared/pdn-corpus"
CORPUS_FILES = ["english_oca_2.0.pdn", "international_wk2003.pdn", "russian_ussr_championship.pdn"]
# pydraughts variant -> tammi variant, and the FEN notation pydraughts writes for it.
VARIANTS = {"english": "numeric", "standard": "numeric", "russian": "letter", "brazilian": "letter", "frisian": "numeric"}
# Variants without fixtures: a nodes-limited self-play match of tammi is written and replayed
# (frysk! games are GameType 40 with their start as a FEN, which pydraughts reads as frisian).
MATCH_VARIANTS = ["frisian", "frysk"]
MATCH_GAMES = 20


def tammi(binary: str, *args: str) -> str:
    out = subprocess.run([binary, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"tammi {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def pieces(fen: str) -> set[tuple[str, bool, str]]:
    """A FEN's pieces as (colour, king, square) plus the side to move, order-free."""
    groups = fen.strip().rstrip(".").split(":")
    out = {("side", False, groups[0].strip().upper())}
    for g in groups[1:]:
        g = g.strip()
        if not g:
            continue
        colour = g[0].upper()
        for item in g[1:].split(","):
            item = item.strip()
            if item:
                king = item.startswith("K")
                out.add((colour, king, item.lstrip("K").lower()))
    return out


def check_file(binary: str, source: Path, workdir: Path) -> tuple[int, int, list[str]]:
    written = workdir / source.name
    tammi(binary, "pdn", "convert", str(source), "-o", str(written))
    summary = tammi(binary, "pdn", "check", str(written)).strip().splitlines()[-1]
    expected_games = int(summary.split()[0])
    reader = PDNReader(filename=str(written))
    failures = []
    if len(reader.games) != expected_games:
        failures.append(f"{source.name}: pydraughts read {len(reader.games)} games, tammi wrote {expected_games}")
    replayed = skipped = 0
    for number, game in enumerate(reader.games, 1):
        label = f"{source.name} game {number}"
        variant = game.variant if "GameType" in game.tags else "standard"
        if variant not in VARIANTS:
            failures.append(f"{label}: unexpected variant {variant!r}")
            continue
        fen = game.tags.get("FEN")
        if fen and (variant == "english" or fen.strip().upper().startswith("B")):
            skipped += 1
            continue
        if game.game_ending != game.tags.get("Result"):
            failures.append(f"{label}: result {game.game_ending!r} but Result tag {game.tags.get('Result')!r}")
        board = Board(variant=variant, fen=fen or "startpos")
        try:
            for ply, text in enumerate(game.moves, 1):
                move = Move(board, pdn_move=text.replace(":", "x"))
                legal = [m.board_move for m in board.legal_moves()]
                if move.board_move not in legal:
                    raise ValueError(f"ply {ply}: '{text}' is not legal for pydraughts")
                board.push(move)
        except Exception as e:  # pydraughts raises KeyError/IndexError on text it cannot place
            failures.append(f"{label}: {type(e).__name__}: {e}")
            continue
        want = tammi(binary, "pdn", "fen", str(written), "--game", str(number), "--notation", VARIANTS[variant])
        if pieces(want) != pieces(board.fen):
            failures.append(f"{label}: final position differs: tammi {want.strip()} pydraughts {board.fen}")
            continue
        replayed += 1
    print(f"{source.name}: {len(reader.games)} games read by pydraughts, {replayed} replayed, {skipped} skipped")
    return replayed, skipped, failures


def self_play(binary: str, variant: str, workdir: Path) -> Path:
    """A 20-game tammi-against-tammi match in `variant`, written as PDN."""
    # Apart from the converted copies check_file writes into workdir.
    (workdir / "matches").mkdir(exist_ok=True)
    out = workdir / "matches" / f"{variant}.pdn"
    engine = f"{binary} hub"
    tammi(binary, "match", "--engine", engine, "--engine", engine, "--variant", variant,
          "--games", str(MATCH_GAMES), "--nodes", "3000", "--pdn", str(out), "--quiet")
    return out


def main() -> int:
    binary = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target/release/tammi")
    sources = list(FIXTURES)
    if CORPUS.is_dir():
        sources += [CORPUS / f for f in CORPUS_FILES if (CORPUS / f).exists()]
    failures: list[str] = []
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for variant in MATCH_VARIANTS:
            sources.append(self_play(binary, variant, Path(tmp)))
        for source in sources:
            replayed, _, bad = check_file(binary, source, Path(tmp))
            total += replayed
            failures += bad
    for f in failures:
        print("FAIL", f)
    if total == 0:
        print("FAIL no game was replayed")
        return 1
    print(f"pdn interop: {total} games replayed by pydraughts, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
