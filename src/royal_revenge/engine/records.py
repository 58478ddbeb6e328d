"""Versioned JSON for complete states and game records, and replay.

Two documents, described in ``docs/records.md``:

* a **state** (``"format": "royal-revenge/state"``): everything, the draw pile's order and
  the generator's state included, so that a loaded state plays on exactly as the original;
* a **game record** (``"format": "royal-revenge/record"``): options, seed, setup and every
  move in notation, plus a digest of the final state, so that :meth:`GameRecord.replay`
  rebuilds the game and checks it arrived at the identical state.

>>> from royal_revenge.engine import Game, GameOptions
>>> game = Game.new(GameOptions(players=2), seed=1)
>>> _ = game.apply(game.state.decider, game.state.legal_actions(game.state.decider)[0])
>>> GameRecord.from_json(game.record().to_json()).replay() == game.state
True
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from . import events as ev
from .actions import AnyAction, Move
from .cards import CARD_TEXT, FULL_DECK, Card, Colour
from .errors import NotationError, RecordError, RoyalRevengeError
from .events import Event
from .fields import STATE_FIELDS, Form
from .options import GameOptions
from .state import Decision, GameState, Outcome, RoundResult

__all__ = [
    "STATE_FORMAT",
    "RECORD_FORMAT",
    "FORMAT_VERSION",
    "state_to_json",
    "state_from_json",
    "state_digest",
    "state_problems",
    "read_state",
    "GameRecord",
    "Game",
]

STATE_FORMAT: Final = "royal-revenge/state"
RECORD_FORMAT: Final = "royal-revenge/record"
FORMAT_VERSION: Final = 1
_HEX16: Final = re.compile(r"[0-9a-fA-F]{16}")


def _cards(cards: Sequence[Card]) -> list[str]:
    return [CARD_TEXT[card] for card in cards]


# ---------------------------------------------------------------------- each form, written and read once
# A state document holds every field of engine/fields.py under its key, each written as its form says.


def _card_or_none(card: Card | None) -> str | None:
    return None if card is None else CARD_TEXT[card]


def _letter_or_none(colour: Colour | None) -> str | None:
    return None if colour is None else colour.letter


def _json_or_none(value: RoundResult | Outcome | None) -> dict[str, Any] | None:
    return None if value is None else value.to_json()


# The history (engine/events.py, RECORDED): each event as a list, its name then its fields in order,
# e.g. ["played", 1, "R7", false] or ["drew", 2, 1, "turn", null, "R5", "R"].

_RECORDED_BY_NAME: Final = ev.RECORDED_BY_NAME
_SEAT_FIELDS: Final = frozenset({"seat", "king", "victim", "jester", "catcher", "old_king", "new_king", "dealer"})
_DRAW_REASONS: Final = ("turn", "plus", "penalty")


def _event_value(value: Any) -> Any:
    if isinstance(value, Card):
        return CARD_TEXT[value]
    if isinstance(value, Colour):
        return value.letter
    return value


def _history_json(history: Sequence[ev.HistoryEntry]) -> list[list[Any]]:
    return [[_event_value(value) for value in entry] for entry in history]


_WRITERS: Final[dict[Form, Callable[[Any], Any]]] = {
    Form.HISTORY: _history_json,
    Form.OPTIONS: GameOptions.to_json,
    Form.HANDS: lambda hands: [_cards(hand) for hand in hands],
    Form.CARDS: _cards,
    Form.CARD_OR_NONE: _card_or_none,
    Form.COLOUR_OR_NONE: _letter_or_none,
    Form.DECISION: lambda decision: decision.name.lower(),
    Form.POINTS: list,
    Form.ROUND_OR_NONE: _json_or_none,
    Form.OUTCOME_OR_NONE: _json_or_none,
    Form.GENERATOR: lambda value: f"{value:016x}",
}
"""How each form is written as JSON; the others (seats, counts, flags, the direction) are written as they are."""


def writer(form: Form) -> Callable[[Any], Any] | None:
    """The function that writes a value of ``form`` as JSON, or ``None`` when the value is its own JSON."""
    return _WRITERS.get(form)


def write_value(form: Form, value: Any) -> Any:
    """A field's value as JSON."""
    write = _WRITERS.get(form)
    return value if write is None else write(value)


