"""The rules of UNO Royal Revenge over a batch of games: the whole state as arrays, one call per step.

This is the engine's rules (:mod:`royal_revenge.engine.state`, the reference) and the RL table's
selection of who decides (:class:`royal_revenge.rl.core.Table`) written for B games at once, for
speed: every field of the game is an array with the batch first (structure of arrays), and a step
applies one action to every game with array operations, with no Python loop over games. The same
code runs on NumPy and on JAX (:mod:`.arrays`); tests/rl/test_batch.py checks it against the
engine step by step.

Reading guide: a step (:func:`step`) goes through the stages the engine goes through in one
``GameState.step``, each for the games it concerns (boolean masks):

1. what the action does at once (:func:`_act`): a card leaves the hand (R-TURN-2), a colour is named, ...;
2. the cards to draw (:func:`_give`): a +1 (R-ACT-KC, R-ACT-JEST), a catch (R-UNO-2), a draw
   (R-TURN-2), reshuffling the discards when the pile runs out (R-TURN-4);
3. what follows (:func:`_follow`): the next turn (R-TURN-5, R-ACT-SKIP), the scepter's count and
   the fanfare (R-KING-2/3), the King's questions, the end of the round (R-SCORE-1, R-TURN-6);
4. the table (:func:`_select`): rewards, the optional UNO chances of the other seats (docs/rl.md,
   "Who decides"), the next round's deal (R-SCORE-2) and, when an episode ends, a new game.

Randomness is the batch's own (a counter-based hash per game, :func:`_random_below`), not the
engine's SplitMix64 stream: deals are random permutations and a draw takes a uniformly random card
of the pile, which is the same distribution as the engine's shuffled pile (a shuffled pile's top is
a uniformly random card of it). The tests drive the engine with the batch's cards to compare
the two exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import numpy as np

from ...engine import Decision, GameOptions, Scoring
from ...engine.actions import MAX_SEATS
from ...engine.cards import COLOUR_OF, FULL_DECK, KIND_OF, NUM_FACES, PLAYABLE, POINTS_OF, WILD_CODE, Kind
from ..encoding import (
    CALL_UNO_ACTION,
    CATCH,
    COLOUR,
    DRAW_ACTION,
    JESTER,
    KEEP_ACTION,
    NUM_ACTIONS,
    OBS_SIZE,
    PASS,
    PLAY_UNO,
    VICTIM,
    Layout,
    Role,
)
from .arrays import Array, Arrays

__all__ = ["Config", "State", "init", "step", "observe", "DECK_SIZE", "HAND_SIZE"]

DECK_SIZE: Final = len(FULL_DECK)  # 56
HAND_SIZE: Final = 7
NONE: Final = -1  # "no seat", "no card", "no colour" in a field that may be empty

TURN: Final = int(Decision.TURN)
DRAWN: Final = int(Decision.DRAWN)
COLOUR_CHOICE: Final = int(Decision.COLOUR)
VICTIM_CHOICE: Final = int(Decision.VICTIM)
JESTER_CHOICE: Final = int(Decision.JESTER)
ROUND_OVER: Final = int(Decision.ROUND_OVER)
GAME_OVER: Final = int(Decision.GAME_OVER)

# What follows a player's action (stage 3), per game.
GO_ON: Final = 0  # nothing: a chance was taken or let go, or the drawn card waits (DRAWN)
FINISH: Final = 1  # the player's turn is resolved: _finish_turn(player, steps)
BEGIN: Final = 2  # a turn begins at a given seat: _begin_turn(seat)
ASK_COLOUR: Final = 3  # the King chooses a colour for the card of `resolving`
ASK_VICTIM: Final = 4  # the King chooses who draws for the card of `resolving`
END_ROUND: Final = 5  # the player went out with a Wild (R-SCORE-1)
DRAW_RESULT: Final = 6  # a Draw: the drawn card waits, or nothing came and the player passes

# The card tables, from the engine's (cards.py): by face code.
_KIND: Final = np.array([int(kind) for kind in KIND_OF], dtype=np.int32)
_COLOUR: Final = np.array([NONE if colour is None else int(colour) for colour in COLOUR_OF], dtype=np.int32)
_POINTS: Final = np.array(POINTS_OF, dtype=np.int32)
_PLAYABLE: Final = np.array(PLAYABLE, dtype=bool)  # [match key][face], match key = top, or 48 + colour on a Wild
_DECK: Final = np.array(FULL_DECK, dtype=np.int8)  # the 56 cards by position
NUMBER, REVERSE, SKIP, KINGS_CHOICE, JESTER_CARD, WILD_CARD = (int(kind) for kind in Kind)


@dataclass(frozen=True)
class Config:
    """What every game of a batch shares (hashable: ``jax.jit`` takes it as a static argument).

    ``options`` are the engine's :class:`~royal_revenge.engine.GameOptions`; ``episode``,
    ``reward`` and ``max_steps`` mean what they mean in the other environments (docs/rl.md);
    ``autoreset`` is ``"same-step"`` (a finished game is dealt again in the step that ended it) or
    ``"next-step"`` (it stays over until the next step, which deals it and ignores its action);
    ``illegal`` is ``"raise"`` (the caller checks ``State.illegal``) or ``"penalty"`` (the game
    ends there, ``illegal_reward`` for the offender and 0 for the others); ``chunk`` is how many
    games JAX deals at once.
    """

    options: GameOptions
    episode: str = "round"
    reward: str = "points"
    max_steps: int | None = None
    autoreset: str = "same-step"
    illegal: str = "raise"
    illegal_reward: float = -1.0
    chunk: int = 32

    def __post_init__(self) -> None:
        if self.episode not in ("round", "game"):
            raise ValueError(f"episode must be 'round' or 'game', not {self.episode!r}")
        if self.reward not in ("points", "win"):
            raise ValueError(f"reward must be 'points' or 'win', not {self.reward!r}")
        if self.autoreset not in ("same-step", "next-step"):
            raise ValueError(f"autoreset must be 'same-step' or 'next-step', not {self.autoreset!r}")
        if self.illegal not in ("raise", "penalty"):
            raise ValueError(f"illegal must be 'raise' or 'penalty', not {self.illegal!r}")
        steps = self.max_steps
        if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int) or steps < 1):
            raise ValueError(f"max_steps must be a positive whole number or None, not {steps!r}")
        if self.episode == "round" and not self.options.single_round:
            object.__setattr__(self, "options", _single_round(self.options))

    @property
    def players(self) -> int:
        return self.options.players


def _single_round(options: GameOptions) -> GameOptions:
    from dataclasses import replace

    return replace(options, single_round=True)


class State(NamedTuple):
    """A batch of games: every field has the batch first. Seats are absolute (0..N-1), cards are face
    codes (0-48, ``R7`` is 6), ``-1`` is "none". The engine's field of the same name says what each means
    (engine/fields.py); the hands and piles are held as the arrays below instead of lists."""

    # -- the game (as GameState)
    hands: Array  # (B, N, 49) int8: how many of each face each seat holds
    held: Array  # (B, N) int32: cards in each hand
    hand_points: Array  # (B, N) int32: the points in each hand (R-DECK-2)
    pile: Array  # (B, 56) int8: the draw pile's cards in its first pile_size places, in no particular order
    pile_size: Array  # (B,)
    discard: Array  # (B, 56) int8: the discard pile, bottom first; the top is at discard_size - 1
    discard_size: Array  # (B,)
    discard_counts: Array  # (B, 49) int8: how many of each face the discard pile holds
    colour: Array  # (B,) the active colour, -1 while a Wild's colour is being chosen
    direction: Array  # (B,) +1 while play moves left, -1 after an odd number of Reverses
    king: Array
    jester: Array  # -1 before the first Jester
    dealer: Array
    current: Array  # whose turn it is (or was, while someone else decides)
    decision: Array  # the engine's Decision (TURN .. GAME_OVER)
    decider: Array  # -1 between rounds
    drawn: Array  # the card just drawn, while its drawer decides, else -1
    resolving: Array  # whose card the King resolves; -1 for the start card
    jester_for_setup: Array  # (B,) bool
    uno_seat: Array  # who may be caught without UNO, -1 if nobody
    fanfare_queued: Array  # bool
    scepter_running: Array  # bool
    scepter_left: Array  # turns until the fanfare (hidden); -1 when the scepter is off or stopped
    turns_since_scepter: Array
    passes: Array  # bitmask of the seats that passed since the last card (R-TURN-6)
    scores: Array  # (B, N) int32
    round_no: Array
    # -- the table (as rl.core.Table)
    selected: Array  # (B,) the seat that decides now
    chance: Array  # (B,) bool: the selected seat is offered an optional UNO chance
    chance_next: Array  # (B,) the next place in the chance queue (order of play from the window's owner)
    steps: Array  # (B,) decisions taken in this episode
    legal: Array  # (B, 124) bool: the selected seat's legal actions
    rewards: Array  # (B, N) float32: earned in the last step, by seat
    terminated: Array  # (B,) bool: the episode ended in the last step
    truncated: Array  # (B,) bool: the episode was cut at max_steps in the last step
    illegal: Array  # (B,) bool: the last step's action was not legal
    drew: Array  # (B, 2) int8: the cards drawn in the last step, in order (-1: none)
    dealt: Array  # (B,) bool: the last step dealt a new round (or a new game)
    key: Array  # (B,) uint32: each game's random stream
    counter: Array  # (B,) uint32: how far along its stream each game is


# ---------------------------------------------------------------------------------------- randomness


# The constants as typed 32-bit numbers (JAX refuses a Python int above 2**31 next to a uint32 array).
_M1: Final = np.uint32(0x7FEB352D)
_M2: Final = np.uint32(0x846CA68B)
_GOLDEN: Final = np.uint32(0x9E3779B9)
_U15: Final = np.uint32(15)
_U16: Final = np.uint32(16)
_U8: Final = np.uint32(8)
_U24: Final = np.uint32(24)


def _mix(x: Array) -> Array:
    """Wellons' lowbias32 integer hash (uint32 in, uint32 out)."""
    x = x ^ (x >> _U16)
    x = x * _M1
    x = x ^ (x >> _U15)
    x = x * _M2
    return x ^ (x >> _U16)


