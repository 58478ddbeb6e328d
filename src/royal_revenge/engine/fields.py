"""The fields of a game state, declared once.

Every other description of a state is derived from this table: the state's slots and
equality (:mod:`.state`), its copy (checked against it by tests/engine/test_fields.py), the
complete JSON document and its validation (:mod:`.records`), the one-line position notation
(:mod:`.position`), what an :class:`~royal_revenge.engine.Observation` shows and how a
sampled state refills what it hides (:mod:`.observation`).

A field says what it holds (its **form**: how it is written and read), **who sees it**, and
how a copy treats it. The forms are the handful of kinds of value a state holds: a seat, a
seat or nothing, a list of cards, and so on; :mod:`.records` writes each form once.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

__all__ = ["Form", "Seen", "Field", "STATE_FIELDS", "FIELD_NAMES", "field"]


class Form(Enum):
    """The kinds of value a state holds, each written and read one way (see :mod:`.records`)."""

    OPTIONS = "options"
    """The game's :class:`~royal_revenge.engine.GameOptions`."""
    PLAYERS = "players"
    """The number of seats (taken from the options, never written on its own)."""
    HANDS = "hands"
    """One list of cards per seat."""
    CARDS = "cards"
    """A list of cards, bottom first."""
    CARD_OR_NONE = "card?"
    COLOUR_OR_NONE = "colour?"
    DIRECTION = "direction"
    """+1 or -1."""
    SEAT = "seat"
    SEAT_OR_NONE = "seat?"
    SEAT_OR_SETUP = "seat or setup"
    """A seat, or -1 for the start card of a round."""
    DECISION = "decision"
    FLAG = "flag"
    COUNT = "count"
    """A whole number from 0."""
    COUNT_OR_NONE = "count?"
    ROUND_NUMBER = "round number"
    """A whole number from 1."""
    SEAT_SET = "seat set"
    """A set of seats as a bitmask (bit ``s`` for seat ``s``)."""
    POINTS = "points"
    """One whole number per seat."""
    ROUND_OR_NONE = "round result?"
    OUTCOME_OR_NONE = "outcome?"
    HISTORY = "history"
    """A list of public events (see :data:`~royal_revenge.engine.events.RECORDED`), oldest first."""
    GENERATOR = "generator"
    """The SplitMix64 state: 64 bits, written as 16 hex digits."""


class Seen(Enum):
    """Who may see a field (R-DIGITAL-2)."""

    PUBLIC = "everyone"
    OWN = "each player their own part"
    """Hands: a player sees their own; everyone sees how many cards each holds."""
    SIZE = "only its size"
    """The draw pile: everyone sees how many cards it holds, nobody their order."""
    DRAWER = "the drawer"
    """The card just drawn: only the player who drew it."""
    HIDDEN = "nobody"
    """The generator and the scepter's schedule (R-KING-1: the fanfare comes without warning)."""


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a game state."""

    name: str
    form: Form
    seen: Seen
    doc: str
    observed_as: str | None = None
    """The :class:`~royal_revenge.engine.Observation` attribute that shows it, when not its own name."""
    written_as: str | None = None
    """The key in the state document, when not its own name; ``""`` for a field never written (derived)."""

    @property
    def key(self) -> str:
        """The field's key in the state document."""
        return self.name if self.written_as is None else self.written_as

    @property
    def copied(self) -> str:
        """How a copy treats it: ``"lists"`` (a list of lists), ``"list"`` or ``"value"`` (immutable, shared)."""
        if self.form is Form.HANDS:
            return "lists"
        if self.form in (Form.CARDS, Form.POINTS, Form.HISTORY):
            return "list"
        return "value"


_PUBLIC: Final = Seen.PUBLIC

