"""Values of Nine Men's Morris positions (and its relatives) from a solved
``morris`` database.

>>> import morris
>>> db = morris.Database("data/db", variant="six")      # doctest: +SKIP
>>> db.value("start")                                   # doctest: +SKIP
Value(value='draw', plies=None, exact=True)

Positions are given in the notation of ``morris query`` (``"start"``, or
``"BOARD SIDE WH BH"``) or as :class:`Position` objects. Errors carry the
message the ``morris`` command prints: :class:`ValueError` for a position
or move that cannot be read or played, :class:`DatabaseError` for a table
that is missing, damaged or solved under other rules.
"""

from __future__ import annotations

import array
import os
from typing import List, NamedTuple, Optional, Sequence, Union

from ._morris import Database as _Database
from ._morris import DatabaseError, Position

__all__ = [
    "Database",
    "DatabaseError",
    "Line",
    "Move",
    "Position",
    "Value",
    "UNKNOWN_PLIES",
    "decode",
]

#: The magnitude of a :meth:`Database.probe_many` code for a win or loss
#: that the placement search proved without its distance.
UNKNOWN_PLIES = 65536


class Value(NamedTuple):
    """A position's value for the side to move."""

    value: str
    """``"win"``, ``"loss"`` or ``"draw"``."""
    plies: Optional[int]
    """Plies to the end under perfect play; ``None`` for a draw, or when
    the placement search proved the value without a distance."""
    exact: bool
    """Whether the distance is known (``False``: proved by the search)."""


class Move(NamedTuple):
    """A legal move and what it leads to for the side that makes it."""

    move: str
    """The move in notation, e.g. ``"d6"``, ``"a1-a4"``, ``"b6-g7xa1"``."""
    value: str
    """``"win"``, ``"loss"`` or ``"draw"`` for the side that moves."""
    plies: Optional[int]
    """Plies to the end after the move, as in :class:`Value`."""
    exact: bool
    """Whether the distance is known."""
    position: str
    """The position after the move, in notation."""


class Line(NamedTuple):
    """A perfect-play line."""

    moves: List[str]
    """The moves, in notation."""
    cut: bool
    """Whether the line stops before the end of the game."""


PositionLike = Union[str, Position]


def decode(code: int) -> Value:
    """The :class:`Value` of a :meth:`Database.probe_many` code: ``0`` a
    draw, ``plies + 1`` a win, ``-(plies + 1)`` a loss, ``±UNKNOWN_PLIES``
    a win or loss without its distance."""
    code = int(code)
    if code == 0:
        return Value("draw", None, True)
    kind = "win" if code > 0 else "loss"
    if abs(code) == UNKNOWN_PLIES:
        return Value(kind, None, False)
    return Value(kind, abs(code) - 1, True)


class Database:
    """The tables of one variant in a directory that ``morris solve``
    wrote. Tables are opened on first use and shared by every call.

    :param path: the database directory.
    :param variant: ``"nine"``, ``"twelve"``, ``"eleven"``, ``"six"``,
        ``"five"``, ``"lasker"`` or ``"morabaraba"``.
    :param fly_at: the flying rule of ``--fly-at``: a number of stones, or
        ``"never"``; ``None`` for the variant's own rule.
    :param fly_count: which stones count towards ``fly_at`` in lasker, as
        ``--fly-count``: ``"all"`` (board and hand, the published game and
        lasker's default) or ``"board"``; ``None`` for the variant's own
        rule. Other variants refuse it.
    :raises DatabaseError: if ``path`` is not a directory.
    :raises ValueError: for an unknown variant or flying rule.
    """

    def __init__(
        self,
        path: Union[str, "os.PathLike[str]"],
        variant: str = "nine",
        fly_at: Union[int, str, None] = None,
        fly_count: Optional[str] = None,
    ) -> None:
        self._db = _Database(
            os.fspath(path),
            variant,
            None if fly_at is None else str(fly_at),
            fly_count,
        )

    @property
    def variant(self) -> str:
        """The variant's name."""
        return self._db.variant

    @property
    def path(self) -> str:
        """The database directory."""
        return str(self._db.path)

    def __repr__(self) -> str:
        return f"Database({self.path!r}, variant={self.variant!r})"

    def _text(self, position: PositionLike) -> str:
        if isinstance(position, Position):
            if position.variant != self.variant:
                raise ValueError(
                    f"position {position} is of {position.variant}, "
                    f"the database of {self.variant}"
                )
            return str(position)
        if not isinstance(position, str):
            raise TypeError(
                f"a position is a str or a morris.Position, not {type(position).__name__}"
            )
        return position

    def value(self, position: PositionLike) -> Value:
        """The value of ``position`` for the side to move, from its table
        (or, for a placement position without one, by the placement
        search, which gives no distance)."""
        return Value(*self._db.value(self._text(position)))

    def moves(self, position: PositionLike) -> List[Move]:
        """Every legal move with the value it leads to, best first: the
        fastest win, then draws, then the slowest loss."""
        return [Move(*m) for m in self._db.moves(self._text(position))]

    def line(self, position: PositionLike, max_plies: int = 40) -> Line:
        """A perfect-play line of at most ``max_plies`` moves: the winner
        takes the fastest win, the loser the slowest loss."""
        moves, cut = self._db.line(self._text(position), max_plies)
        return Line(moves, cut)

    def probe_many(self, positions: Sequence[PositionLike]):
        """The values of many positions, as codes (see :func:`decode`):
        a NumPy ``int32`` array when NumPy is installed, else a list of
        ints. The positions are parsed and looked up in parallel with the
        GIL released, each table block decompressed once.

        :raises ValueError: naming the index of the first position that
            cannot be read.
        :raises DatabaseError: naming the index of the first position
            whose table is missing or damaged.
        """
        texts = [self._text(p) for p in positions]
        raw = self._db.probe_codes(texts)
        try:
            import numpy
        except ImportError:
            codes = array.array("i")
            codes.frombytes(raw)
            return codes.tolist()
        return numpy.frombuffer(raw, dtype=numpy.int32).copy()

    def stats(self) -> List[dict]:
        """One dictionary per table in the directory: ``sector``,
        ``states``, ``wins``, ``losses``, ``draws``, ``max_win`` and
        ``max_loss`` (the longest win and loss, in plies)."""
        return self._db.stats()