def _random_bits(key: Array, counter: Array) -> Array:
    """32 random bits for each (game, place in its stream): a counter-based generator."""
    return _mix(key ^ _mix(counter + _GOLDEN))


def _below(bits: Array, bound: Array) -> Array:
    """A number in [0, bound) from 32 random bits (bound at most 256; bias below 2**-16)."""
    return ((bits >> _U8) * bound) >> _U24


# ---------------------------------------------------------------------------------------- the working copy


class _Work:
    """The state's fields as attributes while a step rebinds them (a plain namespace: JAX traces it)."""

    def __init__(self, state: State) -> None:
        self.__dict__.update(state._asdict())

    if TYPE_CHECKING:  # every field of State, read and rebound by name

        def __getattr__(self, name: str) -> Array: ...

        def __setattr__(self, name: str, value: Array) -> None: ...

    def state(self) -> State:
        return State(**{name: self.__dict__[name] for name in State._fields})


# ---------------------------------------------------------------------------------------- creating


def init(config: Config, batch: int, seed: int, a: Arrays) -> State:
    """``batch`` new games, each waiting for its first King to choose a Jester (R-SETUP-5).

    Game ``b``'s random stream is a hash of ``seed`` and ``b``: the same seed gives the same batch.
    """
    xp = a.xp
    n = config.players
    games = np.arange(batch, dtype=np.uint32)
    low, high = np.array([seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF], dtype=np.uint32)
    key = _mix(_mix(np.array([low ^ _mix(np.array([high], dtype=np.uint32))[0]], dtype=np.uint32)) ^ games)
    zeros = np.zeros(batch, dtype=np.int32)
    fields: dict[str, Any] = {
        "hands": np.zeros((batch, n, NUM_FACES), dtype=np.int8),
        "held": np.zeros((batch, n), dtype=np.int32),
        "hand_points": np.zeros((batch, n), dtype=np.int32),
        "pile": np.zeros((batch, DECK_SIZE), dtype=np.int8),
        "pile_size": zeros,
        "discard": np.zeros((batch, DECK_SIZE), dtype=np.int8),
        "discard_size": zeros,
        "discard_counts": np.zeros((batch, NUM_FACES), dtype=np.int8),
        "colour": zeros,
        "direction": zeros + 1,
        "king": zeros,
        "jester": zeros - 1,
        "dealer": zeros,
        "current": zeros,
        "decision": zeros + GAME_OVER,
        "decider": zeros - 1,
        "drawn": zeros - 1,
        "resolving": zeros - 1,
        "jester_for_setup": np.zeros(batch, dtype=bool),
        "uno_seat": zeros - 1,
        "fanfare_queued": np.zeros(batch, dtype=bool),
        "scepter_running": np.zeros(batch, dtype=bool),
        "scepter_left": zeros - 1,
        "turns_since_scepter": zeros,
        "passes": zeros,
        "scores": np.zeros((batch, n), dtype=np.int32),
        "round_no": zeros,
        "selected": zeros,
        "chance": np.zeros(batch, dtype=bool),
        "chance_next": zeros,
        "steps": zeros,
        "legal": np.zeros((batch, NUM_ACTIONS), dtype=bool),
        "rewards": np.zeros((batch, n), dtype=np.float32),
        "terminated": np.zeros(batch, dtype=bool),
        "truncated": np.zeros(batch, dtype=bool),
        "illegal": np.zeros(batch, dtype=bool),
        "drew": np.full((batch, 2), NONE, dtype=np.int8),
        "dealt": np.zeros(batch, dtype=bool),
        "key": key.astype(np.uint32),
        "counter": np.zeros(batch, dtype=np.uint32),
    }
    w = _Work(State(**{name: xp.asarray(value.copy()) for name, value in fields.items()}))
    everyone = xp.ones(batch, dtype=bool)
    _new_game(w, everyone, config, a, chunk=batch)
    w.legal = _legal(w, config, a)
    return w.state()