_DECISIONS: Final = {decision.name.lower(): decision for decision in Decision}


def _read(form: Form, r: _Reader, key: str, n: int) -> Any:
    """A field's value read from a document (``n`` seats), or a RecordError naming the key."""
    seat_max = n - 1
    if form is Form.HANDS:
        hands = r.get(key)
        if not isinstance(hands, list) or len(hands) != n:
            raise RecordError(f"{r.what}: {key} must be a list of {n} hands")
        return [r.cards(f"{key}[{i}]", hand) for i, hand in enumerate(hands)]
    if form is Form.CARDS:
        return r.cards(key)
    if form is Form.CARD_OR_NONE:
        value = r.get(key)
        return None if value is None else r.cards(key, [value])[0]
    if form is Form.COLOUR_OR_NONE:
        value = r.get(key)
        if value is None:
            return None
        if isinstance(value, str):
            try:
                return Colour.parse(value)
            except NotationError as error:
                raise RecordError(f"{r.what}: {key}: {error}") from None
        raise RecordError(f"{r.what}: {key} must be a colour letter, not {value!r}")
    if form is Form.DIRECTION:
        value = r.get(key)
        if type(value) is not int or value not in (1, -1):
            raise RecordError(f"{r.what}: {key} must be 1 or -1, not {value!r}")
        return value
    if form is Form.SEAT:
        return r.int(key, 0, seat_max)
    if form is Form.SEAT_OR_NONE:
        return r.int(key, 0, seat_max, optional=True)
    if form is Form.SEAT_OR_SETUP:
        return r.int(key, -1, seat_max)
    if form is Form.DECISION:
        value = r.get(key)
        if not isinstance(value, str) or value not in _DECISIONS:
            raise RecordError(f"{r.what}: {key} must be one of {', '.join(_DECISIONS)}, not {value!r}")
        return _DECISIONS[value]
    if form is Form.FLAG:
        return r.bool(key)
    if form is Form.COUNT:
        return r.int(key, 0, 10**12)
    if form is Form.COUNT_OR_NONE:
        return r.int(key, 0, 10**12, optional=True)
    if form is Form.ROUND_NUMBER:
        return r.int(key, 1, 10**9)
    if form is Form.SEAT_SET:
        return r.int(key, 0, (1 << n) - 1)
    if form is Form.POINTS:
        value = r.get(key)
        if not isinstance(value, list) or len(value) != n or not all(
            type(points) is int and points >= 0 for points in value
        ):
            raise RecordError(f"{r.what}: {key} must be {n} whole numbers from 0")
        return list(value)
    if form is Form.ROUND_OR_NONE:
        return _round_from_json(r.get(key), n)
    if form is Form.OUTCOME_OR_NONE:
        return _outcome_from_json(r.get(key), n)
    if form is Form.HISTORY:
        entries = r.get(key)
        if not isinstance(entries, list):
            raise RecordError(f"{r.what}: {key} must be a list of events")
        return [_event_from_json(entry, f"{r.what}: {key}[{index}]", n) for index, entry in enumerate(entries)]
    if form is Form.GENERATOR:
        value = r.get(key)
        if not isinstance(value, str) or not _HEX16.fullmatch(value):
            raise RecordError(f"{r.what}: {key} must be 16 hex digits, not {value!r}")
        return int(value, 16)
    raise AssertionError(f"{form} is read with the options")


_WRITTEN: Final = tuple(f for f in STATE_FIELDS if f.key)


