"""Events in plain words, for game logs in every front end (and the command line's replay).

>>> from royal_revenge.engine import events as ev, Card
>>> describe_event(ev.Played(2, Card.parse("BJ"), False), lambda seat: f"Seat {seat}")
'Seat 2 plays blue Jester'
"""

from __future__ import annotations

from collections.abc import Callable

from .engine import Card, Kind
from .engine import events as ev

__all__ = ["card_words", "describe_event"]

_KIND_WORDS = {
    Kind.REVERSE: "Reverse",
    Kind.SKIP: "Skip",
    Kind.KINGS_CHOICE: "King's Choice",
    Kind.JESTER: "Jester",
}


def card_words(card: Card) -> str:
    """``blue Jester``, ``red 7``, ``Wild``."""
    if card.kind is Kind.WILD:
        return "Wild"
    assert card.colour is not None
    colour = card.colour.name.lower()
    return f"{colour} {card.number}" if card.kind is Kind.NUMBER else f"{colour} {_KIND_WORDS[card.kind]}"


def describe_event(event: ev.Event, name: Callable[[int], str]) -> str | None:
    """One line about ``event``, or ``None`` for events not worth a line."""
    if isinstance(event, ev.Played):
        return f"{name(event.seat)} plays {card_words(event.card)}" + (" and calls UNO!" if event.uno else "")
    if isinstance(event, ev.Drew):
        if event.cards:
            cards = ", ".join(card_words(card) for card in event.cards)
            what = f"{cards}"
        else:
            what = "no card" if event.count == 0 else ("a card" if event.count == 1 else f"{event.count} cards")
        why = {"turn": "", "plus": " for the +1", "penalty": " as the UNO penalty"}.get(event.reason, "")
        return f"{name(event.seat)} draws {what}{why}"
    if isinstance(event, ev.Passed):
        return f"{name(event.seat)} has nothing to draw and passes"
    if isinstance(event, ev.Kept):
        return f"{name(event.seat)} keeps the card"
    if isinstance(event, ev.ColourChosen):
        return f"King {name(event.king)} chooses {event.colour.name.lower()}"
    if isinstance(event, ev.VictimChosen):
        return f"King {name(event.king)} sends the King's Choice to {name(event.victim)}"
    if isinstance(event, ev.JesterChosen):
        return f"King {name(event.king)} makes {name(event.jester)} the Jester"
    if isinstance(event, ev.DirectionChanged):
        return "Play now goes " + ("left" if event.direction == 1 else "right")
    if isinstance(event, ev.Skipped):
        return f"{name(event.seat)} is skipped"
    if isinstance(event, ev.UnoCalled):
        return f"{name(event.seat)} calls UNO!"
    if isinstance(event, ev.Caught):
        return f"{name(event.catcher)} catches {name(event.seat)} without UNO"
    if isinstance(event, ev.Reshuffled):
        return f"The discards are shuffled into a new draw pile ({event.cards} cards)"
    if isinstance(event, ev.FanfareSounded):
        return "FANFARE! The scepter sounds" + ("" if event.landed else " (once the pending choice is made)")
    if isinstance(event, ev.CrownPassed):
        return f"The Crown passes to {name(event.new_king)}"
    if isinstance(event, ev.RoundStarted):
        return (f"Round {event.round_no}: {name(event.dealer)} deals, {name(event.king)} is King, "
                f"the start card is {card_words(event.start_card)}")
    if isinstance(event, ev.DealerDrawn):
        return f"{name(event.dealer)} drew the highest card and deals"
    if isinstance(event, ev.RoundEnded):
        how = "The round is blocked. " if event.blocked else ""
        return f"{how}{name(event.winner)} wins the round and scores {event.points}"
    if isinstance(event, ev.GameEnded):
        return " and ".join(name(seat) for seat in event.winners) + " won the game!"
    return None
