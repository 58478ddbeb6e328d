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
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..engine import (
    CALL_UNO,
    DRAW,
    KEEP,
    AnyAction,
    CallUno,
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
    "legal_indices",
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


# Finding the engine's shared action instances by address, without building an int object per
# lookup: every shared instance a player may take has a code (its position in _SHARED), and a slot
# (its address, divided by 16, modulo _SLOTS), where _SLOTS is the smallest size at which no two
# instances share a slot. A lookup checks the slot's instance by identity; anything else (another
# instance) falls back to action_to_int.
_SHARED: Final[tuple[AnyAction, ...]] = (
    *PLAYS,
    *PLAYS_UNO,
    DRAW,
    KEEP,
    *COLOURS,
    *VICTIMS,
    *JESTERS,
    CALL_UNO,
    *CATCHES,
)


def _perfect_slots() -> tuple[int, list[AnyAction | None], list[int]]:
    keys = [id(action) >> 4 for action in _SHARED]  # (objects are 16-byte aligned: distinct keys)
    size = len(keys)
    while len({key % size for key in keys}) < len(keys):
        size += 1
        if size > 1 << 16:  # (never: a few hundred suffice) no table; every lookup falls back
            return 1, [None], [0]
    instances: list[AnyAction | None] = [None] * size
    codes = [0] * size
    for code in range(len(keys)):
        instances[keys[code] % size] = _SHARED[code]
        codes[keys[code] % size] = code
    return size, instances, codes


_PERFECT: Final = _perfect_slots()
_SLOTS: Final = _PERFECT[0]
_SLOT_INSTANCE: Final = _PERFECT[1]
_SLOT_CODE: Final = _PERFECT[2]
# _CODE_INDEX[players][seat][code] = the action index of shared instance ``code`` taken by ``seat``
# (-1: a seat missing at that table size)
_CODE_INDEX: Final[tuple[tuple[list[int], ...], ...]] = tuple(
    tuple([_TABLES[players][seat][0].get(id(action), -1) for action in _SHARED] for seat in range(players))
    if players >= 2
    else ()
    for players in range(MAX_SEATS + 1)
)


def _seat_slots(players: int, seat: int) -> tuple[list[AnyAction | None], list[int]]:
    """The perfect hash's slots for one acting seat: the instance there (``None`` where a seat is
    missing at this table size, so that its lookup falls back too) and its action index."""
    by_code = _CODE_INDEX[players][seat]
    instances: list[AnyAction | None] = [None] * _SLOTS
    indices = [-1] * _SLOTS
    for slot in range(_SLOTS):
        instance = _SLOT_INSTANCE[slot]
        if instance is not None and by_code[_SLOT_CODE[slot]] >= 0:
            instances[slot] = instance
            indices[slot] = by_code[_SLOT_CODE[slot]]
    return instances, indices


# _SEAT_SLOTS[players][seat] = (instance by slot, index by slot)
_SEAT_SLOTS: Final = tuple(
    tuple(_seat_slots(players, seat) for seat in range(players)) if players >= 2 else ()
    for players in range(MAX_SEATS + 1)
)


def legal_indices(legal: list[AnyAction], seat: int, players: int) -> list[int]:
    """The indices of the engine's legal actions for ``seat`` (the environments' fast path)."""
    instances, indices = _SEAT_SLOTS[players][seat]
    size = _SLOTS
    return [
        indices[(id(action) >> 4) % size]
        if instances[(id(action) >> 4) % size] is action
        else action_to_int(action, seat, players)
        for action in legal
    ]


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
_NOWHERE: Final = OBS_SIZE  # a spare slot past the observation: where an absent one-hot field "is"
_FLOAT32: Final = np.dtype(np.float32)
# A fresh copy of an array (``numpy.array`` copies by default): about 150 instructions cheaper than
# the ``copy`` method, whose arguments are parsed the slow way.
_NEW_ARRAY: Final = np.array
_INT8: Final = np.dtype(np.int8)
_DISCARD_BYTES: Final = 4 * _DISCARD
_DISCARD_BYTES_END: Final = 4 * (_DISCARD + NUM_FACES)
_NO_DISCARDS: Final = bytes(4 * NUM_FACES)
# The values the encoder writes, boxed once: a write stores one of these objects (no float is
# created per write). Counts, hand sizes and the draw pile stay below 64; larger values (scores,
# the turn counter) are converted when written.
_SMALL: Final = 64
_FLOATS: Final[tuple[object, ...]] = tuple(float(value) for value in range(_SMALL))


# _AT[position] is the position as an object: compiled code would otherwise box every position
# past 256 into a new int object at every write.
_AT: Final[tuple[object, ...]] = tuple(range(OBS_SIZE + 1))


def _move_one(values: Any, old: int, new: int) -> None:
    """Move a one-hot field's 1 from ``old`` to ``new`` (either may be :data:`_NOWHERE`: absent)."""
    if old != _NOWHERE:
        values[_AT[old]] = _FLOATS[0]
    if new != _NOWHERE:
        values[_AT[new]] = _FLOATS[1]


def _boxed(value: int) -> object:
    return _FLOATS[value] if 0 <= value < _SMALL else float(value)


class _SeatView:
    """One observer's encoding as last handed out, kept to be updated in place.

    ``values`` is a float32 ``memoryview`` over the observation (plus the spare slot
    :data:`_NOWHERE`) and ``array`` the numpy view that is copied out. The other fields record
    what ``values`` holds: the position of each one-hot field (``_NOWHERE`` when it is absent)
    and the plain values of the others, so that an update writes only what changed.
    """

    __slots__ = (
        "active",
        "array",
        "buffer",
        "current",
        "dealer",
        "decider",
        "direction",
        "discard_epoch",
        "discard_seen",
        "draw_pile",
        "drawn",
        "fanfare",
        "hand",
        "hand_counts",
        "jester",
        "jester_for_setup",
        "king",
        "passes",
        "pending",
        "resolving",
        "role",
        "scepter",
        "scores",
        "sizes",
        "top",
        "turns",
        "uno",
        "values",
    )

    def __init__(self, players: int) -> None:
        buffer = self.buffer = bytearray(4 * (OBS_SIZE + 1))
        self.values: Any = memoryview(buffer).cast("f")  # Any: written with boxed floats (objects)
        self.array: npt.NDArray[np.float32] = np.frombuffer(buffer, _FLOAT32, OBS_SIZE)
        values = self.values
        for rel in range(players):
            values[_SEATS + rel] = 1.0
        values[_PLAYERS + players - 2] = 1.0
        self.hand: list[int] = []
        self.hand_counts = [0] * NUM_FACES
        self.sizes = [0] * players
        self.scores = [0] * players
        self.discard_epoch = -1
        self.discard_seen = 0
        self.top = _NOWHERE
        self.active = _NOWHERE
        self.drawn = _NOWHERE
        self.king = _NOWHERE
        self.jester = _NOWHERE
        self.dealer = _NOWHERE
        self.current = _NOWHERE
        self.decider = _NOWHERE
        self.uno = _NOWHERE
        self.resolving = _NOWHERE
        self.pending = _NOWHERE
        self.role = _NOWHERE
        self.passes = 0
        self.direction = 0
        self.draw_pile = 0
        self.scepter = 0
        self.fanfare = 0
        self.turns = 0
        self.jester_for_setup = 0


class PublicEncoder:
    """The environments' fast path to :func:`encode_observation`, for one game at a time.

    Building an :class:`Observation` copies the whole discard pile and some thirty fields at
    every step, which costs more than the engine's step itself. This encoder reads, from the
    :class:`~royal_revenge.engine.GameState`, exactly the public fields that
    ``Observation.of(state, seat)`` copies (the observer's own hand and drawn card, never
    another hand, the draw pile's order, the scepter's schedule or the generator).

    It keeps each observer's last encoding (a ``float32`` buffer) and what it holds, and
    brings it up to date in place: between two observations of the same seat only a few
    fields change (a card or two in the hand, the top card, hand sizes, the draw pile, new
    discards, whose counts are kept from the discard pile's length rather than recounted), so
    only those values are written. The caller gets a fresh copy of the buffer (one numpy call)
    and a fresh action mask. A new state (another game, or a copy) starts the buffers afresh.
    Its output equals ``encode_observation(state.observe(seat), role)``; tests/rl check that at
    every step of random games at every table size, and that hidden information does not
    change it.
    """

    __slots__ = (
        "_counts",
        "_delta",
        "_discard",
        "_discard_epoch",
        "_mask",
        "_mask_buffer",
        "_players",
        "_rels",
        "_seen",
        "_size_slots",
        "_state",
        "_views",
    )

    def __init__(self) -> None:
        self._mask_buffer = bytearray(NUM_ACTIONS)
        self._mask: npt.NDArray[np.int8] = np.frombuffer(self._mask_buffer, _INT8)
        self._state: GameState | None = None
        self._players = 0
        self._views: list[_SeatView] = []
        self._rels: tuple[tuple[int, ...], ...] = ()
        self._size_slots: tuple[tuple[int, ...], ...] = ()
        self._discard: list[int] | None = None  # held, so that the identity test below is sound
        self._discard_epoch = 0
        self._seen = 0
        self._counts = [0] * NUM_FACES  # of each face in the discard pile
        self._delta = [0] * NUM_FACES  # scratch, all zero between calls

    def _start(self, state: GameState) -> None:
        """Encode ``state`` from scratch: new buffers for every seat."""
        n = self._players = state.players
        self._state = state
        self._views = [_SeatView(n) for _ in range(n)]
        self._rels = _REL[n]
        self._size_slots = tuple(tuple(_H_SIZES + index for index in rel) for rel in _REL[n])
        self._discard = None

    def encode(self, state: GameState, me: int, role: Role) -> npt.NDArray[np.float32]:
        """``encode_observation(state.observe(me), role)``, from the state's public fields."""
        return self.encode_with_mask(state, me, role, [])[0]

    def encode_with_mask(
        self, state: GameState, me: int, role: Role, legal: list[int]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The encoded observation of ``me`` and a fresh mask with ones at the indices ``legal``."""
        if state is not self._state or state.players != self._players:
            self._start(state)
        # The discard counts, shared by the seats: kept up to date from the pile's length; a new
        # pile (a reshuffle, a deal) is recounted and starts a new epoch.
        # (faces, colours, decisions and roles are int subclasses, read into variables declared
        # ``int``: compiled code handles them as machine integers, and interpreted, unlike a
        # typing.cast call, a declaration costs nothing)
        counts = self._counts
        discard: list[int] = state.discard  # type: ignore[assignment]
        seen = self._seen
        size = len(discard)
        if discard is not self._discard or size < seen:
            for face in range(NUM_FACES):
                counts[face] = 0
            for face in discard:
                counts[face] = counts[face] + 1  # (not +=: compiled, that is a generic in-place add)
            self._discard = discard
            self._discard_epoch += 1
        else:
            for position in range(seen, size):
                face = discard[position]
                counts[face] = counts[face] + 1
        self._seen = size

        view = self._views[me]
        v = view.values
        at = _AT
        zero = _FLOATS[0]
        one = _FLOATS[1]
        rel = self._rels[me]
        if view.discard_epoch != self._discard_epoch:  # a new pile: clear the counts, write the few there are
            view.buffer[_DISCARD_BYTES:_DISCARD_BYTES_END] = _NO_DISCARDS
            for face in range(NUM_FACES):
                if counts[face]:
                    v[at[_DISCARD + face]] = _boxed(counts[face])
            view.discard_epoch = self._discard_epoch
        else:
            for position in range(view.discard_seen, size):
                face = discard[position]
                v[at[_DISCARD + face]] = _boxed(counts[face])
        view.discard_seen = size

        hand: list[int] = state.hands[me]  # type: ignore[assignment]
        old = view.hand
        new_end = len(hand)
        old_end = len(old)
        start = 0
        limit = new_end if new_end < old_end else old_end
        while start < limit and hand[start] == old[start]:
            start += 1
        if start < new_end or start < old_end:
            # Only the cards between the common head and the common tail differ (a play removes one
            # card, a draw appends): count those old cards -1 and new ones +1, then write the faces
            # whose count changed. (A face's count stays below the deck's copies: a boxed float.)
            while new_end > start and old_end > start and hand[new_end - 1] == old[old_end - 1]:
                new_end -= 1
                old_end -= 1
            delta = self._delta
            have = view.hand_counts
            floats = _FLOATS
            for position in range(start, old_end):
                face = old[position]
                delta[face] = delta[face] - 1
            for position in range(start, new_end):
                face = hand[position]
                delta[face] = delta[face] + 1
            for position in range(start, old_end):
                face = old[position]
                change = delta[face]
                if change:
                    count = have[face] + change
                    have[face] = count
                    v[at[face]] = floats[count]
                    delta[face] = 0
            for position in range(start, new_end):
                face = hand[position]
                change = delta[face]
                if change:
                    count = have[face] + change
                    have[face] = count
                    v[at[face]] = floats[count]
                    delta[face] = 0
            view.hand = hand[:]

        position = _TOP + discard[-1]
        if position != view.top:
            _move_one(v, view.top, position)
            view.top = position
        active = state.active_colour
        position = _NOWHERE
        if active is not None:
            colour: int = active
            position = _ACTIVE + colour
        if position != view.active:
            _move_one(v, view.active, position)
            view.active = position
        decision = state.decision
        decider = state.decider
        position = _NOWHERE
        drawn_position = _NOWHERE
        if decider is not None:
            position = _DECIDER + rel[decider]
            if decider == me and decision is _DRAWN_DECISION:
                drawn = state.drawn
                if drawn is not None:
                    card: int = drawn
                    drawn_position = _DRAWN + card
        if position != view.decider:
            _move_one(v, view.decider, position)
            view.decider = position
        if drawn_position != view.drawn:
            _move_one(v, view.drawn, drawn_position)
            view.drawn = drawn_position

        hands = state.hands
        sizes = view.sizes
        slots = self._size_slots[me]
        for seat in range(len(hands)):
            held = len(hands[seat])
            if held != sizes[seat]:
                v[at[slots[seat]]] = _boxed(held)
                sizes[seat] = held
        scores = state.scores
        if scores != view.scores:
            for seat in range(len(scores)):
                v[at[_SCORES + rel[seat]]] = _boxed(scores[seat])
            view.scores = scores[:]

        position = _KING + rel[state.king]
        if position != view.king:
            _move_one(v, view.king, position)
            view.king = position
        jester = state.jester
        position = _NOWHERE if jester is None else _JESTER + rel[jester]
        if position != view.jester:
            _move_one(v, view.jester, position)
            view.jester = position
        position = _DEALER + rel[state.dealer]
        if position != view.dealer:
            _move_one(v, view.dealer, position)
            view.dealer = position
        position = _CURRENT + rel[state.current]
        if position != view.current:
            _move_one(v, view.current, position)
            view.current = position
        uno = state.uno_seat
        position = _NOWHERE if uno is None else _UNO + rel[uno]
        if position != view.uno:
            _move_one(v, view.uno, position)
            view.uno = position
        passes = state.passes
        if passes != view.passes:
            for seat in range(len(hands)):
                v[at[_PASSED + rel[seat]]] = one if passes >> seat & 1 else zero
            view.passes = passes
        position = _NOWHERE
        if decision is _COLOUR_DECISION or decision is _VICTIM_DECISION:
            resolving = state.resolving
            position = _RESOLVING + (MAX_SEATS if resolving < 0 else rel[resolving])
        if position != view.resolving:
            _move_one(v, view.resolving, position)
            view.resolving = position
        pending: int = decision
        position = _PENDING + pending
        if position != view.pending:
            _move_one(v, view.pending, position)
            view.pending = position
        role_code: int = role
        position = _ROLE + role_code
        if position != view.role:
            _move_one(v, view.role, position)
            view.role = position

        value = 1 if state.direction > 0 else 0
        if value != view.direction:
            v[at[_DIRECTION]] = _boxed(value)
            view.direction = value
        value = len(state.draw_pile)
        if value != view.draw_pile:
            v[at[_DRAW_PILE]] = _boxed(value)
            view.draw_pile = value
        value = 1 if state.scepter_running else 0
        if value != view.scepter:
            v[at[_SCEPTER_RUNNING]] = _boxed(value)
            view.scepter = value
        value = 1 if state.fanfare_queued else 0
        if value != view.fanfare:
            v[at[_FANFARE_QUEUED]] = _boxed(value)
            view.fanfare = value
        value = state.turns_since_scepter
        if value > _TURNS_CAP:
            value = _TURNS_CAP
        if value != view.turns:
            v[at[_TURNS]] = _boxed(value)
            view.turns = value
        value = 1 if state.jester_for_setup else 0
        if value != view.jester_for_setup:
            v[at[_JESTER_FOR_SETUP]] = _boxed(value)
            view.jester_for_setup = value

        out: npt.NDArray[np.float32] = _NEW_ARRAY(view.array)
        mask = self._mask_buffer  # all zero between calls
        for index in legal:
            mask[index] = 1
        legal_mask: npt.NDArray[np.int8] = _NEW_ARRAY(self._mask)
        for index in legal:
            mask[index] = 0
        return out, legal_mask
