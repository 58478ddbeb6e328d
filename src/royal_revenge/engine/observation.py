"""What one player may see (R-DIGITAL-2), and states sampled to agree with it.

An :class:`Observation` holds the observer's own hand and the public facts: the discard
pile (every card in it was played face up), the active colour, each hand's size, scores,
King, Jester, direction, whose decision is pending, whether someone may be caught
without UNO, and the round's public history (every play, draw, keep, pass, choice, call,
catch and fanfare everyone saw: engine/events.py, ``RECORDED``). It never holds another
hand, the draw pile's order, the scepter's schedule, or the generator's state.

Search bots use :meth:`Observation.sample_state` (determinization): a full
:class:`GameState` that agrees with everything the observer knows, with the hidden cards
dealt at random among the other hands and the draw pile.
"""

from __future__ import annotations

import copy
import operator
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import CARD_TEXT, FULL_DECK, Card, Colour
from .events import Event, HistoryEntry, from_entry
from .fields import STATE_FIELDS, Form, Seen
from .options import GameOptions
from .records import writer
from .state import DRAWN, Decision, GameState, Outcome, Pending, RoundResult

__all__ = ["History", "Observation", "PublicJSON", "observation_json", "own_json"]

# What an observation shows as it is (engine/fields.py: seen by everyone), as (the state's name, the
# observation's name, the form); the hands, the draw pile, the drawn card and the pending decision
# are shown in their own ways below, and the hidden fields not at all.
_SHOWN: Final = tuple(
    (f.name, f.observed_as or f.name, f.form)
    for f in STATE_FIELDS
    if f.seen is Seen.PUBLIC and f.form is not Form.PLAYERS and f.observed_as != "pending"
)
_PLAIN_FORMS: Final = (Form.SEAT, Form.SEAT_OR_NONE, Form.SEAT_OR_SETUP, Form.DIRECTION, Form.FLAG, Form.COUNT,
                       Form.ROUND_NUMBER, Form.SEAT_SET)
_PLAIN: Final = tuple(name for name, shown, form in _SHOWN if form in _PLAIN_FORMS)
_IN_JSON: Final = tuple(item for item in _SHOWN if item[2] is not Form.HISTORY)
"""The shown fields an observation's JSON holds: all but the history (clients are sent the table's log as it
happens, not the whole round's at every move)."""
_WRITTEN_AS: Final = tuple((shown, writer(form)) for name, shown, form in _IN_JSON)
"""The keys of :data:`_IN_JSON` with the function that writes each as JSON (``None``: as it is)."""
_READ_JSON_FROM_STATE: Final = operator.attrgetter(*[name for name, _, _ in _IN_JSON])
_READ_JSON_FROM_OBSERVATION: Final = operator.attrgetter(*[shown for _, shown, _ in _IN_JSON])
_OPTIONS_WRITER: Final = writer(Form.OPTIONS)
_READ_SHOWN: Final = operator.attrgetter(*[name for name, _, _ in _SHOWN])
"""The shown fields' values read from a state, at once (a single C call)."""
_READ_OBSERVED: Final = operator.attrgetter(*[shown for _, shown, _ in _SHOWN])
_LISTS_SHOWN: Final = tuple(index for index, (_, _, form) in enumerate(_SHOWN) if form in (Form.CARDS, Form.POINTS))
_HISTORY_SHOWN: Final = next(index for index, (_, _, form) in enumerate(_SHOWN) if form is Form.HISTORY)
"""Where the shown values are lists in a state (tuples in an observation)."""
"""The shown fields that are plain numbers or flags (their JSON is the value itself)."""


def _thawed(value: Any) -> Any:
    if isinstance(value, History):
        return value.entries
    return list(value) if isinstance(value, tuple) else value


