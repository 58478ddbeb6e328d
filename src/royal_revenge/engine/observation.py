"""What one player may see (R-DIGITAL-2), and states sampled to agree with it.

An :class:`Observation` holds the observer's own hand and the public facts: the discard
pile (every card in it was played face up), the active colour, each hand's size, scores,
King, Jester, direction, whose decision is pending, and whether someone may be caught
without UNO. It never holds another hand, the draw pile's order, the scepter's schedule,
or the generator's state.

Search bots use :meth:`Observation.sample_state` (determinization): a full
:class:`GameState` that agrees with everything the observer knows, with the hidden cards
dealt at random among the other hands and the draw pile.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import CARD_TEXT, FULL_DECK, Card, Colour
from .options import GameOptions
from .state import DRAWN, Decision, GameState, Outcome, Pending, RoundResult

__all__ = ["Observation", "PublicJSON", "observation_json", "own_json"]


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a game (``seat`` is ``None`` for a spectator, whose ``hand`` is empty)."""

    seat: int | None
    options: GameOptions
    round_no: int
    dealer: int
    hand: tuple[Card, ...]
    discard_pile: tuple[Card, ...]
    """Bottom to top; everything in it was seen when played."""
    active_colour: Colour | None
    draw_pile_size: int
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    king: int
    jester: int | None
    direction: int
    current: int
    pending: Pending
    drawn: Card | None
    """The card the observer just drew, while they decide to play or keep it."""
    resolving: int
    """Whose card's colour or victim the King is choosing (-1: the start card)."""
    jester_for_setup: bool
    uno_seat: int | None
    """A player who may be caught without UNO now (R-UNO-2)."""
    fanfare_queued: bool
    """The fanfare has sounded (everyone heard it) and waits for a decision to be settled."""
    scepter_running: bool
    turns_since_scepter: int
    passes: int
    last_round: RoundResult | None
    outcome: Outcome | None

    @classmethod
    def of(cls, state: GameState, seat: object) -> Observation:
        """The view of ``state`` from ``seat`` (an ``int``, or ``None`` for a spectator).

        (``seat`` is typed ``object`` so that the compiled build refuses a wrong one with the
        engine's ``ValueError`` rather than a ``TypeError`` of its own.)
        """
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players):
            raise ValueError(f"there is no seat {seat!r} at a table of {state.players}")
        own = seat is not None and state.decision is DRAWN and state.decider == seat
        return cls(
            seat=seat,
            options=state.options,
            round_no=state.round_no,
            dealer=state.dealer,
            hand=tuple(state.hands[seat]) if seat is not None else (),
            discard_pile=tuple(state.discard),
            active_colour=state.active_colour,
            draw_pile_size=len(state.draw_pile),
            hand_sizes=tuple(len(hand) for hand in state.hands),
            scores=tuple(state.scores),
            king=state.king,
            jester=state.jester,
            direction=state.direction,
            current=state.current,
            pending=state.pending,
            drawn=state.drawn if own else None,
            resolving=state.resolving,
            jester_for_setup=state.jester_for_setup,
            uno_seat=state.uno_seat,
            fanfare_queued=state.fanfare_queued,
            scepter_running=state.scepter_running,
            turns_since_scepter=state.turns_since_scepter,
            passes=state.passes,
            last_round=state.last_round,
            outcome=state.result,
        )

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def top(self) -> Card:
        return self.discard_pile[-1]

    def unseen_cards(self) -> list[Card]:
        """The cards the observer cannot place: the deck less their hand and the discard pile."""
        unseen = Counter(FULL_DECK)
        unseen.subtract(self.hand)
        unseen.subtract(self.discard_pile)
        return sorted(unseen.elements())

    def sample_state(self, rng: random.Random) -> GameState:
        """A full state that agrees with this observation, hidden cards dealt at random by ``rng``.

        Other hands get the right number of unseen cards, the rest form the draw pile in a
        random order, the scepter's remaining turns are drawn among those still possible, and
        the new state's own generator is seeded from ``rng``.
        """
        pool = self.unseen_cards()
        rng.shuffle(pool)
        state = GameState._blank()
        state.options = self.options
        n = state.players = self.options.players
        hands: list[list[Card]] = []
        for seat in range(n):
            if seat == self.seat:
                hands.append(list(self.hand))
            else:
                size = self.hand_sizes[seat]
                hands.append(pool[:size])
                del pool[:size]
        state.hands = hands
        state.draw_pile = pool
        state.discard = list(self.discard_pile)
        state.active_colour = self.active_colour
        state.direction = self.direction
        state.king = self.king
        state.jester = self.jester
        state.dealer = self.dealer
        state.current = self.current
        state.decision = self.pending.kind
        state.decider = self.pending.seat
        if self.pending.kind is Decision.DRAWN:
            drawer = self.pending.seat
            assert drawer is not None
            # The drawn card is the last one its drawer received.
            state.drawn = self.drawn if drawer == self.seat else hands[drawer][-1]
        else:
            state.drawn = None
        state.resolving = self.resolving
        state.jester_for_setup = self.jester_for_setup
        state.uno_seat = self.uno_seat
        state.fanfare_queued = self.fanfare_queued
        state.scepter_running = self.scepter_running
        state.turns_since_scepter = self.turns_since_scepter
        turns = self.options.scepter_turns
        if turns is not None and self.scepter_running and not self.fanfare_queued:
            low, high = turns
            total = rng.randint(max(low, self.turns_since_scepter + 1), high)
            state.scepter_left = total - self.turns_since_scepter
        else:
            state.scepter_left = None
        state.passes = self.passes
        state.scores = list(self.scores)
        state.round_no = self.round_no
        state.last_round = self.last_round
        state.result = self.outcome
        state.rng = rng.getrandbits(64)
        state._events = None
        return state

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict in card notation, for clients and logs."""
        return _json(self, self.seat, self.hand, self.discard_pile, self.draw_pile_size, self.hand_sizes,
                     self.pending.kind, self.pending.seat, self.drawn, self.outcome)


def _json(
    source: Observation | GameState,
    seat: int | None,
    hand: Sequence[Card],
    discard: Sequence[Card],
    draw_pile_size: int,
    hand_sizes: Iterable[int],
    decision: Decision,
    decider: int | None,
    drawn: Card | None,
    outcome: Outcome | None,
    share: bool = False,
) -> dict[str, Any]:
    """The one JSON shape of an observation; the fields both sources name alike are read from ``source``.

    With ``share``, the options are one cached object per options (for the public view, which its
    callers copy unless they only read it).
    """
    colour = source.active_colour
    return {
        "seat": seat,
        "options": _options_json(source.options) if share else source.options.to_json(),
        "round_no": source.round_no,
        "dealer": source.dealer,
        "hand": [CARD_TEXT[card] for card in hand],
        "discard_pile": [CARD_TEXT[card] for card in discard],
        "top": CARD_TEXT[discard[-1]],
        "active_colour": colour.letter if colour is not None else None,
        "draw_pile_size": draw_pile_size,
        "hand_sizes": list(hand_sizes),
        "scores": list(source.scores),
        "king": source.king,
        "jester": source.jester,
        "direction": source.direction,
        "current": source.current,
        "pending": {"kind": _DECISION_NAMES[decision], "seat": decider},
        "drawn": str(drawn) if drawn is not None else None,
        "resolving": source.resolving,
        "uno_seat": source.uno_seat,
        "fanfare_queued": source.fanfare_queued,
        "scepter_running": source.scepter_running,
        "turns_since_scepter": source.turns_since_scepter,
        "passes": source.passes,
        "last_round": source.last_round.to_json() if source.last_round else None,
        "outcome": outcome.to_json() if outcome else None,
    }


_DECISION_NAMES: Final = {decision: decision.name.lower() for decision in Decision}


def observation_json(
    state: GameState, seat: int | None, public: dict[str, Any] | None = None, *, share: bool = False
) -> dict[str, Any]:
    """``Observation.of(state, seat).to_json()``, built cheaply when every seat of a table needs its view.

    ``public`` is ``observation_json(state, None)`` of the same state: the spectator's view,
    which a seat's view extends with that seat's own hand (and the card it just drew). Pass
    it to make several seats' views from one. The result shares no list or dict with it,
    unless ``share`` is true: then the public parts are the very same objects (for a caller
    that only reads them, such as a server encoding frames).

    >>> from royal_revenge.engine import GameState, GameOptions
    >>> state = GameState.new(GameOptions(players=3), seed=4)
    >>> public = observation_json(state, None)
    >>> observation_json(state, 1, public) == Observation.of(state, 1).to_json()
    True
    """
    if public is None:
        if seat is not None:
            return Observation.of(state, seat).to_json()
        public = _public_json(state)
        if share:
            return public
    data = public.copy()
    if not share:
        options = data["options"] = public["options"].copy()
        if options["scepter_turns"] is not None:
            options["scepter_turns"] = list(options["scepter_turns"])
        data["discard_pile"] = public["discard_pile"].copy()
        data["hand_sizes"] = public["hand_sizes"].copy()
        data["scores"] = public["scores"].copy()
        data["pending"] = public["pending"].copy()
        if data["last_round"] is not None or data["outcome"] is not None:
            data["last_round"] = copy.deepcopy(data["last_round"])
            data["outcome"] = copy.deepcopy(data["outcome"])
    if seat is not None:
        data.update(own_json(state, seat))
    return data


def own_json(state: GameState, seat: int | None) -> dict[str, Any]:
    """The keys of ``observation_json(state, seat)`` that differ from seat to seat: ``seat``, ``hand`` and
    ``drawn`` (the card ``seat`` just drew, while it decides on it). A spectator's are ``None``, ``[]``, ``None``.

    >>> from royal_revenge.engine import GameState, GameOptions
    >>> state = GameState.new(GameOptions(players=3), seed=4)
    >>> observation_json(state, 2) == {**observation_json(state, None), **own_json(state, 2)}
    True
    """
    if seat is None:
        return {"seat": None, "hand": [], "drawn": None}
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
        raise ValueError(f"there is no seat {seat!r} at a table of {state.players}")
    drawn = state.drawn if state.decision is DRAWN and state.decider == seat else None
    return {"seat": seat, "hand": [CARD_TEXT[card] for card in state.hands[seat]],
            "drawn": CARD_TEXT[drawn] if drawn is not None else None}


def _public_json(state: GameState) -> dict[str, Any]:
    """``Observation.of(state, None).to_json()`` read straight from the state (no Observation built).

    The server builds it once per change for every view; tests/engine check that it equals the
    Observation's at every step of whole games.
    """
    return _json(state, None, (), state.discard, len(state.draw_pile), map(len, state.hands),
                 state.decision, state.decider, None, state.result, share=True)


class PublicJSON:
    """The spectator's view of one game as JSON (``observation_json(state, None)``), made again after every change
    from the one made before it.

    :meth:`of` returns a new dict each time the state changed (never one handed out before,
    changed), in which every value that did not change is the very same object as in the
    previous one: the discard pile, the hand sizes, the scores, the pending decision, the
    options, the last round's result. Comparing two consecutive views key by key then costs an
    identity check for most keys (a server works out what changed for every connection), and
    building one costs only the changed values. The dicts are shared: read them, never change
    them.

    >>> from royal_revenge.engine import GameState, GameOptions
    >>> state = GameState.new(GameOptions(players=3), seed=4)
    >>> views = PublicJSON()
    >>> first = views.of(state)
    >>> first == observation_json(state, None)
    True
    >>> _ = state.apply(state.decider, state.legal_actions(state.decider)[0])
    >>> second = views.of(state)
    >>> second == observation_json(state, None), second["options"] is first["options"]
    (True, True)
    """

    __slots__ = ("_before", "_changed", "_data", "_discard", "_discard_length", "_last_round", "_result", "_state")

    def __init__(self) -> None:
        self._data: dict[str, Any] | None = None
        self._before: dict[str, Any] | None = None
        self._changed: list[str] = []
        """The view made before the latest one, and the keys whose values differ between them."""
        self._state: GameState | None = None
        self._discard: list[Card] | None = None
        self._discard_length = -1
        self._last_round: RoundResult | None = None
        self._result: Outcome | None = None

    def of(self, state: GameState) -> dict[str, Any]:
        """The view of ``state`` now (read only)."""
        previous = self._data
        if previous is None or state is not self._state:
            data = _public_json(state)
            self._remember(state, data)
            return data
        data = previous.copy()
        changed: list[str] = []
        # (The discard pile only grows in place, or is replaced by a new list: its identity and length say it all.)
        discard = state.discard
        if discard is not self._discard or len(discard) != self._discard_length:
            before: list[str] = previous["discard_pile"]
            if discard is self._discard and len(discard) > self._discard_length:  # cards played on it
                pile = before + [CARD_TEXT[card] for card in discard[self._discard_length:]]
            else:
                pile = [CARD_TEXT[card] for card in discard]
            if pile != before:  # (a new round may start with an equal pile)
                data["discard_pile"] = pile
                changed.append("discard_pile")
            top = CARD_TEXT[discard[-1]]
            if top != previous["top"]:  # (a reshuffle keeps the top card)
                data["top"] = top
                changed.append("top")
            self._discard, self._discard_length = discard, len(discard)
        colour = state.active_colour
        letter = colour.letter if colour is not None else None
        if letter != previous["active_colour"]:
            data["active_colour"] = letter
            changed.append("active_colour")
        sizes: list[int] = previous["hand_sizes"]
        hands = state.hands
        for seat in range(len(hands)):
            if len(hands[seat]) != sizes[seat]:
                data["hand_sizes"] = [len(hand) for hand in hands]
                changed.append("hand_sizes")
                break
        if state.scores != previous["scores"]:
            data["scores"] = list(state.scores)
            changed.append("scores")
        pending: dict[str, Any] = previous["pending"]
        kind = _DECISION_NAMES[state.decision]
        if kind != pending["kind"] or state.decider != pending["seat"]:
            data["pending"] = {"kind": kind, "seat": state.decider}
            changed.append("pending")
        if state.last_round is not self._last_round:
            self._last_round = state.last_round
            last_round = state.last_round.to_json() if state.last_round else None
            if last_round != previous["last_round"]:
                data["last_round"] = last_round
                changed.append("last_round")
        if state.result is not self._result:
            self._result = state.result
            outcome = state.result.to_json() if state.result else None
            if outcome != previous["outcome"]:
                data["outcome"] = outcome
                changed.append("outcome")
        draw_pile_size = len(state.draw_pile)
        if draw_pile_size != previous["draw_pile_size"]:
            data["draw_pile_size"] = draw_pile_size
            changed.append("draw_pile_size")
        # The plain numbers and flags: a changed one replaces the old value (written out for the compiled build).
        if state.round_no != previous["round_no"]:
            data["round_no"] = state.round_no
            changed.append("round_no")
        if state.dealer != previous["dealer"]:
            data["dealer"] = state.dealer
            changed.append("dealer")
        if state.king != previous["king"]:
            data["king"] = state.king
            changed.append("king")
        if state.jester != previous["jester"]:
            data["jester"] = state.jester
            changed.append("jester")
        if state.direction != previous["direction"]:
            data["direction"] = state.direction
            changed.append("direction")
        if state.current != previous["current"]:
            data["current"] = state.current
            changed.append("current")
        if state.resolving != previous["resolving"]:
            data["resolving"] = state.resolving
            changed.append("resolving")
        if state.uno_seat != previous["uno_seat"]:
            data["uno_seat"] = state.uno_seat
            changed.append("uno_seat")
        if state.fanfare_queued != previous["fanfare_queued"]:
            data["fanfare_queued"] = state.fanfare_queued
            changed.append("fanfare_queued")
        if state.scepter_running != previous["scepter_running"]:
            data["scepter_running"] = state.scepter_running
            changed.append("scepter_running")
        if state.turns_since_scepter != previous["turns_since_scepter"]:
            data["turns_since_scepter"] = state.turns_since_scepter
            changed.append("turns_since_scepter")
        if state.passes != previous["passes"]:
            data["passes"] = state.passes
            changed.append("passes")
        if not changed:
            return previous
        self._before, self._data, self._changed = previous, data, changed
        return data

    def changes(self, before: dict[str, Any]) -> list[str] | None:
        """The keys whose values differ between ``before`` and the latest view, if ``before`` is the view made
        just before it (or the latest itself: then none); ``None`` otherwise (compare them key by key)."""
        if before is self._data:
            return []
        return self._changed if before is self._before else None


    def _remember(self, state: GameState, data: dict[str, Any]) -> None:
        self._data, self._state, self._before, self._changed = data, state, None, []
        self._discard, self._discard_length = state.discard, len(state.discard)
        self._last_round, self._result = state.last_round, state.result


def _options_json(options: GameOptions) -> dict[str, Any]:
    """``options.to_json()``, built once per options object (read only)."""
    cached = _OPTIONS_JSON.get(id(options))
    if cached is None or cached[0] is not options:
        if len(_OPTIONS_JSON) > 256:
            _OPTIONS_JSON.clear()
        cached = _OPTIONS_JSON[id(options)] = (options, options.to_json())
    return cached[1]


_OPTIONS_JSON: Final[dict[int, tuple[GameOptions, dict[str, Any]]]] = {}
"""Options' JSON by ``id``, each with its options object (kept alive, so an id is never reused meanwhile)."""
