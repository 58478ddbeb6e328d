"""What a table remembers of its game: the moves as they are persisted (:class:`MoveLog`), and the recent events
as the log shows them (:class:`EventLog`: numbered, marked when the table decided for a person)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final, NamedTuple, TypeAlias, overload

from ..engine import events as ev
from ..narration import MADE_FOR

__all__ = ["LOG_SIZE", "EventLog", "LoggedMove", "MoveLog", "MoveRow", "log_facts", "made_for"]

LOG_SIZE: Final = 60
"""How many recent events a table's log window holds."""


class LoggedMove(NamedTuple):
    """An accepted move as it is persisted: the move, who caused it, the client's id, when.

    (A named tuple: one is made with every move, and a frozen dataclass is several times slower to make.)
    """

    move: str
    by: str
    """``player``, ``bot``, ``table``, ``record`` (a resumed record's), or the table deciding for a person:
    ``timeout`` (their time ran out) or ``autopilot`` (a bot plays their seat)."""
    client_id: str | None
    at: float
    version: int | None = None
    """The table's version right after the move (``None`` in records saved before it was kept)."""


MoveRow: TypeAlias = tuple[str, str, str | None, float, int | None]
"""A :class:`LoggedMove`'s fields as a plain tuple, as :class:`MoveLog` keeps them."""


class MoveLog:
    """The current game's moves as they are persisted: a sequence of :class:`LoggedMove`.

    A game keeps every move until it ends, and a busy server makes thousands of moves a second:
    each is kept as a plain tuple of strings and numbers, which the garbage collector stops
    tracking at its first look (a named tuple it would scan again at every collection of its
    generation). Reading one gives a :class:`LoggedMove`; :meth:`rows` gives the plain tuples.

    >>> log = MoveLog()
    >>> log.append("0:R7", "player", "a-1", 5.0, 3)
    >>> len(log), log[-1].move, log[0] == LoggedMove("0:R7", "player", "a-1", 5.0, 3)
    (1, '0:R7', True)
    """

    __slots__ = ("_rows",)

    def __init__(self, moves: Iterable[Sequence[Any]] = ()) -> None:
        self._rows: list[MoveRow] = [(move[0], move[1], move[2], move[3], move[4]) for move in moves]

    def append(self, move: str, by: str, client_id: str | None, at: float, version: int | None) -> None:
        self._rows.append((move, by, client_id, at, version))

    def rows(self, start: int = 0) -> list[MoveRow]:
        """The moves from ``start`` on, as plain tuples (``LoggedMove``'s fields in its order)."""
        return self._rows[start:]

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> LoggedMove: ...
    @overload
    def __getitem__(self, index: slice) -> list[LoggedMove]: ...
    def __getitem__(self, index: int | slice) -> LoggedMove | list[LoggedMove]:
        if isinstance(index, slice):
            return [LoggedMove(*row) for row in self._rows[index]]
        return LoggedMove(*self._rows[index])

    def __iter__(self) -> Iterator[LoggedMove]:
        return (LoggedMove(*row) for row in self._rows)
