"""The fixed action space and the fixed-size observation encoding (see docs/rl.md).

Everything here is egocentric: seats are given *relative* to the agent that acts or
observes. Relative seat ``k`` is the absolute seat ``(me + k) % players``: ``0`` is the
agent itself, ``1`` its left-hand neighbour, and so on. Tables of fewer than six players
leave the slots of the missing seats at zero.

Action space (``Discrete(124)``)::

      0 -  48  play face c                       (engine ``Play(card c)``)
     49 -  97  play face c and call UNO with it  (engine ``Play(card c, uno=True)``, notation ``R7!``)
     98        draw
     99        keep the drawn card
    100 - 103  choose colour R, Y, G, B          (the King after a Wild)
    104 - 109  victim: relative seat 0-5         (the King after a King's Choice)
    110 - 115  Jester: relative seat 0-5         (the King)
    116        call UNO (late call)
    117 - 122  catch: relative seat 0-5
    123        pass (let an optional out-of-turn UNO chance go by; not an engine action)

>>> from royal_revenge.engine import Action
>>> action_to_int(Action.parse("R7!"), seat=0, players=4)
55
>>> action_to_int(Action.parse("victim 1"), seat=2, players=4)  # seat 1 is 3 places left of seat 2
107
>>> int_to_action(107, seat=2, players=4)
ChooseVictim(seat=1)
>>> describe_action(123)
'pass'
"""

from __future__ import annotations

import array
from collections.abc import Iterable
from enum import IntEnum
from typing import Final

import numpy as np
import numpy.typing as npt

from ..engine import (
    CALL_UNO,
    DRAW,
    KEEP,
    AnyAction,
    CallUno,
    Card,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Colour,
    Decision,
    Draw,
    GameState,
    Keep,
    Observation,
    Play,
)
from ..engine.actions import CATCHES, COLOURS, JESTERS, MAX_SEATS, PLAYS, PLAYS_UNO, VICTIMS
from ..engine.cards import ALL_CARDS, NUM_FACES

__all__ = [
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PLAY",
    "PLAY_UNO",
    "DRAW_ACTION",
    "KEEP_ACTION",
    "COLOUR",
    "VICTIM",
    "JESTER",
    "CALL_UNO_ACTION",
    "CATCH",
    "PASS",
    "Role",
    "Layout",
    "LAYOUT",
    "action_to_int",
    "int_to_action",
    "describe_action",
    "legal_action_ints",
    "action_mask",
    "encode_observation",
    "observation_high",
    "role_of",
    "PublicEncoder",
    "decode_table",
    "encode_table",
]

# ---------------------------------------------------------------------------- actions

PLAY: Final = 0
PLAY_UNO: Final = PLAY + NUM_FACES  # 49
DRAW_ACTION: Final = PLAY_UNO + NUM_FACES  # 98
KEEP_ACTION: Final = DRAW_ACTION + 1  # 99
COLOUR: Final = KEEP_ACTION + 1  # 100
VICTIM: Final = COLOUR + 4  # 104
JESTER: Final = VICTIM + MAX_SEATS  # 110
CALL_UNO_ACTION: Final = JESTER + MAX_SEATS  # 116
CATCH: Final = CALL_UNO_ACTION + 1  # 117
PASS: Final = CATCH + MAX_SEATS  # 123
NUM_ACTIONS: Final = PASS + 1  # 124


def _absolute(seat: int, players: int, relative: int) -> int | None:
    return (seat + relative) % players if relative < players else None


