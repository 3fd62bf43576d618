"""Type stub of the native module ``morris._morris`` (PyO3). Use the
package ``morris``, which wraps it."""

from typing import List, Optional, Tuple

class DatabaseError(Exception):
    """A table is missing, damaged, or was solved under other rules; the
    message says which, and how to solve it."""

class Position:
    """A position of a variant, in the notation of ``morris query``.

    ``Position()`` is nine's start; ``Position("start", variant="six")``
    six's; ``Position("WWW..B../....B.B./........ w 0 0")`` a position of
    nine. :raises ValueError: with the reason, for text that is not a
    position of the variant."""

    def __init__(
        self,
        text: str = "start",
        variant: str = "nine",
        fly_at: Optional[str] = None,
        fly_count: Optional[str] = None,
    ) -> None: ...
    @property
    def variant(self) -> str:
        """The variant's name."""
    @property
    def to_move(self) -> str:
        """``"white"`` or ``"black"``."""
    def legal_moves(self) -> List[str]:
        """Every legal move in notation."""
    def play(self, mv: str) -> "Position":
        """The position after the move ``mv``; :raises ValueError: saying
        why, if it cannot be played."""
    def __str__(self) -> str: ...
    def __repr__(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Database:
    """The native database; ``morris.Database`` wraps it."""

    def __init__(
        self,
        path: str,
        variant: str = "nine",
        fly_at: Optional[str] = None,
        fly_count: Optional[str] = None,
    ) -> None: ...
    @property
    def variant(self) -> str: ...
    @property
    def path(self) -> str: ...
    def value(self, text: str) -> Tuple[str, Optional[int], bool]: ...
    def moves(self, text: str) -> List[Tuple[str, str, Optional[int], bool, str]]: ...
    def line(self, text: str, max_plies: int = 40) -> Tuple[List[str], bool]: ...
    def probe_codes(self, texts: List[str]) -> bytes: ...
    def stats(self) -> List[dict]: ...