def _new_game(w: _Work, new: Array, config: Config, a: Arrays, chunk: int | None = None) -> None:
    """R-SETUP-2/4: a new game for the games in ``new``: scores cleared, a dealer and a first King, then the deal.

    The dealer and the first King are each uniformly random (the engine's draw for the dealer, R-SETUP-2,
    is symmetric between the seats, and with no ages the first King is drawn at random, D-3).
    """
    xp = a.xp
    n = config.players
    dealer = _below(_random_bits(w.key, w.counter), xp.uint32(n)).astype(xp.int32)
    king = _below(_random_bits(w.key, w.counter + 1), xp.uint32(n)).astype(xp.int32)
    w.counter = xp.where(new, w.counter + 2, w.counter)
    w.dealer = xp.where(new, dealer, w.dealer)
    w.king = xp.where(new, king, w.king)
    w.scores = xp.where(new[:, None], 0, w.scores)
    w.round_no = xp.where(new, 1, w.round_no)
    w.jester = xp.where(new, NONE, w.jester)
    w.steps = xp.where(new, 0, w.steps)
    _deal(w, new, config, a, chunk)


def _next_round(w: _Work, ended: Array, config: Config, a: Arrays) -> None:
    """R-SCORE-2, R-KING-4: the deal and the Crown pass to the left, and the next round is dealt."""
    xp = a.xp
    n = config.players
    w.round_no = xp.where(ended, w.round_no + 1, w.round_no)
    w.dealer = xp.where(ended, (w.dealer + 1) % n, w.dealer)
    w.king = xp.where(ended, (w.king + 1) % n, w.king)
    _deal(w, ended, config, a)


def _deal(w: _Work, deal: Array, config: Config, a: Arrays, chunk: int | None = None) -> None:
    """R-SETUP-3: all 56 cards shuffled, 7 to each seat, the start card turned; the King then chooses a Jester."""
    xp = a.xp
    n = config.players
    dealt = HAND_SIZE * n
    key, dealer = w.key, w.dealer
    faces = xp.arange(NUM_FACES, dtype=xp.int8)

    def deal_rows(fields: dict[str, Array], rows: Array, valid: Array) -> dict[str, Array]:
        counter = fields["counter"][rows]
        places = xp.arange(DECK_SIZE, dtype=xp.uint32)
        order = a.order_by(_random_bits(key[rows][:, None], counter[:, None] + places[None, :]))
        cards = xp.asarray(_DECK)[order]  # (R, 56): a random permutation of the deck
        # Seven rounds of one card to each seat from the dealer's left (D-16): place p goes to the
        # seat p % n + 1 places left of the dealer.
        by_place = xp.stack(
            [
                xp.sum(cards[:, offset:dealt:n, None] == faces[None, None, :], axis=1, dtype=xp.int8)
                for offset in range(n)
            ],
            axis=1,
        )  # (R, N, 49), by seat counted from the dealer's left
        offset_of_seat = (xp.arange(n)[None, :] - dealer[rows][:, None] - 1) % n
        hands = xp.take_along_axis(by_place, offset_of_seat[:, :, None], axis=1)
        start = cards[:, dealt]
        rest = cards.shape[0]
        fields["hands"] = a.put_rows(fields["hands"], rows, valid, hands)
        fields["hand_points"] = a.put_rows(
            fields["hand_points"], rows, valid, xp.sum(hands.astype(xp.int32) * xp.asarray(_POINTS), axis=2)
        )
        pile = xp.concat([cards[:, dealt + 1 :], xp.zeros((rest, dealt + 1), dtype=xp.int8)], axis=1)
        fields["pile"] = a.put_rows(fields["pile"], rows, valid, pile)
        discard = xp.concat([start[:, None], xp.zeros((rest, DECK_SIZE - 1), dtype=xp.int8)], axis=1)
        fields["discard"] = a.put_rows(fields["discard"], rows, valid, discard)
        only_start = (start[:, None] == faces[None, :]).astype(xp.int8)
        fields["discard_counts"] = a.put_rows(fields["discard_counts"], rows, valid, only_start)
        fields["colour"] = a.put_rows(fields["colour"], rows, valid, xp.asarray(_COLOUR)[start.astype(xp.int32)])
        fields["counter"] = a.put_rows(fields["counter"], rows, valid, counter + DECK_SIZE)
        return fields

    written = ("hands", "hand_points", "pile", "discard", "discard_counts", "colour", "counter")
    fields = a.for_rows(deal, chunk or config.chunk, deal_rows, {name: getattr(w, name) for name in written})
    for name in written:
        setattr(w, name, fields[name])
    w.held = xp.where(deal[:, None], HAND_SIZE, w.held)
    w.pile_size = xp.where(deal, DECK_SIZE - dealt - 1, w.pile_size)
    w.discard_size = xp.where(deal, 1, w.discard_size)
    w.direction = xp.where(deal, 1, w.direction)
    w.current = xp.where(deal, w.king, w.current)
    w.drawn = xp.where(deal, NONE, w.drawn)
    w.uno_seat = xp.where(deal, NONE, w.uno_seat)
    w.passes = xp.where(deal, 0, w.passes)
    w.fanfare_queued = w.fanfare_queued & ~deal
    w.scepter_running = w.scepter_running & ~deal
    w.scepter_left = xp.where(deal, NONE, w.scepter_left)
    w.turns_since_scepter = xp.where(deal, 0, w.turns_since_scepter)
    w.resolving = xp.where(deal, NONE, w.resolving)
    w.jester_for_setup = w.jester_for_setup | deal
    w.decision = xp.where(deal, JESTER_CHOICE, w.decision)
    w.decider = xp.where(deal, w.king, w.decider)
    w.selected = xp.where(deal, w.king, w.selected)
    w.chance = w.chance & ~deal
    w.dealt = w.dealt | deal