def _build_tables(players: int, seat: int) -> tuple[dict[int, int], tuple[AnyAction | None, ...]]:
    """For one acting seat: ``id(shared engine action) -> int`` and ``int -> engine action``."""
    decode: list[AnyAction | None] = [None] * NUM_ACTIONS
    for card in ALL_CARDS:
        decode[PLAY + card] = PLAYS[card]
        decode[PLAY_UNO + card] = PLAYS_UNO[card]
    decode[DRAW_ACTION] = DRAW
    decode[KEEP_ACTION] = KEEP
    for colour in Colour:
        decode[COLOUR + colour] = COLOURS[colour]
    for rel in range(MAX_SEATS):
        target = _absolute(seat, players, rel)
        if target is not None:
            decode[VICTIM + rel] = VICTIMS[target]
            decode[JESTER + rel] = JESTERS[target]
            decode[CATCH + rel] = CATCHES[target]
    decode[CALL_UNO_ACTION] = CALL_UNO
    encode = {id(action): index for index, action in enumerate(decode) if action is not None}
    return encode, tuple(decode)


# TABLES[players][seat] = (encode by id, decode)
_TABLES: Final = {
    players: tuple(_build_tables(players, seat) for seat in range(players)) for players in range(2, MAX_SEATS + 1)
}


def encode_table(players: int, seat: int) -> dict[int, int]:
    """``id(shared engine action) -> index`` for ``seat`` (the engine lists its shared action instances)."""
    return _TABLES[players][seat][0]


def decode_table(players: int, seat: int) -> tuple[AnyAction | None, ...]:
    """``index -> engine action`` for ``seat`` (``None`` for PASS and for missing seats)."""
    return _TABLES[players][seat][1]


def action_to_int(action: AnyAction | None, seat: int, players: int) -> int:
    """The index of an engine action taken by ``seat``; ``None`` (let a chance go by) is :data:`PASS`."""
    if action is None:
        return PASS
    encode, _ = _TABLES[players][seat]
    index = encode.get(id(action))
    if index is not None:
        return index
    # Not one of the engine's shared instances: compare by value.
    if isinstance(action, Play):
        return (PLAY_UNO if action.uno else PLAY) + int(action.card)
    if isinstance(action, Draw):
        return DRAW_ACTION
    if isinstance(action, Keep):
        return KEEP_ACTION
    if isinstance(action, ChooseColour):
        return COLOUR + int(action.colour)
    if isinstance(action, CallUno):
        return CALL_UNO_ACTION
    if isinstance(action, ChooseVictim | ChooseJester | Catch):
        if not 0 <= action.seat < players:
            raise ValueError(f"there is no seat {action.seat} at a table of {players}")
        rel = (action.seat - seat) % players
        base = VICTIM if isinstance(action, ChooseVictim) else JESTER if isinstance(action, ChooseJester) else CATCH
        return base + rel
    raise ValueError(f"{action!r} is a table action, not a player's; it has no place in the action space")


def int_to_action(index: int, seat: int, players: int) -> AnyAction | None:
    """The engine action for an index taken by ``seat``; :data:`PASS` gives ``None``.

    Raises :class:`ValueError` for an index outside the space or a seat slot that does not
    exist at this table size.
    """
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action {index} is outside the action space 0..{NUM_ACTIONS - 1}")
    if index == PASS:
        return None
    action = _TABLES[players][seat][1][index]
    if action is None:
        raise ValueError(f"action {index} ({describe_action(index)}) names a seat missing at a table of {players}")
    return action


def describe_action(index: int) -> str:
    """Human-readable meaning of an action index (seats relative to the actor)."""
    if not 0 <= index < NUM_ACTIONS:
        return f"<{index}: outside the action space>"
    if index < PLAY_UNO:
        return f"play {ALL_CARDS[index - PLAY]}"
    if index < DRAW_ACTION:
        return f"play {ALL_CARDS[index - PLAY_UNO]}!"
    if index == DRAW_ACTION:
        return "draw"
    if index == KEEP_ACTION:
        return "keep"
    if index < VICTIM:
        return f"colour {Colour(index - COLOUR).letter}"
    if index < JESTER:
        return f"victim +{index - VICTIM}"
    if index < CALL_UNO_ACTION:
        return f"jester +{index - JESTER}"
    if index == CALL_UNO_ACTION:
        return "uno"
    if index < PASS:
        return f"catch +{index - CATCH}"
    return "pass"


