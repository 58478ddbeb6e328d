"""What happened: the events that :meth:`GameState.apply` returns, for logs and screens.

Only :class:`Drew` carries hidden information (the cards drawn); :func:`redact` removes it
for everyone but the drawer, so that events can be sent to any player.

A state also keeps the round's **public history** (``GameState.history``, shown in every
:class:`~royal_revenge.engine.Observation` as events): the events of :data:`RECORDED`, in
order, draws without their cards. It is what everyone at the table has seen, for bots that
infer hidden hands from it (a player who chose to draw on a red top card probably held no red
card). The state keeps each event as a :data:`HistoryEntry`, a tuple of its name and its fields
(cheap enough to record at every step of a simulation); :func:`from_entry` makes the event.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final, TypeAlias, TypeGuard

from .cards import Card, Colour

__all__ = [
    "decided_by",
    "hides",
    "private_to",
    "DealerDrawn",
    "RoundStarted",
    "Played",
    "Drew",
    "Passed",
    "Kept",
    "ColourChosen",
    "VictimChosen",
    "JesterChosen",
    "DirectionChanged",
    "Skipped",
    "UnoCalled",
    "Caught",
    "Reshuffled",
    "FanfareSounded",
    "CrownPassed",
    "TurnStarted",
    "RoundEnded",
    "GameEnded",
    "Event",
    "RECORDED",
    "HistoryEntry",
    "from_entry",
    "to_entry",
    "redact",
]


@dataclass(frozen=True, slots=True)
class DealerDrawn:
    """The dealer draw of R-SETUP-2: one list of (seat, card) per drawing, ties drawing again."""

    draws: tuple[tuple[tuple[int, Card], ...], ...]
    dealer: int


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round_no: int
    dealer: int
    king: int
    start_card: Card


@dataclass(frozen=True, slots=True)
class Played:
    seat: int
    card: Card
    uno: bool


@dataclass(frozen=True, slots=True)
class Drew:
    """``seat`` drew ``count`` cards; ``cards`` is ``None`` once redacted for someone else.

    ``reason`` is ``"turn"``, ``"plus"`` (a +1 card) or ``"penalty"`` (caught without UNO).
    ``top`` and ``colour`` are the discard pile's top card and the active colour when the draw
    was made (what a player who chose to draw did not, or would not, match: R-TURN-2);
    the engine always gives them.
    """

    seat: int
    count: int
    reason: str
    cards: tuple[Card, ...] | None
    top: Card | None = None
    colour: Colour | None = None


@dataclass(frozen=True, slots=True)
class Passed:
    """``seat`` had to draw but no card was left (R-TURN-4)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Kept:
    seat: int


@dataclass(frozen=True, slots=True)
class ColourChosen:
    king: int
    colour: Colour


@dataclass(frozen=True, slots=True)
class VictimChosen:
    king: int
    victim: int


@dataclass(frozen=True, slots=True)
class JesterChosen:
    king: int
    jester: int


@dataclass(frozen=True, slots=True)
class DirectionChanged:
    direction: int


@dataclass(frozen=True, slots=True)
class Skipped:
    seat: int


@dataclass(frozen=True, slots=True)
class UnoCalled:
    seat: int


@dataclass(frozen=True, slots=True)
class Caught:
    catcher: int
    seat: int


@dataclass(frozen=True, slots=True)
class Reshuffled:
    """The discard pile (all but its top) became the draw pile (R-TURN-4)."""

    cards: int


@dataclass(frozen=True, slots=True)
class FanfareSounded:
    """The scepter sounded; ``landed`` is False while it waits for a decision (R-KING-3)."""

    landed: bool


@dataclass(frozen=True, slots=True)
class CrownPassed:
    old_king: int
    new_king: int


@dataclass(frozen=True, slots=True)
class TurnStarted:
    seat: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    winner: int
    blocked: bool
    points: int
    hand_points: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    winners: tuple[int, ...]
    scores: tuple[int, ...]


Event: TypeAlias = (
    DealerDrawn | RoundStarted | Played | Drew | Passed | Kept | ColourChosen | VictimChosen | JesterChosen
    | DirectionChanged | Skipped | UnoCalled | Caught | Reshuffled | FanfareSounded | CrownPassed
    | TurnStarted | RoundEnded | GameEnded
)