# ---------------------------------------------------------------------------------------- a step


def step(state: State, action: Array, config: Config, a: Arrays, active: Array | None = None) -> State:
    """Apply ``action`` (B,) (an index of the action space, docs/rl.md) for each game's selected seat.

    ``active`` (B,) bool, if given, says which games take their action; the others are left as they are
    (the single-learner environment lets its bots play only where a bot is selected).

    With NumPy the state's arrays are updated in place and the same arrays come back in the new
    state; with JAX the step is a pure function (``jax.jit`` it with ``config`` and ``a`` static).
    ``State.illegal`` marks the games whose action was not legal: with ``illegal="raise"`` nothing
    was done to them (the caller raises), with ``"penalty"`` their episode ended there.
    """
    xp = a.xp
    n = config.players
    w = _Work(state)
    batch = w.decision.shape[0]
    ar = xp.arange(batch)
    action = xp.asarray(action).astype(xp.int32)
    w.rewards = xp.zeros((batch, n), dtype=xp.float32)
    w.drew = xp.full((batch, 2), NONE, dtype=xp.int8)
    w.dealt = xp.zeros(batch, dtype=bool)
    w.truncated = xp.zeros(batch, dtype=bool)

    # Next-step autoreset: a game that ended in the previous step starts again now; its action is ignored.
    # (Its decision stays GAME_OVER until then, whatever steps of other games came between.)
    if config.autoreset == "next-step":
        restarting = w.decision == GAME_OVER
        if active is not None:
            restarting = restarting & xp.asarray(active)
    else:
        restarting = xp.zeros(batch, dtype=bool)
    w.terminated = xp.zeros(batch, dtype=bool)
    in_range = (action >= 0) & (action < NUM_ACTIONS)
    legal = w.legal[ar, xp.clip(action, 0, NUM_ACTIONS - 1)] & in_range
    moving = ~restarting if active is None else ~restarting & xp.asarray(active)
    w.illegal = ~legal & moving
    acting = legal & moving

    player = w.selected
    was_chance = w.chance
    follow = _act(w, acting, action, player, config, a, ar)
    _follow(w, follow, acting, player, config, a, ar)
    _score(w, config, a)
    w.steps = xp.where(acting, w.steps + 1, w.steps)
    _select(w, acting, action == PASS, was_chance, config, a)

    # The end of an episode: the game is over, cut at max_steps, or (penalty) an illegal action.
    over = w.decision == GAME_OVER
    if config.max_steps is not None:
        w.truncated = acting & ~over & (w.steps >= config.max_steps)
    penalised = w.illegal
    if config.illegal == "penalty":
        seat_is = xp.arange(n)[None, :] == player[:, None]
        penalty = xp.where(seat_is, xp.float32(config.illegal_reward), xp.float32(0.0))
        w.rewards = xp.where(penalised[:, None], penalty, w.rewards)
        w.illegal = xp.zeros(batch, dtype=bool)
    w.terminated = acting & over | (penalised if config.illegal == "penalty" else False)
    finished = w.terminated | w.truncated
    if config.autoreset == "same-step":
        _new_game(w, finished, config, a)
        w.chance = xp.where(finished, False, w.chance)
    else:
        _new_game(w, restarting, config, a)
        w.chance = xp.where(restarting, False, w.chance)
        w.decision = xp.where(w.truncated, GAME_OVER, w.decision)
    w.legal = _legal(w, config, a)
    return w.state()