def legal_action_ints(legal: Iterable[AnyAction], seat: int, players: int, *, chance: bool = False) -> list[int]:
    """The indices of engine legal actions; with ``chance`` (an optional out-of-turn chance) PASS is added."""
    encode = _TABLES[players][seat][0]
    get = encode.get
    out = []
    for action in legal:
        index = get(id(action))
        out.append(index if index is not None else action_to_int(action, seat, players))
    if chance:
        out.append(PASS)
    return out


def action_mask(indices: Iterable[int]) -> npt.NDArray[np.int8]:
    """A 0/1 ``int8`` vector of length :data:`NUM_ACTIONS` with ones at ``indices``."""
    buf = bytearray(NUM_ACTIONS)
    for index in indices:
        buf[index] = 1
    return np.frombuffer(buf, dtype=np.int8)


# ---------------------------------------------------------------------------- observation


class Role(IntEnum):
    """What the observer is being asked to decide right now."""

    NONE = 0
    """Nothing: it is not this agent's decision."""
    TURN = 1
    DRAWN = 2
    COLOUR = 3
    VICTIM = 4
    JESTER = 5
    CHANCE = 6
    """An optional out-of-turn UNO chance: call UNO, catch, or pass."""


_ROLE_OF_DECISION: Final = {
    Decision.TURN: Role.TURN,
    Decision.DRAWN: Role.DRAWN,
    Decision.COLOUR: Role.COLOUR,
    Decision.VICTIM: Role.VICTIM,
    Decision.JESTER: Role.JESTER,
}


def role_of(decision: Decision) -> Role:
    """The role of the engine's decider for a pending decision (NONE between rounds)."""
    return _ROLE_OF_DECISION.get(decision, Role.NONE)


class Layout:
    """Offsets of the observation vector's fields (all ``float32``; see docs/rl.md)."""

    HAND: Final = 0  # 49: count of each face in the own hand
    TOP: Final = HAND + NUM_FACES  # 49: one-hot, the top discard
    ACTIVE_COLOUR: Final = TOP + NUM_FACES  # 4: one-hot (all zero while a Wild's colour is chosen)
    DRAWN: Final = ACTIVE_COLOUR + 4  # 49: one-hot, the card the observer just drew (DRAWN decision)
    DISCARD: Final = DRAWN + NUM_FACES  # 49: count of each face in the discard pile (seen played)
    SEATS: Final = DISCARD + NUM_FACES  # 6: 1 for each relative seat that exists
    HAND_SIZES: Final = SEATS + MAX_SEATS  # 6: cards held, by relative seat
    SCORES: Final = HAND_SIZES + MAX_SEATS  # 6: score, by relative seat
    KING: Final = SCORES + MAX_SEATS  # 6: one-hot
    JESTER: Final = KING + MAX_SEATS  # 6: one-hot (zero before the first Jester)
    DEALER: Final = JESTER + MAX_SEATS  # 6: one-hot
    CURRENT: Final = DEALER + MAX_SEATS  # 6: one-hot, whose turn it is
    DECIDER: Final = CURRENT + MAX_SEATS  # 6: one-hot, whose decision the game waits for
    UNO: Final = DECIDER + MAX_SEATS  # 6: one-hot, who may be caught without UNO now
    PASSED: Final = UNO + MAX_SEATS  # 6: seats that passed since the last card (stalemate count)
    RESOLVING: Final = PASSED + MAX_SEATS  # 7: whose card the King resolves (6 seats + the start card)
    PENDING: Final = RESOLVING + MAX_SEATS + 1  # 7: one-hot engine Decision (TURN..GAME_OVER)
    ROLE: Final = PENDING + 7  # 7: one-hot Role: what the observer must decide now
    PLAYERS: Final = ROLE + 7  # 5: one-hot table size 2..6
    DIRECTION: Final = PLAYERS + 5  # 1: 1 while play moves left (+1), 0 after an odd number of Reverses
    DRAW_PILE: Final = DIRECTION + 1  # 1: cards in the draw pile
    SCEPTER_RUNNING: Final = DRAW_PILE + 1  # 1
    FANFARE_QUEUED: Final = SCEPTER_RUNNING + 1  # 1
    TURNS_SINCE_SCEPTER: Final = FANFARE_QUEUED + 1  # 1: capped at TURNS_CAP
    JESTER_FOR_SETUP: Final = TURNS_SINCE_SCEPTER + 1  # 1: the Jester being chosen starts a round
    SIZE: Final = JESTER_FOR_SETUP + 1  # 292

    TURNS_CAP: Final = 1_000_000


