"""Events in plain words, for game logs in every front end (and the command line's replay).

>>> from royal_revenge.engine import events as ev, Card
>>> describe_event(ev.Played(2, Card.parse("BJ"), False), lambda seat: f"Seat {seat}")
'Seat 2 plays blue Jester'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from .engine import (
    AnyAction,
    CallUno,
    Card,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Colour,
    Decision,
    Draw,
    Fanfare,
    Keep,
    Kind,
    Observation,
    Play,
)
from .engine import events as ev
from .engine.cards import ALL_CARDS, is_playable

__all__ = [
    "GLOSSARY",
    "MADE_FOR",
    "action_label",
    "action_labels",
    "card_words",
    "describe_event",
    "describe_hint",
    "describe_pending",
    "explain_refusal",
]

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


_COLOUR_WORDS: Final = tuple(colour.name.lower() for colour in Colour)

GLOSSARY: Final[dict[str, dict[str, str]]] = {
    "cards": {str(card): _CARD_WORDS[card] for card in ALL_CARDS},
    "colours": {colour.letter: _COLOUR_WORDS[colour] for colour in Colour},
    "actions": {"play": "Play", "draw": "Draw", "keep": "Keep", "uno": "UNO!", "catch": "Catch"},
}
"""The words every front end shows for the cards (by notation), the colours (by letter) and the action buttons
(by action type, for a button whose action is not legal now: a legal action has its own words, :func:`action_label`).
Sent once to each connection, as the view's ``glossary`` (docs/protocol.md): read it, never change it."""


Name = Callable[[int], str]


def _played(event: ev.Played, name: Name) -> str:
    # A call made with the card has its own line (the engine's UnoCalled follows the Played): said once.
    return f"{name(event.seat)} plays {_CARD_WORDS[event.card]}"


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
    ev.CrownPassed: lambda event, name: (  # (R-KING-2: why a turn that was someone else's goes to the new King)
        f"The Crown passes to {name(event.new_king)}, who chooses a Jester and plays next"),
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
    ev.Played: lambda event, name: (f"played {_CARD_WORDS[event.card]}", event.seat),
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


# ---------------------------------------------------------------------- decisions and refusals

def _card_sentence(card: Card) -> str:
    """A card's words starting a sentence: ``Yellow 4``, ``Wild``."""
    words = _CARD_WORDS[card]
    return words[0].upper() + words[1:]


def _winners(winners: Sequence[int], viewer: int | None, name: Name) -> str:
    people = ["you" if seat == viewer else name(seat) for seat in winners]
    return people[0] if len(people) == 1 else ", ".join(people[:-1]) + " and " + people[-1]


_CHOOSING: Final = {
    Decision.COLOUR: "the colour",
    Decision.VICTIM: "who draws one card",
    Decision.JESTER: "who wears the Jester Hat",
}


def describe_pending(observation: Observation, name: Name) -> str:
    """Who must decide what, for the observer (``observation.seat``; ``None``: a spectator), in one sentence.

    >>> from royal_revenge.engine import GameOptions, GameState
    >>> state = GameState.new(GameOptions(players=3), seed=3)
    >>> names = ["Ann", "Bob", "Cy"].__getitem__
    >>> king = state.pending.seat
    >>> describe_pending(state.observe(king), names)
    'You are the King: choose who wears the Jester Hat'
    >>> describe_pending(state.observe(None), names) == f"King {names(king)} is choosing who wears the Jester Hat"
    True
    """
    kind, seat = observation.pending
    viewer = observation.seat
    if kind is Decision.GAME_OVER:
        outcome = observation.outcome
        if outcome is None:
            return "Game over"
        mine = viewer in outcome.winners
        who = _winners(outcome.winners, viewer, name)
        return f"Game over: {who} won the game" + ("!" if mine else "")
    if kind is Decision.ROUND_OVER:
        last = observation.last_round
        if last is None:
            return "Round over: the next round is dealt soon"
        who = "you win" if last.winner == viewer else f"{name(last.winner)} wins"
        return f"Round over: {who} the round; the next round is dealt soon"
    assert seat is not None
    mine = seat == viewer
    if kind is Decision.TURN:
        return "Your turn: play a card or draw" if mine else f"{name(seat)}'s turn"
    if kind is Decision.DRAWN:
        drawn = observation.drawn
        if mine and drawn is not None:
            if not is_playable(drawn, observation.top, observation.active_colour):
                return f"You drew the {_CARD_WORDS[drawn]}: it does not match, so keep it"
            return f"Play the {_CARD_WORDS[drawn]} you drew, or keep it"
        return "Play the card you drew, or keep it" if mine else f"{name(seat)} may play the card they drew, or keep it"
    what = _CHOOSING[kind]
    return f"You are the King: choose {what}" if mine else f"King {name(seat)} is choosing {what}"