def _act(w: _Work, acting: Array, action: Array, player: Array, config: Config, a: Arrays, ar: Array) -> Array:
    """Stage 1: what each action does at once. Returns what follows (GO_ON, FINISH, ...) per game, with
    ``w._seat`` and ``w._steps`` for FINISH and BEGIN, and the cards to give in ``w._give_*``."""
    xp = a.xp
    n = config.players
    batch = action.shape[0]
    zeros = xp.zeros(batch, dtype=xp.int32)
    follow = zeros + GO_ON
    follow_seat = player
    follow_steps = zeros + 1
    give_seat = zeros
    give_count = zeros
    decision = w.decision

    # Plays (R-TURN-2, R-TURN-3): 0-48, and 49-97 with UNO called (R-UNO-1).
    plays = acting & (action < DRAW_ACTION)
    card = xp.where(plays, action % NUM_FACES, 0)
    uno_called = action >= PLAY_UNO
    # The next player has begun their turn: the catch window closes (R-UNO-2); so does a draw.
    begins_turn = plays & (decision == TURN) | acting & (action == DRAW_ACTION)
    w.uno_seat = xp.where(begins_turn, NONE, w.uno_seat)
    w.hands = a.add(w.hands, (ar, player, card), -plays.astype(xp.int8))
    w.held = a.add(w.held, (ar, player), -plays.astype(xp.int32))
    w.hand_points = a.add(w.hand_points, (ar, player), -xp.where(plays, xp.asarray(_POINTS)[card], 0))
    w.discard = a.set(w.discard, (ar, xp.where(plays, w.discard_size, DECK_SIZE - 1)),
                      xp.where(plays, card, w.discard[ar, DECK_SIZE - 1]).astype(xp.int8))
    w.discard_size = w.discard_size + plays
    w.discard_counts = a.add(w.discard_counts, (ar, card), plays.astype(xp.int8))
    w.drawn = xp.where(plays, NONE, w.drawn)
    w.passes = xp.where(plays, 0, w.passes)
    left_with_one = plays & (w.held[ar, player] == 1)
    w.uno_seat = xp.where(left_with_one & ~uno_called, player, w.uno_seat)  # anyone may catch them (R-UNO-2)

    # What the card does (R-ACT).
    kind = xp.asarray(_KIND)[card]
    gone_out = w.held[ar, player] == 0
    wild = plays & (kind == WILD_CARD)
    w.colour = xp.where(plays, xp.where(wild, NONE, xp.asarray(_COLOUR)[card]), w.colour)
    follow = xp.where(wild, xp.where(gone_out, END_ROUND, ASK_COLOUR), follow)  # R-ACT-WILD; out: no colour
    follow = xp.where(plays & (kind == NUMBER), FINISH, follow)
    reverse = plays & (kind == REVERSE)
    if n == 2 and config.options.two_player_reverse_skips:
        follow_steps = xp.where(reverse, 2, follow_steps)  # the option: a Reverse skips (R-ACT-REV)
    else:
        w.direction = xp.where(reverse, -w.direction, w.direction)  # R-ACT-REV
    follow = xp.where(reverse, FINISH, follow)
    skip = plays & (kind == SKIP)
    follow = xp.where(skip, FINISH, follow)
    follow_steps = xp.where(skip, 2, follow_steps)  # R-ACT-SKIP
    jester_card = plays & (kind == JESTER_CARD)  # R-ACT-JEST: the Jester draws one (not a player who went out: D-1)
    give_seat = xp.where(jester_card, w.jester, give_seat)
    give_count = xp.where(jester_card & ~((w.jester == player) & gone_out), 1, give_count)
    follow = xp.where(jester_card, FINISH, follow)
    follow = xp.where(plays & (kind == KINGS_CHOICE), ASK_VICTIM, follow)  # R-ACT-KC
    w.resolving = xp.where(plays & ((kind == KINGS_CHOICE) | wild), player, w.resolving)

    # Draw (R-TURN-2): one card; what follows depends on whether one came (stage 2).
    draws = acting & (action == DRAW_ACTION)
    give_seat = xp.where(draws, player, give_seat)
    give_count = xp.where(draws, 1, give_count)
    follow = xp.where(draws, DRAW_RESULT, follow)

    # Keep the drawn card (R-TURN-3).
    keeps = acting & (action == KEEP_ACTION)
    w.drawn = xp.where(keeps, NONE, w.drawn)
    follow = xp.where(keeps, FINISH, follow)

    # After the King's colour or victim, play goes on from the card's player (R-ACT-PLUS), or the King
    # starts after the start card (R-SETUP-6).
    setup = w.resolving == NONE
    resume = xp.where(setup, BEGIN, FINISH)
    resume_seat = xp.where(setup, w.king, w.resolving)
    colours = acting & (action >= COLOUR) & (action < VICTIM)
    w.colour = xp.where(colours, action - COLOUR, w.colour)  # R-ACT-WILD
    victims = acting & (action >= VICTIM) & (action < JESTER)
    victim = (player + action - VICTIM) % n
    resolver_out = (victim == w.resolving) & (w.held[ar, xp.clip(w.resolving, 0, n - 1)] == 0)
    give_seat = xp.where(victims, victim, give_seat)  # R-ACT-KC
    give_count = xp.where(victims & ~resolver_out, 1, give_count)
    chose = colours | victims
    follow = xp.where(chose, resume, follow)
    follow_seat = xp.where(chose, resume_seat, follow_seat)

    # The Jester (R-SETUP-5, R-KING-2): that (re)starts the scepter; at a round's start the start card follows.
    jesters = acting & (action >= JESTER) & (action < CALL_UNO_ACTION)
    w.jester = xp.where(jesters, (player + action - JESTER) % n, w.jester)
    _start_scepter(w, jesters, config, a)
    setup_card = jesters & w.jester_for_setup
    start_kind = xp.asarray(_KIND)[w.discard[:, 0].astype(xp.int32)]
    follow = xp.where(jesters, BEGIN, follow)
    follow_seat = xp.where(jesters, w.king, follow_seat)  # the new King plays next (R-KING-2)
    start_reverse = setup_card & (start_kind == REVERSE)  # the dealer plays first, going right (R-SETUP-6, D-9)
    w.direction = xp.where(start_reverse, -1, w.direction)
    follow_seat = xp.where(start_reverse, w.dealer, follow_seat)
    start_skip = setup_card & (start_kind == SKIP)  # the dealer's left is skipped (D-16)
    follow_seat = xp.where(start_skip, (w.dealer + 2) % n, follow_seat)
    follow = xp.where(setup_card & (start_kind == WILD_CARD), ASK_COLOUR, follow)
    follow = xp.where(setup_card & (start_kind == KINGS_CHOICE), ASK_VICTIM, follow)
    w.resolving = xp.where(setup_card, NONE, w.resolving)
    start_jester = setup_card & (start_kind == JESTER_CARD)
    give_seat = xp.where(start_jester, w.jester, give_seat)
    give_count = xp.where(start_jester, 1, give_count)

    # UNO, late (R-UNO-1), and catches (R-UNO-2): the caught player draws two.
    calls = acting & (action == CALL_UNO_ACTION)
    catches = acting & (action >= CATCH) & (action < PASS)
    w.uno_seat = xp.where(calls | catches, NONE, w.uno_seat)
    give_seat = xp.where(catches, (player + action - CATCH) % n, give_seat)
    give_count = xp.where(catches, 2, give_count)

    got = _give(w, give_seat, give_count, config, a, ar)
    # A Draw: the card waits for its drawer (R-TURN-3); with nothing to draw the player passes (R-TURN-4/6).
    came = draws & (got > 0)
    w.drawn = xp.where(came, w.drew[:, 0].astype(xp.int32), w.drawn)
    w.passes = xp.where(came, 0, w.passes)
    w.decision = xp.where(came, DRAWN, w.decision)
    passed = draws & (got == 0)
    w.passes = xp.where(passed, w.passes | (1 << player), w.passes)
    stalemate = passed & (w.passes == (1 << n) - 1)
    follow = xp.where(came, GO_ON, follow)
    follow = xp.where(passed, xp.where(stalemate, END_ROUND, FINISH), follow)
    w._seat = follow_seat
    w._steps = follow_steps
    w._stalemate = stalemate
    return follow