LAYOUT: Final = Layout
OBS_SIZE: Final = Layout.SIZE

_ZERO: Final = array.array("f", bytes(4 * OBS_SIZE))
_H_SIZES: Final = Layout.HAND_SIZES
_SCORES: Final = Layout.SCORES
_KING: Final = Layout.KING
_JESTER: Final = Layout.JESTER
_DEALER: Final = Layout.DEALER
_CURRENT: Final = Layout.CURRENT
_DECIDER: Final = Layout.DECIDER
_UNO: Final = Layout.UNO
_PASSED: Final = Layout.PASSED
_RESOLVING: Final = Layout.RESOLVING
_TOP: Final = Layout.TOP
_DRAWN: Final = Layout.DRAWN
_DISCARD: Final = Layout.DISCARD
_ACTIVE: Final = Layout.ACTIVE_COLOUR
_PENDING: Final = Layout.PENDING
_ROLE: Final = Layout.ROLE
_COLOUR_DECISIONS: Final = (Decision.COLOUR, Decision.VICTIM)


def observation_high(target_score: int) -> npt.NDArray[np.float32]:
    """The upper bound of every field (the lower bound is 0 everywhere).

    A score can pass the target by at most one round's worth of points (744 for the whole deck).
    """
    high = np.ones(OBS_SIZE, dtype=np.float32)
    high[Layout.HAND : Layout.HAND + NUM_FACES] = 4
    high[Layout.DISCARD : Layout.DISCARD + NUM_FACES] = 4
    high[Layout.HAND_SIZES : Layout.HAND_SIZES + MAX_SEATS] = 56
    high[Layout.SCORES : Layout.SCORES + MAX_SEATS] = target_score + 744
    high[Layout.DRAW_PILE] = 56
    high[Layout.TURNS_SINCE_SCEPTER] = Layout.TURNS_CAP
    return high


