#!/usr/bin/env python3
"""A broken Hub engine for `tammi match` tests: it never moves on its own, only when told
to `stop`, so every move comes after its time is up. tammi match must score a time
forfeit (not a hang: the engine answers, so it is not killed or restarted)."""

import sys

VARIANTS = "normal killer bt losing english russian brazilian canadian turkish"


def say(line: str) -> None:
    print(line, flush=True)


def main() -> None:
    searching = False
    for raw in sys.stdin:
        command = raw.split()[0] if raw.split() else ""
        if command == "hub":
            say('id name=late version=1 author="tammi tests"')
            say(f'param name=variant value=normal type=enum values="{VARIANTS}"')
            say("wait")
        elif command == "init":
            say("ready")
        elif command == "ping":
            say("pong")
        elif command == "go":
            searching = True
        elif command == "stop" and searching:
            # Too late whatever the move; the runner judges the time before the move.
            say("done move=1-2")
            searching = False
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
