#!/usr/bin/env python3
"""tammi's own fuzzer: the Hub, the text mode, DXP, FEN and PDN, seeded and bounded.

    python3 .ci/fuzz/fuzz.py TAMMI_BINARY [--seed N] [--scale X] [--out DIR] [--only hub,text,dxp,fen,pdn]

Standard library only. Exits 0 and prints `fuzz: OK` when nothing failed, else prints every
failure (with the input that triggered it, and a transcript file to replay) and exits 1.
What each surface checks is in README.md beside this file.
"""

import argparse
import collections
import json
import os
import queue
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

# --------------------------------------------------------------------------------------
# Variants: (Hub name, command-line name, playable squares, PDN GameType, Variant tag)
# --------------------------------------------------------------------------------------

VARIANTS = [
    ("normal", "international", 50, 20, None),
    ("english", "english", 32, 21, None),
    ("russian", "russian", 32, 25, None),
    ("brazilian", "brazilian", 32, 26, None),
    ("canadian", "canadian", 72, 27, None),
    ("turkish", "turkish", 64, 30, None),
    ("killer", "killer", 50, 20, "killer"),
    ("bt", "breakthrough", 50, 20, "breakthrough"),
    ("losing", "losing", 50, 20, "losing"),
    ("italian", "italian", 32, 22, None),
    ("pool", "pool", 32, 23, None),
    ("czech", "czech", 32, 29, None),
    ("spanish", "spanish", 32, 24, None),
    ("thai", "thai", 32, 31, None),
    ("frisian", "frisian", 50, 40, None),
    ("frysk", "frysk", 50, 40, "frysk"),
]
HUB_NAMES = [v[0] for v in VARIANTS]
# The surfaces, as --only names them.
SURFACES = ["hub", "text", "dxp", "fen", "pdn"]
CLI_OF = {v[0]: v[1] for v in VARIANTS}
SQUARES_OF = {v[0]: v[2] for v in VARIANTS}
GAMETYPE_OF = {v[0]: v[3] for v in VARIANTS}
VARTAG_OF = {v[0]: v[4] for v in VARIANTS}
# Other names the Hub's `variant` parameter accepts (protocol.md), and what it announces.
VARIANT_ALIASES = {
    "international": "normal",
    "breakthrough": "bt",
    "intl": "normal",
    "american": "english",
    "checkers": "english",
    "antidraughts": "losing",
    "frysk!": "frysk",
}

# Rust's char::is_whitespace (what `trim` and `split_whitespace` use).
RUST_WS = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)


def rtrim(s):
    return s.strip(RUST_WS)


def now():
    return time.monotonic()


def shown(data, limit=300):
    """One input line (bytes or str) as printable text for a report."""
    if isinstance(data, bytes):
        text = data.decode("utf-8", "backslashreplace")
    else:
        text = data
    text = text.rstrip("\n")
    r = text.encode("unicode_escape").decode("ascii").replace("\\\\", "\\")
    if len(r) > limit:
        r = r[:limit] + f"... ({len(text)} characters)"
    return r


# --------------------------------------------------------------------------------------
# The Hub line syntax (a port of src/hub/line.rs, to know what a mutated line means)
# --------------------------------------------------------------------------------------


def hub_parse(text):
    """(command, [(name, value or None)]) of a Hub line, or None when it is malformed."""
    chars = rtrim(text)
    n = len(chars)
    i = 0
    words = []

    def skip(i):
        while i < n and chars[i] in RUST_WS:
            i += 1
        return i

    def value(i):
        if chars[i] == '"':
            j = chars.find('"', i + 1)
            if j < 0:
                return None, n
            return chars[i + 1 : j], j + 1
        j = i
        while j < n and chars[j] not in RUST_WS and chars[j] != "=":
            j += 1
        return chars[i:j], j

    while i < n:
        i = skip(i)
        if i >= n:
            break
        if chars[i] == "=":
            return None
        name, i = value(i)
        if name is None:
            return None
        j = skip(i)
        if j < n and chars[j] == "=":
            j = skip(j + 1)
            i = j
            if i >= n:
                return None
            v, i = value(i)
            if v is None:
                return None
            words.append((name, v))
        else:
            words.append((name, None))
    if not words or words[0][1] is not None:
        return None
    return words[0][0], words[1:]


def hub_get(args, name):
    for n, v in reversed(args):
        if n == name:
            return "" if v is None else v
    return None


def hub_quote(v):
    if v == "" or any(c in RUST_WS or c in '="' for c in v):
        return '"' + v + '"'
    return v


HUB_COMMANDS = {
    "hub", "init", "set-param", "pos", "level", "go", "ping", "stop", "ponder-hit",
    "new-game", "quit",
}
# A bounded `go think` must give `done` within its limit + this many seconds: the slack
# for a loaded machine (with 1 s, 3 searches in about 2,600 were late).
LIMIT_SLACK = 2.0
HUB_REPLIES = {"id", "param", "wait", "ready", "pong", "info", "done", "error"}

# --------------------------------------------------------------------------------------
# Processes: every read has a timeout, writes go through a thread of their own
# --------------------------------------------------------------------------------------

EOF = object()