def _encode(
    me: int,
    n: int,
    hand: Iterable[int],
    discard: Iterable[int],
    top: int,
    active_colour: int | None,
    drawn: int | None,
    hand_sizes: Iterable[int],
    scores: Iterable[int],
    king: int,
    jester: int | None,
    dealer: int,
    current: int,
    decision: Decision,
    decider: int | None,
    uno_seat: int | None,
    passes: int,
    resolving: int,
    direction: int,
    draw_pile_size: int,
    scepter_running: bool,
    fanfare_queued: bool,
    turns_since_scepter: int,
    jester_for_setup: bool,
    role: Role,
) -> npt.NDArray[np.float32]:
    """The encoding from plain public values (the one implementation; see :func:`encode_observation`)."""
    v = array.array("f", _ZERO)
    for card in hand:
        v[card] += 1.0
    for card in discard:
        v[_DISCARD + card] += 1.0
    v[_TOP + top] = 1.0
    if active_colour is not None:
        v[_ACTIVE + active_colour] = 1.0
    if drawn is not None:
        v[_DRAWN + drawn] = 1.0
    # hand sizes and scores by relative seat: rotate so that the observer comes first
    sizes = list(hand_sizes)
    points = list(scores)
    for seat in range(n):
        rel = (seat - me) % n
        v[Layout.SEATS + rel] = 1.0
        v[_H_SIZES + rel] = sizes[seat]
        v[_SCORES + rel] = points[seat]
    v[_KING + (king - me) % n] = 1.0
    if jester is not None:
        v[_JESTER + (jester - me) % n] = 1.0
    v[_DEALER + (dealer - me) % n] = 1.0
    v[_CURRENT + (current - me) % n] = 1.0
    if decider is not None:
        v[_DECIDER + (decider - me) % n] = 1.0
    if uno_seat is not None:
        v[_UNO + (uno_seat - me) % n] = 1.0
    if passes:
        for seat in range(n):
            if passes >> seat & 1:
                v[_PASSED + (seat - me) % n] = 1.0
    if decision in _COLOUR_DECISIONS:
        v[_RESOLVING + (MAX_SEATS if resolving < 0 else (resolving - me) % n)] = 1.0
    v[_PENDING + decision] = 1.0
    v[_ROLE + role] = 1.0
    v[Layout.PLAYERS + n - 2] = 1.0
    if direction > 0:
        v[Layout.DIRECTION] = 1.0
    v[Layout.DRAW_PILE] = draw_pile_size
    if scepter_running:
        v[Layout.SCEPTER_RUNNING] = 1.0
    if fanfare_queued:
        v[Layout.FANFARE_QUEUED] = 1.0
    v[Layout.TURNS_SINCE_SCEPTER] = min(turns_since_scepter, Layout.TURNS_CAP)
    if jester_for_setup:
        v[Layout.JESTER_FOR_SETUP] = 1.0
    return np.frombuffer(v, dtype=np.float32)


def encode_observation(observation: Observation, role: Role | None = None) -> npt.NDArray[np.float32]:
    """Encode what ``observation.seat`` sees as a ``float32`` vector of length :data:`OBS_SIZE`.

    ``role`` is what the observer is being asked to decide; by default it is the engine's
    pending decision when the observer is the decider, else :attr:`Role.NONE`. (The
    environments pass :attr:`Role.CHANCE` when they offer an out-of-turn UNO chance.)

    >>> from royal_revenge.engine import GameState, GameOptions
    >>> game = GameState.new(GameOptions(players=3), seed=7, first_king=2)
    >>> vector = encode_observation(game.observe(2))
    >>> vector.shape, vector.dtype.name, int(vector[Layout.HAND : Layout.HAND + 49].sum())
    ((292,), 'float32', 7)
    >>> int(vector[Layout.ROLE + Role.JESTER]), int(vector[Layout.KING + 0])  # the observer is King
    (1, 1)
    """
    me = observation.seat
    if me is None:
        raise ValueError("a spectator's observation has no seat to encode it from")
    pending = observation.pending
    if role is None:
        role = role_of(pending.kind) if pending.seat == me else Role.NONE
    return _encode(
        me,
        observation.options.players,
        observation.hand,
        observation.discard_pile,
        observation.discard_pile[-1],
        observation.active_colour,
        observation.drawn,
        observation.hand_sizes,
        observation.scores,
        observation.king,
        observation.jester,
        observation.dealer,
        observation.current,
        pending.kind,
        pending.seat,
        observation.uno_seat,
        observation.passes,
        observation.resolving,
        observation.direction,
        observation.draw_pile_size,
        observation.scepter_running,
        observation.fanfare_queued,
        observation.turns_since_scepter,
        observation.jester_for_setup,
        role,
    )


# ---------------------------------------------------------------------------- the environments' fast path

