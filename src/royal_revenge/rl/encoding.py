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
from collections.abc import Callable, Iterable
from enum import IntEnum
from typing import Any, Final, NamedTuple, TypeAlias

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
from ..engine.cards import ALL_CARDS, COPIES_OF, FULL_DECK, NUM_FACES, POINTS_OF
from ..engine.options import MIN_PLAYERS

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
    "FEWEST_PLAYERS",
    "Role",
    "Layout",
    "LAYOUT",
    "Part",
    "PARTS",
    "player_actions",
    "action_index",
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
]

# ---------------------------------------------------------------------------- actions

PLAY: Final = 0
PLAY_UNO: Final = PLAY + NUM_FACES  # 49
DRAW_ACTION: Final = PLAY_UNO + NUM_FACES  # 98
KEEP_ACTION: Final = DRAW_ACTION + 1  # 99
COLOUR: Final = KEEP_ACTION + 1  # 100
VICTIM: Final = COLOUR + len(Colour)  # 104
JESTER: Final = VICTIM + MAX_SEATS  # 110
CALL_UNO_ACTION: Final = JESTER + MAX_SEATS  # 116
CATCH: Final = CALL_UNO_ACTION + 1  # 117
PASS: Final = CATCH + MAX_SEATS  # 123
NUM_ACTIONS: Final = PASS + 1  # 124

FEWEST_PLAYERS: Final = MIN_PLAYERS
"""The smallest table (the engine's MIN_PLAYERS, R-SETUP-1)."""


_PLAY: Final = Play
_DRAW: Final = Draw
_KEEP: Final = Keep
_CHOOSE_COLOUR: Final = ChooseColour
_CALL_UNO: Final = CallUno
_CHOOSE_VICTIM: Final = ChooseVictim
_CHOOSE_JESTER: Final = ChooseJester
_CATCH: Final = Catch


def player_actions(players: int) -> tuple[AnyAction, ...]:
    """Every action a player can take at a table of ``players``: the engine's shared instances."""
    return (
        *PLAYS,
        *PLAYS_UNO,
        DRAW,
        KEEP,
        *COLOURS,
        *VICTIMS[:players],
        *JESTERS[:players],
        CALL_UNO,
        *CATCHES[:players],
    )


def action_index(action: AnyAction, seat: int, players: int) -> int:
    """The index of a player's action taken by ``seat`` at a table of ``players``, from the action's fields.

    This is the action space's one definition: :func:`int_to_action` is its inverse. A table
    action (``fanfare``, ``deal``), or a seat the table does not have, raises :class:`ValueError`.
    """
    # (exact types, compared with the classes held in finals: compiled, a pointer comparison, where isinstance
    # looks the class up and, for another class, asks it; no action type is subclassed)
    if type(action) is _PLAY:
        card: int = action.card  # (an int variable: compiled, a machine integer)
        return (PLAY_UNO if action.uno else PLAY) + card
    if type(action) is _DRAW:
        return DRAW_ACTION
    if type(action) is _KEEP:
        return KEEP_ACTION
    if type(action) is _CHOOSE_COLOUR:
        colour: int = action.colour
        return COLOUR + colour
    if type(action) is _CALL_UNO:
        return CALL_UNO_ACTION
    if type(action) is _CHOOSE_VICTIM:
        first = VICTIM
    elif type(action) is _CHOOSE_JESTER:
        first = JESTER
    elif type(action) is _CATCH:
        first = CATCH
    else:
        raise ValueError(f"{action!r} is a table action, not a player's; it has no place in the action space")
    target: int = action.seat
    if not 0 <= target < players:
        raise ValueError(f"there is no seat {target} at a table of {players}")
    return first + (target - seat) % players


def action_to_int(action: AnyAction | None, seat: int, players: int) -> int:
    """The index of an engine action taken by ``seat``; ``None`` (let a chance go by) is :data:`PASS`."""
    return PASS if action is None else action_index(action, seat, players)