class Proc:
    def __init__(self, fz, argv, label):
        self.fz = fz
        self.argv = argv
        self.label = label
        self.p = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        fz.register(self)
        self.out = queue.Queue()
        self.err = bytearray()
        self.sent = []
        self.wq = queue.Queue()
        self.eof = False
        for target in (self._reader, self._err_reader, self._writer):
            threading.Thread(target=target, daemon=True).start()

    def _reader(self):
        try:
            for raw in iter(self.p.stdout.readline, b""):
                self.out.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self.out.put(EOF)

    def _err_reader(self):
        try:
            while True:
                b = self.p.stderr.read1(65536)
                if not b:
                    return
                if len(self.err) < 1 << 20:
                    self.err += b
        except (OSError, ValueError):
            pass

    def _writer(self):
        while True:
            data = self.wq.get()
            try:
                if data is None:
                    self.p.stdin.close()
                    return
                self.p.stdin.write(data)
                self.p.stdin.flush()
            except (OSError, ValueError):
                pass

    def send(self, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.sent.append(data)
        self.wq.put(data)

    def line(self, timeout):
        """The next output line; None after `timeout` seconds; EOF at the end."""
        if self.eof:
            return EOF
        try:
            x = self.out.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if x is EOF:
            self.eof = True
        return x

    def close_input(self):
        self.wq.put(None)

    def wait(self, timeout):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.p.poll() is None:
            try:
                self.p.kill()
            except OSError:
                pass
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def stderr_text(self):
        return self.err.decode("utf-8", "replace")

    def exit_problem(self, rc):
        """What is wrong with how the process ended, or None."""
        err = self.stderr_text()
        if "panicked" in err:
            return "panic", f"stderr: {err.strip()[-600:]}"
        if rc is not None and rc < 0:
            return "crash", f"killed by signal {-rc}; stderr: {err.strip()[-300:]}"
        return None


# --------------------------------------------------------------------------------------
# The run: counts, failures, transcripts
# --------------------------------------------------------------------------------------


class Fuzz:
    def __init__(self, binary, seed, scale, outdir):
        self.binary = binary
        self.seed = seed
        self.scale = scale
        self.outdir = outdir
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.failures = []
        self.procs = []
        self.tmp = tempfile.mkdtemp(prefix="tammi-fuzz-tmp-")

    def register(self, proc):
        with self.lock:
            self.procs.append(proc)

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def fail(self, surface, kind, detail, proc=None, inputs=None, raw=None):
        """Record a failure. `inputs`: the lines that triggered it; `proc`: its process,
        whose whole input is written to a transcript file; `raw`: bytes for that file."""
        with self.lock:
            n = len(self.failures) + 1
            path = None
            data = raw
            if data is None and proc is not None:
                data = b"".join(proc.sent)
            if data is not None:
                os.makedirs(self.outdir, exist_ok=True)
                path = os.path.join(self.outdir, f"{n:03d}-{surface}-{kind}.in")
                with open(path, "wb") as f:
                    f.write(data)
            cmd = " ".join(proc.argv) if proc is not None else None
            if inputs is None and proc is not None:
                inputs = [x for chunk in proc.sent[-12:] for x in [chunk]]
            self.failures.append(
                {
                    "surface": surface,
                    "kind": kind,
                    "detail": detail,
                    "cmd": cmd,
                    "inputs": [shown(x) for x in (inputs or [])][-14:],
                    "transcript": path,
                }
            )

    def kill_all(self):
        for p in list(self.procs):
            p.kill()


# --------------------------------------------------------------------------------------
# Positions: legal moves from `tammi moves --json`, positions after moves from the text mode
# --------------------------------------------------------------------------------------


class OracleError(Exception):
    pass


def hub_move(frm, to, caps):
    if not caps:
        return f"{frm}-{to}"
    return "x".join(str(s) for s in [frm, to] + sorted(caps))


class Legal:
    __slots__ = ("frm", "to", "caps", "text", "hub")

    def __init__(self, m):
        self.frm = int(m["from"])
        self.to = int(m["to"])
        self.caps = frozenset(int(c) for c in m["captured"])
        self.text = m["move"]
        self.hub = hub_move(self.frm, self.to, self.caps)

    def key(self):
        return (self.frm, self.to, self.caps)


def parse_hub_move(text):
    """(from, to, captured set) of a Hub move `32-28` / `28x19x23`, or None."""
    if re.fullmatch(r"\d+-\d+", text):
        a, b = text.split("-")
        return (int(a), int(b), frozenset())
    if re.fullmatch(r"\d+(x\d+)+", text):
        sq = [int(s) for s in text.split("x")]
        return (sq[0], sq[1], frozenset(sq[2:]))
    return None


def moves_json(fz, hub_name, lines, timeout=30.0):
    """`tammi moves --variant V --json --notation numeric` over `lines` (one position
    each) on standard input: the JSON answers, one per line that is not blank."""
    argv = [fz.binary, "moves", "--variant", CLI_OF[hub_name], "--json", "--notation", "numeric"]
    data = "".join(l + "\n" for l in lines).encode("utf-8", "replace")
    try:
        r = subprocess.run(argv, input=data, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise OracleError(f"tammi moves did not finish in {timeout:.0f} s on {len(lines)} positions")
    out = []
    for l in r.stdout.decode("utf-8", "replace").split("\n"):
        if not l:
            continue
        try:
            out.append(json.loads(l))
        except ValueError:
            raise OracleError(f"tammi moves answered {shown(l)}")
    return out, r


def legal_of(fz, hub_name, fen):
    """The legal moves of one position (`tammi moves --fen`), or None if it is refused."""
    argv = [fz.binary, "moves", "--variant", CLI_OF[hub_name], "--json", "--notation", "numeric",
            "--fen=" + fen]
    try:
        r = subprocess.run(argv, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise OracleError(f"tammi moves --fen {shown(fen)} did not finish in 10 s")
    fz.count("oracle `tammi moves --fen` calls")
    if r.returncode != 0:
        return None
    try:
        obj = json.loads([l for l in r.stdout.decode("utf-8", "replace").split("\n") if l][-1])
        return [Legal(m) for m in obj["moves"]]
    except (ValueError, IndexError, KeyError):
        raise OracleError(f"tammi moves --fen {shown(fen)} answered {shown(r.stdout)}")


FEN_RE = re.compile(r"^[WB]:[WB]")


def strip_prompt(s):
    while s.startswith("> "):
        s = s[2:]
    return s


class TextOracle:
    """The text mode as a position oracle: it plays moves with the rules' full history
    (draw rules included) and writes the FEN."""

    def __init__(self, fz):
        self.fz = fz
        self.proc = Proc(fz, [fz.binary], "text oracle")

    def cmd(self, lines, timeout=5.0):
        self.proc.send("".join(l + "\n" for l in lines) + "level 1\n")
        out = []
        deadline = now() + timeout
        while True:
            r = self.proc.line(deadline - now())
            if r is None or r is EOF:
                raise OracleError(f"the text mode gave no answer to {lines}")
            s = strip_prompt(r)
            if s == "ok":
                return out
            out.append(s)

    @staticmethod
    def fen_of(out):
        fens = [s for s in out if FEN_RE.match(s)]
        if not fens:
            raise OracleError(f"no FEN in {out[-3:]}")
        return fens[-1]

    @staticmethod
    def names_of(out):
        for s in reversed(out):
            m = re.match(r"^(\d+) legal:(.*)$", s)
            if m:
                return m.group(2).split()
        raise OracleError(f"no move list in {out[-3:]}")

    def new(self, hub_name):
        out = self.cmd([f"new {CLI_OF[hub_name]}", "notation numeric", "fen", "moves"])
        return self.fen_of(out), self.names_of(out)

    def play(self, text):
        out = self.cmd([text, "fen", "moves"])
        over = next((s for s in out if "the game is over" in s), None)
        refused = next((s for s in out if "type help" in s or s.startswith("error")), None)
        return self.fen_of(out), self.names_of(out), over, refused


class Ply:
    __slots__ = ("fen", "legal", "played", "over", "names")

    def __init__(self, fen, legal):
        self.fen = fen
        self.legal = legal
        self.played = None
        self.over = None


def fen_to_hub(fen, nsq):
    """The Hub position string of a numeric FEN."""
    parts = fen.strip().rstrip(".").split(":")
    board = ["e"] * nsq
    for part in parts[1:]:
        if not part:
            continue
        colour, body = part[0], part[1:]
        for item in filter(None, body.split(",")):
            king = item.startswith("K")
            if king:
                item = item[1:]
            if "-" in item:
                a, b = item.split("-")
                squares = range(int(a), int(b) + 1)
            else:
                squares = [int(item)]
            ch = "w" if colour == "W" else "b"
            for s in squares:
                board[s - 1] = ch.upper() if king else ch
    return parts[0] + "".join(board)


def fen_squares(fen):
    """{square: piece letter} of a numeric FEN."""
    parts = fen.strip().rstrip(".").split(":")
    out = {}
    for part in parts[1:]:
        if not part:
            continue
        colour = part[0]
        for item in filter(None, part[1:].split(",")):
            king = item.startswith("K")
            if king:
                item = item[1:]
            if "-" in item:
                a, b = item.split("-")
                squares = range(int(a), int(b) + 1)
            else:
                squares = [int(item)]
            for s in squares:
                out[s] = (colour.lower() if not king else colour)
    return parts[0], out


class Pool:
    """Random games of every variant, each ply with its FEN and legal moves: the text mode
    plays them (with the draw rules' history), `tammi moves --json` lists the moves."""

    def __init__(self, fz):
        self.fz = fz
        self.games = {v: [] for v in HUB_NAMES}

    def build(self, games_per_variant, variants=HUB_NAMES):
        rng = random.Random(f"{self.fz.seed}/pool")
        oracle = TextOracle(self.fz)
        for v in variants:
            games = []
            for g in range(games_per_variant):
                # Mostly short games; one long one per variant reaches endings and draws.
                max_ply = 300 if g % 3 == 0 else rng.randint(10, 90)
                try:
                    games.append(self.random_game(rng, oracle, v, max_ply))
                except OracleError as e:
                    self.fz.fail("pool", "oracle", str(e), proc=oracle.proc)
                    oracle.proc.kill()
                    oracle = TextOracle(self.fz)
            try:
                self.add_moves(v, games)
            except OracleError as e:
                self.fz.fail("pool", "oracle", f"{v}: {e}")
        oracle.proc.send("quit\n")
        oracle.proc.close_input()
        oracle.proc.wait(3)
        oracle.proc.kill()

    def random_game(self, rng, oracle, v, max_ply):
        fen, names = oracle.new(v)
        plies = []
        while True:
            ply = Ply(fen, None)
            ply.names = names
            plies.append(ply)
            if not names:
                ply.over = "no legal move"
                break
            if len(plies) > max_ply:
                break
            name = rng.choice(names)
            # The long games take back their last move when they can (kings), to reach
            # the draw rules: repetitions and the king-move counts.
            if max_ply >= 300 and len(plies) > 2 and plies[-3].played and rng.random() < 0.8:
                a, sep, b = plies[-3].played.partition("-")
                back = f"{b}-{a}" if sep else None
                if back in names:
                    name = back
            new_fen, new_names, over, refused = oracle.play(name)
            if over:
                ply.over = over
                break
            if refused:
                self.fz.fail("pool", "legal move refused",
                             f"{v}: the text mode refuses {name}, one of its own legal moves in {fen}: {refused}",
                             proc=oracle.proc)
                break
            ply.played = name
            fen, names = new_fen, new_names
        return plies

    def add_moves(self, v, games):
        plies = [p for g in games for p in g]
        answers, r = moves_json(self.fz, v, [p.fen for p in plies])
        if len(answers) != len(plies):
            raise OracleError(f"tammi moves answered {len(answers)} of {len(plies)} positions "
                              f"(status {r.returncode}, {shown(r.stderr, 200)})")
        for p, a in zip(plies, answers):
            if "moves" not in a:
                raise OracleError(f"tammi moves refuses {p.fen}, a position of the text mode: {a.get('error')}")
            p.legal = [Legal(m) for m in a["moves"]]
            texts = [m.text for m in p.legal]
            # The game's history may forbid moves the position alone allows (frisian: a
            # king's moves in a row), never the other way round.
            if not set(p.names) <= set(texts) or (v not in ("frisian", "frysk") and len(texts) != len(p.names)):
                self.fz.fail("pool", "move lists differ",
                             f"{v}: in {p.fen} the text mode lists {' '.join(p.names)}, "
                             f"`tammi moves` {' '.join(texts)}")
                raise OracleError("cannot go on with this variant")
            if p.played is not None:
                p.played = texts.index(p.played)
            del p.names
        self.games[v] = games
        self.fz.count("pool plies", len(plies))

    def close(self):
        pass


# --------------------------------------------------------------------------------------
# Mutations and garbage
# --------------------------------------------------------------------------------------

FUNNY = [
    "\x00", "\x1b", "\t", "\r", "\x7f", "\u00e9", "\u00a0", "\u2028", "\u202e", "\ufeff",
    "\U0001f600", "\u0301", "\ufffd", '"', "=", ":", ",", "-", "x", "K", "W", "B", " ", "  ",
    "99999999999999999999999", "-1", "0", "4294967296", "18446744073709551616", "1e309",
    "NaN", "inf", "..", "{", "}", "(", ")", "[", "]", ";", "%", "\\", "/", "*",
]


def mutate(rng, s, rounds=None):
    """A few random edits of a text line (never a line end)."""
    s = list(s)
    for _ in range(rounds or rng.randint(1, 3)):
        op = rng.randrange(10)
        pos = rng.randint(0, len(s))
        if op == 0 and s:
            del s[min(pos, len(s) - 1)]
        elif op == 1:
            s[pos:pos] = list(rng.choice(FUNNY))
        elif op == 2 and s:
            s[min(pos, len(s) - 1)] = rng.choice("0123456789WBKwbeExX-:,= \"")
        elif op == 3 and s:
            a = rng.randint(0, len(s) - 1)
            b = min(len(s), a + rng.randint(1, 12))
            s[b:b] = s[a:b]
        elif op == 4:
            s = s[: rng.randint(0, len(s))]
        elif op == 5 and len(s) > 1:
            a = rng.randint(0, len(s) - 2)
            s[a], s[a + 1] = s[a + 1], s[a]
        elif op == 6:
            s[pos:pos] = list(str(rng.choice([0, 1, 51, 73, 65, 99, 100, 255, 256, 10**6, 2**32])))
        elif op == 7 and s:
            a = rng.randint(0, len(s) - 1)
            b = min(len(s), a + rng.randint(1, 20))
            del s[a:b]
        elif op == 8:
            s[pos:pos] = [chr(rng.randint(1, 0x2FF))]
        else:
            s = s * rng.randint(2, 4) if len(s) < 2000 else s
    return "".join(s).replace("\n", "")


def garbage(rng, long_ok=True):
    """A garbage line as bytes, without a line end."""
    k = rng.randrange(9)
    if k == 0:
        b = bytes(rng.randrange(256) for _ in range(rng.randint(1, 80)))
    elif k == 1:
        b = "".join(chr(rng.randint(32, 126)) for _ in range(rng.randint(1, 60))).encode()
    elif k == 2:
        b = rng.choice([b"\xff\xfe", b"\xc3\x28", b"\xe2\x82", b"\xf0\x9f\x98", b"\x80"]) * rng.randint(1, 5)
    elif k == 3:
        b = "".join(rng.choice(FUNNY) for _ in range(rng.randint(1, 8))).encode()
    elif k == 4 and long_ok:
        b = ("".join(chr(rng.randint(33, 126)) for _ in range(50)) * rng.randint(10, 400)).encode()
    elif k == 5:
        b = rng.choice(['"', '"abc', "a=", "=b", "x = ", "\"\"=\"\"", "a b=\"c", "name=\"\"\"",
                        "  ", "", "\t\t", "\u3000"]).encode()
    elif k == 6:
        b = "".join(chr(rng.randint(0x80, 0x10FFF)) for _ in range(rng.randint(1, 20))).encode(
            "utf-8", "surrogatepass"
        )
    elif k == 7:
        b = rng.choice(["setparam", "position", "go_think", "Level", "PING", "Go", "HUB",
                        "isready", "uci", "ucinewgame", "xboard", "new", "undo", "help",
                        "fen", "moves", "perft 5", "bench"]).encode()
    else:
        b = str(rng.randint(-(10**30), 10**30)).encode()
    return b.replace(b"\n", b" ")


# --------------------------------------------------------------------------------------
# The Hub
# --------------------------------------------------------------------------------------


class Target:
    """What the engine's position is believed to be: its legal moves (None: unknown),
    whether the game is over there (None no, str yes, 'maybe' not known)."""

    def __init__(self, legal, fen, over, desc, note=None):
        self.legal = legal
        self.fen = fen
        self.over = over
        self.desc = desc
        # What the text mode said of the position in its game (the game over, and why).
        self.note = note

    def keys(self):
        return {m.key() for m in self.legal}


GO_ERROR = re.compile(r"game is over|no variant is set")


class HubFailure(Exception):
    """The process is gone or out of step: restart it."""


class HubWorker:
    def __init__(self, fz, pool, idx, line_target):
        self.fz = fz
        self.pool = pool
        self.idx = idx
        self.rng = random.Random(f"{fz.seed}/hub/{idx}")
        self.line_target = line_target
        self.lines = 0
        self.pings = 0
        self.proc = None
        self.variants_seen = set()

    # ----- plumbing

    def send(self, line):
        data = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
        self.proc.send(data + b"\n")
        self.lines += 1
        self.fz.count("hub lines")

    def fail(self, kind, detail, inputs=None):
        self.fz.fail("hub", kind, detail, proc=self.proc, inputs=inputs)

    def died(self, ctx):
        rc = self.proc.wait(3)
        problem = self.proc.exit_problem(rc)
        if problem:
            self.fail(problem[0], f"{problem[1]} (after {ctx})")
        else:
            self.fail("exit", f"tammi hub exited (status {rc}) after {ctx}; stderr: "
                      f"{self.proc.stderr_text().strip()[-300:]}")
        raise HubFailure()

    def read(self, timeout, ctx):
        x = self.proc.line(timeout)
        if x is EOF:
            self.died(ctx)
        if x is not None:
            word = x.split(" ", 1)[0]
            if word not in HUB_REPLIES:
                self.fail("bad output", f"unexpected output line {shown(x)} after {ctx}")
        return x

    def sync(self, ctx):
        """ping, and the lines before its pong (within 2 s)."""
        self.send("ping")
        self.pings += 1
        self.fz.count("hub lines: the pings after each step")
        deadline = now() + 2.0
        got = []
        while True:
            x = self.read(deadline - now(), ctx)
            if x is None:
                self.fail("hang", f"no pong within 2 s after {ctx}")
                raise HubFailure()
            if x == "pong":
                return got
            got.append(x)

    def expect_quiet(self, got, ctx, errors=0, exact=True):
        """`got` has `errors` error lines (at least that many when not exact) and
        nothing else but what a synchronous command may print."""
        errs = [g for g in got if g.startswith("error")]
        others = [g for g in got if not g.startswith("error")]
        if others:
            self.fail("bad output", f"unexpected lines {[shown(o) for o in others][:3]} after {ctx}")
        if (exact and len(errs) != errors) or (not exact and len(errs) < errors):
            if errors and not errs:
                self.fail("not refused", f"no error for {ctx}")
            else:
                self.fail(
                    "error count",
                    f"{len(errs)} error lines (expected {errors}) for {ctx}: "
                    f"{[shown(e) for e in errs][:3]}",
                )
        return errs

    # ----- process life

    def start(self):
        self.proc = Proc(self.fz, [self.fz.binary, "hub"], f"hub {self.idx}")
        self.fz.count("hub processes")
        self.send("hub")
        params = self.read_announce("hub")
        self.params = params
        self.variant = params.get("variant", "normal")
        self.refused = False
        self.evals = {v: ("network" if v == "english" else "patterns") for v in HUB_NAMES}
        v = self.rng.choice(HUB_NAMES)
        self.send(f"set-param name=variant value={v}")
        self.send("init")
        got = self.sync("set-param variant, init")
        if [g for g in got if g != "ready"] or "ready" not in got:
            self.fail("bad output", f"init answered {got[:3]}")
        self.set_variant(v)
        self.limits = {}

    def read_announce(self, ctx):
        params = {}
        deadline = now() + 2.0
        while True:
            x = self.read(deadline - now(), ctx)
            if x is None:
                self.fail("hang", f"no `wait` within 2 s after {ctx}")
                raise HubFailure()
            if x == "wait":
                return params
            p = hub_parse(x)
            if p and p[0] == "param":
                params[hub_get(p[1], "name")] = hub_get(p[1], "value")
            elif not (p and p[0] == "id"):
                self.fail("bad output", f"unexpected {shown(x)} in the answer to {ctx}")

    def set_variant(self, v):
        self.variant = v
        self.refused = False
        self.variants_seen.add(v)
        self.fz.count(f"hub variant {v}")
        start = self.pool.games[v][0][0]
        self.target = Target(start.legal, start.fen, None, f"{v} start")

    def stop_proc(self):
        if self.proc is None:
            return
        how = self.rng.choice(["quit", "eof"])
        if how == "quit":
            self.send("quit")
        self.proc.close_input()
        rc = self.proc.wait(3)
        if rc is None:
            self.fail("hang", f"tammi hub did not exit within 3 s of {'quit' if how == 'quit' else 'the end of input'}")
        else:
            problem = self.proc.exit_problem(rc)
            if problem:
                self.fail(problem[0], problem[1])
            elif rc != 0:
                self.fail("exit", f"exit status {rc} after {how}")
            elif self.proc.err:
                self.fail("stderr", f"tammi hub wrote to standard error: {shown(self.proc.stderr_text(), 400)}")
        self.proc.kill()
        self.proc = None

    def run(self):
        per_proc = max(300, self.line_target // 6)
        restarts = 0
        # The target counts the lines besides the pings that follow every step.
        while self.lines - self.pings < self.line_target:
            if restarts > 30:
                self.fz.fail("hub", "gave up", f"worker {self.idx}: over 30 restarts of tammi hub")
                return
            try:
                if self.proc is None:
                    self.start()
                    started = self.lines
                self.step()
                if self.lines - started > per_proc:
                    self.stop_proc()
            except HubFailure:
                restarts += 1
                self.proc.kill()
                self.proc = None
        self.stop_proc()

    # ----- the model's pieces

    def pos_choice(self, v=None):
        """A valid `pos` line of variant v and its target."""
        rng = self.rng
        v = v or self.variant
        game = rng.choice(self.pool.games[v])
        j = rng.randrange(len(game))
        if rng.random() < 0.3:
            j = len(game) - 1
        i = rng.randint(max(0, j - 6), j)
        moves = []
        for k in range(i, j):
            m = game[k].legal[game[k].played]
            moves.append(m.hub if rng.random() < 0.7 else m.text)
        form = rng.randrange(6)
        if i == 0 and form < 2:
            base = rng.choice(["pos start", "pos"]) if moves or form == 0 else rng.choice(["pos", "pos start", 'pos pos=""'])
        elif form == 2:
            base = f"pos pos={fen_to_hub(game[i].fen, SQUARES_OF[v])}"
        elif form == 3:
            base = f"pos pos={hub_quote(game[i].fen)}"
        else:
            base = f'pos fen="{game[i].fen}"' if rng.random() < 0.5 else f"pos fen={game[i].fen}"
        line = base
        if moves:
            if len(moves) == 1 and rng.random() < 0.5:
                line += f" moves={moves[0]}"
            else:
                line += ' moves="' + " ".join(moves) + '"'
        elif rng.random() < 0.1:
            line += ' moves=""'
        if rng.random() < 0.1:
            line = line.replace(" ", "  ").replace("=", " = ", 1)
        over = game[j].over if i == 0 else ("maybe" if game[j].over else None)
        t = Target(game[j].legal, game[j].fen, over, f"{v}: {line}", note=game[j].over)
        return line, t, game, j

    def bound(self):
        """Seconds until the current limits end a `go think` by themselves (None: never)."""
        lim = self.limits
        if lim == "unknown" or lim.get("infinite"):
            return None
        b = []
        if "move-time" in lim:
            b.append(lim["move-time"])
        if "time" in lim:
            b.append(lim["time"] + lim.get("inc", 0.0))
        if "depth" in lim or "nodes" in lim:
            b.append(1.0)
        return min(b) if b else None

    def level_valid(self):
        """A valid level line that bounds the search, and its limits."""
        rng = self.rng
        parts = {}
        for _ in range(rng.randint(1, 2)):
            k = rng.randrange(5)
            if k == 0:
                parts["depth"] = rng.randint(1, 4)
            elif k == 1:
                parts["nodes"] = rng.randint(1, 20000)
            elif k == 2:
                parts["move-time"] = round(rng.uniform(0.0, 0.05), 3)
            elif k == 3:
                parts["time"] = round(rng.uniform(0.01, 0.5), 3)
                if rng.random() < 0.5:
                    parts["inc"] = round(rng.uniform(0, 0.05), 3)
                if rng.random() < 0.5:
                    parts["moves"] = rng.randint(0, 40)
            else:
                parts["nodes"] = rng.randint(1, 3000)
        words = []
        for k, v in parts.items():
            if k == "depth" and rng.random() < 0.3:
                words.append(f"ply={v}")
            else:
                words.append(f"{k}={v}")
        if rng.random() < 0.05:
            words.append("handicap")
        limits = dict(parts)
        return "level " + " ".join(words), limits

    def apply_limits(self, lim):
        if self.limits != "unknown":
            self.limits.update(lim)

    # ----- actions

    def step(self):
        rng = self.rng
        actions = [
            (14, self.act_pos_valid),
            (4, self.act_pos_bad),
            (5, self.act_pos_mutated),
            (3, self.act_level_valid),
            (4, self.act_level_bad),
            (3, self.act_level_mutated),
            (4, self.act_set_valid),
            (5, self.act_set_bad),
            (4, self.act_variant),
            (0.4, self.act_variant_bad),
            (16, self.act_go_think),
            (5, self.act_go_analyze),
            (3, self.act_go_ponder),
            (2, self.act_refused_level_go),
            (12, self.act_garbage),
            (5, self.act_misc),
            (0.05, self.act_huge_line),
        ]
        total = sum(w for w, _ in actions)
        r = rng.uniform(0, total)
        for w, act in actions:
            r -= w
            if r <= 0:
                act()
                return
        actions[-1][1]()

    def act_pos_valid(self):
        line, t, _, _ = self.pos_choice()
        self.send(line)
        self.fz.count("hub pos lines")
        got = self.sync(line)
        if self.refused:
            self.expect_quiet(got, line, errors=1)
            return
        errs = self.expect_quiet(got, line, errors=0)
        if errs:
            return
        self.target = t
        self.limits = {}

    def act_pos_bad(self):
        """A pos line that must be refused; the position stays."""
        rng = self.rng
        # Half the time the limits are set first: the refused pos must leave them too.
        level_first = None
        if rng.random() < 0.5 and not self.refused:
            level_first = self.prepare_level()
            self.sync(level_first)
        line, t, game, j = self.pos_choice()
        v = self.variant
        nsq = SQUARES_OF[v]
        k = rng.randrange(9)
        if k == 0:
            # A move from an empty square.
            side, sq = fen_squares(t.fen)
            empty = [s for s in range(1, nsq + 1) if s not in sq]
            if not empty:
                return
            a = rng.choice(empty)
            b = rng.choice([s for s in range(1, nsq + 1) if s != a])
            if "moves=" in line:
                line = re.sub(r'moves=("([^"]*)"|\S+)', lambda m: 'moves="' + (m.group(2) if m.group(2) is not None else m.group(1)) + f' {a}-{b}"', line)
            else:
                line += f" moves={a}-{b}"
        elif k == 1:
            line = f'pos fen="{t.fen}" moves=1-2 3-4'  # unquoted move list
        elif k == 2:
            line = line + " bogus=1"
        elif k == 3:
            line = f"pos Fen={t.fen}"
        elif k == 4:
            line = f'pos fen="{t.fen}" pos={fen_to_hub(t.fen, nsq)}'
        elif k == 5:
            s = fen_to_hub(t.fen, nsq)
            s = s[:-1] if rng.random() < 0.5 else s + "e"
            line = f"pos pos={s}"
        elif k == 6:
            line = f"pos fen={t.fen} fen={t.fen}"
        elif k == 7:
            line = rng.choice(["pos fen", "pos moves", 'pos fen=""', "pos pos=Xeeee", "pos fen=W:W99999:B1"])
        else:
            other = rng.choice([x for x in HUB_NAMES if SQUARES_OF[x] != nsq])
            g2 = rng.choice(self.pool.games[other])
            line = f"pos pos={fen_to_hub(g2[0].fen, SQUARES_OF[other])}"
        self.send(line)
        self.fz.count("hub pos lines (refused)")
        got = self.sync(line)
        self.expect_quiet(got, f"{line} (in {v}, which must refuse it)", errors=1)
        if level_first is not None:
            # The next search is in the position kept, with the limits kept.
            self.act_go_think(before=[level_first, f"{line} (refused)"])
        elif rng.random() < 0.5:
            # The next search is in the position kept.
            self.act_go_think()

    def act_pos_mutated(self):
        line, t, _, _ = self.pos_choice()
        m = mutate(self.rng, line)
        self.send_unknown_line(m)

    def send_unknown_line(self, text):
        """A line that may or may not be a valid command: the model follows the answer."""
        p = hub_parse(text)
        if p is not None and p[0] in ("quit", "set-param", "go", "level", "hub"):
            # What these would do is another action's business.
            if p[0] == "level":
                return self.send_level_unknown(text)
            return
        self.send(text)
        self.fz.count("hub mutated lines")
        got = self.sync(text)
        if p is None or p[0] not in HUB_COMMANDS:
            self.expect_quiet(got, shown(text), errors=1 if rtrim(text) else 0)
            return
        if p[0] == "ping":
            # Its own pong came first; the sync's is still to come.
            x = self.read(2.0, text)
            if x != "pong":
                self.fail("hang" if x is None else "bad output",
                          f"{shown(text)} then ping: {shown(x) if x else 'no second pong within 2 s'}")
                raise HubFailure()
            return
        if p[0] == "init":
            return
        errs = [g for g in got if g.startswith("error")]
        if p[0] != "pos" or errs:
            return
        if self.refused:
            self.fail("not refused", f"{shown(text)} accepted with no variant set")
            return
        # An accepted pos: the start, or a position the moves oracle can list, or unknown.
        self.limits = {}
        args = p[1]
        fen = hub_get(args, "fen")
        posv = hub_get(args, "pos")
        moves = (hub_get(args, "moves") or "").split()
        text_pos = fen if fen is not None else posv
        self.target = Target(None, None, "maybe", f"{self.variant}: {shown(text)}")
        if moves:
            return
        if text_pos is None or rtrim(text_pos) == "":
            start = self.pool.games[self.variant][0][0]
            self.target = Target(start.legal, start.fen, None, f"{self.variant}: {shown(text)}")
            return
        try:
            legal = legal_of(self.fz, self.variant, rtrim(text_pos).replace("\x00", ""))
        except OracleError:
            return
        if legal is not None:
            self.target = Target(legal, rtrim(text_pos), "maybe", f"{self.variant}: {shown(text)}")

    def send_level_unknown(self, text):
        self.send(text)
        self.fz.count("hub mutated lines")
        got = self.sync(text)
        if not [g for g in got if g.startswith("error")]:
            self.limits = "unknown"

    def act_level_valid(self):
        line, lim = self.level_valid()
        if self.rng.random() < 0.1:
            line, lim = "level infinite", {"infinite": True}
        self.send(line)
        got = self.sync(line)
        if not self.expect_quiet(got, line, errors=0):
            self.apply_limits(lim)

    BAD_LEVELS = [
        "level depth=0", "level depth=201", "level depth=-3", "level depth=abc", "level depth",
        "level ply=0", "level nodes=0", "level nodes=-1", "level nodes=1e3", "level nodes=",
        "level move-time=-1", "level move-time=1e8", "level move-time=nan", "level move-time=inf",
        "level move-time=1e400", "level move-time=x", "level time=-5", "level time=x",
        "level inc=-1", "level moves=-1", "level moves=1.5", "level bogus=1",
        "level depth=3 nodes=0", "level infinite depth=0", "level infinite move-time=-1",
        "level depth=99999999999999999999999", "level Depth=3", "level nodes=18446744073709551616",
        'level move-time="1 2"', "level time=1e7 inc=1e8",
    ]

    def act_level_bad(self):
        line = self.rng.choice(self.BAD_LEVELS)
        self.send(line)
        self.fz.count("hub refused values")
        got = self.sync(line)
        self.expect_quiet(got, f"{line} (must be refused)", errors=1)

    def act_level_mutated(self):
        line, _ = self.level_valid()
        m = mutate(self.rng, line)
        p = hub_parse(m)
        if p is not None and p[0] == "level":
            self.send_level_unknown(m)
        else:
            self.send_unknown_line(m)

    def valid_param(self):
        rng = self.rng
        k = rng.randrange(10)
        if k == 0:
            return "threads", str(rng.choice([1, 1, 1, 2, 3]))
        if k == 1:
            return "hash", str(rng.randint(1, 64))
        if k == 2:
            return "tt-size", str(rng.randint(16, 22))
        if k == 3:
            return "ponder", rng.choice(["true", "false"])
        if k == 4:
            return "multipv", str(rng.randint(1, 3))
        if k == 5:
            return "move-overhead", str(rng.randint(0, 100))
        if k == 6:
            # (An empty network outside english is refused: that variant has none.)
            return rng.choice(["egdb", "weights", "network" if self.variant == "english" else "egdb"]), ""
        if k == 7:
            return "eval", "patterns" if self.variant != "english" else rng.choice(["patterns", "network"])
        if k == 8:
            return "threads", str(rng.randint(1, 2))
        return "client", "lidraughts"

    def bad_param(self):
        rng = self.rng
        garbage_file = os.path.join(self.fz.tmp, "garbage.bin")
        empty_dir = os.path.join(self.fz.tmp, "empty-dir")
        k = rng.randrange(12)
        if k == 0:
            return "threads", rng.choice(["0", "257", "-1", "abc", "1e3", "99999999999999999999", "", "1.5"])
        if k == 1:
            return "hash", rng.choice(["0", "65537", "999999999", "-5", "64MB", "0x40", "", "1e9"])
        if k == 2:
            return "tt-size", rng.choice(["15", "33", "100", "x", "-22", ""])
        if k == 3:
            return "multipv", rng.choice(["0", "65", "-1", "many"])
        if k == 4:
            return "move-overhead", rng.choice(["10001", "-1", "x", "1e9"])
        if k == 5:
            return "ponder", rng.choice(["maybe", "2", "", "truee"])
        if k == 6:
            return "client", rng.choice(["xboard", "", "lidraughts2"])
        if k == 7:
            return "egdb", rng.choice(["/nonexistent/tammi.egdb", "/dev/null", garbage_file, empty_dir])
        if k == 8:
            return rng.choice(["weights", "network"]), rng.choice(
                ["/nonexistent/w.txt", "/dev/null", garbage_file, empty_dir])
        if k == 9:
            if self.variant == "english":
                return "eval", rng.choice(["neural", "", "networks"])
            return "eval", rng.choice(["network", "neural", ""])
        if k == 10:
            return rng.choice(["Hash", "hashh", "foo", "", "variant ", "threads\u00a0"]), "1"
        return "multipv", rng.choice(["1.0", "+-1", "1 1"])

    def param_sent(self, name, value):
        return f"set-param name={hub_quote(name)} value={hub_quote(value)}"

    def apply_param(self, name, value):
        p = self.params
        if name == "threads":
            p["threads"] = str(int(value))
        elif name == "hash":
            p["hash"] = str(int(value))
            p["tt-size"] = str(16 + int(value).bit_length() - 1)
        elif name == "tt-size":
            mb = max(1, (1 << int(value)) * 16 >> 20)
            p["hash"] = str(mb)
            p["tt-size"] = str(16 + mb.bit_length() - 1)
        elif name in ("ponder", "multipv", "move-overhead", "egdb", "weights", "network", "client"):
            p[name] = value
        elif name == "eval":
            self.evals[self.variant] = value

    def check_announce(self, ctx):
        self.send("hub")
        params = self.read_announce(f"hub after {ctx}")
        want = dict(self.params)
        want["variant"] = self.variant
        want["eval"] = self.evals[self.variant]
        diff = {k: (params.get(k), v) for k, v in want.items() if params.get(k) != v}
        self.fz.count("hub announcements checked")
        if diff:
            self.fail(
                "state changed",
                f"after {ctx}, `hub` announces {', '.join(f'{k}={a!r} (expected {b!r})' for k, (a, b) in diff.items())}",
            )
            # Follow the engine from here on, so that one change is reported once.
            for k in diff:
                if k in params and k not in ("variant", "eval"):
                    self.params[k] = params[k]

    def act_set_valid(self):
        name, value = self.valid_param()
        line = self.param_sent(name, value)
        self.send(line)
        got = self.sync(line)
        if name in ("eval",) and self.refused:
            self.expect_quiet(got, line, errors=1)
            return
        if name in ("weights", "network") and self.refused:
            self.expect_quiet(got, line, errors=1)
            return
        if not self.expect_quiet(got, line, errors=0):
            self.apply_param(name, value)
        if self.rng.random() < 0.2:
            self.check_announce(line)

    def act_set_bad(self):
        name, value = self.bad_param()
        line = self.param_sent(name, value)
        self.send(line)
        self.fz.count("hub refused values")
        got = self.sync(line)
        self.expect_quiet(got, f"{line} (must be refused)", errors=1)
        if self.rng.random() < 0.5:
            self.check_announce(f"the refused {line}")

    def act_variant(self):
        rng = self.rng
        v = rng.choice(HUB_NAMES)
        name = v
        alias = [a for a, t in VARIANT_ALIASES.items() if t == v]
        if alias and rng.random() < 0.3:
            name = rng.choice(alias)
        if rng.random() < 0.1:
            name = name.upper()
        line = self.param_sent("variant", name)
        self.send(line)
        got = self.sync(line)
        if not self.expect_quiet(got, line, errors=0):
            self.set_variant(v)
        if rng.random() < 0.15:
            self.check_announce(line)

    def act_variant_bad(self):
        name = self.rng.choice(["xiangqi", "chess", "", "normal2", "inter national", "fryskk"])
        line = self.param_sent("variant", name)
        self.send(line)
        self.fz.count("hub refused values")
        got = self.sync(line)
        self.expect_quiet(got, f"{line} (must be refused)", errors=1)
        self.refused = True
        if self.rng.random() < 0.5:
            self.check_announce(line)

    def act_misc(self):
        rng = self.rng
        k = rng.randrange(6)
        if k == 0:
            got = self.sync("ping")
            self.expect_quiet(got, "ping")
        elif k == 1:
            self.check_announce("hub")
        elif k == 2:
            self.send("init")
            got = self.sync("init")
            if got != ["ready"]:
                self.fail("bad output", f"init answered {got[:3]}")
        else:
            line = rng.choice(["new-game", "stop", "ponder-hit", "stop"])
            self.send(line)
            got = self.sync(line)
            self.expect_quiet(got, f"{line} with no search running")

    def act_garbage(self):
        rng = self.rng
        for _ in range(rng.randint(1, 3)):
            b = garbage(rng)
            text = b.decode("utf-8", "replace")
            p = hub_parse(text)
            if p is not None and p[0] in HUB_COMMANDS:
                continue
            self.send(b)
            self.fz.count("hub garbage lines")
            got = self.sync(f"garbage {shown(b)}")
            self.expect_quiet(got, f"garbage line {shown(b)}", errors=1 if rtrim(text) else 0)

    def act_huge_line(self):
        b = b"pos fen=" + b"W" * ((1 << 20) + 100)
        self.send(b)
        self.fz.count("hub lines over 1 MiB")
        got = self.sync("a line over 1 MiB")
        self.expect_quiet(got, "a line over 1 MiB", errors=1)

    # ----- searches

    def check_move_text(self, move, ctx, what="done move"):
        t = self.target
        if t.legal is None:
            if parse_hub_move(move) is None:
                self.fail("illegal move", f"{what} {shown(move)} is not a move (after {ctx})")
            return
        key = parse_hub_move(move)
        if key is None or key not in t.keys():
            self.fail(
                "illegal move",
                f"{what} {shown(move)} is not legal in {t.desc} (fen {t.fen}; legal: "
                f"{' '.join(m.hub for m in t.legal)}) (after {ctx})",
            )

    def check_info(self, line, ctx):
        p = hub_parse(line)
        if p is None:
            self.fail("bad output", f"malformed info line {shown(line)}")
            return
        pv = hub_get(p[1], "pv")
        if pv and self.target.legal:
            self.check_move_text(pv.split()[0], ctx, "the first move of info pv")

    def check_done(self, line, errors, ctx):
        p = hub_parse(line)
        if p is None or p[0] != "done":
            self.fail("bad output", f"malformed done line {shown(line)}")
            return
        move = hub_get(p[1], "move") or ""
        t = self.target
        self.fz.count("hub dones")
        # Only the errors about the search itself (others answer lines sent meanwhile).
        errors = [e for e in errors if GO_ERROR.search(e)]
        if self.refused:
            if move != "" or not errors:
                self.fail("no variant", f"with the variant refused, {ctx} answered {shown(line)} "
                          f"(errors: {errors[:2]})")
            return
        if t.legal is not None and not t.legal:
            if move != "" or not any("game is over" in e for e in errors):
                self.fail("game over", f"in {t.desc}, which has no legal move, {ctx} answered "
                          f"{shown(line)} (errors: {errors[:2]})")
            return
        if move == "":
            if not errors:
                self.fail(
                    "no move",
                    f"`done move=\"\"` without an error line, with legal moves "
                    f"({' '.join(m.hub for m in (t.legal or [])) or 'unknown'}), in {t.desc}"
                    f"{' (the text mode, there: ' + t.note + ')' if t.note else ''}"
                    f" after {ctx}",
                )
            elif t.over is None:
                self.fail("no move", f"{ctx} in {t.desc} answered no move, {errors[:1]}, "
                          f"though the game is not over there")
            return
        self.check_move_text(move, ctx)

    def await_done(self, t0, bound, ctx, stop_after=None, ping_at=None, extra_end=None,
                   slack=LIMIT_SLACK):
        """Read until `done`. With a bound, `done` is due within bound + `slack` of `go`
        (else a "limit" failure, and `stop` is sent); with none, `stop` is sent `stop_after`
        seconds after `go`. After `stop`, `done` is due within 1 s (else a "hang").
        Returns (done line, error lines before it) or None."""
        errors = []
        stopped = None
        due = t0 + (bound + slack if bound is not None else stop_after)
        while True:
            limit = due
            if ping_at is not None:
                limit = min(limit, ping_at + 2.0)
            x = self.read(limit - now(), ctx)
            if x is None:
                if ping_at is not None and now() >= ping_at + 2.0:
                    self.fail("hang", f"no pong within 2 s of a ping during the search of {ctx}")
                    raise HubFailure()
                if stopped is None:
                    self.send("stop")
                    stopped = now()
                    due = stopped + 1.0
                    if bound is not None:
                        hint = (" (the limits set before a refused line are lost?)"
                                if "(refused)" in ctx else "")
                        self.fail(
                            "limit",
                            f"no done within the limit + {slack:g} s ({bound:.3f} + {slack:g} s) of {ctx}; "
                            f"`stop` sent{hint}",
                        )
                    continue
                self.fail("hang", f"no done within 1 s after stop ({ctx})")
                raise HubFailure()
            if x == "pong":
                ping_at = None
                continue
            if x.startswith("info"):
                self.check_info(x, ctx)
                continue
            if x.startswith("error"):
                errors.append(x)
                continue
            if x.startswith("done"):
                if ping_at is not None:
                    y = self.read(max(0.0, ping_at + 2.0 - now()), ctx)
                    if y is None:
                        self.fail("hang", f"no pong within 2 s of a ping during {ctx}")
                        raise HubFailure()
                    if y != "pong":
                        self.fail("bad output", f"{shown(y)} after done, where pong was due ({ctx})")
                return x, errors
            self.fail("bad output", f"unexpected {shown(x)} during {ctx}")

    def garbage_errors(self, before, after, garbage_sent, ctx):
        """A garbage line sent during a search has one error, before `done` (a malformed
        line, which leaves the search running) or after it (an unknown command, which ends
        the search first); nothing else may come."""
        want = 1 if rtrim(garbage_sent.decode("utf-8", "replace")) else 0
        before = [e for e in before if not GO_ERROR.search(e)]
        errs = self.expect_quiet(after, ctx, errors=0, exact=False)
        if len(before) + len(errs) != want:
            self.fail("error count", f"{len(before) + len(errs)} error lines (expected {want}) for {ctx}: "
                      f"{[shown(e) for e in before + errs][:3]}")

    def prepare_level(self):
        line, lim = self.level_valid()
        self.send(line)
        self.apply_limits(lim)
        return line

    def after_go(self):
        if not self.refused:
            self.limits = {}

    def act_go_think(self, before=None):
        """level (unless `before` lists the lines sent since the limits were set), go
        think, and its done."""
        rng = self.rng
        if before is None:
            ctx_lines = [self.prepare_level()]
            if rng.random() < 0.3:
                ctx_lines.append(self.prepare_level())
        else:
            ctx_lines = before
        bound = self.bound()
        go = rng.choice(["go think", "go", "go think", " go   think "])
        t0 = now()
        self.send(go)
        self.fz.count("hub go think")
        ctx = f"{' / '.join(ctx_lines)} / {go.strip()} in {self.target.desc}"
        k = rng.random()
        ping_at = None
        garbage_sent = None
        stopped_early = False
        if k < 0.3:
            time.sleep(rng.uniform(0, 0.01))
            self.send("ping")
            ping_at = now()
        elif k < 0.4:
            time.sleep(rng.uniform(0, 0.01))
            b = garbage(rng, long_ok=False)
            p = hub_parse(b.decode("utf-8", "replace"))
            if p is None or p[0] not in HUB_COMMANDS:
                self.send(b)
                garbage_sent = b
                ctx += f" / garbage {shown(b)} during the search"
        elif k < 0.5:
            time.sleep(rng.uniform(0, 0.01))
            self.send("stop")
            bound = 0.0
            stopped_early = True
        # `stop` sent at once: `done` is due within 1 s, as after any `stop`.
        r = self.await_done(t0, bound, ctx, stop_after=1.0, ping_at=ping_at,
                            slack=1.0 if stopped_early else LIMIT_SLACK)
        self.after_go()
        got = self.sync(ctx)
        if r is None:
            return
        done, errors = r
        self.check_done(done, errors, ctx)
        if garbage_sent is not None:
            self.garbage_errors(errors, got, garbage_sent, ctx)
        else:
            self.expect_quiet(got, ctx)

    def act_go_analyze(self):
        rng = self.rng
        ctx_lines = []
        k = rng.randrange(3)
        if k == 0:
            ctx_lines.append(self.prepare_level())
        elif k == 1 and self.limits != "unknown":
            self.send("level infinite")
            self.limits["infinite"] = True
            ctx_lines.append("level infinite")
        bound = self.bound()
        t0 = now()
        self.send("go analyze")
        self.fz.count("hub go analyze")
        ctx = " / ".join(ctx_lines + ["go analyze"]) + f" in {self.target.desc}"
        time.sleep(rng.uniform(0, 0.04))
        ping_at = None
        if rng.random() < 0.4:
            self.send("ping")
            ping_at = now()
            time.sleep(rng.uniform(0, 0.02))
        k = rng.random()
        old_target = self.target
        new_target = None
        garbage_sent = None
        if k < 0.7:
            self.send("stop")
            ctx += " / stop"
        elif k < 0.85:
            b = garbage(rng, long_ok=False)
            p = hub_parse(b.decode("utf-8", "replace"))
            if p is not None and p[0] in HUB_COMMANDS:
                b = b"xyzzy"
            self.send(b)
            garbage_sent = b
            ctx += f" / garbage {shown(b)}"
        else:
            line, t, _, _ = self.pos_choice()
            self.send(line)
            new_target = t
            ctx += f" / {line}"
        ts = now()
        stop_after = ts - t0 + 1.0
        r = self.await_done(t0, None, ctx, stop_after=stop_after, ping_at=ping_at)
        self.after_go()
        got = self.sync(ctx)
        if r is None:
            return
        done, errors = r
        self.target = old_target
        self.check_done(done, errors, ctx)
        if new_target is not None:
            errs = self.expect_quiet(got, ctx, errors=1 if self.refused else 0)
            if not errs and not self.refused:
                self.target = new_target
                self.limits = {}
        elif garbage_sent is not None:
            self.garbage_errors(errors, got, garbage_sent, ctx)
        else:
            self.expect_quiet(got, ctx)
        del bound

    def act_go_ponder(self):
        rng = self.rng
        lv = self.prepare_level()
        bound = self.bound()
        t0 = now()
        self.send("go ponder")
        self.fz.count("hub go ponder")
        ctx = f"{lv} / go ponder in {self.target.desc}"
        time.sleep(rng.uniform(0, 0.03))
        if rng.random() < 0.5 and bound is not None:
            self.send("ponder-hit")
            ctx += " / ponder-hit"
            t0 = now()
            r = self.await_done(t0, bound, ctx, stop_after=1.0)
        else:
            self.send("stop")
            ctx += " / stop"
            r = self.await_done(now(), None, ctx, stop_after=1.0)
        self.after_go()
        got = self.sync(ctx)
        if r is None:
            return
        self.check_done(r[0], r[1], ctx)
        self.expect_quiet(got, ctx)

    def act_refused_level_go(self):
        """A bounded level, then a refused one: the search must end by the first."""
        rng = self.rng
        move_time = round(rng.uniform(0.01, 0.05), 3)
        good = f"level move-time={move_time}"
        bad = rng.choice(["level move-time=1e8", "level infinite depth=0", "level move-time=-1",
                          "level nodes=0 move-time=1e9", "level infinite bogus=1"])
        self.send(good)
        self.apply_limits({"move-time": move_time})
        self.send(bad)
        bound = self.bound()
        t0 = now()
        self.send("go think")
        self.fz.count("hub go think")
        ctx = f"{good} / {bad} (refused) / go think in {self.target.desc}"
        r = self.await_done(t0, bound, ctx, stop_after=1.0)
        self.after_go()
        got = self.sync(ctx)
        if r is None:
            return
        done, errors = r
        level_errors = [e for e in errors if "level" in e]
        if not level_errors:
            self.fail("not refused", f"no error for {bad} in {ctx}")
        self.check_done(done, [e for e in errors if "level" not in e], ctx)
        self.expect_quiet(got, ctx)


# --------------------------------------------------------------------------------------
# Deliberate Hub checks
# --------------------------------------------------------------------------------------


def check_go_without_level(fz):
    """`go think` with no level must answer `done` by itself within 10 s."""
    p = Proc(fz, [fz.binary, "hub"], "hub go-without-level")
    lines = ["hub", "init", "pos", "go think"]
    for l in lines:
        p.send(l + "\n")
    fz.count("hub lines", len(lines))
    t0 = now()
    done = None
    while now() < t0 + 10.0:
        x = p.line(t0 + 10.0 - now())
        if x is None or x is EOF:
            break
        if x.startswith("done"):
            done = x
            break
    fz.count("checks run")
    if done is None:
        p.send("stop\n")
        fz.count("hub lines")
        t1 = now()
        late = None
        while now() < t1 + 1.0:
            x = p.line(t1 + 1.0 - now())
            if x is None or x is EOF:
                break
            if x.startswith("done"):
                late = x
                break
        fz.fail(
            "hub",
            "go without level",
            "`go think` with no level answered no `done` within 10 s (the engine searches "
            f"until stop; after stop: {late or 'no done within 1 s either'})",
            proc=p,
            inputs=lines,
        )
    p.send("quit\n")
    p.close_input()
    p.wait(3)
    p.kill()


def check_finished_game(fz):
    """Finished games: no legal move (an error and `done move=""`), and a draw by
    repetition, which must give a legal move or an error with `done move=""`."""
    cases = [
        ("normal", 'pos fen="W:W:B1"', False),
        ("english", 'pos fen="B:W18:B"', False),
        ("normal", 'pos fen="W:WK50:BK1" moves="50-45 1-6 45-50 6-1 50-45 1-6 45-50 6-1"', True),
        ("russian", 'pos fen="W:WK32:BK1" moves="32-28 1-5 28-32 5-1 32-28 1-5 28-32 5-1"', True),
    ]
    for variant, pos, has_moves in cases:
        p = Proc(fz, [fz.binary, "hub"], "hub finished-game")
        lines = ["hub", f"set-param name=variant value={variant}", "init", pos, "level nodes=1000", "go think"]
        for l in lines:
            p.send(l + "\n")
        fz.count("hub lines", len(lines))
        fz.count("checks run")
        errors = []
        done = None
        t0 = now()
        while now() < t0 + 3.0:
            x = p.line(t0 + 3.0 - now())
            if x is None or x is EOF:
                break
            if x.startswith("error"):
                errors.append(x)
            if x.startswith("done"):
                done = x
                break
        if done is None:
            fz.fail("hub", "hang", f"no done within 3 s for {pos} (variant {variant})", proc=p, inputs=lines)
        else:
            pr = hub_parse(done)
            move = hub_get(pr[1], "move") if pr else None
            pos_errors = [e for e in errors if "pos:" in e]
            if pos_errors:
                fz.fail("hub", "script", f"the check's position {pos} is refused: {pos_errors[0]}", proc=p, inputs=lines)
            elif not move and not errors:
                fz.fail(
                    "hub",
                    "no move",
                    f"`done move=\"\"` without an error line for a finished game: {pos} "
                    f"(variant {variant}){' which has legal moves (a draw by repetition)' if has_moves else ''}",
                    proc=p,
                    inputs=lines,
                )
            elif not has_moves and move:
                fz.fail("hub", "illegal move", f"{done} in a position with no legal move: {pos}", proc=p, inputs=lines)
            else:
                # That `go` used up the limits, as every `go` does: a refused level says
                # which are in force. (Kept, they add to the next level: after a variant
                # switch, which sets a position without `pos`, `level infinite` kept so
                # made a later `go think` search until stop.)
                p.send("level nodes=0\n")
                fz.count("hub lines")
                lines.append("level nodes=0")
                t1 = now()
                err = None
                while now() < t1 + 2.0:
                    x = p.line(t1 + 2.0 - now())
                    if x is None or x is EOF:
                        break
                    if x.startswith("error"):
                        err = x
                        break
                if err is None or "limits in force: none" not in err:
                    fz.fail("hub", "limits kept",
                            f"after `go think` in the finished game {pos} (variant {variant}), the "
                            f"limits are not used up: `level nodes=0` answered {shown(err) if err else 'nothing'}",
                            proc=p, inputs=lines)
        p.send("quit\n")
        p.close_input()
        p.wait(3)
        p.kill()


# --------------------------------------------------------------------------------------
# The text mode
# --------------------------------------------------------------------------------------

TEXT_DANGEROUS = {"go", "analyze", "analyse", "level", "depth", "nodes", "egdb", "quit", "exit", "q"}


def text_first_word(b):
    words = b.decode("utf-8", "replace").split()
    return words[0].lower() if words else ""


class TextWorker:
    def __init__(self, fz, pool, line_target):
        self.fz = fz
        self.pool = pool
        self.rng = random.Random(f"{fz.seed}/text")
        self.line_target = line_target
        self.lines = 0

    def small_limit(self):
        rng = self.rng
        return rng.choice([f"nodes {rng.randint(1, 3000)}", f"depth {rng.randint(1, 3)}",
                           f"level {rng.uniform(0.005, 0.04):.3f}"])

    def session_lines(self):
        rng = self.rng
        v = rng.choice(HUB_NAMES)
        out = [f"new {CLI_OF[v]}".encode()]
        n_go = 0
        game = None
        j = 0
        for _ in range(rng.randint(10, 80)):
            k = rng.randrange(20)
            if k == 0:
                v = rng.choice(HUB_NAMES)
                name = rng.choice([CLI_OF[v], v, v.upper()])
                out.append(f"new {name}".encode())
                game = None
            elif k == 1:
                out.append(rng.choice([b"new xiangqi", b"new", b"new  ", b"NEW english"]))
                game = None if out[-1] != b"new" else game
            elif k in (2, 3):
                game = rng.choice(self.pool.games[v])
                j = rng.randrange(len(game))
                fen = game[j].fen
                if rng.random() < 0.3:
                    fen = mutate(rng, fen)
                    game = None
                elif rng.random() < 0.2:
                    fen = fen_to_hub(fen, SQUARES_OF[v])
                out.append(f"fen {fen}".encode("utf-8", "surrogatepass"))
            elif k in (4, 5, 6):
                if game is not None and j < len(game) and game[j].played is not None:
                    m = game[j].legal[game[j].played]
                    out.append(rng.choice([m.text, m.hub]).encode())
                    j += 1
                else:
                    g = rng.choice(self.pool.games[v])
                    ply = rng.choice(g)
                    if ply.legal:
                        out.append(rng.choice(ply.legal).text.encode())
                    game = None
            elif k == 7:
                out.append(rng.choice([b"moves", b"undo", b"board", b"game", b"help", b"fen",
                                       b"notation letter", b"notation numeric", b"notation bogus",
                                       b"d", b"history", b"?", b"stop", b"MOVES", b"Undo"]))
                if out[-1].lower() == b"undo":
                    game = None
            elif k in (8, 9):
                out.append(self.small_limit().encode())
                out.append(rng.choice([b"go", b"GO", b"go"]))
                n_go += 1
                game = None
            elif k == 10:
                out.append(self.small_limit().encode())
                out.append(rng.choice([b"analyze", b"analyse"]))
                out.append(rng.choice([b"stop", b"", b"moves", b"help", garbage(rng, long_ok=False)]))
                n_go += 1
            elif k == 11:
                out.append(rng.choice([b"depth 0", b"depth 101", b"depth -1", b"depth x", b"depth",
                                       b"nodes 0", b"nodes -5", b"nodes abc", b"level 0",
                                       b"level -1", b"level 1e7", b"level nan", b"level inf",
                                       b"level", b"nodes 99999999999999999999999"]))
            elif k == 12:
                empty_dir = os.path.join(self.fz.tmp, "empty-dir").encode()
                out.append(rng.choice([b"egdb /nonexistent/x.egdb", b"egdb off", b"egdb /dev/null",
                                       b"egdb", b"egdb " + empty_dir]))
            elif k == 13 and game is not None and j < len(game):
                m = rng.choice(game[j].legal) if game[j].legal else None
                if m:
                    out.append(mutate(rng, m.text).encode("utf-8", "surrogatepass"))
            else:
                for _ in range(50):
                    b = garbage(rng) if rng.random() < 0.7 else mutate(rng, rng.choice(
                        ["moves", "fen " + self.pool.games[v][0][0].fen, "new english", "notation letter",
                         "board", "undo", "32-28", "c3-d4"])).encode("utf-8", "surrogatepass")
                    if text_first_word(b) not in TEXT_DANGEROUS:
                        out.append(b)
                        break
        end = rng.choice(["quit", "exit", "q", "eof", "eof"])
        if end != "eof":
            out.append(end.encode())
        return out, n_go, end

    def run(self):
        sessions = 0
        while self.lines < self.line_target:
            lines, n_go, end = self.session_lines()
            sessions += 1
            self.fz.count("text sessions")
            p = Proc(self.fz, [self.fz.binary], "text mode")
            p.send(b"".join(l + b"\n" for l in lines))
            p.close_input()
            self.lines += len(lines)
            self.fz.count("text lines", len(lines))
            self.fz.count("text go/analyze", n_go)
            limit = 5.0 + 0.5 * n_go
            rc = p.wait(limit)
            out = []
            while True:
                x = p.line(1.0)
                if x is None or x is EOF:
                    break
                out.append(x)
            if rc is None:
                self.fz.fail("text", "hang", f"the text mode did not exit within {limit:.1f} s "
                             f"({end}); last output: {[shown(o) for o in out[-3:]]}", proc=p)
            else:
                problem = p.exit_problem(rc)
                if problem:
                    self.fz.fail("text", problem[0], problem[1], proc=p)
                elif rc != 0:
                    self.fz.fail("text", "exit", f"exit status {rc}; stderr "
                                 f"{shown(p.stderr_text(), 300)}", proc=p)
            for o in out:
                if "error: engine move" in o:
                    self.fz.fail("text", "illegal move", f"the text mode says {shown(o)}", proc=p)
                if "panicked" in o:
                    self.fz.fail("text", "panic", shown(o), proc=p)
            self.fz.count("text 'tammi plays'", sum(1 for o in out if "tammi plays" in o))
            p.kill()
        self.interactive()

    def interactive(self):
        """analyze, a pause, stop: the text mode answers the next command within 2 s; then
        quit: it exits within 3 s."""
        rng = self.rng
        for _ in range(3):
            v = rng.choice(HUB_NAMES)
            p = Proc(self.fz, [self.fz.binary], "text mode (interactive)")
            p.send(f"new {CLI_OF[v]}\nanalyze\n".encode())
            self.fz.count("text lines", 2)
            self.fz.count("checks run")

            def wait_for(what, seconds):
                t0 = now()
                while now() < t0 + seconds:
                    x = p.line(t0 + seconds - now())
                    if x is None or x is EOF:
                        return False
                    if what in x:
                        return True
                return False

            if not wait_for("scores from", 2.0):
                self.fz.fail("text", "hang", f"analyze did not start within 2 s ({v})", proc=p)
            else:
                time.sleep(rng.uniform(0.02, 0.1))
                p.send(b"stop\nboard\n")
                self.fz.count("text lines", 2)
                if not wait_for("to move", 2.0):
                    self.fz.fail("text", "hang", f"no answer to `board` within 2 s of stopping "
                                 f"analyze ({v})", proc=p)
            p.send(b"quit\n")
            self.fz.count("text lines")
            p.close_input()
            rc = p.wait(3)
            if rc != 0:
                self.fz.fail("text", "exit" if rc is not None else "hang",
                             f"after quit: exit status {rc}", proc=p)
            p.kill()


# --------------------------------------------------------------------------------------
# FEN
# --------------------------------------------------------------------------------------


class FenWorker:
    def __init__(self, fz, pool, line_target):
        self.fz = fz
        self.pool = pool
        self.rng = random.Random(f"{fz.seed}/fen")
        self.line_target = line_target

    def lines_for(self, v, n):
        rng = self.rng
        out = []
        for _ in range(n):
            game = rng.choice(self.pool.games[v])
            ply = rng.choice(game)
            k = rng.randrange(10)
            expect = None
            if k < 2:
                line, expect = ply.fen, ply
            elif k == 2:
                line, expect = fen_to_hub(ply.fen, SQUARES_OF[v]), ply
            elif k < 7:
                line = mutate(rng, rng.choice([ply.fen, fen_to_hub(ply.fen, SQUARES_OF[v])]))
            elif k == 7:
                other = rng.choice(HUB_NAMES)
                line = rng.choice(rng.choice(self.pool.games[other])).fen
            elif k == 8:
                line = garbage(rng).decode("utf-8", "replace")
            else:
                line = rng.choice(["start", "W", "B", "W:", "W:W:B", "B:W:B", "W:WK:BK", "W:W0:B1",
                                   "W:W1-1000000000:B", "W:W1,1,1:B2", "W:W1:B1", "X:W1:B2",
                                   "W:W1:B2:W3", "W:W1.:B2.", '[FEN "W:W31:B1"]', "W:W1-:B", "W:W-5:B",
                                   "W:WK:B", "W:W1,,2:B3", "W:W 1:B 2", "  start  ", "W:W31:B1:"])
            line = line.replace("\n", " ").replace("\r", " ")
            line = line.encode("utf-8", "replace").decode("utf-8")
            out.append((line, expect))
        return out

    def run(self):
        per_variant = max(1, self.line_target // len(HUB_NAMES) + 1)
        for v in HUB_NAMES:
            lines = self.lines_for(v, per_variant)
            self.fz.count("fen lines", len(lines))
            argv = [self.fz.binary, "moves", "--variant", CLI_OF[v], "--json", "--notation", "numeric"]
            data = "".join(l + "\n" for l, _ in lines).encode("utf-8")
            try:
                r = subprocess.run(argv, input=data, capture_output=True, timeout=30)
            except subprocess.TimeoutExpired:
                self.fz.fail("fen", "hang", f"tammi moves --variant {CLI_OF[v]} did not finish "
                             f"{len(lines)} lines in 30 s", raw=data)
                continue
            err = r.stderr.decode("utf-8", "replace")
            if "panicked" in err or r.returncode < 0:
                self.fz.fail("fen", "panic" if "panicked" in err else "crash",
                             f"{' '.join(argv)}: status {r.returncode}, {shown(err, 400)}", raw=data)
                continue
            if r.returncode not in (0, 2):
                self.fz.fail("fen", "exit", f"{' '.join(argv)}: exit status {r.returncode}, "
                             f"{shown(err, 300)}", raw=data)
            answered = [(l, e) for l, e in lines if rtrim(l)]
            outs = [o for o in r.stdout.decode("utf-8", "replace").split("\n") if o]
            if len(outs) != len(answered):
                self.fz.fail("fen", "answers", f"{v}: {len(outs)} answers to {len(answered)} lines "
                             f"that are not blank", raw=data)
                continue
            for (line, expect), o in zip(answered, outs):
                self.check_answer(v, line, expect, o, data)
        self.one_shots()

    def check_answer(self, v, line, expect, o, data):
        try:
            obj = json.loads(o)
        except ValueError:
            self.fz.fail("fen", "bad output", f"{shown(o)} is not JSON, for {shown(line)}", inputs=[line], raw=data)
            return
        if "moves" in obj:
            self.fz.count("fen lines with moves")
            try:
                got = {Legal(m).key() for m in obj["moves"]}
            except (KeyError, TypeError, ValueError):
                self.fz.fail("fen", "bad output", f"unreadable moves {shown(o)} for {shown(line)}",
                             inputs=[line], raw=data)
                return
            if expect is not None and got != {m.key() for m in expect.legal}:
                self.fz.fail("fen", "moves differ", f"{v}: {shown(line)} lists other moves than {expect.fen}",
                             inputs=[line], raw=data)
        elif "error" in obj:
            self.fz.count("fen lines refused")
            if expect is not None:
                self.fz.fail("fen", "valid refused", f"{v}: {shown(line)} refused: {obj['error']}",
                             inputs=[line], raw=data)
        else:
            self.fz.fail("fen", "bad output", f"{shown(o)} has neither moves nor error", inputs=[line], raw=data)

    def one_shots(self):
        """`--fen` arguments, and bytes that are not UTF-8 on standard input."""
        rng = self.rng
        for _ in range(20):
            v = rng.choice(HUB_NAMES)
            fen = mutate(rng, rng.choice(rng.choice(self.pool.games[v])).fen).replace("\x00", "")
            argv = [self.fz.binary, "moves", "--variant", CLI_OF[v], "--fen", fen]
            self.fz.count("fen lines")
            try:
                r = subprocess.run(argv, capture_output=True, timeout=5, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                self.fz.fail("fen", "hang", f"{shown(' '.join(argv))} did not finish in 5 s")
                continue
            err = r.stderr.decode("utf-8", "replace")
            if "panicked" in err or r.returncode < 0:
                self.fz.fail("fen", "panic" if "panicked" in err else "crash",
                             f"{shown(' '.join(argv))}: status {r.returncode}, {shown(err, 400)}")
        # A line that is not UTF-8 between two good ones.
        v = "normal"
        start = self.pool.games[v][0][0].fen
        data = f"{start}\n".encode() + b"W:W31\xff\xfe:B1\n" + f"{start}\n".encode()
        self.fz.count("fen lines", 3)
        self.fz.count("checks run")
        try:
            r = subprocess.run([self.fz.binary, "moves", "--json"], input=data, capture_output=True, timeout=5)
        except subprocess.TimeoutExpired:
            self.fz.fail("fen", "hang", "tammi moves did not finish on input with a line that is not UTF-8",
                         raw=data)
            return
        err = r.stderr.decode("utf-8", "replace")
        answers = [l for l in r.stdout.decode("utf-8", "replace").split("\n") if l.strip()]
        if "panicked" in err or r.returncode < 0:
            self.fz.fail("fen", "panic" if "panicked" in err else "crash", shown(err, 400), raw=data)
        elif len(answers) != 3:
            self.fz.fail(
                "fen",
                "non-UTF-8 line",
                f"`tammi moves --json` answered {len(answers)} of 3 lines when the second is not "
                f"UTF-8 (status {r.returncode}, stderr {shown(err.strip(), 200)})",
                inputs=data.split(b"\n")[:3],
                raw=data,
            )


# --------------------------------------------------------------------------------------
# PDN
# --------------------------------------------------------------------------------------


class PdnWorker:
    def __init__(self, fz, pool, game_target):
        self.fz = fz
        self.pool = pool
        self.rng = random.Random(f"{fz.seed}/pdn")
        self.game_target = game_target

    def game_text(self, v, game, n_plies, decorate):
        rng = self.rng
        tags = [("Event", "fuzz"), ("Site", "?"), ("Round", str(rng.randint(1, 99))),
                ("White", "a"), ("Black", "b"), ("Result", "*"), ("GameType", str(GAMETYPE_OF[v]))]
        if VARTAG_OF[v]:
            tags.append(("Variant", VARTAG_OF[v]))
        if v == "frysk" or (decorate and rng.random() < 0.1):
            tags.append(("FEN", game[0].fen))
        head = "".join(f'[{k} "{val}"]\n' for k, val in tags)
        words = []
        for k in range(n_plies):
            ply = game[k]
            m = ply.legal[ply.played]
            if k % 2 == 0:
                words.append(f"{k // 2 + 1}.")
            words.append(m.text)
            if decorate:
                r = rng.random()
                if r < 0.05:
                    words.append("{a comment}")
                elif r < 0.08:
                    words.append(rng.choice(["$1", "$2", "!", "?", "!?"]))
                elif r < 0.12 and len(ply.legal) > 1:
                    alt = rng.choice([x for i, x in enumerate(ply.legal) if i != ply.played])
                    num = f"{k // 2 + 1}." if k % 2 == 0 else f"{k // 2 + 1}..."
                    words.append(f"({num} {alt.text})")
        words.append("*")
        lines, cur = [], ""
        for w in words:
            if len(cur) + len(w) > 78:
                lines.append(cur)
                cur = w
            else:
                cur = f"{cur} {w}" if cur else w
        lines.append(cur)
        return head + "\n" + "\n".join(lines) + "\n\n"

    def one_game(self, decorate=True):
        v = self.rng.choice(HUB_NAMES)
        game = self.rng.choice(self.pool.games[v])
        playable = [k for k in range(len(game)) if game[k].played is not None]
        n = len(playable)
        n_plies = self.rng.randint(0, n) if n else 0
        return v, game, n_plies, self.game_text(v, game, n_plies, decorate)

    def mutate_game(self, text):
        rng = self.rng
        if len(text) < 2:
            return text + rng.choice(["1.", "{", "[", "*", "32-28"])
        k = rng.randrange(8)
        if k == 0:
            return mutate(rng, text, rounds=rng.randint(1, 6)).replace("\x00", "")
        if k == 1:
            words = text.split(" ")
            if len(words) > 2:
                i = rng.randrange(len(words))
                del words[i]
            return " ".join(words)
        if k == 2:
            words = text.split(" ")
            if len(words) > 3:
                i, j = rng.randrange(len(words)), rng.randrange(len(words))
                words[i], words[j] = words[j], words[i]
            return " ".join(words)
        if k == 3:
            return text.replace('GameType "', 'GameType "' + str(rng.choice([1, 99, 20, 21, 0, 44])), 1)
        if k == 4:
            i = rng.randrange(len(text))
            return text[:i] + rng.choice(["{", "(", "[", "\"", "}", ")", "]", "%", ";", "1-0", "2-0",
                                          "0-2", "1-1", "$", "x", "-", "..."]) + text[i:]
        if k == 5:
            return text[: rng.randrange(len(text))]
        if k == 6:
            return text.replace("[", "", 1)
        i = rng.randrange(len(text))
        return text[:i] + f" {rng.randint(1, 80)}-{rng.randint(1, 80)} " + text[i:]

    def check_file(self, name, data, valid, games, detail):
        path = os.path.join(self.fz.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        self.fz.count("pdn games", games)
        self.fz.count("pdn files")
        argv = [self.fz.binary, "pdn", "check", path]
        try:
            r = subprocess.run(argv, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.fz.fail("pdn", "hang", f"pdn check of {games} games did not finish in 30 s ({detail})", raw=data)
            return
        err = r.stderr.decode("utf-8", "replace")
        out = r.stdout.decode("utf-8", "replace")
        if "panicked" in err or r.returncode < 0:
            self.fz.fail("pdn", "panic" if "panicked" in err else "crash",
                         f"status {r.returncode}: {shown(err, 400)} ({detail})", raw=data)
        elif valid and r.returncode != 0:
            self.fz.fail("pdn", "valid refused", f"pdn check of valid games exits {r.returncode}: "
                         f"{shown((out + err).strip()[:400], 400)} ({detail})", raw=data)
        elif r.returncode not in (0, 1, 2):
            self.fz.fail("pdn", "exit", f"exit status {r.returncode} ({detail})", raw=data)
        else:
            self.fz.count(f"pdn check exit {r.returncode}")

    def run(self):
        rng = self.rng
        total = 0
        n_file = 0
        # A few single games whose last position is compared with `tammi pdn fen`.
        for v in rng.sample(HUB_NAMES, min(6, len(HUB_NAMES))):
            game = max(self.pool.games[v], key=len)
            n = sum(1 for p in game if p.played is not None)
            text = self.game_text(v, game, n, False)
            path = os.path.join(self.fz.tmp, f"fen-{v}.pdn")
            with open(path, "w") as f:
                f.write(text)
            self.fz.count("checks run")
            try:
                r = subprocess.run([self.fz.binary, "pdn", "fen", path], capture_output=True, timeout=10)
            except subprocess.TimeoutExpired:
                self.fz.fail("pdn", "hang", f"pdn fen of one {v} game did not finish in 10 s", raw=text.encode())
                continue
            got = r.stdout.decode("utf-8", "replace").strip()
            want = game[n].fen
            if r.returncode != 0 or fen_squares(got) != fen_squares(want):
                self.fz.fail("pdn", "position differs",
                             f"{v}: pdn fen gives {shown(got)} (status {r.returncode}), the game "
                             f"played through the text mode reaches {want}", raw=text.encode())
        while total < self.game_target:
            n_file += 1
            # Valid games in batches (every one replayed); mutated ones a few to a file, since
            # a file that is not PDN stops at its first unreadable game.
            valid = rng.random() < 0.1
            if valid:
                k = rng.randint(10, 40) if rng.random() < 0.9 else rng.randint(100, 200)
            else:
                k = rng.randint(1, 3)
            texts = []
            for _ in range(k):
                v, game, n, t = self.one_game()
                if not valid and rng.random() < 0.8:
                    for _ in range(rng.choice([1, 1, 1, 2, 3])):
                        t = self.mutate_game(t)
                texts.append(t)
            data = "".join(texts).encode("utf-8", "surrogatepass")
            if not valid and rng.random() < 0.1:
                i = rng.randrange(len(data) + 1)
                data = data[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 20))) + data[i:]
            if not valid and rng.random() < 0.05:
                data = b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")
            self.check_file(f"fuzz-{n_file}.pdn", data, valid, k,
                            f"file {n_file}, {'valid' if valid else 'mutated'}, {k} games")
            total += k
        # Truncations of one game at every length.
        v, game, n, t = self.one_game()
        for i in range(0, len(t), max(1, len(t) // 40)):
            self.check_file("trunc.pdn", t[:i].encode(), False, 1, f"a game truncated to {i} characters")


# --------------------------------------------------------------------------------------
# DXP
# --------------------------------------------------------------------------------------


def dxp_name(s):
    return (s + " " * 32)[:32]


def dxp_move_msg(frm, to, caps, secs=0, sort=True):
    caps = sorted(caps) if sort else list(caps)
    return f"M{secs:04d}{frm:02d}{to:02d}{len(caps):02d}" + "".join(f"{c:02d}" for c in caps)


class DxpMalformed(Exception):
    pass


def dxp_decode(text):
    """What tammi makes of one frame (the text between two NULs), by the rules of
    protocol.md ("Robustness"): (type letter, fields) for a well-formed message, or
    DxpMalformed naming the problem (tammi answers a CHAT and ignores the message).
    Fields: M (from, to, captured list), R (version, follower colour, start), A code,
    E (reason, stop), C text, B (number, colour), K code."""

    def bad(why):
        raise DxpMalformed(why)

    if len(text) > 1024:
        bad("over 1,024 bytes (skipped)")
    # A line end after the NUL (the start of the next frame) is ignored; tammi trims
    # line ends at both ends.
    text = text.strip("\r\n")
    if not text:
        bad("an empty message")
    if any(not (" " <= c <= "~") for c in text):
        bad("not printable ASCII")
    if len(text) > 127:
        bad("over 127 characters")
    t, body = text[0], text[1:]

    def num(s, lo=0, hi=None):
        if not s or any(c not in "0123456789" for c in s):
            bad(f"{s!r} is not a zero-padded number")
        n = int(s)
        if n < lo or (hi is not None and n > hi):
            bad(f"{s} is out of range ({lo} to {hi})")
        return n

    def length(n):
        if len(body) != n:
            bad(f"{len(body)} characters after the type, {n} expected")

    def colour(c):
        if c not in "WZ":
            bad(f"colour {c!r} (W or Z expected)")
        return c

    if t == "R":
        if len(body) < 42:
            bad("GAMEREQ too short")
        version = num(body[0:2])
        follower = colour(body[34])
        num(body[35:38])
        num(body[38:41])
        start = body[41]
        if start == "A":
            length(42)
        elif start == "B":
            length(93)
            colour(body[42])
            if any(c not in "ewWzZ" for c in body[43:]):
                bad("a square not e, w, W, z or Z")
        else:
            bad(f"start {start!r} (A or B expected)")
        return "R", (version, follower, start)
    if t == "A":
        length(33)
        return "A", num(body[32:33], 0, 3)
    if t == "M":
        if len(body) < 10:
            bad("MOVE too short")
        num(body[0:4])
        frm = num(body[4:6], 1, 50)
        to = num(body[6:8], 1, 50)
        n = num(body[8:10], 0, 20)
        length(10 + 2 * n)
        caps = [num(body[10 + 2 * i : 12 + 2 * i], 1, 50) for i in range(n)]
        if len(set(caps)) != n:
            bad("a captured square named twice")
        return "M", (frm, to, caps)
    if t == "E":
        length(2)
        return "E", (num(body[0], 0, 3), num(body[1], 0, 1))
    if t == "C":
        if not body:
            bad("CHAT without text")
        return "C", body
    if t == "B":
        length(4)
        return "B", (num(body[0:3]), colour(body[3]))
    if t == "K":
        length(1)
        return "K", num(body, 0, 2)
    bad(f"unknown type {t!r}")


def dxp_malformed(text):
    """Why tammi must take `text` as malformed, or None if it is well-formed."""
    try:
        dxp_decode(text)
        return None
    except DxpMalformed as e:
        return str(e)


class DxpDone(Exception):
    pass


class DxpConn:
    def __init__(self, worker, port):
        self.w = worker
        self.fz = worker.fz
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.sent = []
        self.closed = False

    def send(self, msg, terminate=True):
        data = msg if isinstance(msg, bytes) else msg.encode("latin-1")
        if terminate:
            data += b"\x00"
        self.sent.append(data)
        self.w.messages += 1
        self.w.chats = []
        self.fz.count("dxp messages")
        try:
            self.sock.sendall(data)
        except OSError:
            self.closed = True

    def recv(self, timeout):
        """The next message (str), None on timeout, EOF when closed."""
        deadline = now() + timeout
        while b"\x00" not in self.buf:
            left = deadline - now()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                return None
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                return EOF
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\x00", 1)
        self.fz.count("dxp messages received")
        return msg.decode("latin-1")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class DxpWorker:
    """A follower `tammi dxp --listen` and this script as the initiator. Every message
    the script sends is judged by `dxp_decode` as tammi must judge it: a malformed one
    gets a CHAT and is ignored (the game goes on), a well-formed one its answer."""

    MOVE_TIME = 0.02
    # A message tammi answers must be answered within this (its move: MOVE_TIME more).
    ANSWER = 2.0

    def __init__(self, fz, pool, message_target, timeout=3.0):
        self.fz = fz
        self.pool = pool
        self.rng = random.Random(f"{fz.seed}/dxp")
        self.message_target = message_target
        # --handshake-timeout and --idle-timeout of the tammi dxp of the timeout checks.
        self.timeout = timeout
        self.messages = 0
        self.proc = None
        self.port = None
        self.conn = None
        # CHATs passed over since the last message sent, while another answer was awaited.
        self.chats = []

    @staticmethod
    def free_port():
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        return port

    def spawn(self, port, *extra):
        self.fz.count("dxp processes")
        return Proc(self.fz, [self.fz.binary, "dxp", "--listen", f"127.0.0.1:{port}",
                              "--move-time", str(self.MOVE_TIME), "--hash", "16", *extra], "dxp")

    def start(self):
        self.port = self.free_port()
        self.proc = self.spawn(self.port)

    def connect(self, port=None, proc=None):
        port = port or self.port
        proc = proc or self.proc
        deadline = now() + 5.0
        while True:
            try:
                return DxpConn(self, port)
            except OSError:
                if now() > deadline or proc.p.poll() is not None:
                    raise
                time.sleep(0.05)

    def fail(self, kind, detail, proc=None):
        raw = b"".join(self.conn.sent) if self.conn else None
        inputs = [m.rstrip(b"\x00") for m in (self.conn.sent[-12:] if self.conn else [])]
        if self.chats:
            detail += f" (CHATs from tammi meanwhile: {'; '.join(shown(c, 120) for c in self.chats[-3:])})"
        if proc is not None:
            detail += f"; command: {' '.join(proc.argv)}"
        self.fz.fail("dxp", kind, detail, proc=None, inputs=inputs, raw=raw)

    def check_alive(self, ctx, proc=None):
        proc = proc or self.proc
        rc = proc.p.poll()
        if rc is not None:
            problem = proc.exit_problem(rc)
            kind, detail = problem if problem else ("exit", f"tammi dxp exited with status {rc}")
            self.fail(kind, f"{detail} ({ctx})")
            if proc is self.proc:
                self.proc.kill()
                self.start()
            raise DxpDone()

    def expect(self, ctx, timeout=None, want=None):
        """The next message from tammi within `timeout`, or a failure. With `want` (type
        letters), CHATs before it are passed over (tammi explains some answers with a
        CHAT first: a bad position, an illegal move) and kept for the failure's detail;
        a message of another type is returned for the caller to judge."""
        timeout = self.ANSWER if timeout is None else timeout
        deadline = now() + timeout
        while True:
            m = self.conn.recv(max(0.0, deadline - now()))
            if m is None:
                self.check_alive(ctx)
                self.fail("silent", f"no answer within {timeout:.1f} s to {ctx}")
                raise DxpDone()
            if m is EOF:
                self.check_alive(ctx)
                self.fail("closed", f"tammi closed the connection after {ctx}")
                raise DxpDone()
            if want and m.startswith("C") and "C" not in want:
                self.chats.append(m)
                continue
            return m

    def expect_chat(self, ctx):
        """The CHAT answering a malformed message: the first message to come."""
        m = self.expect(ctx)
        if not m.startswith("C"):
            self.fail("answer", f"{ctx} answered {shown(m)} (a CHAT expected)")
            return False
        return True

    # ----- the game model

    def legal_of(self, fen):
        legal = legal_of(self.fz, "normal", fen)
        if legal is None:
            raise OracleError(f"tammi moves refuses {fen}")
        return legal

    def apply(self, hist, move):
        """The position after `move` (a Legal) from the last of `hist`."""
        fen = hist[-1][0]
        res = self.oracle.cmd([f"fen {fen}", move.text, "fen"])
        new_fen = TextOracle.fen_of(res)
        hist.append((new_fen, self.legal_of(new_fen)))

    def run(self):
        self.oracle = TextOracle(self.fz)
        self.oracle.cmd(["new international", "notation numeric"])
        self.start()
        while self.messages < self.message_target:
            try:
                self.session()
            except DxpDone:
                pass
            except OSError as e:
                rc = self.proc.p.poll()
                if rc is None:
                    self.fz.fail("dxp", "connect", f"cannot connect to tammi dxp on port {self.port}: {e}")
                    return
                problem = self.proc.exit_problem(rc)
                kind, detail = problem if problem else ("exit", f"tammi dxp exited with status {rc}")
                self.fail(kind, detail)
                self.proc.kill()
                self.start()
            except OracleError as e:
                self.fz.fail("dxp", "oracle", str(e))
                self.oracle.proc.kill()
                self.oracle = TextOracle(self.fz)
                self.oracle.cmd(["new international", "notation numeric"])
            if self.conn:
                self.conn.close()
                self.conn = None
        self.deliberate()
        self.proc.kill()
        self.oracle.proc.kill()
        rc = self.proc.p.returncode
        problem = self.proc.exit_problem(rc if rc is not None and rc < 0 and rc != -9 else None)
        if problem:
            self.fail(problem[0], problem[1])

    def session(self):
        rng = self.rng
        self.conn = self.connect()
        self.fz.count("dxp connections")
        # Before any game: garbage and messages out of place.
        for _ in range(rng.randint(0, 4)):
            if not self.idle_message():
                return
        for _ in range(rng.randint(1, 3)):
            if not self.game():
                return
            for _ in range(rng.randint(0, 2)):
                if not self.idle_message():
                    return

    def chat_text(self):
        """A CHAT's text: 1 to 126 printable characters, or (one time in five) an empty
        or over-long one, which is malformed."""
        rng = self.rng
        k = rng.randrange(10)
        if k == 0:
            return ""
        if k == 1:
            return "x" * rng.choice([127, 128, 200])
        if k == 2:
            return "y" * 126
        return "".join(chr(rng.randint(32, 126)) for _ in range(rng.randint(1, 60)))

    def send_chat(self, ctx):
        """A CHAT: nothing comes back, unless it is malformed."""
        msg = "C" + self.chat_text()
        self.conn.send(msg)
        self.fz.count("dxp chats")
        why = dxp_malformed(msg)
        if why is not None:
            return self.expect_chat(f"the malformed CHAT {shown(msg, 60)} ({why}) {ctx}")
        return True

    def idle_message(self):
        """One message outside a game, and its answer; False when the connection is over."""
        rng = self.rng
        k = rng.randrange(8)
        if k == 0:
            self.send_chat("outside a game")
            return True
        if k == 1:
            msg = rng.choice([dxp_move_msg(32, 28, []), "K0", "K2", f"A{dxp_name('x')}0"])
            self.conn.send(msg)
            m = self.expect(f"{shown(msg)} outside a game")
            if not m.startswith("C"):
                self.fail("answer", f"{shown(msg)} outside a game answered {shown(m)} (a CHAT expected)")
            return True
        if k == 2:
            self.conn.send(f"B{rng.randint(0, 999):03d}{rng.choice('WZ')}")
            m = self.expect("a BACKREQ outside a game", want="K")
            if m != "K1":
                self.fail("answer", f"a BACKREQ outside a game answered {shown(m)} (K1 expected)")
            return True
        if k == 3:
            stop = rng.random() < 0.1
            msg = f"E{rng.randint(0, 3)}{1 if stop else 0}"
            self.conn.send(msg)
            m = self.expect(f"the GAMEEND {msg} outside a game", want="E")
            if not re.fullmatch(r"E[0-3]" + ("1" if stop else "0"), m):
                self.fail("answer", f"the GAMEEND {msg} outside a game answered {shown(m)} "
                          f"(a GAMEEND with stop code {1 if stop else 0} expected)")
            if stop:
                m = self.conn.recv(self.ANSWER)
                if m is not EOF:
                    self.fail("answer", f"after its confirmation of {msg} outside a game, tammi "
                              f"kept the connection ({shown(m) if m else 'open'})")
                return False
            return True
        if k == 4:
            self.conn.send(f"R02{dxp_name('fuzz')}Z000000A")
            m = self.expect("a GAMEREQ of version 02", want="A")
            if not m.startswith("A") or not m.endswith("1"):
                self.fail("answer", f"a GAMEREQ of version 02 answered {shown(m)} (GAMEACC code 1 expected)")
            return True
        if k == 5:
            # A well-formed request with a position tammi refuses (a man on its crowning row).
            squares = ["e"] * 50
            for _ in range(rng.randint(1, 10)):
                squares[rng.randrange(50)] = rng.choice("wzWZ")
            if rng.random() < 0.5:
                squares[rng.randrange(5)] = "w"
            else:
                squares[45 + rng.randrange(5)] = "z"
            req = f"R01{dxp_name('fuzz')}W000000BW{''.join(squares)}"
            self.conn.send(req)
            m = self.expect("a GAMEREQ with a bad position")
            if not m.startswith("C"):
                self.fail("answer", f"a GAMEREQ with a bad position answered {shown(m)} (a CHAT expected)")
            m = self.expect("a GAMEREQ with a bad position (the GAMEACC after the CHAT)", want="A")
            if not (m.startswith("A") and m.endswith("2")):
                self.fail("answer", f"a GAMEREQ with a bad position answered {shown(m)} (GAMEACC code 2 expected)")
            return True
        self.malformed()
        return True

    # Each is malformed by protocol.md's rules (dxp_decode checks them all).
    MALFORMED = [
        "", "M00", "M00003228", "M0000322801", "M000a322800", "M0000ab2800", "M00003228x1",
        "M0001322800x", "M000132280", "M 001322800", "M+001322800", "M0000002800", "M0000510100",
        "M0000329900", "M0000521800", "M000046160155", "M00004616020202", "M0000461621" + "01" * 21,
        "E", "Ex1", "E1", "E000", "E41", "E02", "B12", "B00xW", "Bab1W", "B001Q", "B012w", "B012W ",
        "K", "Kx", "K3", "K00", "A" + "x" * 10, "Ax", "A" + " " * 32 + "4", "A" + " " * 32 + "00",
        "R01short", "R0x" + "x" * 32 + "W000000A", "R01" + " " * 32 + "X000000A",
        "R01" + " " * 32 + "W000000C", "R01" + " " * 32 + "Wabc000A", "R01" + " " * 32 + "W000000Ax",
        "R01" + " " * 32 + "W000000BW" + "e" * 49, "R01" + " " * 32 + "W000000BQ" + "e" * 50,
        "R01" + " " * 32 + "W000000BW" + "e" * 49 + "x", "C", "C" + "x" * 127,
        "Xjunk", "r01", "m0000322800", "e00", "\r\n", "E00\t", "C\x01hi",
    ]

    def malformed(self):
        """A malformed message: a CHAT names the problem, and nothing else comes."""
        rng = self.rng
        k = rng.randrange(10)
        if k < 7:
            msg = rng.choice(self.MALFORMED)
        elif k == 7:
            msg = garbage(rng, long_ok=False).replace(b"\x00", b"").decode("latin-1")
            if dxp_malformed(msg) is None:
                msg = "Y" + msg
        elif k == 8:
            msg = "".join(chr(rng.randint(0x80, 0xFF)) for _ in range(rng.randint(1, 30)))
        else:
            msg = rng.choice("QMRC") * rng.choice([200, 1100, 2000])
            if msg[0] != "Q":
                msg = msg[:1] + "x" * (len(msg) - 1)
        if rng.random() < 0.15:
            # A frame without its NUL runs into the next one: one malformed message.
            # (Each pair is too short for its type, or of no type.)
            head = rng.choice(["M00", "R01", "E", "B00", "Xjunk", "K"])
            msg = rng.choice(["Cxyz", "E00", "M00"]) if head not in ("E", "K") else "x"
            self.conn.send(head, terminate=False)
            self.conn.send(msg)
            msg = head + msg
        else:
            self.conn.send(msg)
        why = dxp_malformed(msg)
        if why is None:
            raise AssertionError(f"the script's malformed message {msg!r} is well-formed")
        self.fz.count("dxp malformed messages")
        return self.expect_chat(f"the malformed message {shown(msg, 80)} ({why})")

    def illegal_move(self, legal):
        """A well-formed MOVE that is not legal here."""
        rng = self.rng
        keys = {x.key() for x in legal}
        while True:
            frm, to = rng.randint(1, 50), rng.randint(1, 50)
            caps = rng.sample(range(1, 51), rng.choice([0, 0, 1, 2]))
            if rng.random() < 0.3:
                mv = rng.choice(legal)
                frm, to = mv.frm, mv.to
                caps = sorted(mv.caps)[1:] if mv.caps else [rng.randint(1, 50)]
            if (frm, to, frozenset(caps)) not in keys:
                return dxp_move_msg(frm, to, caps, rng.randint(0, 30), sort=rng.random() < 0.5)

    def malformed_move(self, legal):
        """A MOVE that is malformed: a square out of range, a captured square named
        twice, more than 20 captures, a length that does not match the count, a field
        that is not a zero-padded number. Often a legal move garbled."""
        rng = self.rng
        mv = rng.choice(legal)
        caps = sorted(mv.caps)
        out = rng.choice([0, 51, 52, 55, 60, 99])
        k = rng.randrange(8)
        if k == 0:
            msg = dxp_move_msg(out, mv.to, caps)
        elif k == 1:
            msg = dxp_move_msg(mv.frm, out, caps)
        elif k == 2:
            c = caps + [out]
            rng.shuffle(c)
            msg = dxp_move_msg(mv.frm, mv.to, c, sort=False)
        elif k == 3:
            c = caps + [caps[0] if caps else rng.randint(1, 50)] * (1 if caps else 2)
            rng.shuffle(c)
            msg = dxp_move_msg(mv.frm, mv.to, c, sort=False)
        elif k == 4:
            n = rng.randint(21, 99)
            msg = f"M0000{mv.frm:02d}{mv.to:02d}{n:02d}" + "".join(
                f"{s:02d}" for s in rng.sample(range(1, 51), min(n, 50)))
        elif k == 5:
            good = dxp_move_msg(mv.frm, mv.to, caps)
            msg = rng.choice([good + rng.choice(["0", "01", "x", " "]), good[:-1],
                              good[:9] + f"{len(caps) + 1:02d}" + good[11:]])
        elif k == 6:
            good = dxp_move_msg(mv.frm, mv.to, caps)
            i = rng.randrange(1, len(good))
            msg = good[:i] + rng.choice(" +-ax.") + good[i + 1:]
        else:
            msg = rng.choice(["M0000521800", "M000046160155", "M0000000000", "M9999505000"])
        if dxp_malformed(msg) is None:
            msg = "M0000521800"
        return msg

    def game(self):
        """Play one game; False when the connection is over."""
        rng = self.rng
        ours_white = rng.random() < 0.5  # the script's side
        tammi_colour = "Z" if ours_white else "W"
        start_fen = self.pool.games["normal"][0][0].fen
        if rng.random() < 0.25:
            g = rng.choice(self.pool.games["normal"])
            ply = rng.choice([p for p in g if p.legal] or [g[0]])
            start_fen = ply.fen
            side, sq = fen_squares(start_fen)
            squares = "".join({"w": "w", "W": "W", "b": "z", "B": "Z"}.get(sq.get(s, "e"), "e") for s in range(1, 51))
            req = f"R01{dxp_name('fuzz')}{tammi_colour}{rng.randint(0, 10):03d}{rng.randint(0, 50):03d}B{'W' if side == 'W' else 'Z'}{squares}"
            from_start = False
        else:
            req = f"R01{dxp_name('fuzz')}{tammi_colour}{rng.randint(0, 10):03d}{rng.randint(0, 50):03d}A"
            from_start = True
        self.conn.send(req)
        m = self.expect("a GAMEREQ", want="A")
        if not m.startswith("A") or not m.endswith("0"):
            self.fail("answer", f"the GAMEREQ {shown(req)} answered {shown(m)} (GAMEACC 0 expected)")
            return False
        self.fz.count("dxp games")
        hist = [(start_fen, self.legal_of(start_fen))]
        side_white = start_fen.startswith("W")
        ply0_white = side_white
        tammi_white = not ours_white
        max_plies = rng.randint(4, 80)
        # After a malformed message the game goes on: the next is a legal move, which
        # tammi must answer.
        force_legal = False
        while True:
            ply = len(hist) - 1
            white_to_move = ply0_white if ply % 2 == 0 else not ply0_white
            fen, legal = hist[-1]
            if not legal:
                # The side to move has no move: tammi sends GAMEEND.
                m = self.expect("a position with no legal move", want="E")
                return self.tammi_ended(m, "a position with no legal move")
            if white_to_move == tammi_white:
                ctx = f"tammi's turn in {fen}"
                if force_legal:
                    ctx += " (after a malformed message, which must not end the game)"
                m = self.expect(ctx, timeout=self.MOVE_TIME + 3.0, want="ME")
                force_legal = False
                if m.startswith("E"):
                    return self.tammi_ended(m, ctx)
                if not m.startswith("M"):
                    self.fail("answer", f"{shown(m)} where tammi's move was due in {fen}")
                    return False
                mv = self.parse_move(m)
                match = [x for x in legal if mv is not None and x.key() == mv]
                self.fz.count("dxp moves by tammi")
                if not match:
                    self.fail("illegal move", f"tammi plays {shown(m)} in {fen}; legal: "
                              f"{' '.join(x.hub for x in legal)}")
                    return False
                self.apply(hist, match[0])
                # A GAMEEND may follow at once when the move ends the game by a draw rule
                # (kings on the board) or leaves the script no move (seen at the loop's top).
                if "K" not in hist[-1][0] and len(hist) < 290:
                    continue
                nxt = self.conn.recv(0.3)
                if nxt is EOF:
                    self.check_alive("tammi's move")
                    self.fail("closed", "the connection closed after tammi's move")
                    return False
                if nxt is not None:
                    if nxt.startswith("E"):
                        return self.tammi_ended(nxt, "tammi's move")
                    self.fail("answer", f"{shown(nxt)} after tammi's move")
                continue
            # The script's turn.
            if ply >= max_plies and not force_legal:
                return self.we_end()
            k = 0.0 if force_legal else rng.random()
            if k < 0.70:
                mv = rng.choice(legal)
                text = dxp_move_msg(mv.frm, mv.to, rng.sample(sorted(mv.caps), len(mv.caps)), rng.randint(0, 30),
                                    sort=False)
                if rng.random() < 0.1:
                    # One message in two TCP segments.
                    cut = rng.randint(1, len(text))
                    self.conn.send(text[:cut], terminate=False)
                    time.sleep(0.01)
                    self.conn.send(text[cut:])
                    self.messages -= 1
                    self.fz.count("dxp messages", -1)
                else:
                    self.conn.send(text)
                self.fz.count("dxp moves by the script")
                self.apply(hist, mv)
            elif k < 0.77:
                if not self.malformed():
                    return False
                force_legal = True
            elif k < 0.80:
                if not self.send_chat("during a game"):
                    return False
            elif k < 0.84:
                msg = rng.choice(["K0", "K1", f"A{dxp_name('x')}0", f"R01{dxp_name('fuzz')}W000000A"])
                self.conn.send(msg)
                m = self.expect(f"{shown(msg)} out of place during a game")
                if not m.startswith("C"):
                    self.fail("answer", f"{shown(msg)} out of place during a game answered {shown(m)} "
                              f"(a CHAT expected)")
                    return False
            elif k < 0.89 and from_start and ply0_white:
                target = rng.randint(0, ply + 2)
                number = target // 2 + 1
                colour = "W" if target % 2 == 0 else "Z"
                self.conn.send(f"B{number:03d}{colour}")
                m = self.expect("a BACKREQ", want="K")
                if target <= ply:
                    if m != "K0":
                        self.fail("answer", f"BACKREQ to ply {target} of {ply} answered {shown(m)} (K0 expected)")
                        return False
                    del hist[target + 1 :]
                    self.fz.count("dxp takebacks")
                elif m != "K1":
                    self.fail("answer", f"BACKREQ past the game (ply {target} of {ply}) answered {shown(m)}")
            elif k < 0.93:
                # A malformed MOVE: a CHAT, and the game goes on (never "illegal").
                text = self.malformed_move(legal)
                self.conn.send(text)
                self.fz.count("dxp malformed moves")
                ctx = f"the malformed move {shown(text)} ({dxp_malformed(text)}) in {fen}"
                m = self.expect(ctx)
                if not m.startswith("C"):
                    self.fail("answer", f"{ctx} answered {shown(m)} (a CHAT expected)")
                    return False
                if "illegal move" in m:
                    self.fail("answer", f"{ctx} answered {shown(m)}: taken as an illegal move, "
                              f"though it is malformed (a CHAT, and the game goes on)")
                    return False
                force_legal = True
            elif k < 0.97:
                # An illegal, well-formed move: CHAT, GAMEEND (reason 0); the script confirms.
                text = self.illegal_move(legal)
                self.conn.send(text)
                self.fz.count("dxp illegal moves")
                ctx = f"the illegal move {shown(text)} in {fen}"
                m = self.expect(ctx)
                if not m.startswith("C") or "illegal move" not in m:
                    self.fail("answer", f"{ctx} answered {shown(m)} (a CHAT naming the illegal move expected)")
                m = m if m.startswith("E") else self.expect(f"{ctx} (the GAMEEND after the CHAT)", want="E")
                if not re.fullmatch(r"E0[01]", m):
                    self.fail("answer", f"{ctx} answered {shown(m)} (a GAMEEND with reason 0 expected)")
                    return False
                self.conn.send("E00")
                return True
            else:
                return self.we_end()

    def parse_move(self, m):
        try:
            t, (frm, to, caps) = dxp_decode(m)
        except (DxpMalformed, ValueError):
            return None
        return (frm, to, frozenset(caps)) if t == "M" else None

    def tammi_ended(self, m, ctx):
        if not re.fullmatch(r"E[0-3][01]", m):
            self.fail("answer", f"a malformed GAMEEND {shown(m)} after {ctx}")
        stop = self.rng.random() < 0.2
        self.conn.send(f"E0{1 if stop else 0}")
        return not stop

    def we_end(self):
        stop = self.rng.random() < 0.2
        self.conn.send(f"E{self.rng.randint(0, 3)}{1 if stop else 0}")
        m = self.expect("the script's GAMEEND", want="ME")
        while m.startswith("M"):
            # A move crossing our GAMEEND.
            m = self.expect("the script's GAMEEND", want="ME")
        if not m.startswith("E"):
            self.fail("answer", f"the script's GAMEEND answered {shown(m)}")
            return False
        if stop:
            m = self.conn.recv(self.ANSWER)
            if m is not EOF:
                self.fail("answer", f"after a GAMEEND with stop code 1, tammi kept the connection ({m!r})")
            return False
        return True

    # ----- deliberate checks

    def deliberate(self):
        """Liveness: a GAMEREQ in place of the GAMEEND confirmation, a second connection
        while one is served, and peers that say nothing (handshake and idle timeouts)."""
        for name, fn in [("unconfirmed gameend", self.check_unconfirmed_gameend),
                         ("busy", self.check_busy), ("timeouts", self.check_timeouts)]:
            self.fz.count("checks run")
            try:
                fn()
            except DxpDone:
                pass
            except OSError as e:
                self.fz.fail("dxp", "connect", f"the {name} check cannot connect: {e}")
            if self.conn:
                self.conn.close()
                self.conn = None

    def request(self, ctx, follower="Z"):
        """A GAMEREQ, which must be accepted."""
        self.conn.send(f"R01{dxp_name('fuzz')}{follower}000000A")
        m = self.expect(ctx, want="A")
        if not re.fullmatch(r"A.{32}0", m):
            self.fail("answer", f"{ctx}: answered {shown(m)} (GAMEACC 0 expected)")
            raise DxpDone()

    def check_unconfirmed_gameend(self):
        self.conn = self.connect()
        self.request("a GAMEREQ")
        self.conn.send(dxp_move_msg(1, 50, []))
        m = self.expect("an illegal move", want="E")
        if not m.startswith("E"):
            self.fail("answer", f"the illegal move M0000015000 answered {shown(m)} (a GAMEEND expected)")
            return
        # Instead of confirming the GAMEEND, a new request.
        self.conn.send(f"R01{dxp_name('fuzz')}Z000000A")
        m = self.expect("a GAMEREQ in place of the GAMEEND confirmation", timeout=3.0, want="A")
        if not re.fullmatch(r"A.{32}0", m):
            self.fail("unconfirmed gameend",
                      f"after tammi's GAMEEND for an illegal move, a new GAMEREQ (in place of the "
                      f"GAMEEND confirmation) was answered {shown(m)} (GAMEACC 0 expected)")

    def check_busy(self):
        """While one connection is served, a second gets the CHAT `busy` within the 2 s
        grace (+ 2 s) and is closed; the first is still served; a connection right after
        the first closes is served (the grace covers a client that reconnects at once)."""
        first = self.conn = self.connect()
        try:
            self.busy_cases(first)
        finally:
            first.close()

    def busy_cases(self, first):
        time.sleep(0.2)
        second = self.conn = self.connect()
        t0 = now()
        self.conn.send(f"R01{dxp_name('fuzz')}Z000000A")
        m = second.recv(4.0)
        if m is None or m is EOF or not m.startswith("C") or "busy" not in m:
            self.fail("busy connection",
                      f"a second connection (with a GAMEREQ) while one is served got "
                      f"{'nothing' if m is None else 'closed' if m is EOF else shown(m)} within 4 s "
                      f"(the CHAT `busy` expected after a 2 s grace)")
        else:
            took = now() - t0
            m = second.recv(3.0)
            if m is not EOF:
                self.fail("busy connection",
                          f"a second connection, told tammi is busy, was not closed "
                          f"({'still open 3 s later' if m is None else 'then sent ' + shown(m)})")
            self.fz.count("dxp busy refusals")
            if took < 1.5:
                self.fail("busy connection", f"a second connection was refused after {took:.1f} s, "
                          f"within the 2 s grace")
        second.close()
        self.conn = first
        self.request("a GAMEREQ on the first connection, after a second one was refused")
        first.close()
        self.conn = self.connect()
        self.request("a GAMEREQ on a connection made as soon as the previous one closed")
        self.conn.send("E01")
        m = self.expect("a GAMEEND with stop code 1", want="E")
        if not m.startswith("E") or self.conn.recv(self.ANSWER) is not EOF:
            self.fail("answer", f"a GAMEEND with stop code 1: answered {shown(m)}, then the "
                      f"connection was not closed")

    def check_timeouts(self):
        """A tammi dxp with short timeouts closes a peer that starts no game or goes
        silent, and then serves the next."""
        t = self.timeout
        port = self.free_port()
        proc = self.spawn(port, "--handshake-timeout", f"{t:g}", "--idle-timeout", f"{t:g}")
        try:
            self.timeout_cases(proc, port, t)
        finally:
            proc.kill()
            problem = proc.exit_problem(None)
            if problem:
                self.fail(problem[0], f"{problem[1]} (tammi dxp with short timeouts)", proc)

    def await_close(self, proc, t0, t, ctx, want_chat, want_end=False):
        """After `t0`, the CHAT `want_chat` (and a GAMEEND reason 0 stop 1) and the close,
        due after `t` s (not before t - 0.5) and within t + 3 s."""
        deadline = t0 + t + 3.0
        got = []
        while True:
            m = self.conn.recv(max(0.0, deadline - now()))
            if m is None:
                self.fail("silent peer", f"{ctx}: the connection was not closed within {t:g} + 3 s "
                          f"(--handshake-timeout/--idle-timeout {t:g}); got {[shown(x) for x in got]}", proc)
                return
            if m is EOF:
                break
            got.append(m)
        took = now() - t0
        chats = [x for x in got if x.startswith("C")]
        ends = [x for x in got if x.startswith("E")]
        problems = []
        if took < t - 0.5:
            problems.append(f"closed after {took:.1f} s, before the timeout")
        if not any(want_chat in x for x in chats):
            problems.append(f"no CHAT saying {want_chat!r}")
        if want_end and ends != ["E01"]:
            problems.append("no GAMEEND E01")
        if not want_end and ends:
            problems.append("a GAMEEND outside a game")
        if problems:
            self.fail("timeout", f"{ctx}: {'; '.join(problems)}; got {[shown(x) for x in got]}", proc)
        self.fz.count("dxp timeouts seen")

    def reconnect(self, port, proc):
        if self.conn:
            self.conn.close()
        self.conn = None
        self.conn = self.connect(port, proc)

    def timeout_cases(self, proc, port, t):
        # A silent peer.
        self.reconnect(port, proc)
        t0 = now()
        self.await_close(proc, t0, t, "a peer that connects and says nothing", "no game started")
        # A peer that chats, sends a malformed message and a refused request, then
        # trickles a message without ever ending it: none of it starts a game.
        self.reconnect(port, proc)
        t0 = now()
        self.conn.send("Chello")
        self.conn.send("M0000521800")
        self.expect_chat("the malformed message M0000521800 before a game")
        self.conn.send(f"R02{dxp_name('fuzz')}Z000000A")
        m = self.expect("a GAMEREQ of version 02", want="A")
        if not m.endswith("1"):
            self.fail("answer", f"a GAMEREQ of version 02 answered {shown(m)} (GAMEACC code 1 expected)", proc)
        while now() < t0 + t - 0.5:
            self.conn.sent.append(b"x")
            self.conn.sock.sendall(b"x")
            time.sleep(0.3)
        self.await_close(proc, t0, t, "a peer that chats and trickles bytes but starts no game",
                         "no game started")
        # A peer silent in a game, on its move (tammi White moves first).
        self.reconnect(port, proc)
        self.request("a GAMEREQ", follower="W")
        m = self.expect("tammi's first move", timeout=self.MOVE_TIME + 3.0, want="M")
        t0 = now()
        if not m.startswith("M"):
            self.fail("answer", f"{shown(m)} where tammi's first move was due", proc)
            return
        self.await_close(proc, t0, t, "a peer silent on its move", "nothing received", want_end=True)
        # A peer silent between games.
        self.reconnect(port, proc)
        self.request("a GAMEREQ")
        self.conn.send("E00")
        m = self.expect("a GAMEEND", want="E")
        t0 = now()
        if not m.startswith("E"):
            self.fail("answer", f"a GAMEEND answered {shown(m)}", proc)
            return
        self.await_close(proc, t0, t, "a peer silent between games", "nothing received")
        # The next connection is served.
        self.reconnect(port, proc)
        self.request("a GAMEREQ after the timeouts")
        self.conn.send("E01")
        m = self.expect("a GAMEEND with stop code 1", want="E")
        if not m.startswith("E"):
            self.fail("answer", f"a GAMEEND with stop code 1 answered {shown(m)}", proc)




# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--out", help="directory for the transcripts of failures (default: a new temporary one)")
    ap.add_argument("--hub-workers", type=int, default=2)
    ap.add_argument("--only", default=",".join(SURFACES),
                    help=f"the surfaces to run, comma-separated (default: all of {','.join(SURFACES)})")
    ap.add_argument("--dxp-timeout", type=float, default=3.0,
                    help="--handshake-timeout and --idle-timeout of the tammi dxp of the DXP timeout checks")
    ap.add_argument("--max-seconds", type=float, default=600.0,
                    help="abort (as a failure) after this long, whatever is running")
    a = ap.parse_args()
    only = {x.strip() for x in a.only.split(",") if x.strip()}
    if not only or only - set(SURFACES):
        print(f"fuzz: --only takes some of {','.join(SURFACES)}", file=sys.stderr)
        return 2
    binary = os.path.abspath(a.binary)
    if not os.access(binary, os.X_OK):
        print(f"fuzz: {a.binary} is not an executable", file=sys.stderr)
        return 2
    outdir = a.out or tempfile.mkdtemp(prefix="tammi-fuzz-")
    fz = Fuzz(binary, a.seed, a.scale, outdir)
    os.makedirs(os.path.join(fz.tmp, "empty-dir"), exist_ok=True)
    with open(os.path.join(fz.tmp, "garbage.bin"), "wb") as f:
        f.write(random.Random(a.seed).randbytes(3000))
    t_start = now()

    def watchdog():
        time.sleep(a.max_seconds)
        print(f"fuzz: ABORTED after {a.max_seconds:.0f} s (the fuzzer's own limit); counts so far:", flush=True)
        for k in sorted(fz.counts):
            print(f"  {k}: {fz.counts[k]}", flush=True)
        fz.kill_all()
        shutil.rmtree(fz.tmp, ignore_errors=True)
        os._exit(3)

    threading.Thread(target=watchdog, daemon=True).start()
    print(f"fuzz: {binary}, seed {a.seed}, scale {a.scale}"
          f"{'' if only == set(SURFACES) else ', only ' + ','.join(s for s in SURFACES if s in only)}", flush=True)

    def scaled(n, least=1):
        return max(least, int(round(n * a.scale)))

    timings = {}

    def timed(name, fn):
        t = now()
        try:
            fn()
        except Exception:
            import traceback

            fz.fail("script", "error", f"{name}: the fuzzer itself failed:\n{traceback.format_exc()}")
        timings[name] = now() - t
        print(f"fuzz: {name} done in {timings[name]:.1f} s", flush=True)

    pool = Pool(fz)
    # DXP alone needs only international games.
    pool_variants = ["normal"] if only <= {"dxp"} else HUB_NAMES
    timed("pool", lambda: pool.build(scaled(6, least=2), pool_variants))
    missing = [v for v in pool_variants if not pool.games[v]]
    if missing:
        print(f"fuzz: no games for {missing}: cannot go on", flush=True)
        report(fz, now() - t_start, timings)
        fz.kill_all()
        shutil.rmtree(fz.tmp, ignore_errors=True)
        return 1

    def run_hub():
        workers = [HubWorker(fz, pool, i, scaled(20500) // a.hub_workers + 1) for i in range(a.hub_workers)]
        threads = [threading.Thread(target=w.run) for w in workers]
        deliberate = threading.Thread(target=lambda: (check_go_without_level(fz), check_finished_game(fz)))
        for t in threads + [deliberate]:
            t.start()
        for t in threads + [deliberate]:
            t.join()
        seen = set().union(*(w.variants_seen for w in workers))
        if scaled(20500) >= 5000 and seen != set(HUB_NAMES):
            fz.fail("hub", "coverage", f"variants never played: {sorted(set(HUB_NAMES) - seen)}")

    def run_others():
        if "text" in only:
            timed("text mode", lambda: TextWorker(fz, pool, scaled(2200)).run())
        if "dxp" in only:
            timed("dxp", lambda: DxpWorker(fz, pool, scaled(600), a.dxp_timeout).run())

    t_hub = threading.Thread(target=lambda: timed("hub", run_hub))
    if "hub" in only:
        t_hub.start()
    run_others()
    if "fen" in only:
        timed("fen", lambda: FenWorker(fz, pool, scaled(2200)).run())
    if "pdn" in only:
        timed("pdn", lambda: PdnWorker(fz, pool, scaled(2100)).run())
    if "hub" in only:
        t_hub.join()
    pool.close()
    fz.kill_all()
    # The scratch files (transcripts of failures go to --out).
    shutil.rmtree(fz.tmp, ignore_errors=True)
    # The issue's minimum counts (times the scale).
    need = [
        ("hub", "hub lines", fz.counts["hub lines"] - fz.counts["hub lines: the pings after each step"], 20000),
        ("text", "text lines", fz.counts["text lines"], 2000),
        ("dxp", "dxp messages", fz.counts["dxp messages"], 500),
        ("fen", "fen lines", fz.counts["fen lines"], 2000),
        ("pdn", "pdn games", fz.counts["pdn games"], 2000),
    ]
    need = [x[1:] for x in need if x[0] in only]
    fz.requirements = []
    for name, got, want in need:
        want = int(want * a.scale)
        fz.requirements.append((name, got, want))
        if got < want:
            fz.fail("script", "too few", f"{name}: {got}, fewer than the {want} required at scale {a.scale}")
    return report(fz, now() - t_start, timings)


def report(fz, seconds, timings):
    c = fz.counts
    print()
    print(f"fuzz: counts (seed {fz.seed}, scale {fz.scale}, {seconds:.0f} s)")
    for k in sorted(c):
        print(f"  {k}: {c[k]}")
    print("fuzz: the issue's counts")
    for name, got, want in getattr(fz, "requirements", []):
        print(f"  {name}: {got} (at least {want}){'' if got >= want else '  TOO FEW'}")
    print(f"  crashes: {sum(1 for f in fz.failures if f['kind'] == 'crash')}, "
          f"panics: {sum(1 for f in fz.failures if f['kind'] == 'panic')}, "
          f"hangs: {sum(1 for f in fz.failures if f['kind'] in ('hang', 'limit', 'silent', 'silent peer', 'busy connection', 'go without level', 'unconfirmed gameend'))}, "
          f"illegal moves: {sum(1 for f in fz.failures if f['kind'] == 'illegal move')}")
    if not fz.failures:
        print("fuzz: OK")
        return 0
    os.makedirs(fz.outdir, exist_ok=True)
    with open(os.path.join(fz.outdir, "failures.json"), "w") as f:
        json.dump(fz.failures, f, indent=1)
    groups = collections.OrderedDict()
    for f in fz.failures:
        groups.setdefault((f["surface"], f["kind"]), []).append(f)
    print()
    print(f"fuzz: {len(fz.failures)} failures in {len(groups)} kinds (transcripts and every failure "
          f"in {fz.outdir}, failures.json)")
    for (surface, kind), fs in groups.items():
        print()
        print(f"== {surface}: {kind} ({len(fs)} times)")
        for f in fs[:3]:
            print(f"  - {f['detail']}")
            if f["cmd"]:
                print(f"    command: {f['cmd']}")
            if f["inputs"]:
                print("    input (last lines):")
                for l in f["inputs"]:
                    print(f"      {l}")
            if f["transcript"]:
                print(f"    all input sent: {f['transcript']}")
    print()
    print("fuzz: FAILED")
    return 1


if __name__ == "__main__":
    code = 1
    try:
        code = main()
    finally:
        sys.stdout.flush()
    os._exit(code)