# _REL[players][me][seat] = the relative index of seat for observer me
_REL: Final = {
    n: tuple(tuple((seat - me) % n for seat in range(n)) for me in range(n)) for n in range(2, MAX_SEATS + 1)
}
_DRAWN_DECISION: Final = Decision.DRAWN
_COLOUR_DECISION: Final = Decision.COLOUR
_VICTIM_DECISION: Final = Decision.VICTIM
_SEATS: Final = Layout.SEATS
_PLAYERS: Final = Layout.PLAYERS
_DIRECTION: Final = Layout.DIRECTION
_DRAW_PILE: Final = Layout.DRAW_PILE
_SCEPTER_RUNNING: Final = Layout.SCEPTER_RUNNING
_FANFARE_QUEUED: Final = Layout.FANFARE_QUEUED
_TURNS: Final = Layout.TURNS_SINCE_SCEPTER
_JESTER_FOR_SETUP: Final = Layout.JESTER_FOR_SETUP
_TURNS_CAP: Final = Layout.TURNS_CAP
_DISCARD_END: Final = _DISCARD + NUM_FACES
_NO_DISCARDS: Final = bytes(NUM_FACES)
_MASK: Final = OBS_SIZE  # the encoder's buffer holds the observation, then the action mask
_FLOAT32: Final = np.dtype(np.float32)
_UINT8: Final = np.dtype(np.uint8)
_INT8: Final = np.dtype(np.int8)
_add: Final = np.add


