"""Cards of UNO Royal Revenge (R-DECK) and their short text notation.

A card is a *face*: two blue Jesters are the same card, and so are the four Wilds.
:class:`Card` is an ``int`` subclass, so the engine stores plain small integers in its
hands and piles (fast to copy and compare) while every card still prints as its
notation:

>>> Card.parse("r7")
Card('R7')
>>> str(Card.parse("BJ")), Card.parse("BJ").kind.name, Card.parse("BJ").points
('BJ', 'JESTER', 20)
>>> len(FULL_DECK), sum(card.points for card in FULL_DECK)
(56, 744)

Notation: a colour letter (``R`` red, ``Y`` yellow, ``G`` green, ``B`` blue) followed by a
number ``1``-``8`` or a symbol (``R`` Reverse, ``S`` Skip, ``K`` King's Choice, ``J`` Jester);
a Wild is ``W``.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from .errors import NotationError

__all__ = [
    "Colour",
    "Kind",
    "Card",
    "ALL_CARDS",
    "CARD_TEXT",
    "FULL_DECK",
    "COPIES_OF",
    "CARDS_OF_COLOUR",
    "COLOUR_OF",
    "KIND_OF",
    "NUMBER_OF",
    "POINTS_OF",
    "WILD",
    "WILD_CODE",
    "NUM_FACES",
    "is_playable",
    "match_key",
    "playable_mask",
]


class Colour(IntEnum):
    """The four colours. ``str()`` gives the one-letter notation."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3

    @property
    def letter(self) -> str:
        return "RYGB"[self]

    def __str__(self) -> str:
        return self.letter

    @classmethod
    def parse(cls, text: str) -> Colour:
        """Parse ``R``/``Y``/``G``/``B`` or a full colour name (any case)."""
        if not isinstance(text, str):
            raise NotationError(f"a colour must be text, not {type(text).__name__}")
        key = text.strip().upper()
        for colour in cls:
            if key in (colour.letter, colour.name):
                return colour
        raise NotationError(f"not a colour: {text!r} (expected one of R, Y, G, B)")


class Kind(IntEnum):
    """What a card does (R-DECK-1)."""

    NUMBER = 0
    REVERSE = 1
    SKIP = 2
    KINGS_CHOICE = 3
    JESTER = 4
    WILD = 5

    @property
    def is_plus_one(self) -> bool:
        """King's Choice and Jester are the two +1 cards."""
        return self in (Kind.KINGS_CHOICE, Kind.JESTER)


# Face codes: colour * 12 + rank, rank 0-7 for the numbers 1-8, then 8 Reverse, 9 Skip,
# 10 King's Choice, 11 Jester; the Wild is 48.
NUM_FACES: Final = 49
WILD_CODE: Final = 48
"""The Wild's code (the faces of the colours are 0-47)."""
_WILD_CODE: Final = WILD_CODE
_SYMBOL_LETTERS: Final = "RSKJ"
_SYMBOL_KINDS: Final = (Kind.REVERSE, Kind.SKIP, Kind.KINGS_CHOICE, Kind.JESTER)


def _kind_of(code: int) -> Kind:
    if code == _WILD_CODE:
        return Kind.WILD
    rank = code % 12
    return Kind.NUMBER if rank < 8 else _SYMBOL_KINDS[rank - 8]


