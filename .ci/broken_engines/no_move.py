#!/usr/bin/env python3
"""A Hub engine for `tammi match` tests that says its game is over at every `go`: it answers
`done move=` (the form Scan writes when it has no move), or a bare `done` when started with
the argument `bare`. Both are answers: tammi match must score the game as given up by this
engine, not kill it as unresponsive nor call the empty move illegal."""

import sys

VARIANTS = "normal killer bt losing english russian brazilian canadian turkish"
ANSWER = "done" if sys.argv[1:] == ["bare"] else "done move="


def say(line: str) -> None:
    print(line, flush=True)


def main() -> None:
    for raw in sys.stdin:
        command = raw.split()[0] if raw.split() else ""
        if command == "hub":
            say('id name=nomove version=1 author="tammi tests"')
            say(f'param name=variant value=normal type=enum values="{VARIANTS}"')
            say("wait")
        elif command == "init":
            say("ready")
        elif command == "ping":
            say("pong")
        elif command == "go":
            say(ANSWER)
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