def _decoding(players: int, seat: int) -> tuple[AnyAction | None, ...]:
    """``index -> action`` for ``seat``: :func:`action_index` inverted (``None`` for PASS and missing seats)."""
    decode: list[AnyAction | None] = [None] * NUM_ACTIONS
    for action in player_actions(players):
        decode[action_index(action, seat, players)] = action
    return tuple(decode)


# _DECODE[players][seat][index] = the engine's action (empty for the table sizes that do not exist)
_DECODE: Final = tuple(
    tuple(_decoding(players, seat) for seat in range(players)) if players >= FEWEST_PLAYERS else ()
    for players in range(MAX_SEATS + 1)
)


def decode_table(players: int, seat: int) -> tuple[AnyAction | None, ...]:
    """``index -> engine action`` for ``seat`` (``None`` for PASS and for missing seats)."""
    return _DECODE[players][seat]


def int_to_action(index: int, seat: int, players: int) -> AnyAction | None:
    """The engine action for an index taken by ``seat``; :data:`PASS` gives ``None``.

    Raises :class:`ValueError` for an index outside the space or a seat slot that does not
    exist at this table size.
    """
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action {index} is outside the action space 0..{NUM_ACTIONS - 1}")
    if index == PASS:
        return None
    action = _DECODE[players][seat][index]
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


def legal_indices(legal: Iterable[AnyAction], seat: int, players: int) -> list[int]:
    """The indices of the engine's legal actions for ``seat`` (the environments' mask)."""
    return [action_index(action, seat, players) for action in legal]


def legal_action_ints(legal: Iterable[AnyAction], seat: int, players: int, *, chance: bool = False) -> list[int]:
    """The indices of engine legal actions; with ``chance`` (an optional out-of-turn chance) PASS is added."""
    indices = legal_indices(legal, seat, players)
    if chance:
        indices.append(PASS)
    return indices


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
    """Offsets of the observation vector's parts (all ``float32``; see docs/rl.md); each part ends where the next
    begins. What fills each part is :data:`PARTS`."""

    HAND: Final = 0  # NUM_FACES: count of each face in the own hand
    TOP: Final = HAND + NUM_FACES  # NUM_FACES: one-hot, the top discard
    ACTIVE_COLOUR: Final = TOP + NUM_FACES  # the colours: one-hot (all zero while a Wild's colour is chosen)
    DRAWN: Final = ACTIVE_COLOUR + len(Colour)  # NUM_FACES: one-hot, the card the observer just drew
    DISCARD: Final = DRAWN + NUM_FACES  # NUM_FACES: count of each face in the discard pile (seen played)
    SEATS: Final = DISCARD + NUM_FACES  # MAX_SEATS: 1 for each relative seat that exists
    HAND_SIZES: Final = SEATS + MAX_SEATS  # MAX_SEATS: cards held, by relative seat
    SCORES: Final = HAND_SIZES + MAX_SEATS  # MAX_SEATS: score, by relative seat
    KING: Final = SCORES + MAX_SEATS  # MAX_SEATS: one-hot
    JESTER: Final = KING + MAX_SEATS  # MAX_SEATS: one-hot (zero before the first Jester)
    DEALER: Final = JESTER + MAX_SEATS  # MAX_SEATS: one-hot
    CURRENT: Final = DEALER + MAX_SEATS  # MAX_SEATS: one-hot, whose turn it is
    DECIDER: Final = CURRENT + MAX_SEATS  # MAX_SEATS: one-hot, whose decision the game waits for
    UNO: Final = DECIDER + MAX_SEATS  # MAX_SEATS: one-hot, who may be caught without UNO now
    PASSED: Final = UNO + MAX_SEATS  # MAX_SEATS: seats that passed since the last card (stalemate count)
    RESOLVING: Final = PASSED + MAX_SEATS  # MAX_SEATS + 1: whose card the King resolves (the seats, the start card)
    PENDING: Final = RESOLVING + MAX_SEATS + 1  # the Decisions: one-hot engine Decision (TURN..GAME_OVER)
    ROLE: Final = PENDING + len(Decision)  # the Roles: one-hot Role, what the observer must decide now
    PLAYERS: Final = ROLE + len(Role)  # one-hot table size, FEWEST_PLAYERS..MAX_SEATS
    DIRECTION: Final = PLAYERS + MAX_SEATS - FEWEST_PLAYERS + 1  # 1 while play moves left, 0 after odd Reverses
    DRAW_PILE: Final = DIRECTION + 1  # cards in the draw pile
    SCEPTER_RUNNING: Final = DRAW_PILE + 1
    FANFARE_QUEUED: Final = SCEPTER_RUNNING + 1
    TURNS_SINCE_SCEPTER: Final = FANFARE_QUEUED + 1  # capped at TURNS_CAP
    JESTER_FOR_SETUP: Final = TURNS_SINCE_SCEPTER + 1  # the Jester being chosen starts a round
    SIZE: Final = JESTER_FOR_SETUP + 1  # 292

    TURNS_CAP: Final = 1_000_000