def _start_scepter(w: _Work, starting: Array, config: Config, a: Arrays) -> None:
    """Choosing the Jester (re)starts the scepter (R-SETUP-5, R-KING-2): a random number of turns (R-KING-1)."""
    xp = a.xp
    w.scepter_running = w.scepter_running | starting
    w.fanfare_queued = w.fanfare_queued & ~starting
    w.turns_since_scepter = xp.where(starting, 0, w.turns_since_scepter)
    turns = config.options.scepter_turns
    if turns is not None:
        low, high = turns
        delay = low + _below(_random_bits(w.key, w.counter), xp.uint32(high - low + 1)).astype(xp.int32)
        w.scepter_left = xp.where(starting, delay, w.scepter_left)
        w.counter = xp.where(starting, w.counter + 1, w.counter)


def _give(w: _Work, seat: Array, count: Array, config: Config, a: Arrays, ar: Array) -> Array:
    """Stage 2: ``seat`` draws up to ``count`` (0-2) cards, fewer when the piles run dry (R-TURN-4).

    Returns how many came; the cards are in ``w.drew``.
    """
    xp = a.xp
    got = xp.zeros_like(count)
    seat = xp.clip(seat, 0, config.players - 1)
    for draw in range(2):
        wants = count > draw
        # R-TURN-4: an empty pile takes the discards but the top, shuffled (a draw picks a random card anyway).
        reshuffle = wants & (w.pile_size == 0) & (w.discard_size > 1)
        piles = a.when(reshuffle, partial(_reshuffle, reshuffle=reshuffle, a=a, ar=ar), _piles(w))
        w.__dict__.update(piles)
        takes = wants & (w.pile_size > 0)
        bits = _random_bits(w.key, w.counter)
        place = _below(bits, xp.maximum(w.pile_size, 1).astype(xp.uint32)).astype(xp.int32)
        last = xp.maximum(w.pile_size - 1, 0)
        card = w.pile[ar, place].astype(xp.int32)
        moved = w.pile[ar, last]
        w.pile = a.set(w.pile, (ar, place), xp.where(takes, moved, w.pile[ar, place]))
        w.pile_size = w.pile_size - takes
        w.counter = xp.where(takes, w.counter + 1, w.counter)
        w.hands = a.add(w.hands, (ar, seat, xp.where(takes, card, 0)), takes.astype(xp.int8))
        w.held = a.add(w.held, (ar, seat), takes.astype(xp.int32))
        w.hand_points = a.add(w.hand_points, (ar, seat), xp.where(takes, xp.asarray(_POINTS)[card], 0))
        w.drew = a.set(w.drew, (ar, xp.full_like(ar, draw)), xp.where(takes, card, NONE).astype(xp.int8))
        got = got + takes
    return got


def _piles(w: _Work) -> dict[str, Array]:
    return {name: getattr(w, name) for name in ("pile", "pile_size", "discard", "discard_size", "discard_counts")}


def _reshuffle(piles: dict[str, Array], reshuffle: Array, a: Arrays, ar: Array) -> dict[str, Array]:
    """The discards but the top become the draw pile (R-TURN-4)."""
    xp = a.xp
    discard, size = piles["discard"], piles["discard_size"]
    top = discard[ar, xp.maximum(size - 1, 0)]
    return {
        "pile": xp.where(reshuffle[:, None], discard, piles["pile"]),  # (the top lies past the new pile's size)
        "pile_size": xp.where(reshuffle, size - 1, piles["pile_size"]),
        "discard": a.set(discard, (ar, xp.zeros_like(ar)), xp.where(reshuffle, top, discard[:, 0])),
        "discard_size": xp.where(reshuffle, 1, size),
        "discard_counts": xp.where(
            reshuffle[:, None],
            (xp.arange(NUM_FACES)[None, :] == top[:, None].astype(xp.int32)).astype(xp.int8),
            piles["discard_counts"],
        ),
    }


def _follow(w: _Work, follow: Array, acting: Array, player: Array, config: Config, a: Arrays, ar: Array) -> None:
    """Stage 3: the next turn, the scepter and the fanfare, the King's questions, the end of the round."""
    xp = a.xp
    n = config.players
    finish = follow == FINISH
    # _finish_turn (R-TURN-5): a player with no card left has won the round (R-SCORE-1) ...
    finisher = xp.where(finish, w._seat, 0)
    out = finish & (w.held[ar, finisher] == 0)
    finish = finish & ~out
    # ... else the scepter counts the turn (D-6) and may sound (R-KING-1) ...
    tick = finish & w.scepter_running
    w.turns_since_scepter = w.turns_since_scepter + tick
    counting = tick & (w.scepter_left > 0)
    w.scepter_left = xp.where(counting, w.scepter_left - 1, w.scepter_left)
    w.fanfare_queued = w.fanfare_queued | (counting & (w.scepter_left == 0))
    # ... and a fanfare lands before the next turn (R-KING-3); so before a turn that begins (_begin_turn).
    begin = follow == BEGIN
    lands = (finish | begin) & w.fanfare_queued
    next_seat = xp.where(finish, (w._seat + w._steps * w.direction) % n, w._seat)
    turn = (finish | begin) & ~lands
    w.current = xp.where(turn, next_seat, w.current)
    w.decider = xp.where(turn, next_seat, w.decider)
    w.decision = xp.where(turn, TURN, w.decision)
    # R-KING-2: the Crown goes left by seat and the new King chooses a Jester.
    w.king = xp.where(lands, (w.king + 1) % n, w.king)
    w.fanfare_queued = w.fanfare_queued & ~lands
    w.scepter_running = w.scepter_running & ~lands
    w.scepter_left = xp.where(lands, NONE, w.scepter_left)
    w.jester_for_setup = w.jester_for_setup & ~lands
    w.decision = xp.where(lands, JESTER_CHOICE, w.decision)
    w.decider = xp.where(lands, w.king, w.decider)
    # The King decides out of turn (R-DIGITAL-1).
    ask_colour = follow == ASK_COLOUR
    ask_victim = follow == ASK_VICTIM
    asks = ask_colour | ask_victim
    w.decision = xp.where(ask_colour, COLOUR_CHOICE, xp.where(ask_victim, VICTIM_CHOICE, w.decision))
    w.decider = xp.where(asks, w.king, w.decider)
    # A Jester choice that does not start a round follows a fanfare: it was counted as done above (BEGIN).
    ends = out | (follow == END_ROUND)
    winner = xp.where(out, finisher, xp.where(w._stalemate, NONE, player))
    w._winner = winner
    w._round_ends = ends