def describe_hint(observation: Observation, name: Name) -> str | None:
    """A short teaching sentence for the observer at the moment it matters, or ``None``.

    >>> from royal_revenge.engine import GameOptions, GameState
    >>> describe_hint(GameState.new(GameOptions(players=3), seed=3).observe(None), str) is None
    True
    """
    kind, seat = observation.pending
    viewer = observation.seat
    if kind is Decision.GAME_OVER or kind is Decision.ROUND_OVER:
        return None
    if viewer is not None and observation.uno_seat == viewer and len(observation.hand) == 1:
        return "Call UNO before the next player starts, or you can be caught"
    if kind is Decision.JESTER and observation.jester is not None and observation.jester == observation.king:
        if seat == viewer:
            return "You still wear the Jester Hat until you choose who wears it"
        return f"King {name(observation.king)} still wears the Jester Hat until choosing who wears it"
    if seat == viewer:
        if kind is Decision.VICTIM:
            return "Anyone can be chosen: even you, or whoever played the King's Choice"
        if kind is Decision.COLOUR:
            if observation.resolving != viewer:
                return "The King, not the player of the Wild, chooses the colour"
            return "The Wild takes the colour you name"
        if kind is Decision.JESTER:
            return "The Jester draws one card whenever a Jester card is played"
    uno = observation.uno_seat
    if viewer is not None and uno is not None and uno != viewer and observation.hand_sizes[uno] == 1:
        return f"{name(uno)} did not call UNO: catch them before the next player starts"
    return None


def _pile_words(observation: Observation) -> str:
    """What a card must match: ``the red 7 on the pile``, ``the Wild on the pile (the colour is red)``."""
    top = observation.discard_pile[-1]
    if top.kind is Kind.WILD:
        colour = observation.active_colour
        return "the Wild on the pile" + (f" (the colour is {colour.name.lower()})" if colour is not None else "")
    return f"the {_CARD_WORDS[top]} on the pile"


def _whose_decision(observation: Observation, name: Name) -> str:
    """Whose decision the game waits for, said to someone else: ``It's Bob's turn``, ``King Ann is choosing ...``."""
    kind, seat = observation.pending
    if kind is Decision.GAME_OVER:
        return "The game is over"
    if kind is Decision.ROUND_OVER:
        return "The round is over; the next round is dealt soon"
    assert seat is not None
    if kind is Decision.TURN:
        return f"It's {name(seat)}'s turn"
    if kind is Decision.DRAWN:
        return f"It's {name(seat)}'s turn: they are deciding about the card they drew"
    return f"King {name(seat)} is choosing {_CHOOSING[kind]}"


def explain_refusal(observation: Observation, action: object, legal: Sequence[AnyAction], name: Name) -> str:
    """Why ``action`` of the observer (``observation.seat``) is refused now, in plain words.

    ``legal`` is what the engine allows that seat now (:meth:`GameState.legal_actions`): whether the action is
    legal is the engine's to say; this only words the reason from what the observer can see.

    >>> from royal_revenge.engine import GameOptions, GameState, Play, Card
    >>> state = GameState.new(GameOptions(players=3), seed=3)
    >>> names = ["Ann", "Bob", "Cy"].__getitem__
    >>> other = (state.pending.seat + 1) % 3
    >>> explain_refusal(state.observe(other), Play(Card.parse("Y4")), state.legal_actions(other), names)
    'King Bob is choosing who wears the Jester Hat'
    """
    viewer = observation.seat
    kind, seat = observation.pending
    mine = viewer is not None and seat == viewer
    if isinstance(action, (CallUno, Catch)):
        return _explain_uno(observation, action, name)
    if kind is Decision.GAME_OVER or kind is Decision.ROUND_OVER or not mine:
        return _whose_decision(observation, name)
    if isinstance(action, (Play, Draw, Keep)):
        if kind is Decision.DRAWN:
            drawn = observation.drawn
            if not isinstance(action, Play) or drawn is None or action.card != drawn:
                return "You already drew: play the card you drew or keep it"
            if Play(action.card, not action.uno) in legal:
                return _uno_with_play(observation)
            return f"The {_CARD_WORDS[drawn]} you drew doesn't match {_pile_words(observation)}: keep it"
        elif kind is Decision.TURN:
            if isinstance(action, Keep):
                return "You keep a card only after drawing one: play a card or draw"
            if isinstance(action, Play):
                if action.card not in observation.hand:
                    return "You don't hold that card"
                if Play(action.card, not action.uno) in legal:
                    return _uno_with_play(observation)
                return f"{_card_sentence(action.card)} doesn't match {_pile_words(observation)}"
        else:
            return f"You are the King: choose {_CHOOSING[kind]} first"
    if isinstance(action, (ChooseColour, ChooseVictim, ChooseJester)):
        wanted = {ChooseColour: Decision.COLOUR, ChooseVictim: Decision.VICTIM, ChooseJester: Decision.JESTER}
        if wanted[type(action)] is not kind:
            if kind is Decision.TURN or kind is Decision.DRAWN:
                return "It's your turn: play a card or draw" if kind is Decision.TURN else (
                    "You already drew: play the card you drew or keep it")
            return f"You are the King: choose {_CHOOSING[kind]}"
        if isinstance(action, ChooseJester) and action.seat == viewer:
            return "You cannot be your own Jester: choose another player"
        return "There is no such player at this table"
    return "That cannot be done now"