def _event_from_json(entry: object, what: str, n: int) -> ev.HistoryEntry:
    """One event of a history (``[name, *fields]``), every field checked."""
    if not isinstance(entry, list) or not entry or entry[0] not in _RECORDED_BY_NAME:
        raise RecordError(f"{what} must be a list: an event's name ({', '.join(_RECORDED_BY_NAME)}) and its fields")
    kind = _RECORDED_BY_NAME[entry[0]]
    names = ev.FIELDS_OF[kind]
    if len(entry) != len(names) + 1:
        raise RecordError(f"{what}: {entry[0]} has {len(names)} fields ({', '.join(names)})")
    r = _Reader(dict(zip(names, entry[1:], strict=True)), f"{what} ({entry[0]})")
    values: list[Any] = []
    for name in names:
        if name in _SEAT_FIELDS:
            values.append(r.int(name, 0, n - 1))
        elif name == "round_no":
            values.append(r.int(name, 1, 10**9))
        elif name == "cards" and kind is ev.Drew:  # (a draw's cards: only the drawer saw them)
            if r.get(name) is not None:
                raise RecordError(f"{r.what}: the history never shows the cards drawn")
            values.append(None)
        elif name in ("count", "cards"):  # (a reshuffle's cards: how many)
            values.append(r.int(name, 0, len(FULL_DECK)))
        elif name in ("card", "start_card", "top"):
            values.append(_read(Form.CARD_OR_NONE, r, name, n))
            if values[-1] is None and name != "top":
                raise RecordError(f"{r.what}: {name} must be a card")
        elif name == "colour":
            values.append(_read(Form.COLOUR_OR_NONE, r, name, n))
            if values[-1] is None and kind is ev.ColourChosen:
                raise RecordError(f"{r.what}: colour must be a colour letter")
        elif name == "reason":
            if r.get(name) not in _DRAW_REASONS:
                raise RecordError(f"{r.what}: reason must be one of {', '.join(_DRAW_REASONS)}")
            values.append(r.get(name))
        else:  # uno, landed
            values.append(r.bool(name))
    return (entry[0], *values)


def state_to_json(state: GameState) -> dict[str, Any]:
    """The complete state as a JSON-ready dict (hidden cards included: keep it on the server)."""
    data: dict[str, Any] = {"format": STATE_FORMAT, "version": FORMAT_VERSION}
    for f in _WRITTEN:
        data[f.key] = write_value(f.form, getattr(state, f.name))
    return data