class PublicEncoder:
    """The environments' fast path to :func:`encode_observation`, for one game at a time.

    Building an :class:`Observation` copies the whole discard pile and some thirty fields at
    every step, which costs more than the engine's step itself. This encoder reads, from the
    :class:`~royal_revenge.engine.GameState`, exactly the public fields that
    ``Observation.of(state, seat)`` copies (the observer's own hand and drawn card, never
    another hand, the draw pile's order, the scepter's schedule or the generator).

    It owns one preallocated ``bytearray`` (the observation's 292 values, then the 124 of the
    action mask) with two numpy views on it. A step copies in a template (the seats, the table
    size and the discard counts, which are kept up to date from the discard pile's length
    rather than recounted), writes the small whole numbers that changed, and hands out fresh
    arrays with one numpy call each: the ``uint8`` view cast to ``float32`` (or added to the
    observer's score row, once someone has scored; scores can exceed 255) and a copy of the
    ``int8`` mask view. Its output equals ``encode_observation(state.observe(seat), role)``;
    tests/rl check that at every step of random games at every table size, and that hidden
    information does not change it.
    """

    __slots__ = (
        "_base",
        "_buf",
        "_discard",
        "_mask",
        "_obs",
        "_players",
        "_rels",
        "_score_rows",
        "_scores",
        "_seen",
        "_size_slots",
    )

    def __init__(self) -> None:
        self._buf = bytearray(OBS_SIZE + NUM_ACTIONS)
        whole = np.frombuffer(self._buf, _UINT8)
        self._obs: npt.NDArray[np.uint8] = whole[:OBS_SIZE]
        self._mask: npt.NDArray[np.int8] = whole[OBS_SIZE:].view(_INT8)
        self._base = bytearray(OBS_SIZE + NUM_ACTIONS)
        self._rels: tuple[tuple[int, ...], ...] = ()
        self._size_slots: tuple[tuple[int, ...], ...] = ()
        self._discard: list[Card] | None = None  # held, so that the identity test below is sound
        self._seen = 0
        self._scores: list[int] = []
        self._score_rows: list[npt.NDArray[np.float32]] | None = None
        self._players = 0

    def _rebuild(self, state: GameState) -> None:
        n = self._players = state.players
        base = self._base = bytearray(OBS_SIZE + NUM_ACTIONS)
        base[_SEATS : _SEATS + n] = b"\x01" * n
        base[_PLAYERS + n - 2] = 1
        self._rels = _REL[n]
        self._size_slots = tuple(tuple(_H_SIZES + index for index in rel) for rel in _REL[n])
        self._discard = None
        self._seen = 0
        self._scores = []
        self._score_rows = None

    def _sync(self, state: GameState) -> None:
        """Bring the template up to date: new discards (recounted after a reshuffle or a deal) and scores."""
        if state.players != self._players:
            self._rebuild(state)
        base = self._base
        discard = state.discard
        start = self._seen
        if discard is not self._discard or len(discard) < start:
            base[_DISCARD:_DISCARD_END] = _NO_DISCARDS
            self._discard = discard
            start = 0
        for position in range(start, len(discard)):
            base[_DISCARD + discard[position]] += 1
        self._seen = len(discard)
        scores = state.scores
        if scores != self._scores:
            self._scores = scores[:]
            if any(scores):
                rows = []
                for rel in self._rels:
                    row = np.zeros(OBS_SIZE, dtype=np.float32)
                    for seat, index in enumerate(rel):
                        row[_SCORES + index] = scores[seat]
                    rows.append(row)
                self._score_rows = rows
            else:
                self._score_rows = None

    def encode(self, state: GameState, me: int, role: Role) -> npt.NDArray[np.float32]:
        """``encode_observation(state.observe(me), role)``, from the state's public fields."""
        return self.encode_with_mask(state, me, role, ())[0]

    def encode_with_mask(
        self, state: GameState, me: int, role: Role, legal: Iterable[int]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The encoded observation of ``me`` and a fresh mask with ones at the indices ``legal``."""
        discard = state.discard
        if discard is not self._discard or len(discard) != self._seen or state.scores != self._scores:
            self._sync(state)
        v = self._buf
        v[:] = self._base
        hands = state.hands
        for card in hands[me]:
            v[card] += 1
        rel = self._rels[me]
        v[_TOP + discard[-1]] = 1
        active = state.active_colour
        if active is not None:
            v[_ACTIVE + active] = 1
        decision = state.decision
        decider = state.decider
        if decider is not None:
            v[_DECIDER + rel[decider]] = 1
            if decider == me and decision is _DRAWN_DECISION:
                drawn = state.drawn
                if drawn is not None:
                    v[_DRAWN + drawn] = 1
        slots = self._size_slots[me]
        for seat in range(len(hands)):  # (an index loop: compiled, it runs without a zip object)
            v[slots[seat]] = len(hands[seat])
        v[_KING + rel[state.king]] = 1
        jester = state.jester
        if jester is not None:
            v[_JESTER + rel[jester]] = 1
        v[_DEALER + rel[state.dealer]] = 1
        v[_CURRENT + rel[state.current]] = 1
        uno = state.uno_seat
        if uno is not None:
            v[_UNO + rel[uno]] = 1
        passes = state.passes
        if passes:
            for seat in range(len(hands)):
                if passes >> seat & 1:
                    v[_PASSED + rel[seat]] = 1
        if decision is _COLOUR_DECISION or decision is _VICTIM_DECISION:
            resolving = state.resolving
            v[_RESOLVING + (MAX_SEATS if resolving < 0 else rel[resolving])] = 1
        v[_PENDING + decision] = 1
        v[_ROLE + role] = 1
        turns = state.turns_since_scepter
        if state.direction > 0:
            v[_DIRECTION] = 1
        v[_DRAW_PILE] = len(state.draw_pile)
        if state.scepter_running:
            v[_SCEPTER_RUNNING] = 1
        if state.fanfare_queued:
            v[_FANFARE_QUEUED] = 1
        if turns < 256:
            v[_TURNS] = turns
        if state.jester_for_setup:
            v[_JESTER_FOR_SETUP] = 1
        for index in legal:
            v[_MASK + index] = 1
        rows = self._score_rows
        out: npt.NDArray[np.float32] = self._obs.astype(_FLOAT32) if rows is None else _add(self._obs, rows[me])
        if turns >= 256:
            out[_TURNS] = turns if turns < _TURNS_CAP else _TURNS_CAP
        return out, self._mask.copy()