LAYOUT: Final = Layout
OBS_SIZE: Final = Layout.SIZE

_START_CARD: Final = MAX_SEATS
"""RESOLVING's last place: the King resolves the start card (no seat played it)."""


def observation_high(target_score: int) -> npt.NDArray[np.float32]:
    """The upper bound of every place (the lower bound is 0 everywhere).

    A score can pass the target by at most one round's worth of points: the whole deck's.
    """
    copies = max(COPIES_OF)
    deck = len(FULL_DECK)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    high[Layout.HAND : Layout.HAND + NUM_FACES] = copies
    high[Layout.DISCARD : Layout.DISCARD + NUM_FACES] = copies
    high[Layout.HAND_SIZES : Layout.HAND_SIZES + MAX_SEATS] = deck
    high[Layout.SCORES : Layout.SCORES + MAX_SEATS] = target_score + sum(POINTS_OF[card] for card in FULL_DECK)
    high[Layout.DRAW_PILE] = deck
    high[Layout.TURNS_SINCE_SCEPTER] = Layout.TURNS_CAP
    return high


# ---------------------------------------------------------------------------- the encoding, part by part

Fill: TypeAlias = Callable[[Any, int, Observation, Role], None]
"""Writes one part: ``fill(values, start, observation, role)`` (``values``: the zeroed vector)."""
Read: TypeAlias = Callable[[Observation, Role], Any]
"""What fills a part, read from the observation (and the role the observer is given)."""


class Part(NamedTuple):
    """One part of the observation vector: where it lies and what fills it."""

    start: int
    size: int
    fill: Fill


def _relative(observation: Observation, seat: int) -> int:
    """``seat`` as seen by the observer: 0 itself, 1 its left-hand neighbour, ..."""
    me = observation.seat
    assert me is not None
    return (seat - me) % observation.players


def _counts(read: Read) -> Fill:
    """A count of each face: one for every card that ``read`` lists."""

    def fill(values: Any, start: int, observation: Observation, role: Role) -> None:
        for card in read(observation, role):
            values[start + card] += 1.0

    return fill


def _one_hot(read: Read) -> Fill:
    """A 1 at the place within the part that ``read`` gives (no 1 for ``None``)."""

    def fill(values: Any, start: int, observation: Observation, role: Role) -> None:
        place = read(observation, role)
        if place is not None:
            values[start + place] = 1.0

    return fill


def _seat(read: Read) -> Fill:
    """A 1 at the relative seat of the seat that ``read`` gives (no 1 for ``None``)."""

    def place(observation: Observation, role: Role) -> int | None:
        seat = read(observation, role)
        return None if seat is None else _relative(observation, seat)

    return _one_hot(place)


def _by_seat(read: Read) -> Fill:
    """The values that ``read`` lists by seat, each at its seat's relative place."""

    def fill(values: Any, start: int, observation: Observation, role: Role) -> None:
        for seat, value in enumerate(read(observation, role)):
            values[start + _relative(observation, seat)] = float(value)

    return fill


def _number(read: Read) -> Fill:
    """The one number that ``read`` gives (a flag is 1 or 0)."""

    def fill(values: Any, start: int, observation: Observation, role: Role) -> None:
        values[start] = float(read(observation, role))

    return fill


