"""The game state and the rules: the one place where legality is decided.

A :class:`GameState` is a whole game of UNO Royal Revenge: rounds, scores, the Crown, the
Jester Hat and the turn-counted scepter. It changes only through :meth:`GameState.apply`
(which returns what happened as events) or :meth:`GameState.step` (the same without
events, for simulations). An illegal action raises :class:`IllegalActionError`, naming the
rule that forbids it, and leaves the state exactly as it was.

Whose turn it is (``current``) and who must decide now (``pending``) are separate
(R-DIGITAL-1): the King chooses colours, victims and Jesters out of turn, and anyone may
call or catch UNO while the window is open.

>>> from royal_revenge.engine import GameState, GameOptions
>>> game = GameState.new(GameOptions(players=3), seed=7, first_king=2)
>>> game.pending
Pending(kind=<Decision.JESTER: 4>, seat=2)
>>> game.legal_actions(2)
[ChooseJester(seat=0), ChooseJester(seat=1)]
>>> events = game.apply(2, ChooseJester(0))
>>> game.jester, game.pending.kind.name in ("TURN", "COLOUR", "VICTIM")
(0, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Final, NamedTuple, overload

from . import events as ev
from . import rng
from .actions import (
    CALL_UNO,
    CATCHES,
    COLOURS,
    DRAW,
    FANFARE,
    JESTERS,
    KEEP,
    NEXT_ROUND,
    PLAYS,
    PLAYS_UNO,
    VICTIMS,
    AnyAction,
    CallUno,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Draw,
    Fanfare,
    Keep,
    Move,
    NextRound,
    Play,
)
from .cards import (
    ALL_CARDS,
    COLOUR_OF,
    FULL_DECK,
    KIND_OF,
    NUMBER_OF,
    PLAYABLE,
    POINTS_OF,
    WILD,
    Card,
    Colour,
    Kind,
)
from .errors import IllegalActionError, OptionsError
from .options import GameOptions, Scoring

if TYPE_CHECKING:
    from .observation import Observation

__all__ = ["Decision", "Pending", "RoundResult", "Outcome", "GameState", "HAND_SIZE"]

HAND_SIZE: Final = 7

_NUMBER: Final = Kind.NUMBER
_REVERSE: Final = Kind.REVERSE
_SKIP: Final = Kind.SKIP
_KINGS_CHOICE: Final = Kind.KINGS_CHOICE
_JESTER: Final = Kind.JESTER
_WILD: Final = Kind.WILD
_WILD_CODE: Final = int(WILD)
_SETUP: Final = -1  # a colour or victim chosen for the start card, not for a played card
_BLANK: Final = object()  # the key to GameState(): only the engine's own constructors make blank states

# The tables and shared actions of the hot paths, as module constants of this module (compiled,
# they are read directly instead of being looked up among the module's globals at every use).
_PLAYABLE: Final = PLAYABLE
_PLAYABLE_BYTES: Final = tuple(bytes(row) for row in PLAYABLE)  # (compiled: a byte read, not a bool object)
_KIND_OF: Final = KIND_OF
_COLOUR_OF: Final = COLOUR_OF
_CARD: Final = Card
_PLAY: Final = Play
_DRAW_TYPE: Final = Draw
_KEEP_TYPE: Final = Keep
_JESTER_TYPE: Final = ChooseJester
_COLOUR_TYPE: Final = ChooseColour
_VICTIM_TYPE: Final = ChooseVictim
_CATCH_TYPE: Final = Catch
_CALL_UNO_TYPE: Final = CallUno
_PLAYS: Final = PLAYS
_PLAYS_UNO: Final = PLAYS_UNO
_DRAW: Final = DRAW
_KEEP: Final = KEEP
# _JESTER_CHOICES[players][king]: the seats a King may make the Jester, as shared actions.
_JESTER_CHOICES: Final = tuple(
    tuple(tuple(JESTERS[s] for s in range(n) if s != king) for king in range(n)) for n in range(7)
)


class Decision(IntEnum):
    """The kind of decision the game is waiting for."""

    TURN = 0
    """The player whose turn it is plays a card or draws (R-TURN-2)."""
    DRAWN = 1
    """That player plays the card just drawn, if it is playable, or keeps it (R-TURN-3)."""
    COLOUR = 2
    """The King chooses the colour for a Wild (R-ACT-WILD)."""
    VICTIM = 3
    """The King chooses who draws for a King's Choice (R-ACT-KC)."""
    JESTER = 4
    """The King chooses the Jester (R-SETUP-5, R-KING-2, R-KING-4)."""
    ROUND_OVER = 5
    """The round is scored; the table deals the next one with ``deal`` (R-SCORE-2)."""
    GAME_OVER = 6
    """Someone reached the target (R-SCORE-3, R-SCORE-4); see :meth:`GameState.outcome`."""


TURN: Final = Decision.TURN
DRAWN: Final = Decision.DRAWN
COLOUR: Final = Decision.COLOUR
VICTIM: Final = Decision.VICTIM
JESTER: Final = Decision.JESTER
ROUND_OVER: Final = Decision.ROUND_OVER
GAME_OVER: Final = Decision.GAME_OVER