class EventLog:
    """The recent events, oldest first, numbered consecutively across games (the newest is :attr:`last`), with
    the seats that called UNO since they last drew (kept from the events: a restore replays them).

    Numbers, not pairs of a number and an event: the log lives as long as the game, and every object in it is
    one more for the garbage collector to scan.
    """

    __slots__ = ("base", "by", "events", "number", "uno_called")

    def __init__(self) -> None:
        self.events: deque[ev.Event] = deque(maxlen=LOG_SIZE)
        self.by: deque[str | None] = deque(maxlen=LOG_SIZE)
        """For each event, why the table made it for a person (``timeout``, ``autopilot``: a move's ``by``), or
        ``None`` (the person, a bot or the rules did it)."""
        self.number = 0
        """The number of the newest event ever logged."""
        self.base = 0
        """The number of the last event before the current game's first."""
        self.uno_called: set[int] = set()

    def new_game(self) -> None:
        """A new game's log starts empty (its numbers go on from the last game's)."""
        self.uno_called.clear()
        self.events.clear()
        self.by.clear()
        self.base = self.number

    def restart_at(self, number: int) -> None:
        """A restored game's log, empty, its first event numbered after ``number`` (the row's ``log_base``)."""
        self.number = self.base = number

    def record(self, happened: list[ev.Event], seat: int | None = None, by: str | None = None) -> None:
        """Log a move's events; when the table made the move for the person in ``seat`` (``by``: ``timeout``,
        ``autopilot``), the event that records their decision is marked so."""
        marked = made_for(happened, seat, by)
        called = self.uno_called
        events, marks = self.events, self.by
        for index, event in enumerate(happened):
            self.number += 1
            events.append(event)
            marks.append(by if index == marked else None)
            if isinstance(event, ev.UnoCalled):
                called.add(event.seat)
            elif isinstance(event, (ev.Drew, ev.Caught)):
                called.discard(event.seat)
            elif isinstance(event, ev.RoundStarted):
                called.clear()

    @property
    def first(self) -> int:
        """The number of the oldest entry in the log window (0 when it is empty)."""
        return self.number - len(self.events) + 1 if self.events else 0

    @property
    def last(self) -> int:
        """The number of the newest entry in the log window (0 when it is empty)."""
        return self.number if self.events else 0

    def skip(self, log_after: int) -> int:
        """How many entries of the log window are numbered ``log_after`` or below."""
        events = self.events
        # Entries are numbered consecutively: skip the ones already sent without looking at them.
        return min(len(events), max(0, log_after - (self.number - len(events)))) if events else 0

    def private_seats(self, log_after: int = 0) -> set[int]:
        """The seats that see some entry numbered above ``log_after`` otherwise than a spectator does (their own
        draw, with its cards)."""
        private_to = ev.private_to
        seats = set()
        events = self.events
        for index in range(self.skip(log_after), len(events)):
            seat = private_to(events[index])
            if seat is not None:
                seats.add(seat)
        return seats


def made_for(happened: list[ev.Event], seat: int | None, by: str | None) -> int:
    """The index of the event that records the decision the table made for the person in ``seat`` (a move
    ``by`` ``timeout`` or ``autopilot``), or -1."""
    if by is not None and by in MADE_FOR:
        for index, event in enumerate(happened):
            if ev.decided_by(event) == seat:
                return index
    return -1


_LOG_SEATS: Final[dict[type, tuple[str, str | None]]] = {
    ev.Played: ("seat", None), ev.Drew: ("seat", None), ev.Kept: ("seat", None), ev.Passed: ("seat", None),
    ev.Skipped: ("seat", None), ev.UnoCalled: ("seat", None), ev.Caught: ("seat", "catcher"),
    ev.ColourChosen: ("king", None), ev.VictimChosen: ("victim", "king"), ev.JesterChosen: ("jester", "king"),
    ev.CrownPassed: ("new_king", "old_king"), ev.RoundEnded: ("winner", None),
}
"""For each kind of event, the field naming the seat it happens to (the log entry's ``seat``) and the one naming
the seat it comes from (``from``), so that a client can animate it without reading the sentence."""


def _log_seats(event: ev.Event) -> dict[str, int]:
    """A log entry's ``seat`` and ``from`` (and a draw's ``count``) for ``event``."""
    fields = _LOG_SEATS.get(type(event))
    if fields is None:
        return {}
    subject, source = fields
    seats = {"seat": getattr(event, subject)}
    if source is not None:
        seats["from"] = getattr(event, source)
    if isinstance(event, ev.Drew):
        seats["count"] = event.count
    return seats


def log_facts(event: ev.Event) -> dict[str, Any]:
    """A log entry's public facts besides its sentence: its seats (:func:`_log_seats`) and a played card."""
    facts: dict[str, Any] = _log_seats(event)
    if isinstance(event, ev.Played):
        facts["card"] = str(event.card)
    return facts