def _resolving(observation: Observation, role: Role) -> int | None:
    """Whose card the King resolves, while he chooses a colour or a victim: a relative seat, or the start card."""
    if observation.pending.kind not in (Decision.COLOUR, Decision.VICTIM):
        return None
    seat = observation.resolving
    return _START_CARD if seat < 0 else _relative(observation, seat)


def _laid_out(*parts: tuple[int, Fill]) -> tuple[Part, ...]:
    """The parts, given by their starts in order: each ends where the next begins, the last at the vector's end."""
    ends = [start for start, _ in parts[1:]] + [OBS_SIZE]
    return tuple(Part(start, end - start, fill) for (start, fill), end in zip(parts, ends, strict=True))


PARTS: Final[tuple[Part, ...]] = _laid_out(
    (Layout.HAND, _counts(lambda o, role: o.hand)),
    (Layout.TOP, _one_hot(lambda o, role: o.discard_pile[-1])),
    (Layout.ACTIVE_COLOUR, _one_hot(lambda o, role: o.active_colour)),
    (Layout.DRAWN, _one_hot(lambda o, role: o.drawn)),
    (Layout.DISCARD, _counts(lambda o, role: o.discard_pile)),
    (Layout.SEATS, _by_seat(lambda o, role: [1] * o.players)),
    (Layout.HAND_SIZES, _by_seat(lambda o, role: o.hand_sizes)),
    (Layout.SCORES, _by_seat(lambda o, role: o.scores)),
    (Layout.KING, _seat(lambda o, role: o.king)),
    (Layout.JESTER, _seat(lambda o, role: o.jester)),
    (Layout.DEALER, _seat(lambda o, role: o.dealer)),
    (Layout.CURRENT, _seat(lambda o, role: o.current)),
    (Layout.DECIDER, _seat(lambda o, role: o.pending.seat)),
    (Layout.UNO, _seat(lambda o, role: o.uno_seat)),
    (Layout.PASSED, _by_seat(lambda o, role: [o.passes >> seat & 1 for seat in range(o.players)])),
    (Layout.RESOLVING, _one_hot(_resolving)),
    (Layout.PENDING, _one_hot(lambda o, role: o.pending.kind)),
    (Layout.ROLE, _one_hot(lambda o, role: role)),
    (Layout.PLAYERS, _one_hot(lambda o, role: o.players - FEWEST_PLAYERS)),
    (Layout.DIRECTION, _number(lambda o, role: o.direction > 0)),
    (Layout.DRAW_PILE, _number(lambda o, role: o.draw_pile_size)),
    (Layout.SCEPTER_RUNNING, _number(lambda o, role: o.scepter_running)),
    (Layout.FANFARE_QUEUED, _number(lambda o, role: o.fanfare_queued)),
    (Layout.TURNS_SINCE_SCEPTER, _number(lambda o, role: min(o.turns_since_scepter, Layout.TURNS_CAP))),
    (Layout.JESTER_FOR_SETUP, _number(lambda o, role: o.jester_for_setup)),
)
"""The encoding's one definition: for each part of the layout, in order, what of the
:class:`~royal_revenge.engine.Observation` fills it (docs/rl.md's table). Seats are relative to the observer."""

_ZERO: Final = array.array("f", bytes(4 * OBS_SIZE))


