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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .actions import AnyAction, Move
from .cards import FULL_DECK, Card, Colour
from .errors import NotationError, RecordError, RoyalRevengeError
from .events import Event
from .options import GameOptions
from .state import Decision, GameState, Outcome, RoundResult

__all__ = [
    "STATE_FORMAT",
    "RECORD_FORMAT",
    "FORMAT_VERSION",
    "state_to_json",
    "state_from_json",
    "state_digest",
    "GameRecord",
    "Game",
]

STATE_FORMAT: Final = "royal-revenge/state"
RECORD_FORMAT: Final = "royal-revenge/record"
FORMAT_VERSION: Final = 1
_HEX16: Final = re.compile(r"[0-9a-fA-F]{16}")


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(card) for card in cards]


def state_to_json(state: GameState) -> dict[str, Any]:
    """The complete state as a JSON-ready dict (hidden cards included: keep it on the server)."""
    return {
        "format": STATE_FORMAT,
        "version": FORMAT_VERSION,
        "options": state.options.to_json(),
        "hands": [_cards(hand) for hand in state.hands],
        "draw_pile": _cards(state.draw_pile),
        "discard": _cards(state.discard),
        "active_colour": state.active_colour.letter if state.active_colour is not None else None,
        "direction": state.direction,
        "king": state.king,
        "jester": state.jester,
        "dealer": state.dealer,
        "current": state.current,
        "decision": state.decision.name.lower(),
        "decider": state.decider,
        "drawn": str(state.drawn) if state.drawn is not None else None,
        "resolving": state.resolving,
        "jester_for_setup": state.jester_for_setup,
        "uno_seat": state.uno_seat,
        "fanfare_queued": state.fanfare_queued,
        "scepter_running": state.scepter_running,
        "scepter_left": state.scepter_left,
        "turns_since_scepter": state.turns_since_scepter,
        "passes": state.passes,
        "scores": list(state.scores),
        "round_no": state.round_no,
        "last_round": state.last_round.to_json() if state.last_round is not None else None,
        "outcome": state.result.to_json() if state.result is not None else None,
        "rng": f"{state.rng:016x}",
    }


def state_digest(state: GameState) -> str:
    """SHA-256 of the canonical JSON of a state: equal states, equal digests."""
    text = json.dumps(state_to_json(state), sort_keys=True, separators=(",", ":"))
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


def state_from_json(data: object) -> GameState:
    """Rebuild a state from :func:`state_to_json`; anything inconsistent raises :class:`RecordError`."""
    r = _Reader(data, "state")
    r.check_format(STATE_FORMAT)
    try:
        options = GameOptions.from_json(r.get("options"))
    except RoyalRevengeError as error:
        raise RecordError(f"state: options: {error}") from None
    n = options.players
    hands_data = r.get("hands")
    if not isinstance(hands_data, list) or len(hands_data) != n:
        raise RecordError(f"state: hands must be a list of {n} hands")
    state = GameState._blank()
    state.options = options
    state.players = n
    state.hands = [r.cards(f"hands[{i}]", hand) for i, hand in enumerate(hands_data)]
    state.draw_pile = r.cards("draw_pile")
    state.discard = r.cards("discard")
    every = [card for hand in state.hands for card in hand] + state.draw_pile + state.discard
    if Counter(every) != Counter(FULL_DECK):
        raise RecordError("state: the hands and piles do not hold exactly the 56 cards of the deck")
    if not state.discard:
        raise RecordError("state: the discard pile is empty")
    colour = r.get("active_colour")
    try:
        state.active_colour = None if colour is None else Colour.parse(colour) if isinstance(colour, str) else None
    except NotationError as error:
        raise RecordError(f"state: active_colour: {error}") from None
    if colour is not None and state.active_colour is None:
        raise RecordError(f"state: active_colour must be a colour letter, not {colour!r}")
    direction = r.get("direction")
    if type(direction) is not int or direction not in (1, -1):
        raise RecordError(f"state: direction must be 1 or -1, not {direction!r}")
    state.direction = direction
    seat_max = n - 1
    state.king = r.int("king", 0, seat_max)
    state.jester = r.int("jester", 0, seat_max, optional=True)
    state.dealer = r.int("dealer", 0, seat_max)
    state.current = r.int("current", 0, seat_max)
    decision = r.get("decision")
    names = {d.name.lower(): d for d in Decision}
    if not isinstance(decision, str) or decision not in names:
        raise RecordError(f"state: decision must be one of {', '.join(names)}, not {decision!r}")
    state.decision = names[decision]
    state.decider = r.int("decider", 0, seat_max, optional=True)
    drawn = r.get("drawn")
    state.drawn = None if drawn is None else r.cards("drawn", [drawn])[0]
    state.resolving = r.int("resolving", -1, seat_max)
    state.jester_for_setup = r.bool("jester_for_setup")
    state.uno_seat = r.int("uno_seat", 0, seat_max, optional=True)
    state.fanfare_queued = r.bool("fanfare_queued")
    state.scepter_running = r.bool("scepter_running")
    state.scepter_left = r.int("scepter_left", 0, 10**9, optional=True)
    state.turns_since_scepter = r.int("turns_since_scepter", 0, 10**12)
    state.passes = r.int("passes", 0, (1 << n) - 1)
    scores = r.get("scores")
    if not isinstance(scores, list) or len(scores) != n or not all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in scores
    ):
        raise RecordError(f"state: scores must be {n} whole numbers")
    state.scores = list(scores)
    state.round_no = r.int("round_no", 1, 10**9)
    state.last_round = _round_from_json(r.get("last_round"), n)
    state.result = _outcome_from_json(r.get("outcome"), n)
    rng = r.get("rng")
    if not isinstance(rng, str) or not _HEX16.fullmatch(rng):
        raise RecordError(f"state: rng must be 16 hex digits, not {rng!r}")
    state.rng = int(rng, 16)
    state._events = None
    _check_consistency(state)
    return state


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


def _check_consistency(state: GameState) -> None:
    """Refuse states the rules could never reach in ways that would break the engine."""
    decision = state.decision
    if decision < Decision.ROUND_OVER and state.decider is None:
        raise RecordError(f"state: a {decision.name.lower()} decision needs a decider")
    if decision is Decision.DRAWN:
        if state.drawn is None or state.decider is None or state.drawn not in state.hands[state.decider]:
            raise RecordError("state: the drawn card must be in its drawer's hand")
    elif state.drawn is not None:
        raise RecordError("state: a drawn card is recorded outside a drawn-card decision")
    choosing = decision in (Decision.COLOUR, Decision.ROUND_OVER, Decision.GAME_OVER) or (
        decision is Decision.JESTER and state.discard[-1].colour is None
    )
    if state.active_colour is None and not choosing:
        raise RecordError("state: no active colour, yet no colour is being chosen")
    if decision >= Decision.COLOUR and decision <= Decision.JESTER and state.decider != state.king:
        raise RecordError("state: the King's decisions must be the King's")
    if decision is Decision.JESTER and not state.jester_for_setup and state.jester is None:
        raise RecordError("state: a Jester must exist after the first round's setup")
    if decision < Decision.JESTER and state.jester is None:
        raise RecordError("state: play cannot go on before the Jester is chosen")
    if (decision is Decision.GAME_OVER) != (state.result is not None):
        raise RecordError("state: an outcome is recorded exactly when the game is over")


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
