"""Board geometry, positions, FENs and adapters for the oracle libraries.

Everything inside this harness uses tammi's numeric squares (see README.md):

* 8x8 / 10x10 diagonal boards: square 1 is the top-left dark square seen from
  White (b8 / b10), numbered row by row left to right towards White (bottom).
* turkish: all 64 squares, 1 = a1, 2 = b1, ..., 8 = h1, 9 = a2, ..., 64 = h8.

A move is keyed as (from, to, frozenset(captured)); a route is the tuple of every
landing square, origin first.

Each oracle adapter converts its library's own numbering to tammi's numbering:

* pydraughts english / international ("standard") / italian: same numbering as tammi.
* pydraughts russian / brazilian: numeric 1 = a1, 2 = c1, ..., 5 = b2 (row by row
  from White's side); FENs letter-number.
* pydraughts turkish: 1 = a1 ... 64 = h8 (= tammi); FENs letter-number.
* dame-rs: international 1..50, same numbering as tammi.
* clatsop: 32-bit masks, bit n-1 = tammi square n (row 0 = squares 1-4 = Black's
  back row; Black = the side on 1-12, which moves first).
* kish: Square enum 0 = A1 ... 63 = H8, so tammi square = int(Square) + 1.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Iterable, NamedTuple


# ---------------------------------------------------------------------------
# Geometry


class Geometry:
    """Square numbering of one board: tammi numeric <-> (file, rank) <-> 'c3'."""

    def __init__(self, size: int, full: bool = False):
        self.size = size
        self.full = full
        self.count = size * size if full else size * size // 2
        self._fr = {}
        for n in range(1, self.count + 1):
            self._fr[n] = self._num_to_fr(n)
        self._num = {fr: n for n, fr in self._fr.items()}
        assert len(self._num) == self.count

    def _num_to_fr(self, n: int) -> tuple[int, int]:
        """(file, rank), both 0-based; file 0 = a, rank 0 = rank 1 (White's side)."""
        if self.full:
            return (n - 1) % self.size, (n - 1) // self.size
        half = self.size // 2
        row_from_top, k = divmod(n - 1, half)
        rank = self.size - 1 - row_from_top  # 0-based
        # a1 (file 0, rank 0) is dark: dark squares have (file + rank) even (0-based).
        file = 2 * k + (rank % 2)
        return file, rank

    def fr(self, n: int) -> tuple[int, int]:
        return self._fr[n]

    def num(self, file: int, rank: int) -> int:
        return self._num[(file, rank)]

    def has(self, file: int, rank: int) -> bool:
        return (file, rank) in self._num

    def letter(self, n: int) -> str:
        f, r = self._fr[n]
        return f"{string.ascii_lowercase[f]}{r + 1}"

    def from_letter(self, s: str) -> int:
        m = re.fullmatch(r"([a-z])(\d+)", s.strip().lower())
        if not m:
            raise ValueError(f"bad square {s!r}")
        return self.num(string.ascii_lowercase.index(m.group(1)), int(m.group(2)) - 1)

    def parse_square(self, token) -> int:
        """A square given as an int, a numeric string or a letter-number string."""
        if isinstance(token, bool):
            raise ValueError(f"bad square {token!r}")
        if isinstance(token, int):
            if token not in self._fr:
                raise ValueError(f"square {token} out of range")
            return token
        s = str(token).strip()
        if s.isdigit():
            return self.parse_square(int(s))
        return self.from_letter(s)

    def is_last_rank(self, n: int, white: bool) -> bool:
        _, r = self._fr[n]
        return r == (self.size - 1 if white else 0)


GEOMETRY = {
    "english": Geometry(8),
    "russian": Geometry(8),
    "brazilian": Geometry(8),
    "international": Geometry(10),
    "turkish": Geometry(8, full=True),
    # italian's board is turned (a1 light, FID art. 2.3) but numbered row by row from the
    # top left as the plain one; the harness only uses numbers and ranks for it.
    "italian": Geometry(8),
    # International's board and numbering.
    "frisian": Geometry(10),
    "frysk": Geometry(10),
    "losing": Geometry(10),
    "breakthrough": Geometry(10),
}


# ---------------------------------------------------------------------------
# Positions and FENs


class Position(NamedTuple):
    turn: str  # 'W' or 'B'
    white_men: frozenset
    white_kings: frozenset
    black_men: frozenset
    black_kings: frozenset

    @property
    def white(self) -> frozenset:
        return self.white_men | self.white_kings

    @property
    def black(self) -> frozenset:
        return self.black_men | self.black_kings

    @property
    def kings(self) -> frozenset:
        return self.white_kings | self.black_kings

    def is_king(self, sq: int) -> bool:
        return sq in self.white_kings or sq in self.black_kings

    def colour_of(self, sq: int):
        if sq in self.white:
            return "W"
        if sq in self.black:
            return "B"
        return None


def make_position(turn: str, white: Iterable[tuple[int, bool]], black: Iterable[tuple[int, bool]]) -> Position:
    """From (square, is_king) pairs."""
    white = list(white)
    black = list(black)
    return Position(
        turn,
        frozenset(s for s, k in white if not k),
        frozenset(s for s, k in white if k),
        frozenset(s for s, k in black if not k),
        frozenset(s for s, k in black if k),
    )


def to_fen(pos: Position, geo: Geometry, notation: str = "numeric") -> str:
    """tammi / PDN FEN, e.g. 'W:W31,K32:B1,2' (squares ascending, kings prefixed K)."""

    def name(n: int) -> str:
        return str(n) if notation == "numeric" else geo.letter(n)

    def group(men, kings) -> str:
        items = sorted([(n, False) for n in men] + [(n, True) for n in kings])
        return ",".join(("K" if k else "") + name(n) for n, k in items)

    return f"{pos.turn}:W{group(pos.white_men, pos.white_kings)}:B{group(pos.black_men, pos.black_kings)}"


def parse_fen(fen: str, geo: Geometry, square_map=None) -> Position:
    """Parse a PDN FEN ('W:W31-33,K40:BK1,2'), numeric or letter-number squares,
    either colour group first, ranges allowed.  square_map, if given, maps a raw
    numeric square of the library's own numbering to a tammi square."""
    fen = fen.strip()
    if fen.endswith("."):
        fen = fen[:-1]
    parts = [p.strip() for p in fen.split(":")]
    if not parts or parts[0].upper() not in ("W", "B"):
        raise ValueError(f"bad FEN side to move in {fen!r}")
    turn = parts[0].upper()
    groups = {"W": [], "B": []}
    for part in parts[1:]:
        if not part:
            continue
        colour = part[0].upper()
        if colour not in groups:
            raise ValueError(f"bad FEN group {part!r}")
        body = part[1:]
        for tok in filter(None, (t.strip() for t in body.split(","))):
            king = tok[0] in "Kk"
            if king:
                tok = tok[1:]
            m = re.fullmatch(r"(\d+)-(\d+)", tok)
            if m:
                squares = range(int(m.group(1)), int(m.group(2)) + 1)
                raw = list(squares)
            else:
                raw = [tok]
            for r in raw:
                if square_map is not None and (isinstance(r, int) or str(r).isdigit()):
                    sq = square_map(int(r))
                else:
                    sq = geo.parse_square(r)
                groups[colour].append((sq, king))
    return make_position(turn, groups["W"], groups["B"])


# ---------------------------------------------------------------------------
# Oracle moves


@dataclass(frozen=True)
class OMove:
    frm: int
    to: int
    captured: tuple  # tammi squares, capture order if known
    route: tuple | None  # every landing square, origin first; None if unknown
    raw: object = None

    @property
    def key(self):
        return (self.frm, self.to, frozenset(self.captured))


class Oracle:
    name = "?"
    variants: tuple = ()
    # True if the library lists every route of an equal capture (so tammi's one
    # route must be among them); kish lists one route per capture sequence.
    all_routes = False

    def __init__(self, variant: str):
        if variant not in self.variants:
            raise ValueError(f"{self.name} does not play {variant}")
        self.variant = variant
        self.geo = GEOMETRY[variant]

    # a "state" is whatever the library uses for a position
    def start(self):
        raise NotImplementedError

    def from_position(self, pos: Position):
        raise NotImplementedError

    def position(self, state) -> Position:
        raise NotImplementedError

    def moves(self, state) -> list[OMove]:
        raise NotImplementedError

    def play(self, state, move: OMove):
        """Returns the state after move (may mutate and return the given state)."""
        raise NotImplementedError

    def sample_moves(self, state, moves: list[OMove]) -> list[OMove]:
        """The moves to compare with tammi's for the FEN of `state` (`moves` are the
        state's own): the same unless the library's answer depends on the game's history."""
        return moves

    @staticmethod
    def version() -> str:
        return "?"


def _dist_version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


# ----- pydraughts -----------------------------------------------------------


class PydraughtsOracle(Oracle):
    name = "pydraughts"
    all_routes = True
    # pydraughts 0.6.7 also accepts "pool", "czech", "spanish" and "thai" but plays
    # international for them (any unknown name gives the 10x10 standard board), so it is
    # no oracle for those.
    variants = (
        "english",
        "international",
        "russian",
        "brazilian",
        "turkish",
        "italian",
        "frisian",
        "frysk",
        "losing",
        "breakthrough",
    )
    _lib_variant = {
        "italian": "italian",
        "english": "english",
        "international": "standard",
        "russian": "russian",
        "brazilian": "brazilian",
        "turkish": "turkish",
        "frisian": "frisian",
        "frysk": "frysk!",
        "losing": "antidraughts",
        "breakthrough": "breakthrough",
    }

    def __init__(self, variant: str):
        super().__init__(variant)
        import draughts  # noqa: F401

        self._draughts = draughts
        self.lib_variant = self._lib_variant[variant]
        # pydraughts numeric square -> tammi square
        if variant not in ("russian", "brazilian"):
            self._from_lib = lambda n: n
            self._to_lib = lambda n: n
            self.fen_letters = variant == "turkish"
        else:  # russian, brazilian: 1 = a1, 2 = c1, 3 = e1, 4 = g1, 5 = b2, ... row by row from White
            table = {}
            for n in range(1, 33):
                row, k = divmod(n - 1, 4)  # row 0 = rank 1
                file = 2 * k + (row % 2)
                table[n] = self.geo.num(file, row)
            self._from_lib = table.__getitem__
            inverse = {v: k for k, v in table.items()}
            self._to_lib = inverse.__getitem__
            self.fen_letters = True

    @staticmethod
    def version() -> str:
        return _dist_version("pydraughts")

    def start(self):
        return self._draughts.Board(variant=self.lib_variant)

    def lib_fen(self, pos: Position) -> str:
        return to_fen(pos, self.geo, "letter" if self.fen_letters else "numeric")

    def from_position(self, pos: Position):
        return self._draughts.Board(variant=self.lib_variant, fen=self.lib_fen(pos))

    def position(self, state) -> Position:
        # pydraughts' own FEN: numeric in its numbering, or letter-number.
        return parse_fen(state.fen, self.geo, square_map=self._from_lib)

    def moves(self, state) -> list[OMove]:
        out = []
        f = self._from_lib
        for m in state.legal_moves():
            steps = tuple(f(int(s)) for s in m.steps_move)
            caps = tuple(f(int(c)) for c in (m.captures or []) if c is not None)
            out.append(OMove(steps[0], steps[-1], caps, steps, m))
        return out

    def play(self, state, move: OMove):
        state.push(move.raw)
        return state

    def sample_moves(self, state, moves: list[OMove]) -> list[OMove]:
        # Frisian's king-move limit (three quiet moves in a row by one king) depends on the
        # game's history, which a FEN does not carry: compare the moves of the FEN alone.
        if self.variant in ("frisian", "frysk"):
            return self.moves(self.from_position(self.position(state)))
        return moves


# ----- dame-rs --------------------------------------------------------------


class DameOracle(Oracle):
    name = "dame"
    variants = ("international",)

    def __init__(self, variant: str):
        super().__init__(variant)
        import dame

        self._dame = dame

    @staticmethod
    def version() -> str:
        return _dist_version("dame-rs")

    def start(self):
        return self._dame.Board()

    def from_position(self, pos: Position):
        return self._dame.Board(to_fen(pos, self.geo, "numeric"))

    def position(self, state) -> Position:
        return parse_fen(state.fen(), self.geo)

    def moves(self, state) -> list[OMove]:
        return [OMove(m.from_square, m.to_square, tuple(m.captured), None, m) for m in state.legal_moves]

    def play(self, state, move: OMove):
        state.push(move.raw)
        return state

    def sample_moves(self, state, moves: list[OMove]) -> list[OMove]:
        # Frisian's king-move limit (three quiet moves in a row by one king) depends on the
        # game's history, which a FEN does not carry: compare the moves of the FEN alone.
        if self.variant in ("frisian", "frysk"):
            return self.moves(self.from_position(self.position(state)))
        return moves


# ----- clatsop --------------------------------------------------------------


class ClatsopOracle(Oracle):
    name = "clatsop"
    all_routes = True
    variants = ("english",)

    def __init__(self, variant: str):
        super().__init__(variant)
        import clatsop

        self._c = clatsop
        self._rules = clatsop.Ruleset.american()

    @staticmethod
    def version() -> str:
        return _dist_version("clatsop")

    @staticmethod
    def _mask(squares) -> int:
        m = 0
        for s in squares:
            m |= 1 << (s - 1)
        return m

    @staticmethod
    def _squares(mask: int):
        return [i + 1 for i in range(32) if mask >> i & 1]

    def start(self):
        return self._c.Turn.initial()

    def from_position(self, pos: Position):
        return self._c.Turn.from_masks(
            self._mask(pos.black), self._mask(pos.white), self._mask(pos.kings), 1 if pos.turn == "B" else 0
        )

    def position(self, state) -> Position:
        black, white, kings, btm = state.as_tuple()
        return make_position(
            "B" if btm else "W",
            [(s, bool(kings >> (s - 1) & 1)) for s in self._squares(white)],
            [(s, bool(kings >> (s - 1) & 1)) for s in self._squares(black)],
        )

    def moves(self, state) -> list[OMove]:
        out = []
        btm = state.black_to_move
        for t in self._rules.legal_transitions(state):
            rules = [self._rules[i] for i in t.rule_indices]
            first = rules[0]
            mover = first.is_black if btm else first.is_white
            route = [mover.bit_length()]
            caps = []
            for r in rules:
                route.append(r.is_empty.bit_length())
                opp = r.is_white if btm else r.is_black
                if opp:
                    caps.append(opp.bit_length())
            out.append(OMove(route[0], route[-1], tuple(caps), tuple(route), t))
        return out

    def play(self, state, move: OMove):
        return move.raw.turn


# ----- kish -----------------------------------------------------------------


class KishOracle(Oracle):
    name = "kish"
    variants = ("turkish",)

    def __init__(self, variant: str):
        super().__init__(variant)
        import kish

        self._k = kish

    @staticmethod
    def version() -> str:
        return _dist_version("kish")

    def start(self):
        return self._k.Board()

    def _square(self, n: int):
        """tammi square n (1 = a1) -> kish.Square (not constructible from an int)."""
        return self._k.Square.from_row_col((n - 1) // 8, (n - 1) % 8)

    def from_position(self, pos: Position):
        sq = self._square
        team = self._k.Team.White if pos.turn == "W" else self._k.Team.Black
        return self._k.Board.from_squares(
            team,
            [sq(s) for s in sorted(pos.white)],
            [sq(s) for s in sorted(pos.black)],
            [sq(s) for s in sorted(pos.kings)],
        )

    def position(self, state) -> Position:
        kings = {int(s) + 1 for s in state.kings()}
        return make_position(
            "W" if state.turn == self._k.Team.White else "B",
            [(int(s) + 1, int(s) + 1 in kings) for s in state.white_pieces()],
            [(int(s) + 1, int(s) + 1 in kings) for s in state.black_pieces()],
        )

    def moves(self, state) -> list[OMove]:
        out = []
        for a in state.actions():
            route = tuple(int(s) + 1 for s in a.path())
            caps = tuple(int(s) + 1 for s in a.captured_pieces())
            out.append(OMove(int(a.source()) + 1, int(a.destination()) + 1, caps, route, a))
        return out

    def play(self, state, move: OMove):
        return state.apply(move.raw)


ORACLE_CLASSES = {c.name: c for c in (PydraughtsOracle, DameOracle, ClatsopOracle, KishOracle)}

# The (variant, oracle) pairs that check.py tests tammi against, in order.
# (pydraughts also plays turkish, but lets turkish kings jump over pieces in quiet
# moves, so it is not used as a turkish oracle.)
DEFAULT_PAIRS = [
    ("english", "pydraughts"),
    ("english", "clatsop"),
    ("international", "pydraughts"),
    ("international", "dame"),
    ("russian", "pydraughts"),
    ("brazilian", "pydraughts"),
    ("turkish", "kish"),
    ("italian", "pydraughts"),
    ("frisian", "pydraughts"),
    ("frysk", "pydraughts"),
    ("losing", "pydraughts"),
    ("breakthrough", "pydraughts"),
]

# Notation used for tammi's FENs and answers per variant.
TAMMI_NOTATION = {
    "english": "numeric",
    "international": "numeric",
    "russian": "letter",
    "brazilian": "letter",
    "turkish": "numeric",
    "italian": "numeric",
    "frisian": "numeric",
    "frysk": "numeric",
    "losing": "numeric",
    "breakthrough": "numeric",
}
