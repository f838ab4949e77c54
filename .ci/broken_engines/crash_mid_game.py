#!/usr/bin/env python3
"""A broken Hub engine for `tammi match` tests: it passes every line to a real Hub engine
and back, plays that engine's moves, and exits (status 3) at its next `go` once it has
played AFTER moves in the current game (default 3): a crash in the middle of a game.

    crash_mid_game.py [--after N] ENGINE [ARGS...]     e.g. crash_mid_game.py tammi hub
"""

import subprocess
import sys

# What ends the real engine's answer to each command that has one.
ANSWER_ENDS = {"hub": "wait", "init": "ready", "ping": "pong", "go": "done"}


def main() -> int:
    args = sys.argv[1:]
    after = 3
    if args[:1] == ["--after"]:
        after = int(args[1])
        args = args[2:]
    engine = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    played = 0
    for raw in sys.stdin:
        words = raw.split()
        command = words[0] if words else ""
        if command == "new-game":
            played = 0
        if command == "go":
            if played >= after:
                engine.kill()
                return 3
            played += 1
        engine.stdin.write(raw)
        engine.stdin.flush()
        if command == "quit":
            break
        end = ANSWER_ENDS.get(command)
        while end:
            line = engine.stdout.readline()
            if not line:
                return 4
            sys.stdout.write(line)
            sys.stdout.flush()
            if line.split()[:1] == [end]:
                break
    engine.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