def encode_observation(observation: Observation, role: Role | None = None) -> npt.NDArray[np.float32]:
    """Encode what ``observation.seat`` sees as a ``float32`` vector of length :data:`OBS_SIZE`, part by part.

    ``role`` is what the observer is being asked to decide; by default it is the engine's
    pending decision when the observer is the decider, else :attr:`Role.NONE`. (The
    environments pass :attr:`Role.CHANCE` when they offer an out-of-turn UNO chance.)

    >>> from royal_revenge.engine import GameState, GameOptions
    >>> game = GameState.new(GameOptions(players=3), seed=7, first_king=2)
    >>> vector = encode_observation(game.observe(2))
    >>> vector.shape, vector.dtype.name, int(vector[Layout.HAND : Layout.HAND + NUM_FACES].sum())
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
    values = array.array("f", _ZERO)
    for part in PARTS:
        part.fill(values, part.start, observation, role)
    return np.frombuffer(values, dtype=np.float32)


# ---------------------------------------------------------------------------- the environments' fast path
# PublicEncoder produces what encode_observation does, from the GameState's public fields and in place (tests/rl
# compare the two at every step). Its constants are module-level finals: compiled, C statics, where a Layout
# attribute would be a class lookup.

# _REL[players][me][seat] = the relative place of seat for observer me
_REL: Final = tuple(
    tuple(tuple((seat - me) % n for seat in range(n)) for me in range(n)) for n in range(MAX_SEATS + 1)
)
_DRAWN_DECISION: Final = Decision.DRAWN
_COLOUR_DECISION: Final = Decision.COLOUR
_VICTIM_DECISION: Final = Decision.VICTIM
_HAND: Final = Layout.HAND
_TOP: Final = Layout.TOP
_ACTIVE: Final = Layout.ACTIVE_COLOUR
_DRAWN: Final = Layout.DRAWN
_DISCARD: Final = Layout.DISCARD
_SEATS: Final = Layout.SEATS
_HAND_SIZES: Final = Layout.HAND_SIZES
_SCORES: Final = Layout.SCORES
_KING: Final = Layout.KING
_JESTER: Final = Layout.JESTER
_DEALER: Final = Layout.DEALER
_CURRENT: Final = Layout.CURRENT
_DECIDER: Final = Layout.DECIDER
_UNO: Final = Layout.UNO
_PASSED: Final = Layout.PASSED
_RESOLVING: Final = Layout.RESOLVING
_PENDING: Final = Layout.PENDING
_ROLE: Final = Layout.ROLE
_PLAYERS: Final = Layout.PLAYERS
_DIRECTION: Final = Layout.DIRECTION
_DRAW_PILE: Final = Layout.DRAW_PILE
_SCEPTER_RUNNING: Final = Layout.SCEPTER_RUNNING
_FANFARE_QUEUED: Final = Layout.FANFARE_QUEUED
_TURNS: Final = Layout.TURNS_SINCE_SCEPTER
_JESTER_FOR_SETUP: Final = Layout.JESTER_FOR_SETUP
_TURNS_CAP: Final = Layout.TURNS_CAP
_NOWHERE: Final = -1  # a one-hot part without its 1
_FLOAT32: Final = np.dtype(np.float32)
_INT8: Final = np.dtype(np.int8)
# A fresh copy of an array (``numpy.array`` copies by default): about 150 instructions cheaper than
# the ``copy`` method, whose arguments are parsed the slow way.
_NEW_ARRAY: Final = np.array
# The values the encoder writes, boxed once: a write stores one of these objects (no float is
# created per write). Counts, hand sizes and the draw pile stay below 64; larger values (scores,
# the turn counter) are converted when written.
_SMALL: Final = 64
_FLOATS: Final[tuple[object, ...]] = tuple(float(value) for value in range(_SMALL))
# _AT[place] is the place as an object: compiled code would otherwise box every place
# past 256 into a new int object at every write.
_AT: Final[tuple[object, ...]] = tuple(range(OBS_SIZE))
_DISCARD_BYTES: Final = 4 * _DISCARD
_DISCARD_BYTES_END: Final = 4 * (_DISCARD + NUM_FACES)
_NO_DISCARDS: Final = bytes(4 * NUM_FACES)


class _SeatView:
    """One observer's encoding as last handed out, brought up to date in place.

    ``values`` is a float32 ``memoryview`` over the observation, to write, and ``array`` the
    numpy view that is copied out. The other fields say what they hold, so that an update
    writes only what changed: for each one-hot part, where its 1 is within the part
    (:data:`_NOWHERE`: none), and for the other parts their numbers. (They are plain fields
    rather than a list indexed by part: compiled, reading a field costs a few instructions, a
    list item some thirty; interpreted, a list item costs a subscript more. See docs/rl.md.)
    """

    def __init__(self, players: int) -> None:
        buffer = self.buffer = bytearray(4 * OBS_SIZE)
        self.values: Any = memoryview(buffer).cast("f")  # Any: written with boxed floats (objects)
        self.array: npt.NDArray[np.float32] = np.frombuffer(buffer, _FLOAT32, OBS_SIZE)
        # SEATS and PLAYERS: the table's size, for good
        for place in range(players):
            self.values[_SEATS + place] = 1.0
        self.values[_PLAYERS + players - FEWEST_PLAYERS] = 1.0
        # DISCARD: which pile was counted, and how much of it
        self.discard_epoch = -1
        self.discard_seen = 0
        # HAND: the hand counted, and the count of each face in it
        self.hand: list[int] = []
        self.hand_counts = [0] * NUM_FACES
        # HAND_SIZES, SCORES, PASSED: by absolute seat (PASSED as the engine's bit set)
        self.sizes = [0] * players
        self.scores = [0] * players
        self.passes = 0
        # the one-hot parts: where the 1 is within the part
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
        # the numbers
        self.direction = 0
        self.draw_pile = 0
        self.scepter = 0
        self.fanfare = 0
        self.turns = 0
        self.jester_for_setup = 0

    def _written(self, place: int, value: int) -> int:
        """Write the number ``value`` at ``place``; returns it (for the field that records it)."""
        self.values[_AT[place]] = _FLOATS[value] if 0 <= value < _SMALL else float(value)
        return value

    def _moved(self, start: int, old: int, new: int) -> int:
        """Move the 1 of the one-hot part at ``start`` from ``old`` to ``new`` within it (either may be
        :data:`_NOWHERE`); returns ``new`` (for the field that records it)."""
        values = self.values
        if old != _NOWHERE:
            values[_AT[start + old]] = _FLOATS[0]
        if new != _NOWHERE:
            values[_AT[start + new]] = _FLOATS[1]
        return new

    def write_discards(self, discard: list[int], counts: list[int], epoch: int) -> None:
        """DISCARD: the count of each face in the discard pile (``counts``, kept by the encoder for every seat)."""
        size = len(discard)
        if self.discard_epoch != epoch:  # another pile (a reshuffle, a deal): clear, then write the few faces
            self.buffer[_DISCARD_BYTES:_DISCARD_BYTES_END] = _NO_DISCARDS
            for face in range(NUM_FACES):
                if counts[face]:
                    self._written(_DISCARD + face, counts[face])
            self.discard_epoch = epoch
        else:  # the same pile: the faces played since
            for position in range(self.discard_seen, size):
                face = discard[position]
                self._written(_DISCARD + face, counts[face])
        self.discard_seen = size

    def write_hand(self, hand: list[int], delta: list[int]) -> None:
        """HAND: the count of each face in the observer's hand.

        The hand is compared with the one counted before from both ends: only the cards between
        the common head and the common tail (the card played, the cards drawn) change a count.
        ``delta`` is the encoder's scratch list, all zero between calls.
        """
        old = self.hand
        new_end = len(hand)
        old_end = len(old)
        start = 0
        limit = new_end if new_end < old_end else old_end
        while start < limit and hand[start] == old[start]:
            start += 1
        if start == new_end and start == old_end:
            return
        while new_end > start and old_end > start and hand[new_end - 1] == old[old_end - 1]:
            new_end -= 1
            old_end -= 1
        for position in range(start, old_end):
            face = old[position]
            delta[face] = delta[face] - 1  # (not -=: compiled, that is a generic in-place subtraction)
        for position in range(start, new_end):
            face = hand[position]
            delta[face] = delta[face] + 1
        self._count_changes(old, start, old_end, delta)
        self._count_changes(hand, start, new_end, delta)
        self.hand = hand[:]

    def _count_changes(self, cards: list[int], start: int, end: int, delta: list[int]) -> None:
        """Apply, and clear, the count changes in ``delta`` of the faces among ``cards[start:end]``."""
        counts = self.hand_counts
        for position in range(start, end):
            face = cards[position]
            change = delta[face]
            if change:
                counts[face] = self._written(_HAND + face, counts[face] + change)
                delta[face] = 0

    def write_seats(self, state: GameState, rel: tuple[int, ...]) -> None:
        """HAND_SIZES, SCORES and PASSED: a number for each seat, at its relative place."""
        hands = state.hands
        sizes = self.sizes
        for seat in range(len(hands)):
            held = len(hands[seat])
            if held != sizes[seat]:
                sizes[seat] = self._written(_HAND_SIZES + rel[seat], held)
        scores = state.scores
        if scores != self.scores:  # (at the end of a round only)
            for seat in range(len(scores)):
                self._written(_SCORES + rel[seat], scores[seat])
            self.scores = scores[:]
        passes = state.passes
        if passes != self.passes:
            for seat in range(len(hands)):
                self._written(_PASSED + rel[seat], passes >> seat & 1)
            self.passes = passes

    def write_one_hots(self, state: GameState, me: int, role: int, rel: tuple[int, ...]) -> None:
        """TOP, ACTIVE_COLOUR, DRAWN, KING, JESTER, DEALER, CURRENT, DECIDER, UNO, RESOLVING, PENDING and ROLE."""
        # (the engine's faces, colours and decisions are int subclasses: read into int variables, compiled code
        # handles them as machine integers; interpreted, unlike a typing.cast call, a declaration costs nothing)
        place: int = state.discard[-1]
        if place != self.top:
            self.top = self._moved(_TOP, self.top, place)
        colour = state.active_colour
        place = _NOWHERE if colour is None else colour
        if place != self.active:
            self.active = self._moved(_ACTIVE, self.active, place)
        decision = state.decision
        decider = state.decider
        drawn = state.drawn if decider == me and decision is _DRAWN_DECISION else None
        place = _NOWHERE if drawn is None else drawn
        if place != self.drawn:
            self.drawn = self._moved(_DRAWN, self.drawn, place)
        place = rel[state.king]
        if place != self.king:
            self.king = self._moved(_KING, self.king, place)
        jester = state.jester
        place = _NOWHERE if jester is None else rel[jester]
        if place != self.jester:
            self.jester = self._moved(_JESTER, self.jester, place)
        place = rel[state.dealer]
        if place != self.dealer:
            self.dealer = self._moved(_DEALER, self.dealer, place)
        place = rel[state.current]
        if place != self.current:
            self.current = self._moved(_CURRENT, self.current, place)
        place = _NOWHERE if decider is None else rel[decider]
        if place != self.decider:
            self.decider = self._moved(_DECIDER, self.decider, place)
        uno = state.uno_seat
        place = _NOWHERE if uno is None else rel[uno]
        if place != self.uno:
            self.uno = self._moved(_UNO, self.uno, place)
        place = _NOWHERE
        if decision is _COLOUR_DECISION or decision is _VICTIM_DECISION:
            resolving = state.resolving
            place = _START_CARD if resolving < 0 else rel[resolving]
        if place != self.resolving:
            self.resolving = self._moved(_RESOLVING, self.resolving, place)
        place = decision
        if place != self.pending:
            self.pending = self._moved(_PENDING, self.pending, place)
        if role != self.role:
            self.role = self._moved(_ROLE, self.role, role)

    def write_numbers(self, state: GameState) -> None:
        """DIRECTION, DRAW_PILE, SCEPTER_RUNNING, FANFARE_QUEUED, TURNS_SINCE_SCEPTER and JESTER_FOR_SETUP."""
        value = 1 if state.direction > 0 else 0
        if value != self.direction:
            self.direction = self._written(_DIRECTION, value)
        value = len(state.draw_pile)
        if value != self.draw_pile:
            self.draw_pile = self._written(_DRAW_PILE, value)
        value = 1 if state.scepter_running else 0
        if value != self.scepter:
            self.scepter = self._written(_SCEPTER_RUNNING, value)
        value = 1 if state.fanfare_queued else 0
        if value != self.fanfare:
            self.fanfare = self._written(_FANFARE_QUEUED, value)
        value = state.turns_since_scepter
        if value > _TURNS_CAP:
            value = _TURNS_CAP
        if value != self.turns:
            self.turns = self._written(_TURNS, value)
        value = 1 if state.jester_for_setup else 0
        if value != self.jester_for_setup:
            self.jester_for_setup = self._written(_JESTER_FOR_SETUP, value)


class PublicEncoder:
    """The environments' fast path to :func:`encode_observation`, for one game at a time.

    Building an :class:`Observation` copies the whole discard pile and some thirty fields at
    every step, which costs more than the engine's step itself. This encoder reads, from the
    :class:`~royal_revenge.engine.GameState`, exactly the public fields that
    ``Observation.of(state, seat)`` copies (the observer's own hand and drawn card, never
    another hand, the draw pile's order, the scepter's schedule or the generator).

    It keeps each observer's last encoding (a ``float32`` buffer) and what it holds, and
    brings it up to date in place: between two observations of the same seat only a few
    values change (a card or two in the hand, the top card, hand sizes, the draw pile, new
    discards, whose counts are kept from the discard pile's length rather than recounted), so
    only those are written. The caller gets a fresh copy of the buffer (one numpy call)
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
        "_state",
        "_views",
    )

    def __init__(self) -> None:
        self._mask_buffer = bytearray(NUM_ACTIONS)  # all zero between calls
        self._mask: npt.NDArray[np.int8] = np.frombuffer(self._mask_buffer, _INT8)
        self._state: GameState | None = None
        self._players = 0
        self._views: list[_SeatView] = []
        self._rels: tuple[tuple[int, ...], ...] = ()
        self._discard: list[int] | None = None  # held, so that the identity test of _count_discards is sound
        self._discard_epoch = 0
        self._seen = 0
        self._counts = [0] * NUM_FACES  # of each face in the discard pile
        self._delta = [0] * NUM_FACES  # the hand's scratch, all zero between calls

    def encode(self, state: GameState, me: int, role: Role) -> npt.NDArray[np.float32]:
        """``encode_observation(state.observe(me), role)``, from the state's public fields."""
        return self.encode_with_mask(state, me, role, [])[0]

    def encode_with_mask(
        self, state: GameState, me: int, role: Role, legal: list[int]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The encoded observation of ``me`` and a fresh mask with ones at the indices ``legal``."""
        if state is not self._state or state.players != self._players:
            self._start(state)
        discard: list[int] = state.discard  # type: ignore[assignment]
        self._count_discards(discard)
        view = self._views[me]
        rel = self._rels[me]
        view.write_discards(discard, self._counts, self._discard_epoch)
        view.write_hand(state.hands[me], self._delta)  # type: ignore[arg-type]
        view.write_seats(state, rel)
        view.write_one_hots(state, me, role, rel)
        view.write_numbers(state)
        observation: npt.NDArray[np.float32] = _NEW_ARRAY(view.array)
        return observation, self._mask_of(legal)

    def _start(self, state: GameState) -> None:
        """Encode ``state`` from scratch: new buffers for every seat."""
        n = self._players = state.players
        self._state = state
        self._views = [_SeatView(n) for _ in range(n)]
        self._rels = _REL[n]
        self._discard = None

    def _count_discards(self, discard: list[int]) -> None:
        """Bring the count of each face in the discard pile up to date, shared by the seats.

        The counts follow the pile's length; another pile (a reshuffle, a deal) is counted
        from scratch and starts a new epoch.
        """
        counts = self._counts
        seen = self._seen
        size = len(discard)
        if discard is not self._discard or size < seen:
            for face in range(NUM_FACES):
                counts[face] = 0
            seen = 0
            self._discard = discard
            self._discard_epoch += 1
        for position in range(seen, size):
            face = discard[position]
            counts[face] = counts[face] + 1  # (not +=: compiled, that is a generic in-place add)
        self._seen = size

    def _mask_of(self, legal: list[int]) -> npt.NDArray[np.int8]:
        """A fresh 0/1 mask with ones at ``legal``: written into the scratch buffer, copied, and cleared again."""
        buffer = self._mask_buffer
        for index in legal:
            buffer[index] = 1
        mask: npt.NDArray[np.int8] = _NEW_ARRAY(self._mask)
        for index in legal:
            buffer[index] = 0
        return mask