def _score(w: _Work, config: Config, a: Arrays) -> None:
    """R-SCORE-1, R-SCORE-4, R-TURN-6: score the round; the game ends at the target or after a single round."""
    xp = a.xp
    n = config.players
    ended = w._round_ends
    points = w.hand_points
    seats = xp.arange(n)[None, :]
    # A stalemate (R-TURN-6): the fewest points wins, the first in order of play after the current seat.
    order = ((seats - w.current[:, None]) * w.direction[:, None] - 1) % n  # 0 for the next seat, ...
    fewest = xp.argmin(points * 8 + order, axis=1).astype(xp.int32)
    winner = xp.where(w._winner == NONE, fewest, w._winner)
    winner_points = xp.take_along_axis(points, winner[:, None], axis=1)[:, 0]
    worth = xp.sum(points, axis=1) - winner_points
    is_winner = seats == winner[:, None]
    if config.options.scoring is Scoring.STANDARD:
        w.scores = w.scores + xp.where(ended[:, None] & is_winner, worth[:, None], 0)
        winner_score = xp.take_along_axis(w.scores, winner[:, None], axis=1)[:, 0]
        if config.options.single_round:
            over = xp.full(ended.shape, True)
        else:
            over = winner_score >= config.options.target_score
        game_winners = is_winner
    else:
        w.scores = w.scores + xp.where(ended[:, None], points, 0)
        over = (
            xp.full(ended.shape, True)
            if config.options.single_round
            else xp.max(w.scores, axis=1) >= config.options.target_score
        )
        game_winners = w.scores == xp.min(w.scores, axis=1)[:, None]
    # D-8, D-14: the end of a round closes any UNO chance and stops the scepter.
    w.uno_seat = xp.where(ended, NONE, w.uno_seat)
    w.drawn = xp.where(ended, NONE, w.drawn)
    w.fanfare_queued = w.fanfare_queued & ~ended
    w.scepter_running = w.scepter_running & ~ended
    w.scepter_left = xp.where(ended, NONE, w.scepter_left)
    w.decider = xp.where(ended, NONE, w.decider)
    w.decision = xp.where(ended, xp.where(over, GAME_OVER, ROUND_OVER), w.decision)
    # The rewards (docs/rl.md, "Rewards").
    if config.reward == "points":
        if config.options.scoring is Scoring.STANDARD:
            earned = xp.where(is_winner, worth[:, None], -points).astype(xp.float32)
        else:
            earned = (xp.mean(points.astype(xp.float32), axis=1)[:, None] - points).astype(xp.float32)
        w.rewards = xp.where(ended[:, None], earned, w.rewards)
    else:
        game_over = ended & over
        winners = xp.sum(game_winners, axis=1)
        loss = -winners.astype(xp.float32) / xp.maximum(n - winners, 1).astype(xp.float32)
        earned = xp.where(game_winners, xp.float32(1.0), loss[:, None])
        earned = xp.where((winners == n)[:, None], xp.float32(0.0), earned)
        w.rewards = xp.where(game_over[:, None], earned, w.rewards)


def _select(w: _Work, acting: Array, passing: Array, was_chance: Array, config: Config, a: Arrays) -> None:
    """Stage 4: who decides next (docs/rl.md, "Who decides"); between rounds, the next round is dealt."""
    xp = a.xp
    n = config.players
    ar = xp.arange(w.decision.shape[0])
    ended = w._round_ends
    if config.episode == "game":
        _next_round(w, ended & (w.decision == ROUND_OVER), config, a)
    # The UNO chances: after a decision that leaves the window open, every other seat in turn (the owner
    # first, then the others in order of play), unless a chance is already being offered.
    owner = w.uno_seat
    window = (owner >= 0) & (w.held[ar, xp.clip(owner, 0, n - 1)] == 1) & (w.decision < ROUND_OVER)
    opens = acting & ~passing & ~was_chance & window & ~ended
    goes_on = acting & passing & was_chance & window
    w.chance_next = xp.where(opens, 0, w.chance_next)
    asking = opens | goes_on
    k = w.chance_next
    seat = (owner + k * w.direction) % n
    k = xp.where(seat == w.decider, k + 1, k)  # the decider's own chance is among its legal actions
    seat = (owner + k * w.direction) % n
    asked = asking & (k < n)
    w.chance_next = xp.where(asked, k + 1, w.chance_next)
    w.chance = asked | (w.chance & ~acting)
    decides = xp.where(w.decider >= 0, w.decider, w.selected)
    w.selected = xp.where(acting, xp.where(asked, seat, decides), w.selected)


# ---------------------------------------------------------------------------------------- legality and observation