class Pending(NamedTuple):
    """Who must decide what; ``seat`` is ``None`` when the table itself acts (``deal``)."""

    kind: Decision
    seat: int | None


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended (R-SCORE-1, R-TURN-6)."""

    round_no: int
    winner: int
    blocked: bool
    """True when the round ended in a stalemate (R-TURN-6)."""
    points: int
    """What the round was worth: the points left in the opponents' hands."""
    hand_points: tuple[int, ...]
    """Points left in each hand at the end."""

    def to_json(self) -> dict[str, Any]:
        return {
            "round_no": self.round_no,
            "winner": self.winner,
            "blocked": self.blocked,
            "points": self.points,
            "hand_points": list(self.hand_points),
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: the winners (several only for a shared lowest tally) and the scores."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "scores": list(self.scores)}


# The fields that make up a state (every slot but the event list), compared by ``==``.
_FIELDS: Final = (
    "active_colour",
    "current",
    "dealer",
    "decider",
    "decision",
    "direction",
    "discard",
    "draw_pile",
    "drawn",
    "fanfare_queued",
    "hands",
    "jester",
    "jester_for_setup",
    "king",
    "last_round",
    "options",
    "passes",
    "players",
    "resolving",
    "result",
    "rng",
    "round_no",
    "scepter_left",
    "scepter_running",
    "scores",
    "turns_since_scepter",
    "uno_seat",
)

_KIND_NAMES: Final = {
    TURN: "play or draw",
    DRAWN: "play or keep the card just drawn",
    COLOUR: "choose the colour for the Wild",
    VICTIM: "choose who draws for the King's Choice",
    JESTER: "choose the Jester",
}


class GameState:
    """A whole game: create it with :meth:`new`, read it, and change it only with :meth:`apply`.

    The attributes are public to read; changing them directly bypasses the rules. Other
    layers that must not see hidden cards take an :meth:`observe` view instead.
    """

    __slots__ = (
        "_events",
        "active_colour",
        "current",
        "dealer",
        "decider",
        "decision",
        "direction",
        "discard",
        "draw_pile",
        "drawn",
        "fanfare_queued",
        "hands",
        "jester",
        "jester_for_setup",
        "king",
        "last_round",
        "options",
        "passes",
        "players",
        "resolving",
        "result",
        "rng",
        "round_no",
        "scepter_left",
        "scepter_running",
        "scores",
        "turns_since_scepter",
        "uno_seat",
    )

    options: GameOptions
    players: int
    hands: list[list[Card]]
    """Each seat's hand, in the order the cards were received."""
    draw_pile: list[Card]
    """The draw pile; its top is the last element."""
    discard: list[Card]
    """The discard pile; its top is the last element."""
    active_colour: Colour | None
    """The colour to match (R-TURN-1); ``None`` only while a Wild's colour is being chosen."""
    direction: int
    """+1 while play moves left (to higher seats), -1 after an odd number of Reverses."""
    king: int
    jester: int | None
    """``None`` only before the first Jester is chosen."""
    dealer: int
    current: int
    """Whose turn it is (or was, while someone else decides)."""
    decision: Decision
    decider: int | None
    drawn: Card | None
    """The card just drawn, while its drawer decides to play or keep it."""
    resolving: int
    """The seat whose card's colour or victim is being chosen, or -1 for the start card."""
    jester_for_setup: bool
    """The Jester being chosen starts a round (the start card's effect follows)."""
    uno_seat: int | None
    """The player who played their next-to-last card without calling UNO, while the window is open."""
    fanfare_queued: bool
    """The scepter has sounded and the fanfare waits for a decision to be settled (R-KING-3)."""
    scepter_running: bool
    scepter_left: int | None
    """Turns until the turn-counted scepter sounds (hidden from players); ``None`` when off."""
    turns_since_scepter: int
    passes: int
    """Bitmask of the seats that passed since the last card was played or drawn (R-TURN-6)."""
    scores: list[int]
    round_no: int
    last_round: RoundResult | None
    result: Outcome | None
    rng: int
    """The state of the seeded SplitMix64 generator used for every shuffle and random choice."""
    _events: list[ev.Event] | None

    # ------------------------------------------------------------------ creation

    def __init__(self, _key: object = None) -> None:
        """Not a way to start a game: use :meth:`new` (or a record, :func:`~royal_revenge.engine.state_from_json`).

        A bare ``GameState()`` would be a state with no fields, so it is refused; the engine's own
        constructors make one with :meth:`_blank` and fill in every field.
        """
        if _key is not _BLANK:
            raise TypeError(
                "GameState() does not make a game: use GameState.new(options, seed) or state_from_json(data)"
            )

    @classmethod
    def _blank(cls) -> GameState:
        """A state with no field set yet, for the engine's constructors (``new``, records, positions)."""
        return cls(_BLANK)

    @overload
    @classmethod
    def new(
        cls,
        options: GameOptions,
        seed: int = 0,
        *,
        ages: Sequence[int | None] | None = None,
        first_king: int | None = None,
        events: list[ev.Event] | None = None,
    ) -> GameState: ...
    @overload
    @classmethod
    def new(
        cls,
        options: None = None,
        seed: int = 0,
        *,
        ages: Sequence[int | None] | None = None,
        first_king: int | None = None,
        events: list[ev.Event] | None = None,
    ) -> GameState: ...
    @classmethod
    def new(
        cls,
        options: object = None,
        seed: object = 0,
        *,
        ages: object = None,
        first_king: object = None,
        events: list[ev.Event] | None = None,
    ) -> GameState:
        """Set up a game (R-SETUP-1..4): draw for the dealer, deal, turn the start card, crown the first King.

        ``seed`` is the only source of randomness. ``ages`` (one per seat, ``None`` when not
        given) makes the youngest the first King, at random among ties; with no ages at all
        the first King is drawn at random; ``first_king`` names the King outright. The game
        then waits for the King to choose a Jester. Setup events are appended to ``events``.
        """
        options = GameOptions() if options is None else options
        if not isinstance(options, GameOptions):
            raise OptionsError(f"options must be GameOptions, not {type(options).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise OptionsError(f"seed must be a whole number, not {seed!r}")
        n = options.players
        # (the parameters are untyped at run time so that the compiled build refuses bad input with
        # OptionsError too, instead of its own TypeError: the overloads above keep the static types)
        if ages is not None:
            if not isinstance(ages, Sequence) or isinstance(ages, str):
                raise OptionsError(f"ages must be a list with one entry per seat, not {ages!r}")
            given: list[object] = list(ages)
            if len(given) != n:
                raise OptionsError(f"ages must give one entry per seat ({n}), not {len(given)}")
            for age in given:
                if age is not None and (isinstance(age, bool) or not isinstance(age, int) or not 0 <= age <= 150):
                    raise OptionsError(f"an age must be a whole number from 0 to 150 or missing, not {age!r}")
        if first_king is not None and (
            isinstance(first_king, bool) or not isinstance(first_king, int) or not 0 <= first_king < n
        ):
            raise OptionsError(f"first_king must be a seat from 0 to {n - 1}, not {first_king!r}")

        state = cls._blank()
        state.options = options
        state.players = n
        state.hands = [[] for _ in range(n)]
        state.draw_pile = []
        state.discard = []
        state.active_colour = None
        state.direction = 1
        state.king = 0
        state.jester = None
        state.dealer = 0
        state.current = 0
        state.decision = JESTER
        state.decider = None
        state.drawn = None
        state.resolving = _SETUP
        state.jester_for_setup = True
        state.uno_seat = None
        state.fanfare_queued = False
        state.scepter_running = False
        state.scepter_left = None
        state.turns_since_scepter = 0
        state.passes = 0
        state.scores = [0] * n
        state.round_no = 1
        state.last_round = None
        state.result = None
        state.rng = seed & rng.MASK64
        state._events = events

        state.dealer = state._draw_for_dealer()
        if isinstance(first_king, int):
            king = first_king
        else:
            seat_ages = [age if isinstance(age, int) else None for age in given] if ages is not None else [None] * n
            known = [age for age in seat_ages if age is not None]
            candidates = [s for s in range(n) if seat_ages[s] == min(known)] if known else list(range(n))
            king = candidates[state._rand_below(len(candidates))]
        state.king = king
        state._deal()
        state._events = None
        return state

    def copy(self) -> GameState:
        """An independent copy (a few list copies; no deepcopy)."""
        other = GameState(_BLANK)
        other.options = self.options
        other.players = self.players
        other.hands = list(map(list.copy, self.hands))
        other.draw_pile = self.draw_pile.copy()
        other.discard = self.discard.copy()
        other.active_colour = self.active_colour
        other.direction = self.direction
        other.king = self.king
        other.jester = self.jester
        other.dealer = self.dealer
        other.current = self.current
        other.decision = self.decision
        other.decider = self.decider
        other.drawn = self.drawn
        other.resolving = self.resolving
        other.jester_for_setup = self.jester_for_setup
        other.uno_seat = self.uno_seat
        other.fanfare_queued = self.fanfare_queued
        other.scepter_running = self.scepter_running
        other.scepter_left = self.scepter_left
        other.turns_since_scepter = self.turns_since_scepter
        other.passes = self.passes
        other.scores = self.scores.copy()
        other.round_no = self.round_no
        other.last_round = self.last_round
        other.result = self.result
        other.rng = self.rng
        other._events = None
        return other

    def __copy__(self) -> GameState:
        return self.copy()

    # ------------------------------------------------------------------ reading

    @property
    def pending(self) -> Pending:
        """Who must decide what now (R-DIGITAL-1)."""
        return Pending(self.decision, self.decider)

    @property
    def top(self) -> Card:
        """The top card of the discard pile."""
        return self.discard[-1]

    def is_over(self) -> bool:
        return self.decision is GAME_OVER

    def outcome(self) -> Outcome | None:
        """The end of the game as data, or ``None`` while it goes on."""
        return self.result

    def hand_points(self, seat: int) -> int:
        return sum(POINTS_OF[card] for card in self.hands[seat])

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` places from ``seat`` in the direction of play."""
        return (seat + steps * self.direction) % self.players

    def is_playable(self, card: Card) -> bool:
        """Whether ``card`` may be played on the discard pile now (R-TURN-1)."""
        return PLAYABLE[self._match_key()][card]

    # The public entry points take whatever a caller sends and refuse a bad seat or action with the
    # engine's own errors; the overloads give their static types. (Compiled with mypyc, a parameter
    # annotated ``int`` would refuse a string with a TypeError before the engine could explain.)

    @overload
    def observe(self, seat: int) -> Observation: ...
    @overload
    def observe(self, seat: None) -> Observation: ...
    def observe(self, seat: object) -> Observation:
        """What ``seat`` may see (R-DIGITAL-2); ``None`` is a spectator, who sees no hand."""
        from .observation import Observation

        return Observation.of(self, seat)  # (it checks the seat)

    def legal_actions(self, seat: int | None) -> list[AnyAction]:
        """Every action ``seat`` may take now; ``None`` asks for the table's own actions.

        A seat's list holds its part of the pending decision (if it is the one deciding),
        then the UNO call or the catch it may make. The table may ``deal`` after a round
        and may sound the scepter while it runs.
        """
        if seat is None:
            if self.decision is ROUND_OVER:
                return [NEXT_ROUND]
            return [FANFARE] if self._fanfare_refusal() is None else []
        actions: list[AnyAction]
        decider = self.decider
        if decider is not None and seat == decider:
            decision = self.decision
            if decision is TURN:
                # (cards, colours and their codes are int subclasses, read into variables declared
                # int: compiled code handles them as machine integers, and interpreted, unlike a
                # typing.cast call, the declaration costs nothing; the playable cards are collected
                # as plain ints, which sort faster than cards)
                hand: list[int] = self.hands[seat]  # type: ignore[assignment]
                key: int = self.discard[-1]
                if key == _WILD_CODE:
                    colour = self.active_colour
                    assert colour is not None
                    offset: int = colour
                    key += offset
                playable = _PLAYABLE_BYTES[key]
                cards = [card for card in hand if playable[card]]
                if len(cards) > 1:
                    cards.sort()
                plays = _PLAYS
                actions = []
                previous = -1
                for card in cards:  # each playable face once, in face order
                    if card != previous:
                        actions.append(plays[card])
                        previous = card
                if len(hand) == 2:
                    plays = _PLAYS_UNO
                    previous = -1
                    for card in cards:
                        if card != previous:
                            actions.append(plays[card])
                            previous = card
                actions.append(_DRAW)
            elif decision is DRAWN:
                drawn = self.drawn
                assert drawn is not None
                actions = []
                key = self.discard[-1]
                if key == _WILD_CODE:
                    colour = self.active_colour
                    assert colour is not None
                    offset = colour
                    key += offset
                face: int = drawn
                if _PLAYABLE_BYTES[key][face]:
                    actions.append(_PLAYS[face])
                    if len(self.hands[seat]) == 2:
                        actions.append(_PLAYS_UNO[face])
                actions.append(_KEEP)
            elif decision is COLOUR:
                actions = list(COLOURS)
            elif decision is VICTIM:
                actions = list(VICTIMS[: self.players])
            else:
                actions = list(_JESTER_CHOICES[self.players][seat])
        else:
            if not 0 <= seat < self.players:
                return []
            actions = []
        uno = self.uno_seat
        if uno is not None and len(self.hands[uno]) == 1:
            actions.append(CALL_UNO if uno == seat else CATCHES[uno])
        return actions

    def out_of_turn(self) -> list[int]:
        """The seats that may act now besides the decider, in the order they are to be asked (R-UNO-2).

        While an UNO window is open: its owner first (to call UNO), then every other player in
        order of play from the owner (to catch; the first valid catch counts). The decider is
        left out: its chance is among its own legal actions. The King's colours, victims and
        Jesters are not here: while the King chooses, the King is the decider. Empty when no
        window is open.
        """
        owner = self.uno_seat
        if owner is None or len(self.hands[owner]) != 1 or self.decision >= ROUND_OVER:
            return []
        n = self.players
        step = self.direction
        decider = self.decider
        return [seat for seat in ((owner + k * step) % n for k in range(n)) if seat != decider]

    def describe_pending(self) -> str:
        """The pending decision in words, for error messages (``"seat 2 must play or draw"``)."""
        decision = self.decision
        if decision is ROUND_OVER:
            return "the round is over; the table deals the next one"
        if decision is GAME_OVER:
            return "the game is over"
        who = f"the King (seat {self.decider})" if decision >= COLOUR else f"seat {self.decider}"
        return f"{who} must {_KIND_NAMES[decision]}"

    # ------------------------------------------------------------------ changing

    @overload
    def apply(self, seat: int, action: AnyAction) -> list[ev.Event]: ...
    @overload
    def apply(self, seat: None, action: AnyAction) -> list[ev.Event]: ...
    def apply(self, seat: object, action: object) -> list[ev.Event]:
        """Carry out ``action`` for ``seat`` (``None`` for the table) and return what happened.

        Raises :class:`IllegalActionError` with the rule's id if the action is not allowed;
        the state is then unchanged.
        """
        events: list[ev.Event] = []
        self._events = events
        try:
            self.step(seat, action)  # type: ignore[call-overload]  # step checks both
        finally:
            self._events = None
        return events

    def apply_move(self, move: Move | str) -> list[ev.Event]:
        """Apply a :class:`Move` or its notation (``"2:R7"``, ``"fanfare"``)."""
        if isinstance(move, str):
            move = Move.parse(move)
        return self.apply(move.seat, move.action)

    @overload
    def step(self, seat: int, action: AnyAction) -> None: ...
    @overload
    def step(self, seat: None, action: AnyAction) -> None: ...
    def step(self, seat: object, action: object) -> None:
        """:meth:`apply` without building events: the fast path for simulations."""
        # (the slow, exact check: int subclasses yes, bools no)
        who = seat if seat is None or (type(seat) is int and 0 <= seat < self.players) else self._check_seat(seat)
        kind = type(action)
        if kind is not _PLAY and kind is not _DRAW_TYPE and kind is not _KEEP_TYPE and kind not in _HANDLERS:
            raise IllegalActionError(f"not an action: {action!r}")
        if self.decision is GAME_OVER:
            raise IllegalActionError("the game is over", "R-SCORE-3")
        # Every player's action called directly (compiled: a native call), the common ones first;
        # the table's own through the table of handlers.
        # (the handlers take the action untyped: they read its fields with getattr, see _on_play)
        if kind is _PLAY:
            self._on_play(who, action)
        elif kind is _DRAW_TYPE:
            self._on_draw(who, action)
        elif kind is _KEEP_TYPE:
            self._on_keep(who, action)
        elif kind is _JESTER_TYPE:
            self._on_jester(who, action)
        elif kind is _COLOUR_TYPE:
            self._on_colour(who, action)
        elif kind is _VICTIM_TYPE:
            self._on_victim(who, action)
        elif kind is _CATCH_TYPE:
            self._on_catch(who, action)
        elif kind is _CALL_UNO_TYPE:
            self._on_call_uno(who, action)
        else:
            _HANDLERS[kind](self, who, action)

    def _check_seat(self, seat: object) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalActionError(f"there is no seat {seat!r} at this table of {self.players}", "R-SETUP-1")
        return seat

    # ------------------------------------------------------------------ refusals

    def _require(self, seat: int | None, decision: Decision, what: str) -> None:
        if seat is None:
            raise IllegalActionError(f"{what} needs a player, not the table", "R-DIGITAL-1")
        if self.decision is not decision:
            raise IllegalActionError(f"no one may {what} now: {self.describe_pending()}", "R-DIGITAL-1")
        if seat != self.decider:
            raise IllegalActionError(f"seat {seat} may not {what} now: {self.describe_pending()}", "R-DIGITAL-1")

    # ------------------------------------------------------------------ handlers

    def _on_play(self, seat: int | None, action: object) -> None:
        # Fields are read untyped (getattr): a malformed action is refused below, where compiled code
        # reading an annotated field would raise a TypeError first.
        card: object = getattr(action, "card")  # noqa: B009
        uno: object = getattr(action, "uno")  # noqa: B009
        if type(card) is not _CARD or type(uno) is not bool:
            raise IllegalActionError(f"a play needs a Card and a true/false UNO call, not {action!r}", "R-TURN-2")
        face: int = card  # the card's code, for the tables (compiled: a machine integer)
        decision = self.decision
        decider = self.decider
        if decision is TURN and seat is not None and decider is not None and seat == decider:
            hand = self.hands[seat]
            try:
                index = hand.index(card)
            except ValueError:
                raise IllegalActionError(f"seat {seat} holds no {card}", "R-TURN-2") from None
            key: int = self.discard[-1]
            if key == _WILD_CODE:
                colour = self.active_colour
                assert colour is not None
                offset: int = colour
                key += offset
            if not _PLAYABLE_BYTES[key][face]:
                raise IllegalActionError(f"{card} cannot be played on {self._match_text()}", "R-TURN-1")
        elif decision is DRAWN:
            self._require(seat, DRAWN, "play a card")
            if card != self.drawn:
                raise IllegalActionError(
                    f"after drawing only the drawn card ({self.drawn}) may be played, not {card}", "R-TURN-3"
                )
            if not _PLAYABLE[self._match_key()][face]:
                raise IllegalActionError(f"the drawn card {card} does not match {self._match_text()}", "R-TURN-3")
            assert seat is not None
            hand = self.hands[seat]
            index = hand.index(card)
        else:
            self._require(seat, TURN, "play a card")  # raises: not this seat's turn, or no turn at all
            raise AssertionError("unreachable")
        if uno and len(hand) != 2:
            raise IllegalActionError(
                f"UNO is called with the next-to-last card; seat {seat} would keep {len(hand) - 1}", "R-UNO-3"
            )
        # --- accepted: from here on the state changes
        events = self._events
        if decision is TURN:
            self.uno_seat = None  # the next player has begun their turn: the catch window closes (R-UNO-2)
        del hand[index]
        self.discard.append(card)
        self.drawn = None
        self.passes = 0
        if events is not None:
            events.append(ev.Played(seat, card, uno))
        if len(hand) == 1:
            if uno:
                if events is not None:
                    events.append(ev.UnoCalled(seat))
            else:
                self.uno_seat = seat
        kind = _KIND_OF[face]
        if kind is _NUMBER:
            self.active_colour = _COLOUR_OF[face]
            self._finish_turn(seat, (seat + self.direction) % self.players)
        elif kind is _REVERSE:
            self.active_colour = _COLOUR_OF[face]
            if self.players == 2 and self.options.two_player_reverse_skips:
                if events is not None:
                    events.append(ev.Skipped(1 - seat))
                self._finish_turn(seat, seat)
                return
            self.direction = -self.direction
            if events is not None:
                events.append(ev.DirectionChanged(self.direction))
            self._finish_turn(seat, (seat + self.direction) % self.players)
        elif kind is _SKIP:
            self.active_colour = _COLOUR_OF[face]
            skipped = (seat + self.direction) % self.players
            if events is not None:
                events.append(ev.Skipped(skipped))
            self._finish_turn(seat, (skipped + self.direction) % self.players)
        elif kind is _JESTER:
            self.active_colour = _COLOUR_OF[face]
            assert self.jester is not None
            self._plus_one(self.jester, seat)
            self._finish_turn(seat, (seat + self.direction) % self.players)
        elif kind is _KINGS_CHOICE:
            self.active_colour = _COLOUR_OF[face]
            self.resolving = seat
            self.decision = VICTIM
            self.decider = self.king
        else:  # Wild
            self.active_colour = None
            if not hand:
                self._end_round(seat)  # a Wild that goes out needs no colour (R-SCORE-1)
                return
            self.resolving = seat
            self.decision = COLOUR
            self.decider = self.king

    def _on_draw(self, seat: int | None, action: object) -> None:
        if self.decision is not TURN or seat != self.decider:
            self._require(seat, TURN, "draw")
        assert seat is not None
        self.uno_seat = None  # beginning a turn closes the catch window (R-UNO-2)
        pile = self.draw_pile
        card = pile.pop() if pile else self._take_card()
        events = self._events
        if card is None:
            self.passes |= 1 << seat
            if events is not None:
                events.append(ev.Passed(seat))
            if self.passes == (1 << self.players) - 1:
                self._end_round(None)  # stalemate (R-TURN-6)
            else:
                self._finish_turn(seat, (seat + self.direction) % self.players)
            return
        self.hands[seat].append(card)
        self.passes = 0
        self.drawn = card
        self.decision = DRAWN
        if events is not None:
            events.append(ev.Drew(seat, 1, "turn", (card,)))

    def _on_keep(self, seat: int | None, action: object) -> None:
        if self.decision is not DRAWN or seat != self.decider:
            self._require(seat, DRAWN, "keep the drawn card")
        assert seat is not None
        self.drawn = None
        if self._events is not None:
            self._events.append(ev.Kept(seat))
        self._finish_turn(seat, (seat + self.direction) % self.players)

    def _on_colour(self, seat: int | None, action: object) -> None:
        self._require(seat, COLOUR, "choose a colour")
        colour: object = getattr(action, "colour")  # noqa: B009  (untyped read: see _on_play)
        if not isinstance(colour, Colour):
            raise IllegalActionError(f"not a colour: {colour!r}", "R-ACT-WILD")
        self.active_colour = colour
        if self._events is not None:
            self._events.append(ev.ColourChosen(self.king, colour))
        self._resume_after_choice()

    def _on_victim(self, seat: int | None, action: object) -> None:
        self._require(seat, VICTIM, "choose who draws")
        victim: object = getattr(action, "seat")  # noqa: B009  (untyped read: see _on_play)
        if isinstance(victim, bool) or not isinstance(victim, int) or not 0 <= victim < self.players:
            raise IllegalActionError(f"there is no seat {victim!r} to draw", "R-ACT-KC")
        if self._events is not None:
            self._events.append(ev.VictimChosen(self.king, victim))
        self._plus_one(victim, self.resolving)
        self._resume_after_choice()

    def _on_jester(self, seat: int | None, action: object) -> None:
        self._require(seat, JESTER, "choose the Jester")
        jester: object = getattr(action, "seat")  # noqa: B009  (untyped read: see _on_play)
        if isinstance(jester, bool) or not isinstance(jester, int) or not 0 <= jester < self.players:
            raise IllegalActionError(f"there is no seat {jester!r} to be the Jester", "R-SETUP-5")
        if jester == self.king:
            raise IllegalActionError("the King cannot be their own Jester", "R-SETUP-5")
        self.jester = jester
        if self._events is not None:
            self._events.append(ev.JesterChosen(self.king, jester))
        self._start_scepter()
        if self.jester_for_setup:
            self._apply_start_card()
        else:
            self._begin_turn(self.king)  # the new King plays next (R-KING-2)

    def _on_call_uno(self, seat: int | None, action: object) -> None:
        if seat is None:
            raise IllegalActionError("UNO is called by a player, not the table", "R-UNO-1")
        if self.uno_seat != seat or len(self.hands[seat]) != 1:
            reason = (
                f"seat {seat} holds {len(self.hands[seat])} cards"
                if len(self.hands[seat]) != 1
                else f"seat {seat} has no UNO to call now"
            )
            raise IllegalActionError(f"no call is due: {reason}", "R-UNO-3")
        self.uno_seat = None
        if self._events is not None:
            self._events.append(ev.UnoCalled(seat))

    def _on_catch(self, seat: int | None, action: object) -> None:
        if seat is None:
            raise IllegalActionError("a catch is made by a player, not the table", "R-UNO-2")
        target: object = getattr(action, "seat")  # noqa: B009  (untyped read: see _on_play)
        if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < self.players:
            raise IllegalActionError(f"there is no seat {target!r} to catch", "R-UNO-3")
        if target == seat:
            raise IllegalActionError("a player cannot catch themselves", "R-UNO-2")
        if self.uno_seat != target:
            raise IllegalActionError(f"seat {target} cannot be caught now", "R-UNO-3")
        if len(self.hands[target]) != 1:
            raise IllegalActionError(
                f"seat {target} holds {len(self.hands[target])} cards, not one, and cannot be caught", "R-UNO-2"
            )
        self.uno_seat = None
        if self._events is not None:
            self._events.append(ev.Caught(seat, target))
        self._give(target, 2, "penalty")

    def _on_fanfare(self, seat: int | None, action: Fanfare) -> None:
        if seat is not None:
            raise IllegalActionError("the fanfare comes from the scepter, not from a player", "R-KING-1")
        refusal = self._fanfare_refusal()
        if refusal is not None:
            raise IllegalActionError(refusal, "R-KING-1")
        self.fanfare_queued = True
        landed = self.decision is TURN
        if self._events is not None:
            self._events.append(ev.FanfareSounded(landed))
        if landed:
            self._land_fanfare()

    def _on_next_round(self, seat: int | None, action: NextRound) -> None:
        if seat is not None:
            raise IllegalActionError("the table deals the next round, not a player", "R-SCORE-2")
        if self.decision is not ROUND_OVER:
            raise IllegalActionError(f"the round is not over: {self.describe_pending()}", "R-SCORE-2")
        self.round_no += 1
        self.dealer = (self.dealer + 1) % self.players  # the deal passes left
        self.king = (self.king + 1) % self.players  # and so does the Crown (R-KING-4)
        self._deal()

    # ------------------------------------------------------------------ rule mechanics

    def _fanfare_refusal(self) -> str | None:
        if self.decision >= ROUND_OVER:
            return "the scepter is silent between rounds"
        if not self.scepter_running:
            return "the scepter starts only when the King has chosen the Jester"
        if self.fanfare_queued:
            return "the fanfare has already sounded and waits for the pending decision (R-KING-3)"
        return None

    def _match_key(self) -> int:
        top = self.discard[-1]
        if top == _WILD_CODE:
            assert self.active_colour is not None
            return _WILD_CODE + self.active_colour
        return top

    def _match_text(self) -> str:
        top = self.discard[-1]
        if top == _WILD_CODE and self.active_colour is not None:
            return f"a Wild with {self.active_colour.name.lower()} chosen"
        return str(top)

    def _rand_below(self, bound: int) -> int:
        """A uniform integer in [0, bound) from the game's SplitMix64 stream."""
        self.rng, value = rng.rand_below(self.rng, bound)
        return value

    def _shuffle(self, cards: list[Card]) -> None:
        self.rng = rng.shuffle(self.rng, cards)

    def _draw_for_dealer(self) -> int:
        """R-SETUP-2: highest number deals, symbols count zero, ties draw again."""
        deck = list(FULL_DECK)
        self._shuffle(deck)
        contenders = list(range(self.players))
        drawings: list[tuple[tuple[int, Card], ...]] = []
        while True:
            drawing = []
            for seat in contenders:
                if not deck:
                    deck = list(FULL_DECK)
                    self._shuffle(deck)
                drawing.append((seat, deck.pop()))
            drawings.append(tuple(drawing))
            best = max(NUMBER_OF[card] or 0 for _, card in drawing)
            contenders = [seat for seat, card in drawing if (NUMBER_OF[card] or 0) == best]
            if len(contenders) == 1:
                break
        if self._events is not None:
            self._events.append(ev.DealerDrawn(tuple(drawings), contenders[0]))
        return contenders[0]

    def _deal(self) -> None:
        """R-SETUP-3: shuffle all 56 cards, deal 7 each from the dealer's left, turn the start card."""
        n = self.players
        deck = list(FULL_DECK)
        self._shuffle(deck)
        hands: list[list[Card]] = [[] for _ in range(n)]
        for _ in range(HAND_SIZE):
            for offset in range(1, n + 1):
                hands[(self.dealer + offset) % n].append(deck.pop())
        start = deck.pop()
        self.hands = hands
        self.draw_pile = deck
        self.discard = [start]
        self.active_colour = COLOUR_OF[start]
        self.direction = 1
        self.current = self.king
        self.drawn = None
        self.uno_seat = None
        self.passes = 0
        self.fanfare_queued = False
        self.scepter_running = False
        self.scepter_left = None
        self.turns_since_scepter = 0
        self.resolving = _SETUP
        self.jester_for_setup = True
        self.decision = JESTER
        self.decider = self.king
        if self._events is not None:
            self._events.append(ev.RoundStarted(self.round_no, self.dealer, self.king, start))

    def _start_scepter(self) -> None:
        """Choosing the Jester (re)starts the scepter (R-SETUP-5, R-KING-2)."""
        self.scepter_running = True
        self.fanfare_queued = False
        self.turns_since_scepter = 0
        turns = self.options.scepter_turns
        if turns is not None:
            low, high = turns
            self.scepter_left = low + self._rand_below(high - low + 1)

    def _apply_start_card(self) -> None:
        """R-SETUP-6: the start card's effect, then the first turn."""
        start = self.discard[-1]
        kind = KIND_OF[start]
        n = self.players
        if kind is _REVERSE:
            self.direction = -1
            if self._events is not None:
                self._events.append(ev.DirectionChanged(-1))
            self._begin_turn(self.dealer)
        elif kind is _SKIP:
            if self._events is not None:
                self._events.append(ev.Skipped((self.dealer + 1) % n))
            self._begin_turn((self.dealer + 2) % n)
        elif kind is _WILD:
            self.resolving = _SETUP
            self.decision = COLOUR
            self.decider = self.king
        elif kind is _KINGS_CHOICE:
            self.resolving = _SETUP
            self.decision = VICTIM
            self.decider = self.king
        else:
            if kind is _JESTER:
                assert self.jester is not None
                self._give(self.jester, 1, "plus")
            self._begin_turn(self.king)

    def _resume_after_choice(self) -> None:
        """After the King's colour or victim, play goes on from the card's player (R-ACT-PLUS)."""
        player = self.resolving
        if player == _SETUP:
            self._begin_turn(self.king)
        else:
            self._finish_turn(player, (player + self.direction) % self.players)

    def _plus_one(self, target: int, player: int) -> None:
        """A +1 draw; a player who has just gone out takes nothing more (docs/rules.md, D-1)."""
        if target == player and not self.hands[player]:
            if self._events is not None:
                self._events.append(ev.Drew(target, 0, "plus", ()))
            return
        self._give(target, 1, "plus")

    def _take_card(self) -> Card | None:
        """One card from the draw pile, reshuffling the discards if needed; ``None`` if none is left."""
        pile = self.draw_pile
        if not pile:
            discard = self.discard
            if len(discard) <= 1:
                return None
            top = discard.pop()
            self._shuffle(discard)
            self.draw_pile = pile = discard
            self.discard = [top]
            if self._events is not None:
                self._events.append(ev.Reshuffled(len(pile)))
        return pile.pop()

    def _give(self, seat: int, count: int, reason: str) -> None:
        """``seat`` draws up to ``count`` cards (fewer when the piles run dry, R-TURN-4)."""
        drawn = []
        for _ in range(count):
            card = self._take_card()
            if card is None:
                break
            drawn.append(card)
        self.hands[seat].extend(drawn)
        if self._events is not None:
            self._events.append(ev.Drew(seat, len(drawn), reason, tuple(drawn)))

    def _finish_turn(self, player: int, following: int) -> None:
        """A turn is fully resolved: end the round, or count the scepter and start the next turn."""
        if not self.hands[player]:
            self._end_round(player)
            return
        if self.scepter_running:
            self.turns_since_scepter += 1
            left = self.scepter_left
            if left is not None:
                left -= 1
                self.scepter_left = left
                if left == 0 and not self.fanfare_queued:
                    self.fanfare_queued = True
                    if self._events is not None:
                        self._events.append(ev.FanfareSounded(True))
        if self.fanfare_queued:
            self._land_fanfare()
            return
        self.current = following  # _begin_turn(following), inlined
        self.decision = TURN
        self.decider = following
        if self._events is not None:
            self._events.append(ev.TurnStarted(following))

    def _begin_turn(self, seat: int) -> None:
        if self.fanfare_queued:
            self._land_fanfare()
            return
        self.current = seat
        self.decision = TURN
        self.decider = seat
        if self._events is not None:
            self._events.append(ev.TurnStarted(seat))

    def _land_fanfare(self) -> None:
        """R-KING-2: the Crown goes left by seat and the new King chooses a Jester."""
        old = self.king
        self.king = (old + 1) % self.players
        self.fanfare_queued = False
        self.scepter_running = False
        self.scepter_left = None
        self.jester_for_setup = False
        self.decision = JESTER
        self.decider = self.king
        if self._events is not None:
            self._events.append(ev.CrownPassed(old, self.king))

    def _end_round(self, winner: int | None) -> None:
        """Score the round (R-SCORE-1, R-SCORE-4); ``None`` is a stalemate (R-TURN-6)."""
        n = self.players
        hand_points = [sum(POINTS_OF[card] for card in hand) for hand in self.hands]
        blocked = winner is None
        if winner is None:
            fewest = min(hand_points)
            order = [(self.current + self.direction * k) % n for k in range(1, n + 1)]
            winner = next(seat for seat in order if hand_points[seat] == fewest)
        points = sum(hand_points) - hand_points[winner]
        if self.options.scoring is Scoring.STANDARD:
            self.scores[winner] += points
        else:
            for seat in range(n):
                self.scores[seat] += hand_points[seat]
        self.last_round = RoundResult(self.round_no, winner, blocked, points, tuple(hand_points))
        self.uno_seat = None
        self.drawn = None
        self.fanfare_queued = False
        self.scepter_running = False
        self.scepter_left = None
        self.decider = None
        if self._events is not None:
            self._events.append(ev.RoundEnded(winner, blocked, points, tuple(hand_points), tuple(self.scores)))
        target = self.options.target_score
        if self.options.scoring is Scoring.STANDARD:
            over = self.options.single_round or self.scores[winner] >= target
            winners: tuple[int, ...] = (winner,) if over else ()
        else:
            over = self.options.single_round or max(self.scores) >= target
            lowest = min(self.scores)
            winners = tuple(seat for seat in range(n) if self.scores[seat] == lowest)
        if over:
            self.decision = GAME_OVER
            self.result = Outcome(winners, tuple(self.scores))
            if self._events is not None:
                self._events.append(ev.GameEnded(winners, tuple(self.scores)))
        else:
            self.decision = ROUND_OVER

    # ------------------------------------------------------------------ comparison

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<GameState round {self.round_no}, {self.decision.name} by {self.decider}, "
            f"top {self.discard[-1] if self.discard else '-'}, hands {[len(h) for h in self.hands]}>"
        )


_HANDLERS: Final[dict[type, Any]] = {
    Play: GameState._on_play,
    Draw: GameState._on_draw,
    Keep: GameState._on_keep,
    ChooseColour: GameState._on_colour,
    ChooseVictim: GameState._on_victim,
    ChooseJester: GameState._on_jester,
    CallUno: GameState._on_call_uno,
    Catch: GameState._on_catch,
    Fanfare: GameState._on_fanfare,
    NextRound: GameState._on_next_round,
}

# Card codes are the indices of ALL_CARDS; keep the import visible for readers of the tables.
assert ALL_CARDS[_WILD_CODE] == WILD