# ---------------------------------------------------------------------- the legal actions' words

_PLAY_LABELS: Final = tuple(f"Play {words}" for words in _CARD_WORDS)
_UNO_PLAY_LABELS: Final = tuple(f"Play {words} and call UNO" for words in _CARD_WORDS)
_ACTION_WORDS: Final = GLOSSARY["actions"]


def action_label(action: AnyAction, viewer: int | None, name: Name) -> str:
    """The words of a button for ``action``, as ``viewer`` (the seat it is legal for) reads them.

    >>> names = ["Ann", "Bob"].__getitem__
    >>> [action_label(action, 0, names) for action in (Play(Card.parse("R7")), Play(Card.parse("W"), True), Draw(),
    ...                                                  ChooseColour(Colour.RED), ChooseVictim(0), Catch(1))]
    ['Play red 7', 'Play Wild and call UNO', 'Draw', 'red', 'Ann (you)', 'Catch Bob!']
    """
    if isinstance(action, Play):
        return (_UNO_PLAY_LABELS if action.uno else _PLAY_LABELS)[action.card]
    if isinstance(action, Draw):
        return _ACTION_WORDS["draw"]
    if isinstance(action, Keep):
        return _ACTION_WORDS["keep"]
    if isinstance(action, ChooseColour):
        return _COLOUR_WORDS[action.colour]
    if isinstance(action, (ChooseVictim, ChooseJester)):
        return name(action.seat) + (" (you)" if action.seat == viewer else "")
    if isinstance(action, CallUno):
        return _ACTION_WORDS["uno"]
    if isinstance(action, Catch):
        return f"Catch {name(action.seat)}!"
    # (the table's own actions, never legal for a seat: worded all the same)
    return "Sound the fanfare" if isinstance(action, Fanfare) else "Deal the next round"


def action_labels(actions: Sequence[AnyAction], viewer: int | None, name: Name) -> list[str]:
    """:func:`action_label` of each action, in order: the view's ``legal_labels`` beside its ``legal``."""
    return [action_label(action, viewer, name) for action in actions]


def _uno_with_play(observation: Observation) -> str:
    left = len(observation.hand) - 1
    if left == 1:
        return "Playing your next-to-last card: say whether you call UNO"
    return f"UNO is called with your next-to-last card; you would still hold {left} cards"


def _explain_uno(observation: Observation, action: CallUno | Catch, name: Name) -> str:
    viewer = observation.seat
    if isinstance(action, CallUno):
        if viewer is None:
            return "Only a player can call UNO"
        held = len(observation.hand)
        if held != 1:
            return f"You hold {held} cards: UNO is called when you play your next-to-last card"
        return "You have no UNO to call now: you called it already, or the next player has started"
    target = action.seat
    if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < len(observation.hand_sizes):
        return "There is no such player at this table"
    if target == viewer:
        return "You cannot catch yourself"
    held = observation.hand_sizes[target]
    if held != 1:
        return f"{name(target)} holds {held} cards, not one: there is no UNO to catch"
    return f"{name(target)} cannot be caught now: they called UNO, or the next player has started"
