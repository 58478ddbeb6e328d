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
from typing import TYPE_CHECKING, Any, Final, NamedTuple, NoReturn, overload

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
from .cards import COLOUR_OF, FULL_DECK, KIND_OF, NUMBER_OF, PLAYABLE, POINTS_OF, WILD_CODE, Card, Colour, Kind
from .errors import IllegalActionError, OptionsError
from .fields import FIELD_NAMES
from .options import GameOptions, Scoring

if TYPE_CHECKING:
    from .observation import Observation

__all__ = ["Decision", "Pending", "RoundResult", "Outcome", "GameState", "HAND_SIZE"]

HAND_SIZE: Final = 7
_SETUP: Final = -1  # a colour or victim chosen for the start card, not for a played card
_BLANK: Final = object()  # the key to GameState(): only the engine's own constructors make blank states


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

# The kinds of card by name, like the decisions above: read through its enum, a member costs about
# 65 ns on Python 3.11, ten times a name, and the rules ask for the kind of every card played.
NUMBER: Final = Kind.NUMBER
REVERSE: Final = Kind.REVERSE
SKIP: Final = Kind.SKIP
KINGS_CHOICE: Final = Kind.KINGS_CHOICE
JESTER_CARD: Final = Kind.JESTER
WILD_CARD: Final = Kind.WILD


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

    # The fields are declared once, with who sees them and how they are written, in
    # engine/fields.py; the annotations below give their types (tests/engine/test_fields.py
    # checks that the two agree).
    __slots__ = ("_events", *FIELD_NAMES)

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
    history: list[ev.HistoryEntry]
    """This round's public events, oldest first, each as its name and fields (events.HistoryEntry; draws without
    their cards). ``observe(seat).history`` shows them as events."""
    rng: int
    """The state of the seeded SplitMix64 generator used for every shuffle and random choice."""
    _events: list[ev.Event] | None

    # ------------------------------------------------------------------ creation

    def __init__(self, _key: object = None) -> None:
        """Not a way to start a game: use :meth:`new`, :func:`~royal_revenge.engine.state_from_json` or
        :func:`~royal_revenge.engine.position.parse`.

        A bare ``GameState()`` would be a state with no fields, so it is refused.
        """
        if _key is not _BLANK:
            raise TypeError(
                "GameState() does not make a game: use GameState.new(options, seed) or state_from_json(data)"
            )

    @classmethod
    def from_fields(cls, values: dict[str, Any]) -> GameState:
        """A state with exactly these field values (every field of engine/fields.py, nothing else).

        Nothing is checked but the names: a position may be built freely and checked with
        :meth:`is_valid`. The lists are taken as they are (not copied).
        """
        names = set(values)
        if names != set(FIELD_NAMES):
            missing, unknown = set(FIELD_NAMES) - names, names - set(FIELD_NAMES)
            raise TypeError(f"a state needs every field: missing {sorted(missing)}, unknown {sorted(unknown)}")
        state = cls(_BLANK)
        for name in FIELD_NAMES:
            setattr(state, name, values[name])
        state._events = None
        return state

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
        # (The parameters are untyped at run time, as at every entry point that takes a caller's
        # values: the compiled build then refuses bad input with OptionsError, like the interpreted
        # one, instead of a TypeError of its own. The overloads above give the static types.)
        options = GameOptions() if options is None else options
        if not isinstance(options, GameOptions):
            raise OptionsError(f"options must be GameOptions, not {type(options).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise OptionsError(f"seed must be a whole number, not {seed!r}")
        n = options.players
        seat_ages: list[int | None] = [None] * n
        if ages is not None:
            if not isinstance(ages, Sequence) or isinstance(ages, str):
                raise OptionsError(f"ages must be a list with one entry per seat, not {ages!r}")
            if len(ages) != n:
                raise OptionsError(f"ages must give one entry per seat ({n}), not {len(ages)}")
            for seat, age in enumerate(ages):
                if age is not None and (isinstance(age, bool) or not isinstance(age, int) or not 0 <= age <= 150):
                    raise OptionsError(f"an age must be a whole number from 0 to 150 or missing, not {age!r}")
                seat_ages[seat] = age
        if first_king is not None and (
            isinstance(first_king, bool) or not isinstance(first_king, int) or not 0 <= first_king < n
        ):
            raise OptionsError(f"first_king must be a seat from 0 to {n - 1}, not {first_king!r}")

        # The fields of the whole game; _deal sets those of the round.
        state = cls(_BLANK)
        state._events = events
        state.options = options
        state.players = n
        state.rng = seed & rng.MASK64
        state.scores = [0] * n
        state.round_no = 1
        state.last_round = None
        state.result = None
        state.jester = None
        state.dealer = state._draw_for_dealer()
        if isinstance(first_king, int):
            state.king = first_king
        else:  # the youngest (D-3), at random among ties or when no age is given
            known = [age for age in seat_ages if age is not None]
            candidates = [s for s in range(n) if seat_ages[s] == min(known)] if known else list(range(n))
            state.king = candidates[state._rand_below(len(candidates))]
        state._deal()
        state._events = None
        return state

    def copy(self) -> GameState:
        """An independent copy (a few list copies; no deepcopy).

        (Written out field by field for speed: search bots copy states by the million.
        tests/engine/test_fields.py checks that it copies every field of engine/fields.py.)
        """
        other = GameState(_BLANK)
        other.options = self.options
        other.players = self.players
        other.hands = [hand.copy() for hand in self.hands]
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
        other.history = self.history.copy()
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

    def position(self) -> str:
        """The whole state as one line of text, which :func:`~royal_revenge.engine.position.parse` reads back
        into an identical state (see docs/records.md)."""
        from .position import position_text

        return position_text(self)

    def is_valid(self) -> bool:
        """Whether the rules could have reached this state (see :meth:`problems` for the reasons)."""
        return not self.problems()

    def problems(self) -> list[str]:
        """What makes this state one the rules could never reach, in plain words (empty if none)."""
        from .records import state_problems

        return state_problems(self)

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
        if seat == self.decider:
            actions = self._decision_actions(seat)
        elif 0 <= seat < self.players:
            actions = []
        else:
            return []
        uno = self.uno_seat
        if uno is not None and len(self.hands[uno]) == 1:  # the UNO window is open (R-UNO-1, R-UNO-2)
            actions.append(CALL_UNO if uno == seat else CATCHES[uno])
        return actions

    def _decision_actions(self, seat: int) -> list[AnyAction]:
        """The decider's choices, in a fixed order: plays by face, the same with UNO, then draw or keep."""
        decision = self.decision
        if decision is TURN:  # R-TURN-2: any matching card, or draw
            hand = self.hands[seat]
            playable = PLAYABLE[self._match_key()]
            faces: list[int] = []  # (a card is its code: compiled, a machine integer)
            for card in hand:
                code: int = card
                if playable[code]:
                    faces.append(code)
            faces.sort()
            actions: list[AnyAction] = []
            previous = -1
            for face in faces:  # each playable face once, in face order
                if face != previous:
                    actions.append(PLAYS[face])
                    previous = face
            if len(hand) == 2:  # the next-to-last card may go with UNO (R-UNO-1, D-5)
                previous = -1
                for face in faces:
                    if face != previous:
                        actions.append(PLAYS_UNO[face])
                        previous = face
            actions.append(DRAW)
            return actions
        if decision is DRAWN:  # R-TURN-3: the drawn card, if it matches, or keep it
            drawn = self.drawn
            assert drawn is not None
            actions = []
            if PLAYABLE[self._match_key()][drawn]:
                actions.append(PLAYS[drawn])
                if len(self.hands[seat]) == 2:
                    actions.append(PLAYS_UNO[drawn])
            actions.append(KEEP)
            return actions
        if decision is COLOUR:
            return list(COLOURS)
        if decision is VICTIM:  # anyone, the King included (R-ACT-KC)
            return list(VICTIMS[: self.players])
        return [JESTERS[other] for other in range(self.players) if other != seat]  # not the King (R-SETUP-5)

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
        return [seat for seat in (self.next_seat(owner, k) for k in range(self.players)) if seat != self.decider]

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
        """:meth:`apply` without building events: the fast path for simulations.

        The one dispatcher of actions: each kind of action has its handler below.
        """
        # (the exact check, inline for speed: int subclasses yes, bools no)
        who = seat if seat is None or (type(seat) is int and 0 <= seat < self.players) else self._no_such_seat(seat)
        if self.decision is GAME_OVER and type(action) in _ACTION_TYPES:
            raise IllegalActionError("the game is over", "R-SCORE-3")
        if type(action) is Play:
            self._on_play(who, action)
        elif type(action) is Draw:
            self._on_draw(who)
        elif type(action) is Keep:
            self._on_keep(who)
        elif type(action) is ChooseJester:
            self._on_jester(who, action)
        elif type(action) is ChooseColour:
            self._on_colour(who, action)
        elif type(action) is ChooseVictim:
            self._on_victim(who, action)
        elif type(action) is Catch:
            self._on_catch(who, action)
        elif type(action) is CallUno:
            self._on_call_uno(who)
        elif type(action) is Fanfare:
            self._on_fanfare(who)
        elif type(action) is NextRound:
            self._on_next_round(who)
        else:
            raise IllegalActionError(f"not an action: {action!r}")

    def _no_such_seat(self, seat: object) -> int:
        raise IllegalActionError(f"there is no seat {seat!r} at this table of {self.players}", "R-SETUP-1")

    # ------------------------------------------------------------------ refusals

    def _require(self, seat: int | None, decision: Decision, what: str) -> int:
        """Refuse unless ``seat`` is the one to make the pending ``decision`` (R-DIGITAL-1); returns the seat."""
        if seat is None or seat != self.decider or self.decision is not decision:
            self._refuse(seat, decision, what)
        return seat

    def _refuse(self, seat: int | None, decision: Decision, what: str) -> NoReturn:
        """R-DIGITAL-1: ``seat`` may not make ``decision`` now (the handlers of the common actions test the
        usual case first, inline, and call this only to refuse)."""
        if seat is None:
            raise IllegalActionError(f"{what} needs a player, not the table", "R-DIGITAL-1")
        if self.decision is not decision:
            raise IllegalActionError(f"no one may {what} now: {self.describe_pending()}", "R-DIGITAL-1")
        raise IllegalActionError(f"seat {seat} may not {what} now: {self.describe_pending()}", "R-DIGITAL-1")

    def _check_play(self, seat: int | None, card: Card, uno: bool) -> int:
        """R-TURN-1..3, R-UNO-3: refuse a play that is not allowed; returns the player."""
        decision = self.decision
        if seat is None or seat != self.decider or (decision is not TURN and decision is not DRAWN):
            self._refuse(seat, DRAWN if decision is DRAWN else TURN, "play a card")
        player = seat
        if decision is DRAWN:
            if card != self.drawn:
                raise IllegalActionError(
                    f"after drawing only the drawn card ({self.drawn}) may be played, not {card}", "R-TURN-3"
                )
            if not PLAYABLE[self._match_key()][card]:
                raise IllegalActionError(f"the drawn card {card} does not match {self._match_text()}", "R-TURN-3")
        else:
            if card not in self.hands[player]:
                raise IllegalActionError(f"seat {player} holds no {card}", "R-TURN-2")
            code: int = card
            if not PLAYABLE[self._match_key()][code]:
                raise IllegalActionError(f"{card} cannot be played on {self._match_text()}", "R-TURN-1")
        if uno and len(self.hands[player]) != 2:
            raise IllegalActionError(
                f"UNO is called with the next-to-last card; seat {player} would keep {len(self.hands[player]) - 1}",
                "R-UNO-3",
            )
        return player

    # ------------------------------------------------------------------ the actions

    def _on_play(self, seat: int | None, action: Play) -> None:
        """R-TURN-2: the card goes on the discard pile, with UNO if called (R-UNO-1), and takes effect."""
        card = action.card
        uno = action.uno
        player = self._check_play(seat, card, uno)
        if self.decision is TURN:
            self.uno_seat = None  # the next player has begun their turn: the catch window closes (R-UNO-2)
        hand = self.hands[player]
        hand.remove(card)
        self.discard.append(card)
        self.drawn = None
        self.passes = 0
        self._record((ev.PLAYED, player, card, uno))
        if len(hand) == 1:
            if uno:
                self._record((ev.UNO_CALLED, player))
            else:
                self.uno_seat = player  # anyone may catch them until the next player begins (R-UNO-2)
        self._take_effect(player, card)

    def _take_effect(self, player: int, card: Card) -> None:
        """What a played card does (R-ACT), then the next turn."""
        code: int = card  # (compiled: a machine integer, to index the tables)
        kind = KIND_OF[code]
        events = self._events
        if kind is WILD_CARD:  # R-ACT-WILD: the King chooses the colour
            self.active_colour = None
            if not self.hands[player]:
                self._end_round(player)  # a Wild that goes out needs no colour (R-SCORE-1)
                return
            self._ask_king(COLOUR, player)
            return
        self.active_colour = COLOUR_OF[code]
        if kind is NUMBER:
            self._finish_turn(player)
        elif kind is REVERSE:  # R-ACT-REV
            if self.players == 2 and self.options.two_player_reverse_skips:
                if events is not None:
                    events.append(ev.Skipped(1 - player))
                self._finish_turn(player, 2)  # (two seats on, with two players: the same player again)
                return
            self.direction = -self.direction
            if events is not None:
                events.append(ev.DirectionChanged(self.direction))
            self._finish_turn(player)
        elif kind is SKIP:  # R-ACT-SKIP
            if events is not None:
                events.append(ev.Skipped(self.next_seat(player)))
            self._finish_turn(player, 2)
        elif kind is JESTER_CARD:  # R-ACT-JEST: the Jester draws one
            assert self.jester is not None
            self._plus_one(self.jester, player)
            self._finish_turn(player)
        else:  # King's Choice (R-ACT-KC): the King chooses who draws one
            self._ask_king(VICTIM, player)

    def _on_draw(self, seat: int | None) -> None:
        """R-TURN-2: draw one card instead of playing; with none left to draw, pass (R-TURN-4, R-TURN-6)."""
        if seat is None or seat != self.decider or self.decision is not TURN:
            self._refuse(seat, TURN, "draw")
        player = seat
        self.uno_seat = None  # beginning a turn closes the catch window (R-UNO-2)
        card = self._take_card()
        if card is None:
            self.passes |= 1 << player
            self._record((ev.PASSED, player))
            if self.passes == (1 << self.players) - 1:
                self._end_round(None)  # stalemate (R-TURN-6)
            else:
                self._finish_turn(player)
            return
        self.hands[player].append(card)
        self.passes = 0
        self.drawn = card
        self.decision = DRAWN  # R-TURN-3: play it or keep it
        self._record_draw(player, "turn", [card])

    def _on_keep(self, seat: int | None) -> None:
        """R-TURN-3: keep the drawn card; the turn ends."""
        if seat is None or seat != self.decider or self.decision is not DRAWN:
            self._refuse(seat, DRAWN, "keep the drawn card")
        player = seat
        self.drawn = None
        self._record((ev.KEPT, player))
        self._finish_turn(player)

    def _on_colour(self, seat: int | None, action: ChooseColour) -> None:
        """R-ACT-WILD: the King names the colour."""
        self._require(seat, COLOUR, "choose a colour")
        self.active_colour = action.colour
        self._record((ev.COLOUR_CHOSEN, self.king, action.colour))
        self._resume_after_choice()

    def _on_victim(self, seat: int | None, action: ChooseVictim) -> None:
        """R-ACT-KC: the King names who draws one card (anyone, the King included)."""
        self._require(seat, VICTIM, "choose who draws")
        victim = action.seat
        if not 0 <= victim < self.players:
            raise IllegalActionError(f"there is no seat {victim!r} to draw", "R-ACT-KC")
        self._record((ev.VICTIM_CHOSEN, self.king, victim))
        self._plus_one(victim, self.resolving)
        self._resume_after_choice()

    def _on_jester(self, seat: int | None, action: ChooseJester) -> None:
        """R-SETUP-5, R-KING-2: the King hands the Hat to anyone else; that starts the scepter."""
        self._require(seat, JESTER, "choose the Jester")
        jester = action.seat
        if not 0 <= jester < self.players:
            raise IllegalActionError(f"there is no seat {jester!r} to be the Jester", "R-SETUP-5")
        if jester == self.king:
            raise IllegalActionError("the King cannot be their own Jester", "R-SETUP-5")
        self.jester = jester
        self._record((ev.JESTER_CHOSEN, self.king, jester))
        self._start_scepter()
        if self.jester_for_setup:
            self._apply_start_card()
        else:
            self._begin_turn(self.king)  # the new King plays next (R-KING-2)

    def _on_call_uno(self, seat: int | None) -> None:
        """R-UNO-1: the call after the card, before the next player begins."""
        if seat is None:
            raise IllegalActionError("UNO is called by a player, not the table", "R-UNO-1")
        held = len(self.hands[seat])
        if self.uno_seat != seat or held != 1:
            reason = f"seat {seat} holds {held} cards" if held != 1 else f"seat {seat} has no UNO to call now"
            raise IllegalActionError(f"no call is due: {reason}", "R-UNO-3")
        self.uno_seat = None
        self._record((ev.UNO_CALLED, seat))

    def _on_catch(self, seat: int | None, action: Catch) -> None:
        """R-UNO-2: anyone who catches the player who forgot UNO makes them draw two."""
        if seat is None:
            raise IllegalActionError("a catch is made by a player, not the table", "R-UNO-2")
        target = action.seat
        if not 0 <= target < self.players:
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
        self._record((ev.CAUGHT, seat, target))
        self._give(target, 2, "penalty")

    def _on_fanfare(self, seat: int | None) -> None:
        """R-KING-1, R-KING-3: the scepter sounds; the fanfare lands now or after the pending choice."""
        if seat is not None:
            raise IllegalActionError("the fanfare comes from the scepter, not from a player", "R-KING-1")
        refusal = self._fanfare_refusal()
        if refusal is not None:
            raise IllegalActionError(refusal, "R-KING-1")
        self.fanfare_queued = True
        landed = self.decision is TURN  # D-4
        self._record((ev.FANFARE_SOUNDED, landed))
        if landed:
            self._land_fanfare()

    def _on_next_round(self, seat: int | None) -> None:
        """R-SCORE-2, R-KING-4: the deal and the Crown pass left, and the next round is dealt."""
        if seat is not None:
            raise IllegalActionError("the table deals the next round, not a player", "R-SCORE-2")
        if self.decision is not ROUND_OVER:
            raise IllegalActionError(f"the round is not over: {self.describe_pending()}", "R-SCORE-2")
        self.round_no += 1
        self.dealer = (self.dealer + 1) % self.players
        self.king = (self.king + 1) % self.players
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
        """The row of the playability table for the discard pile now (as :func:`.cards.match_key`)."""
        top: int = self.discard[-1]  # (a card is its code: compiled, a machine integer)
        if top == WILD_CODE:
            colour = self.active_colour
            assert colour is not None
            chosen: int = colour
            return WILD_CODE + chosen
        return top

    def _match_text(self) -> str:
        top = self.discard[-1]
        if top == WILD_CODE and self.active_colour is not None:
            return f"a Wild with {self.active_colour.name.lower()} chosen"
        return str(top)

    def _rand_below(self, bound: int) -> int:
        """A uniform integer in [0, bound) from the game's SplitMix64 stream."""
        self.rng, value = rng.rand_below(self.rng, bound)
        return value

    def _shuffle(self, cards: list[Card]) -> None:
        self.rng = rng.shuffle(self.rng, cards)

    def _draw_for_dealer(self) -> int:
        """R-SETUP-2: highest number deals, symbols count zero, ties draw again (D-10)."""
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
        """R-SETUP-3: shuffle all 56 cards, deal 7 each from the dealer's left (D-16), turn the start card.

        Every field of the round starts afresh here; the King then chooses a Jester (R-SETUP-5).
        """
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
        self.history = []
        self._record((ev.ROUND_STARTED, self.round_no, self.dealer, self.king, start))

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
        kind = KIND_OF[self.discard[-1]]
        if kind is REVERSE:  # the dealer plays first, going right (D-9)
            self.direction = -1
            if self._events is not None:
                self._events.append(ev.DirectionChanged(-1))
            self._begin_turn(self.dealer)
        elif kind is SKIP:  # the dealer's left is skipped (D-16)
            if self._events is not None:
                self._events.append(ev.Skipped((self.dealer + 1) % self.players))
            self._begin_turn((self.dealer + 2) % self.players)
        elif kind is WILD_CARD:
            self._ask_king(COLOUR, _SETUP)
        elif kind is KINGS_CHOICE:
            self._ask_king(VICTIM, _SETUP)
        else:
            if kind is JESTER_CARD:
                assert self.jester is not None
                self._give(self.jester, 1, "plus")
            self._begin_turn(self.king)

    def _ask_king(self, decision: Decision, resolving: int) -> None:
        """The King decides out of turn (R-DIGITAL-1): a colour or a victim for ``resolving``'s card."""
        self.resolving = resolving
        self.decision = decision
        self.decider = self.king

    def _resume_after_choice(self) -> None:
        """After the King's colour or victim, play goes on from the card's player (R-ACT-PLUS)."""
        player = self.resolving
        if player == _SETUP:
            self._begin_turn(self.king)
        else:
            self._finish_turn(player)

    def _plus_one(self, target: int, player: int) -> None:
        """A +1 draw; a player who has just gone out takes nothing more (docs/rules.md, D-1)."""
        if target == player and not self.hands[player]:
            self._record_draw(target, "plus", [])
            return
        self._give(target, 1, "plus")

    def _take_card(self) -> Card | None:
        """One card from the draw pile, reshuffling the discards if needed (R-TURN-4); ``None`` if none is left."""
        pile = self.draw_pile
        if not pile:
            discard = self.discard
            if len(discard) <= 1:
                return None
            top = discard.pop()
            self._shuffle(discard)
            self.draw_pile = pile = discard
            self.discard = [top]
            self._record((ev.RESHUFFLED, len(pile)))
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
        self._record_draw(seat, reason, drawn)

    def _record(self, entry: ev.HistoryEntry) -> None:
        """A public event (its name and fields): into the round's history, and into the events :meth:`apply`
        returns."""
        self.history.append(entry)
        if self._events is not None:
            self._events.append(ev.from_entry(entry))

    def _record_draw(self, seat: int, reason: str, drawn: list[Card]) -> None:
        """A draw: the history keeps it without its cards (only the drawer saw them), with the top card and the
        colour it was drawn on."""
        top, colour = self.discard[-1], self.active_colour
        self.history.append((ev.DREW, seat, len(drawn), reason, None, top, colour))
        if self._events is not None:
            self._events.append(ev.Drew(seat, len(drawn), reason, tuple(drawn), top, colour))

    def _finish_turn(self, player: int, steps: int = 1) -> None:
        """``player``'s turn is fully resolved: end the round, or count the scepter (D-6) and start the turn
        of the seat ``steps`` places on in the direction of play (2 after a Skip)."""
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
                    self._record((ev.FANFARE_SOUNDED, True))
        if self.fanfare_queued:
            self._land_fanfare()
            return
        following = (player + steps * self.direction) % self.players
        self.current = following  # (_begin_turn, inline: this is the end of almost every action)
        self.decision = TURN
        self.decider = following
        if self._events is not None:
            self._events.append(ev.TurnStarted(following))

    def _begin_turn(self, seat: int) -> None:
        """``seat``'s turn begins, unless a fanfare waits: then it lands first (R-KING-3)."""
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
        self._record((ev.CROWN_PASSED, old, self.king))

    def _end_round(self, winner: int | None) -> None:
        """Score the round (R-SCORE-1, R-SCORE-4); ``None`` is a stalemate (R-TURN-6)."""
        n = self.players
        hand_points = [self.hand_points(seat) for seat in range(n)]
        blocked = winner is None
        if winner is None:  # the fewest points wins, the first in order of play from the current seat
            fewest = min(hand_points)
            winner = next(seat for seat in (self.next_seat(self.current, k) for k in range(1, n + 1))
                          if hand_points[seat] == fewest)
        points = sum(hand_points) - hand_points[winner]
        standard = self.options.scoring is Scoring.STANDARD
        if standard:
            self.scores[winner] += points
        else:
            for seat in range(n):
                self.scores[seat] += hand_points[seat]
        self.last_round = RoundResult(self.round_no, winner, blocked, points, tuple(hand_points))
        self.uno_seat = None  # D-8: the end of a round closes any UNO chance and stops the scepter
        self.drawn = None
        self.fanfare_queued = False  # D-14
        self.scepter_running = False
        self.scepter_left = None
        self.decider = None
        if self._events is not None:
            self._events.append(ev.RoundEnded(winner, blocked, points, tuple(hand_points), tuple(self.scores)))
        target = self.options.target_score
        if standard:  # R-SCORE-3
            over = self.options.single_round or self.scores[winner] >= target
            winners: tuple[int, ...] = (winner,) if over else ()
        else:  # R-SCORE-4
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
        return tuple(getattr(self, name) for name in FIELD_NAMES)

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


_ACTION_TYPES: Final = (Play, Draw, Keep, ChooseColour, ChooseVictim, ChooseJester, CallUno, Catch, Fanfare, NextRound)
