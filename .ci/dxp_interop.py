#!/usr/bin/env python3
"""A game over DXP between pydraughts' DXPEngine (a client nobody here wrote) and a
listening `tammi dxp`. pydraughts plays random legal moves as Black; every move tammi
sends must be legal for pydraughts.

    dxp_interop.py TAMMI_BINARY [PORT]
"""
import random
import subprocess
import sys
import time

import draughts
from draughts.engine import DXPEngine

tammi = sys.argv[1] if len(sys.argv) > 1 else "target/release/tammi"
port = int(sys.argv[2]) if len(sys.argv) > 2 else 27641
server = subprocess.Popen([tammi, "dxp", "--listen", f"127.0.0.1:{port}", "--once",
                           "--move-time", "0.05", "--quiet"])
ok = False
try:
    time.sleep(0.5)
    engine = DXPEngine(None, {"engine-opened": True, "ip": "127.0.0.1", "port": port,
                              "initial-time": 600, "max-moves": 0})
    rng = random.Random(7)
    board = draughts.Board(variant="standard")
    plies = 0
    while not board.is_over() and plies < 120:
        if board.turn == draughts.WHITE:
            mv = engine.play(board).move  # tammi plays White
            assert mv is not None, "tammi sent no move"
            legal = {m.hub_move for m in board.legal_moves()}
            assert mv.hub_move in legal, f"illegal move {mv.hub_move} at ply {plies}"
            board.push(mv)
        else:
            board.push(rng.choice(board.legal_moves()))
        plies += 1
    engine.quit()
    ok = plies >= 20
    print(f"dxp game against pydraughts: {plies} plies, over={board.is_over()}, winner={board.winner()}")
finally:
    time.sleep(0.5)
    server.kill()
    server.wait()
print(f"{int(ok)} passed, {int(not ok)} failed")
sys.exit(0 if ok else 1)