def state_digest(state: GameState) -> str:
    """SHA-256 of the canonical JSON of a state less its history: equal states, equal digests.

    (The history follows from the moves that a record replays; leaving it out keeps the digests of
    records saved before states kept a history.)
    """
    document = state_to_json(state)
    del document["history"]
    text = json.dumps(document, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class _Reader:
    """Typed access to a JSON object, failing with a RecordError that names the field."""

    def __init__(self, data: object, what: str) -> None:
        if not isinstance(data, dict):
            raise RecordError(f"{what} must be a JSON object, not {type(data).__name__}")
        self.data = data
        self.what = what

    def get(self, key: str) -> Any:
        if key not in self.data:
            raise RecordError(f"{self.what} has no field {key!r}")
        return self.data[key]

    def int(self, key: str, low: int, high: int, optional: bool = False) -> Any:
        value = self.get(key)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RecordError(f"{self.what}: {key} must be a whole number from {low} to {high}, not {value!r}")
        return value

    def bool(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            raise RecordError(f"{self.what}: {key} must be true or false, not {value!r}")
        return value

    def cards(self, key: str, value: object = None) -> list[Card]:
        value = self.get(key) if value is None else value
        if not isinstance(value, list):
            raise RecordError(f"{self.what}: {key} must be a list of cards")
        try:
            return [Card.parse(text) if isinstance(text, str) else _bad_card(text) for text in value]
        except NotationError as error:
            raise RecordError(f"{self.what}: {key}: {error}") from None

    def check_format(self, expected: str) -> None:
        fmt = self.data.get("format")
        if fmt != expected:
            raise RecordError(f"not a {expected} document (format is {fmt!r})")
        version = self.data.get("version")
        if type(version) is not int or version != FORMAT_VERSION:
            raise RecordError(
                f"{expected} version {version!r} is not supported (this program reads version {FORMAT_VERSION})"
            )


def _bad_card(value: object) -> Card:
    raise NotationError(f"not a card: {value!r}")


def read_state(data: object, *, check: bool = True) -> GameState:
    """A state from a state document; every field's form is checked, and with ``check`` also
    that the rules could reach it (:func:`state_problems`). Anything wrong raises :class:`RecordError`."""
    r = _Reader(data, "state")
    r.check_format(STATE_FORMAT)
    try:
        options = GameOptions.from_json(r.get("options"))
    except RoyalRevengeError as error:
        raise RecordError(f"state: options: {error}") from None
    n = options.players
    values: dict[str, Any] = {"options": options, "players": n}
    for f in _WRITTEN:
        if f.form is not Form.OPTIONS:
            values[f.name] = _read(f.form, r, f.key, n)
    state = GameState.from_fields(values)
    if check:
        problems = state_problems(state)
        if problems:
            raise RecordError(f"state: {problems[0]}")
    return state


def state_from_json(data: object) -> GameState:
    """Rebuild a state from :func:`state_to_json`; anything inconsistent raises :class:`RecordError`."""
    return read_state(data, check=True)


def _round_from_json(data: object, n: int) -> RoundResult | None:
    if data is None:
        return None
    r = _Reader(data, "last_round")
    points = r.get("hand_points")
    if not isinstance(points, list) or len(points) != n or not all(isinstance(p, int) for p in points):
        raise RecordError(f"last_round: hand_points must be {n} whole numbers")
    return RoundResult(
        r.int("round_no", 1, 10**9), r.int("winner", 0, n - 1), r.bool("blocked"),
        r.int("points", 0, 10**6), tuple(points),
    )


def _outcome_from_json(data: object, n: int) -> Outcome | None:
    if data is None:
        return None
    r = _Reader(data, "outcome")
    winners, scores = r.get("winners"), r.get("scores")
    if not isinstance(winners, list) or not winners or not all(isinstance(w, int) and 0 <= w < n for w in winners):
        raise RecordError("outcome: winners must be a list of seats")
    if not isinstance(scores, list) or len(scores) != n or not all(isinstance(s, int) for s in scores):
        raise RecordError(f"outcome: scores must be {n} whole numbers")
    return Outcome(tuple(winners), tuple(scores))


def state_problems(state: GameState) -> list[str]:
    """What makes ``state`` one the rules could never reach, in plain words (empty: none).

    A position may be built freely (:func:`~royal_revenge.engine.position.position`,
    :func:`~royal_revenge.engine.position.parse`); :meth:`GameState.is_valid` asks this.
    """
    problems: list[str] = []
    every = [card for hand in state.hands for card in hand] + state.draw_pile + state.discard
    if Counter(every) != Counter(FULL_DECK):
        counted = Counter(every)
        counted.subtract(FULL_DECK)
        over = sorted(str(card) for card, count in counted.items() if count > 0)
        under = sorted(str(card) for card, count in counted.items() if count < 0)
        detail = "; ".join(part for part in (
            f"more copies than the deck holds of {', '.join(over)}" if over else "",
            f"missing {', '.join(under)}" if under else "",
        ) if part)
        problems.append(f"the hands and piles do not hold exactly the 56 cards of the deck ({detail})")
    if not state.discard:
        problems.append("the discard pile is empty")
        return problems
    decision = state.decision
    if decision < Decision.ROUND_OVER and state.decider is None:
        problems.append(f"a {decision.name.lower()} decision needs a decider")
    if decision is Decision.DRAWN:
        if state.drawn is None or state.decider is None or state.drawn not in state.hands[state.decider]:
            problems.append("the drawn card must be in its drawer's hand")
    elif state.drawn is not None:
        problems.append("a drawn card is recorded outside a drawn-card decision")
    choosing = decision in (Decision.COLOUR, Decision.ROUND_OVER, Decision.GAME_OVER) or (
        decision is Decision.JESTER and state.discard[-1].colour is None
    )
    if state.active_colour is None and not choosing:
        problems.append("no active colour, yet no colour is being chosen")
    if Decision.COLOUR <= decision <= Decision.JESTER and state.decider != state.king:
        problems.append("the King's decisions must be the King's")
    if decision is Decision.JESTER and not state.jester_for_setup and state.jester is None:
        problems.append("a Jester must exist after the first round's setup")
    if decision < Decision.JESTER and state.jester is None:
        problems.append("play cannot go on before the Jester is chosen")
    if (decision is Decision.GAME_OVER) != (state.result is not None):
        problems.append("an outcome is recorded exactly when the game is over")
    return problems


@dataclass(slots=True)
class GameRecord:
    """A whole game as options, seed, setup and moves; it replays to the identical state."""

    options: GameOptions
    seed: int
    ages: list[int | None] | None = None
    first_king: int | None = None
    moves: list[Move] = field(default_factory=list)
    final_digest: str | None = None
    """SHA-256 of the final state (:func:`state_digest`), checked by :meth:`replay`."""

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT,
            "version": FORMAT_VERSION,
            "options": self.options.to_json(),
            "seed": self.seed,
            "ages": self.ages,
            "first_king": self.first_king,
            "moves": [str(move) for move in self.moves],
            "final_state_sha256": self.final_digest,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)

    @classmethod
    def from_json(cls, data: object) -> GameRecord:
        r = _Reader(data, "record")
        r.check_format(RECORD_FORMAT)
        try:
            options = GameOptions.from_json(r.get("options"))
        except RoyalRevengeError as error:
            raise RecordError(f"record: options: {error}") from None
        seed = r.int("seed", 0, (1 << 64) - 1)
        ages = r.get("ages")
        if ages is not None and not isinstance(ages, list):
            raise RecordError("record: ages must be a list or null")
        first_king = r.int("first_king", 0, options.players - 1, optional=True)
        moves_data = r.get("moves")
        if not isinstance(moves_data, list):
            raise RecordError("record: moves must be a list of moves in notation")
        moves = []
        for index, text in enumerate(moves_data):
            try:
                moves.append(Move.parse(text))
            except NotationError as error:
                raise RecordError(f"record: move {index + 1}: {error}") from None
        digest = r.get("final_state_sha256")
        if digest is not None and not isinstance(digest, str):
            raise RecordError("record: final_state_sha256 must be a string or null")
        return cls(options, seed, ages, first_king, moves, digest)

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"not valid JSON: {error}") from None
        return cls.from_json(data)

    def replay(self, *, verify: bool = True, on_move: Any = None) -> GameState:
        """Play the moves again from the seed; check the final digest unless ``verify=False``.

        ``on_move(index, move, events)`` is called after each move, for printing.
        """
        try:
            state = GameState.new(self.options, self.seed, ages=self.ages, first_king=self.first_king)
        except RoyalRevengeError as error:
            raise RecordError(f"record: setup: {error}") from None
        for index, move in enumerate(self.moves):
            try:
                events = state.apply(move.seat, move.action)
            except RoyalRevengeError as error:
                raise RecordError(f"record: move {index + 1} ({move}) is refused: {error}") from None
            if on_move is not None:
                on_move(index, move, events)
        if verify and self.final_digest is not None and state_digest(state) != self.final_digest:
            raise RecordError("record: the replay does not reach the recorded final state")
        return state


