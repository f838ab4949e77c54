#!/usr/bin/env python3
"""A broken Hub engine for `tammi match` tests: it starts normally and answers `ping`, but
never answers `go` (nor `stop`). tammi match must score the game as lost ('unresponsive'),
kill this process and start a new one for the next game."""

import sys

VARIANTS = "normal killer bt losing english russian brazilian canadian turkish"


def say(line: str) -> None:
    print(line, flush=True)


def main() -> None:
    for raw in sys.stdin:
        command = raw.split()[0] if raw.split() else ""
        if command == "hub":
            say('id name=silent version=1 author="tammi tests"')
            say(f'param name=variant value=normal type=enum values="{VARIANTS}"')
            say("wait")
        elif command == "init":
            say("ready")
        elif command == "ping":
            say("pong")
        elif command == "quit":
            return
        # `go` and `stop` get no answer: this engine hangs in every search.


if __name__ == "__main__":
    main()