class History:
    """A round's public history as an observation shows it: its events, oldest first, read only.

    It behaves as a tuple of events (``len``, indexing, slicing, iteration, equality with a
    tuple or list of the same events), made from the state's entries (events.HistoryEntry) as
    they are read, without copying them: a round's history only grows (a new round starts a new
    list), so its first ``length`` entries never change.
    """

    __slots__ = ("_entries", "_length")

    def __init__(self, entries: list[HistoryEntry], length: int | None = None) -> None:
        self._entries = entries
        self._length = len(entries) if length is None else length

    @property
    def entries(self) -> list[HistoryEntry]:
        """The entries themselves (a new list): each event's name and its fields."""
        return self._entries[: self._length]

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return tuple([from_entry(entry) for entry in self._entries[: self._length][index]])
        if not -self._length <= index < self._length:
            raise IndexError("history index out of range")
        return from_entry(self._entries[index if index >= 0 else self._length + index])

    def __iter__(self) -> Iterator[Event]:
        entries = self._entries
        for index in range(self._length):
            yield from_entry(entries[index])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            return self._length == other._length and (
                self._entries is other._entries or self.entries == other.entries
            )
        if isinstance(other, (tuple, list)):
            return len(other) == self._length and list(self) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._entries[: self._length]))

    def __repr__(self) -> str:
        return f"History({list(self)!r})"


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a game (``seat`` is ``None`` for a spectator, whose ``hand`` is empty)."""

    # First what the observer sees in their own way, then the public fields in the order of
    # engine/fields.py (Observation.of fills them in that order; tests/engine/test_fields.py checks it).
    seat: int | None
    hand: tuple[Card, ...]
    draw_pile_size: int
    hand_sizes: tuple[int, ...]
    pending: Pending
    drawn: Card | None
    """The card the observer just drew, while they decide to play or keep it."""
    options: GameOptions
    discard_pile: tuple[Card, ...]
    """Bottom to top; everything in it was seen when played."""
    active_colour: Colour | None
    direction: int
    king: int
    jester: int | None
    dealer: int
    current: int
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
    scores: tuple[int, ...]
    round_no: int
    last_round: RoundResult | None
    outcome: Outcome | None
    history: History
    """This round's public events, oldest first: what everyone at the table has seen (engine/events.py,
    ``RECORDED``; draws with the top card and colour they were drawn on, never the cards)."""

    @classmethod
    def of(cls, state: GameState, seat: object) -> Observation:
        """The view of ``state`` from ``seat`` (an ``int``, or ``None`` for a spectator).

        (``seat`` is typed ``object`` so that the compiled build refuses a wrong one with the
        engine's ``ValueError`` rather than a ``TypeError`` of its own.)
        """
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players):
            raise ValueError(f"there is no seat {seat!r} at a table of {state.players}")
        own = seat is not None and state.decision is DRAWN and state.decider == seat
        shown = list(_READ_SHOWN(state))
        for index in _LISTS_SHOWN:
            shown[index] = tuple(shown[index])
        shown[_HISTORY_SHOWN] = History(shown[_HISTORY_SHOWN])
        return cls(
            seat,
            tuple(state.hands[seat]) if seat is not None else (),
            len(state.draw_pile),
            tuple([len(hand) for hand in state.hands]),
            Pending(state.decision, state.decider),
            state.drawn if own else None,
            *shown,
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

    def sample_state(self, rng: random.Random, hands: Sequence[Sequence[Card]] | None = None) -> GameState:
        """A full state that agrees with this observation, hidden cards dealt at random by ``rng``.

        Other hands get the right number of unseen cards, the rest form the draw pile in a
        random order, the scepter's remaining turns are drawn among those still possible, and
        the new state's own generator is seeded from ``rng``.

        ``hands`` gives the other hands instead (one per seat, in the order received; the
        observer's own is ignored), for a bot that deals them its own way, such as one that
        infers them from the history: each must have its seat's size, and together they must be
        unseen cards, or ``ValueError`` says what is wrong.
        """
        pool = self.unseen_cards()
        rng.shuffle(pool)
        n = self.options.players
        if hands is not None:
            return self._sample_with(rng, pool, hands)
        dealt: list[list[Card]] = []
        for seat in range(n):
            if seat == self.seat:
                dealt.append(list(self.hand))
            else:
                size = self.hand_sizes[seat]
                dealt.append(pool[:size])
                del pool[:size]
        return self._sampled(rng, dealt, pool)

    def _sample_with(self, rng: random.Random, pool: list[Card], hands: Sequence[Sequence[Card]]) -> GameState:
        """:meth:`sample_state` with the other hands given (checked against what the observer knows)."""
        n = self.options.players
        if len(hands) != n:
            raise ValueError(f"hands must give one hand per seat ({n}), not {len(hands)}")
        left = Counter(pool)
        dealt: list[list[Card]] = []
        for seat in range(n):
            if seat == self.seat:
                dealt.append(list(self.hand))
                continue
            hand = list(hands[seat])
            if len(hand) != self.hand_sizes[seat]:
                raise ValueError(f"seat {seat} holds {self.hand_sizes[seat]} cards, not {len(hand)}")
            left.subtract(hand)
            dealt.append(hand)
        if any(count < 0 for count in left.values()):
            raise ValueError("the hands given hold cards the observer has seen elsewhere, or too many of a card")
        # The rest, in the pool's random order, is the draw pile.
        rest = []
        for card in pool:
            if left[card] > 0:
                left[card] -= 1
                rest.append(card)
        return self._sampled(rng, dealt, rest)

    def _sampled(self, rng: random.Random, hands: list[list[Card]], pool: list[Card]) -> GameState:
        """The sampled state with these hands and this draw pile (top last)."""
        n = self.options.players
        drawn: Card | None = None
        if self.pending.kind is Decision.DRAWN:
            drawer = self.pending.seat
            assert drawer is not None
            # The drawn card is the last one its drawer received.
            drawn = self.drawn if drawer == self.seat else hands[drawer][-1]
        turns = self.options.scepter_turns
        scepter_left = None
        if turns is not None and self.scepter_running and not self.fanfare_queued:
            low, high = turns
            scepter_left = rng.randint(max(low, self.turns_since_scepter + 1), high) - self.turns_since_scepter
        values = {name: _thawed(value) for (name, _, _), value in zip(_SHOWN, _READ_OBSERVED(self), strict=True)}
        values.update(
            players=n,
            hands=hands,
            draw_pile=pool,
            decision=self.pending.kind,
            decider=self.pending.seat,
            drawn=drawn,
            scepter_left=scepter_left,
            rng=rng.getrandbits(64),
        )
        return GameState.from_fields(values)

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
    data: dict[str, Any] = {
        "seat": seat,
        "hand": [CARD_TEXT[card] for card in hand],
        "top": CARD_TEXT[discard[-1]],
        "draw_pile_size": draw_pile_size,
        "hand_sizes": list(hand_sizes),
        "pending": {"kind": _DECISION_NAMES[decision], "seat": decider},
        "drawn": CARD_TEXT[drawn] if drawn is not None else None,
    }
    values = _READ_JSON_FROM_STATE(source) if isinstance(source, GameState) else _READ_JSON_FROM_OBSERVATION(source)
    for (shown, write), value in zip(_WRITTEN_AS, values, strict=True):
        if write is None:
            data[shown] = value
        elif write is _OPTIONS_WRITER and share:
            data[shown] = _options_json(value)
        else:
            data[shown] = write(value)
    return data


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
        # The plain numbers and flags (seats, counts, the direction): a changed one replaces the old value.
        for name in _PLAIN:
            value = getattr(state, name)
            if value != previous[name]:
                data[name] = value
                changed.append(name)
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