class Game:
    """A game state that keeps its own record: the convenient way to play and save a game.

    >>> game = Game.new(GameOptions(players=3), seed=5)
    >>> len(game.record().moves)
    0
    """

    def __init__(self, state: GameState, record: GameRecord) -> None:
        self.state = state
        self._record = record

    @classmethod
    def new(
        cls,
        options: GameOptions | None = None,
        seed: int = 0,
        *,
        ages: Sequence[int | None] | None = None,
        first_king: int | None = None,
        events: list[Event] | None = None,
    ) -> Game:
        options = options or GameOptions()
        state = GameState.new(options, seed, ages=ages, first_king=first_king, events=events)
        record = GameRecord(options, seed & ((1 << 64) - 1), list(ages) if ages is not None else None, first_king)
        return cls(state, record)

    def apply(self, seat: int | None, action: AnyAction) -> list[Event]:
        """Apply and record an action; a refused action is neither applied nor recorded."""
        events = self.state.apply(seat, action)
        self._record.moves.append(Move(seat, action))
        return events

    def apply_move(self, move: Move | str) -> list[Event]:
        if isinstance(move, str):
            move = Move.parse(move)
        return self.apply(move.seat, move.action)

    def record(self) -> GameRecord:
        """The record so far, with the digest of the current state."""
        rec = self._record
        return GameRecord(rec.options, rec.seed, rec.ages, rec.first_king, list(rec.moves), state_digest(self.state))

    @classmethod
    def from_record(cls, record: GameRecord) -> Game:
        """Resume a recorded game (replayed and verified)."""
        state = record.replay()
        return cls(state, GameRecord(record.options, record.seed, record.ages, record.first_king, list(record.moves)))
