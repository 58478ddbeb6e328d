"""Events in plain words, for game logs in every front end (and the command line's replay).

>>> from royal_revenge.engine import events as ev, Card
>>> describe_event(ev.Played(2, Card.parse("BJ"), False), lambda seat: f"Seat {seat}")
'Seat 2 plays blue Jester'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .engine import Card, Kind
from .engine import events as ev
from .engine.cards import ALL_CARDS

__all__ = ["MADE_FOR", "card_words", "describe_event"]

_KIND_WORDS: Final = {
    Kind.REVERSE: "Reverse",
    Kind.SKIP: "Skip",
    Kind.KINGS_CHOICE: "King's Choice",
    Kind.JESTER: "Jester",
}


def _words(card: Card) -> str:
    if card.kind is Kind.WILD:
        return "Wild"
    assert card.colour is not None
    colour = card.colour.name.lower()
    return f"{colour} {card.number}" if card.kind is Kind.NUMBER else f"{colour} {_KIND_WORDS[card.kind]}"


_CARD_WORDS: Final = tuple(_words(card) for card in ALL_CARDS)


def card_words(card: Card) -> str:
    """``blue Jester``, ``red 7``, ``Wild``."""
    return _CARD_WORDS[card]


Name = Callable[[int], str]


def _played(event: ev.Played, name: Name) -> str:
    return f"{name(event.seat)} plays {_CARD_WORDS[event.card]}" + (" and calls UNO!" if event.uno else "")


_WHY_DRAWN: Final = {"turn": "", "plus": " for the +1", "penalty": " as the UNO penalty"}


def _drew(event: ev.Drew, name: Name) -> str:
    if event.cards:
        what = ", ".join(_CARD_WORDS[card] for card in event.cards)
    else:
        what = "no card" if event.count == 0 else ("a card" if event.count == 1 else f"{event.count} cards")
    return f"{name(event.seat)} draws {what}{_WHY_DRAWN.get(event.reason, '')}"


def _round_started(event: ev.RoundStarted, name: Name) -> str:
    return (f"Round {event.round_no}: {name(event.dealer)} deals, {name(event.king)} is King, "
            f"the start card is {_CARD_WORDS[event.start_card]}")


def _round_ended(event: ev.RoundEnded, name: Name) -> str:
    how = "The round is blocked. " if event.blocked else ""
    return f"{how}{name(event.winner)} wins the round and scores {event.points}"


_NARRATORS: Final[dict[type, Callable[[Any, Name], str | None]]] = {
    ev.Played: _played,
    ev.Drew: _drew,
    ev.TurnStarted: lambda event, name: None,
    ev.Passed: lambda event, name: f"{name(event.seat)} has nothing to draw and passes",
    ev.Kept: lambda event, name: f"{name(event.seat)} keeps the card",
    ev.ColourChosen: lambda event, name: f"King {name(event.king)} chooses {event.colour.name.lower()}",
    ev.VictimChosen: lambda event, name: f"King {name(event.king)} sends the King's Choice to {name(event.victim)}",
    ev.JesterChosen: lambda event, name: f"King {name(event.king)} makes {name(event.jester)} the Jester",
    ev.DirectionChanged: lambda event, name: "Play now goes " + ("left" if event.direction == 1 else "right"),
    ev.Skipped: lambda event, name: f"{name(event.seat)} is skipped",
    ev.UnoCalled: lambda event, name: f"{name(event.seat)} calls UNO!",
    ev.Caught: lambda event, name: f"{name(event.catcher)} catches {name(event.seat)} without UNO",
    ev.Reshuffled: lambda event, name: f"The discards are shuffled into a new draw pile ({event.cards} cards)",
    ev.FanfareSounded: lambda event, name: (
        "FANFARE! The scepter sounds" + ("" if event.landed else " (once the pending choice is made)")),
    ev.CrownPassed: lambda event, name: f"The Crown passes to {name(event.new_king)}",
    ev.RoundStarted: _round_started,
    ev.DealerDrawn: lambda event, name: f"{name(event.dealer)} drew the highest card and deals",
    ev.RoundEnded: _round_ended,
    ev.GameEnded: lambda event, name: " and ".join(name(seat) for seat in event.winners) + " won the game!",
}
"""One narrator per event type (a lookup, not a chain of isinstance: the log is narrated with every move)."""


def _drew_for(event: ev.Drew, name: Name) -> str:
    if event.cards:
        return "drew " + ", ".join(_CARD_WORDS[card] for card in event.cards)
    return "drew no card" if event.count == 0 else ("drew a card" if event.count == 1 else f"drew {event.count} cards")


_DONE_FOR: Final[dict[type, Callable[[Any, Name], tuple[str, int]]]] = {
    ev.Played: lambda event, name: (
        f"played {_CARD_WORDS[event.card]}" + (" and called UNO" if event.uno else ""), event.seat),
    ev.Drew: lambda event, name: (_drew_for(event, name), event.seat),
    ev.Passed: lambda event, name: ("passed (nothing was left to draw)", event.seat),
    ev.Kept: lambda event, name: ("kept the card", event.seat),
    ev.ColourChosen: lambda event, name: (f"chose {event.colour.name.lower()}", event.king),
    ev.VictimChosen: lambda event, name: (f"sent the King's Choice to {name(event.victim)}", event.king),
    ev.JesterChosen: lambda event, name: (f"made {name(event.jester)} the Jester", event.king),
    ev.UnoCalled: lambda event, name: ("called UNO", event.seat),
    ev.Caught: lambda event, name: (f"caught {name(event.seat)} without UNO", event.catcher),
}
"""What the table did, and for whom, when it made a person's decision (the events of :func:`ev.decided_by`)."""

MADE_FOR: Final = {"timeout": "Time ran out: ", "autopilot": "On autopilot: "}
"""Why the table made a person's decision (a move's ``by``), and how the line about it begins."""


def describe_event(event: ev.Event, name: Callable[[int], str], by: str | None = None) -> str | None:
    """One line about ``event``, or ``None`` for events not worth a line.

    ``by`` is ``timeout`` or ``autopilot`` (:data:`MADE_FOR`) when the table made this decision for the
    person in the seat, and the line says so:

    >>> describe_event(ev.Played(0, Card.parse("Y4"), False), lambda seat: "Ann", by="timeout")
    'Time ran out: the table played yellow 4 for Ann'
    """
    if by is not None and by in MADE_FOR:
        done = _DONE_FOR.get(type(event))
        if done is not None:
            what, seat = done(event, name)
            king = "King " if isinstance(event, (ev.ColourChosen, ev.VictimChosen, ev.JesterChosen)) else ""
            return f"{MADE_FOR[by]}the table {what} for {king}{name(seat)}"
    narrator = _NARRATORS.get(type(event))
    return narrator(event, name) if narrator is not None else None
