"""Actions and moves, with a text notation that round-trips.

An *action* is what is done (``R7``, ``draw``, ``colour G``); a *move* is an action with the
seat that does it (``2:R7``). Table actions that belong to nobody (``fanfare``, ``deal``)
are moves without a seat.

>>> Action.parse("r7!")
Play(card=Card('R7'), uno=True)
>>> str(Action.parse("colour green")), str(Action.parse("victim 3"))
('colour G', 'victim 3')
>>> Move.parse("1:BJ"), str(Move.parse("fanfare"))
(Move(seat=1, action=Play(card=Card('BJ'), uno=False)), 'fanfare')

The JSON form of an action is a small object:

>>> Action.parse("catch 2").to_json()
{'type': 'catch', 'seat': 2}
>>> Action.from_json({'type': 'play', 'card': 'W', 'uno': False})
Play(card=Card('W'), uno=False)
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, ClassVar, Final, NamedTuple, TypeAlias

from .cards import ALL_CARDS, Card, Colour
from .errors import IllegalActionError, NotationError
from .options import MAX_PLAYERS

__all__ = [
    "Play",
    "Draw",
    "Keep",
    "ChooseColour",
    "ChooseVictim",
    "ChooseJester",
    "CallUno",
    "Catch",
    "Fanfare",
    "NextRound",
    "Action",
    "Move",
    "DRAW",
    "KEEP",
    "CALL_UNO",
    "FANFARE",
    "NEXT_ROUND",
    "MAX_SEATS",
]

MAX_SEATS: Final = MAX_PLAYERS


def _check_seat(seat: object, what: str, rule: str) -> None:
    if type(seat) is not int:
        raise IllegalActionError(f"there is no seat {seat!r} {what}", rule)


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card from the hand; ``uno=True`` calls UNO with it (R-UNO-1)."""

    card: Card
    uno: bool = False

    def __post_init__(self) -> None:
        # (An action is checked when it is made, so the engine can trust its fields.)
        if type(self.card) is not Card or type(self.uno) is not bool:
            raise IllegalActionError(
                f"a play needs a card and a true/false UNO call, not {self.card!r}, {self.uno!r}", "R-TURN-2"
            )

    def __str__(self) -> str:
        return f"{self.card}!" if self.uno else str(self.card)

    def to_json(self) -> dict[str, Any]:
        return {"type": "play", "card": str(self.card), "uno": self.uno}


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card instead of playing (R-TURN-2)."""

    def __str__(self) -> str:
        return "draw"

    def to_json(self) -> dict[str, Any]:
        return {"type": "draw"}


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep the card just drawn and end the turn (R-TURN-3)."""

    def __str__(self) -> str:
        return "keep"

    def to_json(self) -> dict[str, Any]:
        return {"type": "keep"}


@dataclass(frozen=True, slots=True)
class ChooseColour:
    """The King names the active colour after a Wild (R-ACT-WILD)."""

    colour: Colour

    def __post_init__(self) -> None:
        if not isinstance(self.colour, Colour):
            raise IllegalActionError(f"not a colour: {self.colour!r}", "R-ACT-WILD")

    def __str__(self) -> str:
        return f"colour {self.colour.letter}"

    def to_json(self) -> dict[str, Any]:
        return {"type": "colour", "colour": self.colour.letter}


