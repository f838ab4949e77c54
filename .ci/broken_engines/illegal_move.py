#!/usr/bin/env python3
"""A broken Hub engine for `tammi match` tests: it starts like any Hub engine, then answers
every `go` with `done move=1-2`, which is never legal (squares 1 and 2 share a row on every
board tammi plays). tammi match must score each game as lost by an illegal move."""

import sys

VARIANTS = "normal killer bt losing english russian brazilian canadian turkish"


def say(line: str) -> None:
    print(line, flush=True)


def main() -> None:
    for raw in sys.stdin:
        command = raw.split()[0] if raw.split() else ""
        if command == "hub":
            say('id name=illegal version=1 author="tammi tests"')
            say(f'param name=variant value=normal type=enum values="{VARIANTS}"')
            say("wait")
        elif command == "init":
            say("ready")
        elif command == "ping":
            say("pong")
        elif command == "go":
            say("done move=1-2")
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