COLOUR_OF: Final[tuple[Colour | None, ...]] = tuple(
    None if code == _WILD_CODE else Colour(code // 12) for code in range(NUM_FACES)
)
KIND_OF: Final[tuple[Kind, ...]] = tuple(_kind_of(code) for code in range(NUM_FACES))
NUMBER_OF: Final[tuple[int | None, ...]] = tuple(
    code % 12 + 1 if KIND_OF[code] is Kind.NUMBER else None for code in range(NUM_FACES)
)
POINTS_OF: Final[tuple[int, ...]] = tuple(
    50 if kind is Kind.WILD else (n if n is not None else 20)
    for kind, n in zip(KIND_OF, NUMBER_OF, strict=True)
)
_TEXT: Final[tuple[str, ...]] = tuple(
    "W"
    if code == _WILD_CODE
    else "RYGB"[code // 12]
    + (str(code % 12 + 1) if code % 12 < 8 else _SYMBOL_LETTERS[code % 12 - 8])
    for code in range(NUM_FACES)
)

CARD_TEXT: Final = _TEXT
"""The notation of every face, indexed by its code: ``CARD_TEXT[card] == str(card)``, without a method call
(views list many cards)."""


class Card(int):
    """One card face, an ``int`` from 0 to 48 that prints as its notation.

    Build cards with :meth:`parse` or :meth:`make`, or take them from :data:`ALL_CARDS`.
    """

    __slots__ = ()

    def __new__(cls, code: int) -> Card:
        if not 0 <= code < NUM_FACES:
            raise NotationError(f"card code out of range: {code}")
        return super().__new__(cls, code)

    @property
    def colour(self) -> Colour | None:
        """The card's colour; ``None`` for a Wild."""
        return COLOUR_OF[self]

    @property
    def kind(self) -> Kind:
        return KIND_OF[self]

    @property
    def number(self) -> int | None:
        """1-8 for a number card, ``None`` for a symbol."""
        return NUMBER_OF[self]

    @property
    def points(self) -> int:
        """What the card scores in an opponent's hand (R-DECK-2)."""
        return POINTS_OF[self]

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card({_TEXT[self]!r})"

    @classmethod
    def make(cls, kind: Kind, colour: Colour | None = None, number: int | None = None) -> Card:
        """Build a card from its parts: ``Card.make(Kind.NUMBER, Colour.RED, 7)``."""
        if kind is Kind.WILD:
            if colour is not None or number is not None:
                raise NotationError("a Wild has no colour and no number")
            return ALL_CARDS[_WILD_CODE]
        if colour is None:
            raise NotationError(f"a {kind.name} card needs a colour")
        if kind is Kind.NUMBER:
            if number is None or not 1 <= number <= 8:
                raise NotationError(f"number cards go from 1 to 8, not {number}")
            return ALL_CARDS[colour * 12 + number - 1]
        if number is not None:
            raise NotationError(f"a {kind.name} card has no number")
        return ALL_CARDS[colour * 12 + 8 + _SYMBOL_KINDS.index(kind)]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse the notation (case-insensitive): ``R7``, ``BJ``, ``GK``, ``YR``, ``RS``, ``W``."""
        if not isinstance(text, str):
            raise NotationError(f"a card must be text, not {type(text).__name__}")
        card = _BY_TEXT.get(text.strip().upper())
        if card is None:
            raise NotationError(
                f"not a card: {text!r} (a colour R/Y/G/B then 1-8, R, S, K or J; or W)"
            )
        return card


ALL_CARDS: Final[tuple[Card, ...]] = tuple(Card(code) for code in range(NUM_FACES))
"""Every distinct face, indexed by its code."""

_BY_TEXT: Final[dict[str, Card]] = {str(card): card for card in ALL_CARDS}

WILD: Final = ALL_CARDS[_WILD_CODE]


COPIES_OF: Final[tuple[int, ...]] = tuple(
    {Kind.JESTER: 2, Kind.WILD: 4}.get(KIND_OF[code], 1) for code in range(NUM_FACES)
)
"""How many copies of each face the deck holds (R-DECK-1): two Jesters a colour, four Wilds, one of the rest."""

FULL_DECK: Final[tuple[Card, ...]] = tuple(card for card in ALL_CARDS for _ in range(COPIES_OF[card]))
"""The 56 cards of R-DECK-1, in a fixed order."""

CARDS_OF_COLOUR: Final[tuple[int, ...]] = tuple(
    sum(1 for card in FULL_DECK if COLOUR_OF[card] is colour) for colour in Colour
)
"""How many cards of each colour the deck holds (13 each; the Wilds have no colour)."""


def match_key(top: Card, active_colour: Colour | int | None) -> int:
    """Index into the playability table for a top discard and the active colour.

    A coloured top card decides on its own (0-47); a Wild top is 48 + the chosen colour.
    """
    if top == _WILD_CODE:
        if active_colour is None:
            raise ValueError("a Wild on top needs an active colour to match")
        return _WILD_CODE + int(active_colour)
    return int(top)


def _playable(card: int, top: int, active: int) -> bool:
    """R-TURN-1, written out once; the tables below are built from it."""
    if card == _WILD_CODE:
        return True
    if top == _WILD_CODE:
        return COLOUR_OF[card] == active
    if COLOUR_OF[card] == active:
        return True
    card_kind, top_kind = KIND_OF[card], KIND_OF[top]
    if card_kind is Kind.NUMBER:
        return top_kind is Kind.NUMBER and NUMBER_OF[card] == NUMBER_OF[top]
    if card_kind.is_plus_one:
        return top_kind.is_plus_one
    return card_kind is top_kind


# PLAYABLE[key][card] for key = match_key(top, active colour).
PLAYABLE: Final[tuple[tuple[bool, ...], ...]] = tuple(
    tuple(
        _playable(card, key if key < _WILD_CODE else _WILD_CODE, key - _WILD_CODE if key >= _WILD_CODE else key // 12)
        for card in range(NUM_FACES)
    )
    for key in range(_WILD_CODE + 4)
)


def is_playable(card: Card, top: Card, active_colour: Colour | int | None) -> bool:
    """Whether ``card`` may be played on ``top`` with the given active colour (R-TURN-1).

    >>> is_playable(Card.parse("BS"), Card.parse("R7"), Colour.RED)
    False
    >>> is_playable(Card.parse("RJ"), Card.parse("BK"), Colour.BLUE)
    True
    >>> is_playable(Card.parse("G3"), WILD, Colour.GREEN)
    True
    """
    return PLAYABLE[match_key(top, active_colour)][card]


def playable_mask(top: Card, active_colour: Colour | int | None) -> tuple[bool, ...]:
    """The playability of every face at once, indexed by card code."""
    return PLAYABLE[match_key(top, active_colour)]