@dataclass(frozen=True, slots=True)
class ChooseVictim:
    """The King names who draws for a King's Choice (R-ACT-KC)."""

    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat, "to draw", "R-ACT-KC")

    def __str__(self) -> str:
        return f"victim {self.seat}"

    def to_json(self) -> dict[str, Any]:
        return {"type": "victim", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class ChooseJester:
    """The King hands the Jester Hat to another player (R-SETUP-5, R-KING-2)."""

    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat, "to be the Jester", "R-SETUP-5")

    def __str__(self) -> str:
        return f"jester {self.seat}"

    def to_json(self) -> dict[str, Any]:
        return {"type": "jester", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class CallUno:
    """Call UNO after playing the next-to-last card (R-UNO-1)."""

    def __str__(self) -> str:
        return "uno"

    def to_json(self) -> dict[str, Any]:
        return {"type": "uno"}


@dataclass(frozen=True, slots=True)
class Catch:
    """Catch a player who did not call UNO (R-UNO-2)."""

    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat, "to catch", "R-UNO-3")

    def __str__(self) -> str:
        return f"catch {self.seat}"

    def to_json(self) -> dict[str, Any]:
        return {"type": "catch", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Fanfare:
    """The scepter sounds (R-KING-1); sent by the table's clock, not by a player."""

    def __str__(self) -> str:
        return "fanfare"

    def to_json(self) -> dict[str, Any]:
        return {"type": "fanfare"}


@dataclass(frozen=True, slots=True)
class NextRound:
    """Deal the next round after a round has been scored (R-SCORE-2); a table action."""

    def __str__(self) -> str:
        return "deal"

    def to_json(self) -> dict[str, Any]:
        return {"type": "deal"}


_ActionUnion: TypeAlias = (
    Play | Draw | Keep | ChooseColour | ChooseVictim | ChooseJester | CallUno | Catch | Fanfare | NextRound
)

DRAW: Final = Draw()
KEEP: Final = Keep()
CALL_UNO: Final = CallUno()
FANFARE: Final = Fanfare()
NEXT_ROUND: Final = NextRound()

# Shared instances, so that the engine allocates nothing when it lists legal actions.
PLAYS: Final[tuple[Play, ...]] = tuple(Play(card) for card in ALL_CARDS)
PLAYS_UNO: Final[tuple[Play, ...]] = tuple(Play(card, True) for card in ALL_CARDS)
COLOURS: Final[tuple[ChooseColour, ...]] = tuple(ChooseColour(colour) for colour in Colour)
VICTIMS: Final[tuple[ChooseVictim, ...]] = tuple(ChooseVictim(seat) for seat in range(MAX_SEATS))
JESTERS: Final[tuple[ChooseJester, ...]] = tuple(ChooseJester(seat) for seat in range(MAX_SEATS))
CATCHES: Final[tuple[Catch, ...]] = tuple(Catch(seat) for seat in range(MAX_SEATS))


def _seat(text: str) -> int:
    try:
        seat = int(text)
    except ValueError:
        raise NotationError(f"not a seat number: {text!r}") from None
    if not 0 <= seat < MAX_SEATS:
        raise NotationError(f"seat {seat} does not exist (seats are 0 to {MAX_SEATS - 1})")
    return seat


class Action:
    """Namespace for parsing actions; every concrete action type is a frozen dataclass.

    ``Action.parse`` reads the notation, ``Action.from_json`` the JSON form.
    """

    TYPES: ClassVar[tuple[type, ...]] = (
        Play, Draw, Keep, ChooseColour, ChooseVictim, ChooseJester, CallUno, Catch, Fanfare, NextRound
    )

    @staticmethod
    def parse(text: str) -> AnyAction:
        """Parse the notation of one action (case-insensitive)."""
        if not isinstance(text, str):
            raise NotationError(f"an action must be text, not {type(text).__name__}")
        words = text.strip().lower().split()
        if not words:
            raise NotationError("empty action")
        head, args = words[0], words[1:]
        simple = _SIMPLE.get(head)
        if simple is not None:
            if args:
                raise NotationError(f"{head!r} takes no argument: {text!r}")
            return simple
        if head in ("colour", "color", "victim", "jester", "catch"):
            if len(args) != 1:
                raise NotationError(f"{head!r} takes one argument: {text!r}")
            if head in ("colour", "color"):
                return COLOURS[Colour.parse(args[0])]
            seat = _seat(args[0])
            if head == "victim":
                return VICTIMS[seat]
            return JESTERS[seat] if head == "jester" else CATCHES[seat]
        if args:
            raise NotationError(f"not an action: {text!r}")
        uno = head.endswith("!")
        card = Card.parse(head[:-1] if uno else head)
        return PLAYS_UNO[card] if uno else PLAYS[card]

    @staticmethod
    def from_json(data: object) -> AnyAction:
        """Read the JSON form written by ``to_json()``; anything else is refused, in plain words.

        Each form has exactly its action's fields besides ``type`` (one with a default, ``uno``, may be
        left out): a field the form does not have is refused rather than ignored.
        """
        if not isinstance(data, dict):
            raise NotationError(f"an action must be a JSON object, not {_json_kind(data)}")
        if "type" not in data:
            raise NotationError("an action needs a 'type'")
        kind = data["type"]
        form = _JSON_FORMS.get(kind) if isinstance(kind, str) else None
        if form is None:
            raise NotationError(f"{_shown(kind)} is not an action type (the types are {', '.join(_JSON_FORMS)})")
        fields, required = _JSON_FIELDS[form]
        extra = [key for key in data if key != "type" and key not in fields]
        if extra:
            names = ", ".join(_shown(key) for key in extra[:3]) + (", ..." if len(extra) > 3 else "")
            raise NotationError(f"a {kind} action has no field{'s' if len(extra) > 1 else ''} {names}")
        missing = [name for name in required if name not in data]
        if missing:
            raise NotationError(f"a {kind} action needs a '{missing[0]}'")
        if form is Play:
            card, uno = data["card"], data.get("uno", False)
            if not isinstance(card, str):
                raise NotationError(f"a play action's 'card' must be text such as \"R7\", not {_json_kind(card)}")
            if not isinstance(uno, bool):
                raise NotationError(f"a play action's 'uno' must be true or false, not {_json_kind(uno)}")
            return (PLAYS_UNO if uno else PLAYS)[Card.parse(card)]
        if form is ChooseColour:
            colour = data["colour"]
            if not isinstance(colour, str):
                raise NotationError(f"a colour action's 'colour' must be \"R\", \"Y\", \"G\" or \"B\", "
                                    f"not {_json_kind(colour)}")
            return COLOURS[Colour.parse(colour)]
        if "seat" in fields:
            seat = data["seat"]
            if isinstance(seat, bool) or not isinstance(seat, int):
                raise NotationError(f"a {kind} action's 'seat' must be a seat number, not {_json_kind(seat)}")
            if not 0 <= seat < MAX_SEATS:
                raise NotationError(f"a {kind} action's 'seat' must be a seat number from 0 to {MAX_SEATS - 1}")
            by_seat: tuple[AnyAction, ...] = (VICTIMS if form is ChooseVictim else JESTERS if form is ChooseJester
                                              else CATCHES)
            return by_seat[seat]
        return _SIMPLE[kind]


def _json_kind(value: object) -> str:
    """What a JSON value is, in JSON's words (messages describe a client's input rather than echo all of it)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


def _shown(value: object) -> str:
    """A short quotation of a client's key or value: text (up to 24 characters) and small numbers, else its kind."""
    if isinstance(value, str):
        return f"'{value[:24]}...'" if len(value) > 24 else f"'{value}'"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**6:
        return str(value)
    return _json_kind(value)


AnyAction: TypeAlias = _ActionUnion
"""Any one action."""

_SIMPLE: Final[dict[str, AnyAction]] = {"draw": DRAW, "keep": KEEP, "uno": CALL_UNO, "fanfare": FANFARE,
                                       "deal": NEXT_ROUND}
"""The actions without arguments, by their notation (which is also their JSON ``type``)."""

_JSON_FORMS: Final[dict[str, type]] = {
    "play": Play, "draw": Draw, "keep": Keep, "colour": ChooseColour, "victim": ChooseVictim,
    "jester": ChooseJester, "uno": CallUno, "catch": Catch, "fanfare": Fanfare, "deal": NextRound,
}
"""Every action's JSON ``type``, and its form."""
_JSON_FIELDS: Final[dict[type, tuple[frozenset[str], tuple[str, ...]]]] = {
    form: (frozenset(field.name for field in dataclasses.fields(form)),
           tuple(field.name for field in dataclasses.fields(form) if field.default is dataclasses.MISSING))
    for form in Action.TYPES
}
"""The fields of each form's JSON besides ``type`` (its dataclass's fields, which ``to_json`` writes), and those of
them without a default (which must be given)."""


class Move(NamedTuple):
    """An action and who does it; ``seat`` is ``None`` for the table's own actions.

    Notation: ``"2:R7"``, ``"0:colour G"``, ``"fanfare"``, ``"deal"``.
    """

    seat: int | None
    action: AnyAction

    def __str__(self) -> str:
        return str(self.action) if self.seat is None else f"{self.seat}:{self.action}"

    @classmethod
    def parse(cls, text: str) -> Move:
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, not {type(text).__name__}")
        seat_text, colon, action_text = text.partition(":")
        if not colon:
            return cls(None, Action.parse(text))
        return cls(_seat(seat_text.strip()), Action.parse(action_text))