def _legal(w: _Work, config: Config, a: Arrays) -> Array:
    """The selected seat's legal actions (as GameState.legal_actions, plus PASS in a chance)."""
    xp = a.xp
    n = config.players
    batch = w.decision.shape[0]
    ar = xp.arange(batch)
    me = w.selected
    decision = w.decision
    deciding = ~w.chance & (w.decider == me)
    hand = w.hands[ar, me] > 0  # (B, 49)
    top = w.discard[ar, xp.maximum(w.discard_size - 1, 0)].astype(xp.int32)
    match_key = xp.where(top == WILD_CODE, WILD_CODE + xp.maximum(w.colour, 0), top)
    playable = xp.asarray(_PLAYABLE)[match_key]  # (B, 49)
    two_left = (w.held[ar, me] == 2)[:, None]
    turn = (deciding & (decision == TURN))[:, None]
    faces = xp.arange(NUM_FACES)[None, :]
    drawn_card = (faces == w.drawn[:, None]) & playable
    after_draw = (deciding & (decision == DRAWN))[:, None]
    plays = turn & hand & playable | after_draw & drawn_card
    plays_uno = plays & two_left
    draw = turn[:, 0]
    keep = after_draw[:, 0]
    colours = xp.broadcast_to((deciding & (decision == COLOUR_CHOICE))[:, None], (batch, 4))
    seats = xp.arange(MAX_SEATS)[None, :]
    exists = seats < n
    victims = (deciding & (decision == VICTIM_CHOICE))[:, None] & exists
    jesters = (deciding & (decision == JESTER_CHOICE))[:, None] & exists & (seats > 0)
    owner = w.uno_seat
    window = (owner >= 0) & (w.held[ar, xp.clip(owner, 0, n - 1)] == 1) & (decision < ROUND_OVER)
    mine = deciding | w.chance
    call = mine & window & (owner == me)
    catch = (mine & window & (owner != me))[:, None] & (seats == ((owner - me) % n)[:, None])
    passing = w.chance
    legal = xp.concat(
        [plays, plays_uno, draw[:, None], keep[:, None], colours, victims, jesters, call[:, None], catch,
         passing[:, None]],
        axis=1,
    )
    return legal & (decision < ROUND_OVER)[:, None]


def observe(state: State, config: Config, a: Arrays, seat: Array | None = None) -> Array:
    """The selected seat's observation in every game: (B, 292) ``uint8``, the values of docs/rl.md's table.

    Counts and flags are exact; the six scores and the turn counter saturate at 255 in this compact
    form (:func:`observe_float` gives them exactly, as ``float32``). ``seat`` (B,), if given, is whose
    observation to make instead (a learner's at the end of its episode, when someone else is selected).
    """
    return _observe(state, config, a, compact=True, seat=seat)


def observe_float(state: State, config: Config, a: Arrays, seat: Array | None = None) -> Array:
    """The selected seat's observation as ``float32`` (B, 292): exactly ``encode_observation`` of the engine."""
    return _observe(state, config, a, compact=False, seat=seat)


def _observe(state: State, config: Config, a: Arrays, compact: bool, seat: Array | None) -> Array:
    xp = a.xp
    n = config.players
    s = state
    batch = s.decision.shape[0]
    ar = xp.arange(batch)
    me = s.selected if seat is None else xp.asarray(seat).astype(s.selected.dtype)
    offered = s.chance & (s.selected == me)  # an optional UNO chance is the selected seat's only
    dtype = xp.uint8 if compact else xp.float32
    faces = xp.arange(NUM_FACES)[None, :]
    top = s.discard[ar, xp.maximum(s.discard_size - 1, 0)].astype(xp.int32)
    own_drawn = (s.decision == DRAWN) & (s.decider == me)
    drawn = xp.where(own_drawn, s.drawn, NONE)
    rel = xp.arange(MAX_SEATS)[None, :]
    exists = rel < n
    # The absolute seat at each relative place (0 past the table's seats), without a remainder (an integer
    # division, which XLA otherwise computes again for every value of every part it fuses this into).
    shifted = me[:, None] + rel
    absolute = xp.where(exists, xp.where(shifted >= n, shifted - n, shifted), 0)

    def by_seat(values: Array) -> Array:  # (B, N) by absolute seat -> (B, 6) by relative seat
        return xp.where(exists, xp.take_along_axis(values, absolute, axis=1), 0)

    def seat_one_hot(seat: Array) -> Array:  # an absolute seat (or -1) -> (B, 6) one-hot at its relative place
        return (absolute == seat[:, None]) & exists

    resolving_shown = (s.decision == COLOUR_CHOICE) | (s.decision == VICTIM_CHOICE)
    resolving_after = s.resolving - me
    resolving_place = xp.where(s.resolving < 0, MAX_SEATS,
                               xp.where(resolving_after < 0, resolving_after + n, resolving_after))
    role = xp.where(offered, int(Role.CHANCE), xp.where(s.decision < ROUND_OVER, s.decision + 1, 0))
    role = xp.where((s.decider == me) | offered, role, 0)
    passes = (s.passes[:, None] >> absolute) & 1
    cap = 255 if compact else Layout.TURNS_CAP
    scores = by_seat(xp.minimum(s.scores, 255) if compact else s.scores)
    parts = [
        s.hands[ar, me],
        faces == top[:, None],
        xp.arange(4)[None, :] == s.colour[:, None],
        faces == drawn[:, None],
        s.discard_counts,
        exists,
        by_seat(s.held),
        scores,
        seat_one_hot(s.king),
        seat_one_hot(s.jester),
        seat_one_hot(s.dealer),
        seat_one_hot(s.current),
        seat_one_hot(s.decider),
        seat_one_hot(s.uno_seat),
        xp.where(exists, passes, 0),
        (xp.arange(MAX_SEATS + 1)[None, :] == resolving_place[:, None]) & resolving_shown[:, None],
        xp.arange(7)[None, :] == s.decision[:, None],
        xp.arange(7)[None, :] == role[:, None],
        xp.arange(5)[None, :] == n - 2,
        (s.direction > 0)[:, None],
        s.pile_size[:, None],
        s.scepter_running[:, None],
        s.fanfare_queued[:, None],
        xp.minimum(s.turns_since_scepter, cap)[:, None],
        s.jester_for_setup[:, None],
    ]
    out = xp.concat([xp.broadcast_to(xp.astype(part, dtype), (batch, part.shape[1])) for part in parts], axis=1)
    assert out.shape[1] == OBS_SIZE
    return out
