#!/usr/bin/env python3
"""Drive `tammi hub` with pydraughts' own HubEngine, a client nobody here wrote.

    hub_interop.py TAMMI_BINARY

1. A complete international game of tammi against itself at a short time control; every
   move is checked legal by pydraughts.
2. Each `level` form pydraughts sends (time, time+inc, moves+time(+inc), move-time,
   depth, nodes).
3. `go analyze` then `stop`: exactly one `done`.
4. `go ponder` then `ponder-hit`: a `done` with a legal move.
5. Complete games of tammi against itself in english, russian and brazilian, with the Hub
   parameter client=pydraughts (pydraughts' square numbers and english board view, see
   protocol.md); every move is checked legal by pydraughts.

Prints one line per check and a final `N passed, M failed`; exits 1 on any failure.
"""

import sys
import time

import draughts
from draughts.engine import HubEngine, Limit

TAMMI = sys.argv[1] if len(sys.argv) > 1 else "target/release/tammi"
results = []


def check(name, fn):
    t = time.time()
    try:
        fn()
        results.append(True)
        print(f"ok    {name} ({time.time() - t:.1f} s)")
    except Exception as e:  # report and go on with the other checks
        results.append(False)
        print(f"FAIL  {name}: {e!r}")


def engine():
    e = HubEngine([TAMMI, "hub"])
    e.init()
    return e


def legal_hub_moves(board):
    return {m.hub_move for m in board.legal_moves()}


def self_play(variant="standard"):
    e = HubEngine([TAMMI, "hub"])
    if variant != "standard":
        e.setoption("variant", variant)
        e.setoption("client", "pydraughts")
    e.init()
    board = draughts.Board(variant=variant)
    plies = 0
    while not board.is_over() and plies < 300:
        res = e.play(board, Limit(movetime=0.05), False)
        hub = res.move.hub_move
        assert hub in legal_hub_moves(board), f"illegal move {hub} at ply {plies}: {board.fen}"
        board.push(res.move)
        plies += 1
    e.quit()
    assert plies >= 20, f"the game ended after only {plies} plies"
    print(f"      {variant} self-play: {plies} plies, over={board.is_over()} winner={board.winner()}")


def level_forms():
    e = engine()
    board = draughts.Board(variant="standard")
    for limit in [
        Limit(time=2),
        Limit(time=2, inc=0.1),
        Limit(movetime=0.1),
        Limit(depth=4),
        Limit(nodes=5000),
    ]:
        res = e.play(board, limit, False)
        assert res.move.hub_move in legal_hub_moves(board), vars(limit)
        board.push(res.move)
    # moves=N time=S [inc=S] go through HubEngine.go directly
    for kwargs in [dict(my_time=2, moves_left=40), dict(my_time=2, moves_left=40, inc=0.2)]:
        best, _ = e.go(board._game.initial_hub_fen,
                       moves=" ".join(m.hub_move for m in board.move_stack), **kwargs)
        assert best in legal_hub_moves(board), (kwargs, best)
    e.quit()


def read_until(e, word):
    lines = []
    deadline = time.time() + 30
    while time.time() < deadline:
        command, arg = e.recv_hub()
        lines.append((command, arg))
        if command == word:
            return lines
    raise AssertionError(f"no {word} within 30 s: {lines}")


def analyze_then_stop():
    e = engine()
    e.send("pos")
    e.send("go analyze")
    time.sleep(0.3)
    e.stop()
    lines = read_until(e, "done")
    assert any(c == "info" for c, _ in lines), lines
    e.ping()  # pong comes back, and no second done before it
    e.quit()


def ponder_then_hit():
    e = engine()
    board = draughts.Board(variant="standard")
    board.push(board.legal_moves()[0])
    e.send(f'pos pos={board._game.initial_hub_fen} moves="{board.move_stack[0].hub_move}"')
    e.send("level move-time=0.2")
    e.send("go ponder")
    time.sleep(0.2)
    e.ponderhit()
    lines = read_until(e, "done")
    best = lines[-1][1].split()[0].split("=")[1]
    assert best in legal_hub_moves(board), best
    e.quit()


check("complete self-play game checked by pydraughts", self_play)
for v in ["english", "russian", "brazilian"]:
    check(f"complete {v} self-play game checked by pydraughts", lambda v=v: self_play(v))
check("every level form", level_forms)
check("go analyze then stop", analyze_then_stop)
check("go ponder then ponder-hit", ponder_then_hit)
passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if all(results) else 1)