STATE_FIELDS: Final[tuple[Field, ...]] = (
    Field("options", Form.OPTIONS, _PUBLIC, "The rule options of the game."),
    Field("players", Form.PLAYERS, _PUBLIC, "How many seats (from the options).", written_as=""),
    Field("hands", Form.HANDS, Seen.OWN, "Each seat's hand, in the order the cards were received."),
    Field("draw_pile", Form.CARDS, Seen.SIZE, "The draw pile; its top (the next card drawn) is the last element."),
    Field("discard", Form.CARDS, _PUBLIC, "The discard pile, bottom first.", observed_as="discard_pile"),
    Field("active_colour", Form.COLOUR_OR_NONE, _PUBLIC,
          "The colour to match (R-TURN-1); none only while a Wild's colour is being chosen."),
    Field("direction", Form.DIRECTION, _PUBLIC, "+1 while play moves left (to higher seats), -1 after a Reverse."),
    Field("king", Form.SEAT, _PUBLIC, "Who wears the Crown."),
    Field("jester", Form.SEAT_OR_NONE, _PUBLIC, "Who wears the Jester Hat; none only before the first is chosen."),
    Field("dealer", Form.SEAT, _PUBLIC, "Who dealt this round."),
    Field("current", Form.SEAT, _PUBLIC, "Whose turn it is (or was, while someone else decides)."),
    Field("decision", Form.DECISION, _PUBLIC, "What the game waits for.", observed_as="pending"),
    Field("decider", Form.SEAT_OR_NONE, _PUBLIC, "Who must decide it; none when the table acts.",
          observed_as="pending"),
    Field("drawn", Form.CARD_OR_NONE, Seen.DRAWER, "The card just drawn, while its drawer decides to play or keep it."),
    Field("resolving", Form.SEAT_OR_SETUP, _PUBLIC,
          "Whose card's colour or victim the King is choosing; -1 for the start card."),
    Field("jester_for_setup", Form.FLAG, _PUBLIC, "The Jester being chosen starts a round (its start card follows)."),
    Field("uno_seat", Form.SEAT_OR_NONE, _PUBLIC,
          "Who played their next-to-last card without calling UNO, while the window is open."),
    Field("fanfare_queued", Form.FLAG, _PUBLIC,
          "The scepter has sounded and the fanfare waits for a decision to be settled (R-KING-3)."),
    Field("scepter_running", Form.FLAG, _PUBLIC, "The scepter runs (from the Jester's choice to the fanfare)."),
    Field("scepter_left", Form.COUNT_OR_NONE, Seen.HIDDEN,
          "Turns until the turn-counted scepter sounds; none when it is off."),
    Field("turns_since_scepter", Form.COUNT, _PUBLIC, "Turns played since the scepter started (D-6)."),
    Field("passes", Form.SEAT_SET, _PUBLIC, "The seats that passed since a card was last played or drawn (R-TURN-6)."),
    Field("scores", Form.POINTS, _PUBLIC, "Each seat's score."),
    Field("round_no", Form.ROUND_NUMBER, _PUBLIC, "The round being played, from 1."),
    Field("last_round", Form.ROUND_OR_NONE, _PUBLIC, "How the last round ended."),
    Field("result", Form.OUTCOME_OR_NONE, _PUBLIC, "The end of the game.", observed_as="outcome",
          written_as="outcome"),
    Field("history", Form.HISTORY, _PUBLIC,
          "What everyone at the table has seen this round, in order: the start card, every play, draw (with the "
          "top card and colour it was drawn on, never the cards), keep, pass, the King's choices, UNO call, "
          "catch, reshuffle and fanfare (events.RECORDED)."),
    Field("rng", Form.GENERATOR, Seen.HIDDEN, "The seeded SplitMix64 generator of every shuffle and random choice."),
)
"""Every field of a :class:`~royal_revenge.engine.GameState`, in the order of its documents."""

FIELD_NAMES: Final[tuple[str, ...]] = tuple(f.name for f in STATE_FIELDS)

_BY_NAME: Final = {f.name: f for f in STATE_FIELDS}


def field(name: str) -> Field:
    """The declaration of the field called ``name``."""
    return _BY_NAME[name]