# The names of the events a round's history records (the first item of each entry).
ROUND_STARTED: Final = "round_started"
PLAYED: Final = "played"
DREW: Final = "drew"
PASSED: Final = "passed"
KEPT: Final = "kept"
COLOUR_CHOSEN: Final = "colour_chosen"
VICTIM_CHOSEN: Final = "victim_chosen"
JESTER_CHOSEN: Final = "jester_chosen"
UNO_CALLED: Final = "uno_called"
CAUGHT: Final = "caught"
RESHUFFLED: Final = "reshuffled"
FANFARE_SOUNDED: Final = "fanfare_sounded"
CROWN_PASSED: Final = "crown_passed"

RECORDED_BY_NAME: Final[dict[str, type]] = {
    ROUND_STARTED: RoundStarted, PLAYED: Played, DREW: Drew, PASSED: Passed, KEPT: Kept,
    COLOUR_CHOSEN: ColourChosen, VICTIM_CHOSEN: VictimChosen, JESTER_CHOSEN: JesterChosen, UNO_CALLED: UnoCalled,
    CAUGHT: Caught, RESHUFFLED: Reshuffled, FANFARE_SOUNDED: FanfareSounded, CROWN_PASSED: CrownPassed,
}
RECORDED: Final[tuple[type, ...]] = tuple(RECORDED_BY_NAME.values())
"""The events a round's public history records. The others follow from these (a turn starting, a
Skip's skipped seat, a Reverse's direction) or are kept elsewhere (the round's end: ``last_round``)."""
_NAME_OF: Final[dict[type, str]] = {kind: name for name, kind in RECORDED_BY_NAME.items()}
FIELDS_OF: Final[dict[type, tuple[str, ...]]] = {
    kind: tuple(f.name for f in dataclasses.fields(kind)) for kind in RECORDED
}
"""Each recorded event's fields, in order."""

HistoryEntry: TypeAlias = tuple[Any, ...]
"""One event of a round's history as a state keeps it: the event's name, then its fields in order, e.g.
``("played", 1, Card('R7'), False)`` or ``("drew", 2, 1, "turn", None, Card('R5'), Colour.RED)``."""


def from_entry(entry: HistoryEntry) -> Event:
    """The event a history entry records.

    >>> from_entry(("played", 1, Card.parse("R7"), False))
    Played(seat=1, card=Card('R7'), uno=False)
    """
    event: Event = RECORDED_BY_NAME[entry[0]](*entry[1:])
    return event


def to_entry(event: Event) -> HistoryEntry:
    """The history entry of a recorded event (a draw's cards left out).

    >>> to_entry(Kept(2))
    ('kept', 2)
    """
    kind = type(event)
    values = [getattr(event, name) for name in FIELDS_OF[kind]]
    if kind is Drew:
        values[3] = None
    return (_NAME_OF[kind], *values)


def private_to(event: Event) -> int | None:
    """The one seat that sees ``event`` whole while everyone else sees it redacted (the drawer of a draw
    with its cards), or ``None`` if everyone sees it alike.

    >>> private_to(Drew(seat=2, count=1, reason="turn", cards=(Card.parse("R7"),))), private_to(TurnStarted(1))
    (2, None)
    """
    return event.seat if isinstance(event, Drew) and event.cards is not None else None


def decided_by(event: Event) -> int | None:
    """The seat whose own decision ``event`` records (a play, a draw for the turn, a pass, a keep, the King's
    choices, an UNO call, a catch), or ``None`` for what follows from the rules.

    >>> decided_by(Played(1, Card.parse("R7"), False)), decided_by(Drew(2, 2, "penalty", None)), decided_by(Skipped(0))
    (1, None, None)
    """
    if isinstance(event, (Played, Passed, Kept, UnoCalled)):
        return event.seat
    if isinstance(event, Drew):
        return event.seat if event.reason == "turn" else None
    if isinstance(event, (ColourChosen, VictimChosen, JesterChosen)):
        return event.king
    if isinstance(event, Caught):
        return event.catcher
    return None


def hides(event: Event, seat: int | None) -> TypeGuard[Drew]:
    """Whether :func:`redact` changes ``event`` for ``seat``: another player's draw, with its cards."""
    return isinstance(event, Drew) and event.seat != seat and event.cards is not None


def redact(events: list[Event], seat: int | None) -> list[Event]:
    """The events as ``seat`` may see them (``None``: a spectator): other players' draws lose their cards."""
    return [Drew(event.seat, event.count, event.reason, None, event.top, event.colour) if hides(event, seat) else event
            for event in events]
