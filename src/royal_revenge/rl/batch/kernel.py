"""The batched core compiled per game with Numba: the same state, the same rules, one loop over the games.

:mod:`.rules` applies a step to the whole batch with array operations, so every game pays for every stage
of every kind of action (and for the 56 x 56 comparisons of a deal) at every step. Here the same step is
written for one game at a time, as the engine reads, and compiled with Numba (``pip install
'royal-revenge[numba]'``): a game pays only for what its action does. It works on the very
:class:`~royal_revenge.rl.batch.rules.State` of the NumPy backend, in place, with the same random stream
(the counter-based hash of :mod:`.rules`), so both give the same games to the last field:
tests/rl/test_batch_kernel.py checks that step by step, and checks this form against the engine with the
differential harness of tests/rl/test_batch.py.

The entry points mirror :mod:`.rules` and :mod:`.env`: :func:`step`, :func:`observe`, and
:func:`learner_step` (a learner's decision, then its random bots up to its next one, each game on its own).
The first call compiles the kernels (a few seconds; cached on disk afterwards).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final, NamedTuple, TypeVar, cast

import numba
import numpy as np

from ...engine import Scoring
from ...engine.actions import MAX_SEATS
from ...engine.cards import CARDS_OF_COLOUR, NUM_FACES, WILD_CODE
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
from .arrays import arrays_for
from .env import _BOT_SALT, Policy
from .rules import (
    _COLOUR,
    _DECK,
    _KIND,
    _PLAYABLE,
    _POINTS,
    ASK_COLOUR,
    ASK_VICTIM,
    BEGIN,
    COLOUR_CHOICE,
    DECK_SIZE,
    DRAW_RESULT,
    DRAWN,
    END_ROUND,
    FINISH,
    GAME_OVER,
    GO_ON,
    HAND_SIZE,
    JESTER_CARD,
    JESTER_CHOICE,
    KINGS_CHOICE,
    NONE,
    NUMBER,
    REVERSE,
    ROUND_OVER,
    SKIP,
    TURN,
    VICTIM_CHOICE,
    WILD_CARD,
    Config,
    State,
    _random_bits,
)
from .rules import _mix as _mix_array

__all__ = ["Params", "learner_step", "observe", "params", "play_out", "policy_learner_step", "random_actions", "step"]

_F = TypeVar("_F", bound=Callable[..., Any])
# Compiled on first use, and cached on disk beside this file (a later process loads them in a moment).
_jit = cast(Callable[[_F], _F], numba.njit(cache=True, nogil=True, error_model="numpy"))
_inline = cast(Callable[[_F], _F], numba.njit(cache=True, nogil=True, error_model="numpy", inline="always"))


class Params(NamedTuple):
    """A :class:`~royal_revenge.rl.batch.rules.Config` as the plain numbers the kernels read."""

    players: int
    reverse_skips: bool  # two players: a Reverse skips (the option)
    scepter_low: int  # the scepter's turns, or -1 when it is off
    scepter_high: int
    standard_scoring: bool
    single_round: bool
    target_score: int
    episode_game: bool
    reward_points: bool
    max_steps: int  # -1: no limit
    same_step: bool  # autoreset
    penalty: bool  # illegal actions end the game with a penalty (else they are refused, "raise")
    illegal_reward: float


@functools.lru_cache(maxsize=64)
def params(config: Config) -> Params:
    """The numbers of ``config`` for the kernels (made once per configuration)."""
    options = config.options
    turns = options.scepter_turns
    return Params(
        players=options.players,
        reverse_skips=options.players == 2 and bool(options.two_player_reverse_skips),
        scepter_low=-1 if turns is None else turns[0],
        scepter_high=-1 if turns is None else turns[1],
        standard_scoring=options.scoring is Scoring.STANDARD,
        single_round=bool(options.single_round),
        target_score=int(options.target_score),
        episode_game=config.episode == "game",
        reward_points=config.reward == "points",
        max_steps=-1 if config.max_steps is None else config.max_steps,
        same_step=config.autoreset == "same-step",
        penalty=config.illegal == "penalty",
        illegal_reward=float(config.illegal_reward),
    )


@functools.lru_cache(maxsize=64)
def _packed(config: Config) -> tuple[Any, ...]:
    """:func:`params` as a plain tuple, the form :func:`_run` takes."""
    return tuple(params(config))


# The card tables and the action layout, as constants the compiler folds in.
KIND: Final = _KIND.astype(np.int64)
CARD_COLOUR: Final = _COLOUR.astype(np.int64)
POINTS: Final = _POINTS.astype(np.int64)
PLAYABLE: Final = _PLAYABLE
DECK: Final = _DECK.astype(np.int64)
FACES: Final = NUM_FACES
ROLE_CHANCE: Final = int(Role.CHANCE)
TURNS_CAP: Final = Layout.TURNS_CAP
BOT_SALT: Final = np.uint64(_BOT_SALT)
INT32_MAX: Final = int(np.iinfo(np.int32).max)
SCORE_BITS: Final = np.uint64(0xFFFFFF80)
INDEX_BITS: Final = np.uint64(0x7F)

# ---------------------------------------------------------------------------------------- randomness
# The hash of .rules, on 32-bit values held in 64 bits (masked after each product).

M32: Final = np.uint64(0xFFFFFFFF)
M1: Final = np.uint64(0x7FEB352D)
M2: Final = np.uint64(0x846CA68B)
GOLDEN: Final = np.uint64(0x9E3779B9)
S8, S15, S16, S24 = np.uint64(8), np.uint64(15), np.uint64(16), np.uint64(24)


@_inline
def _mix(x: Any) -> Any:
    x = x ^ (x >> S16)
    x = (x * M1) & M32
    x = x ^ (x >> S15)
    x = (x * M2) & M32
    return x ^ (x >> S16)


@_inline
def _bits(key: Any, counter: Any) -> Any:
    return _mix(np.uint64(key) ^ _mix((np.uint64(counter) + GOLDEN) & M32))


@_inline
def _below(bits: Any, bound: int) -> Any:
    return np.int64(((bits >> S8) * np.uint64(bound)) >> S24)


# The mask is read in words of 62 actions (two for the 124). A word's lowest legal action is found by a de Bruijn
# multiplication (Leiserson, Prokop and Randall, 1998): its lowest set bit times the constant has a distinct top 6 bits.
WORD: Final = 62
DE_BRUIJN: Final = 0x03F79D71B4CB0A89


def _lowest_bit_table() -> np.ndarray[Any, Any]:
    """The index of a 64-bit number's only set bit, by the top 6 bits of its product with DE_BRUIJN."""
    table = np.zeros(64, dtype=np.int64)
    for bit in range(64):
        table[(((1 << bit) * DE_BRUIJN) % (1 << 64)) >> 58] = bit
    assert sorted(table) == list(range(64))
    return table


LOWEST_BIT: Final = _lowest_bit_table()
assert NUM_ACTIONS % WORD == 0
DE_BRUIJN_64: Final = np.uint64(DE_BRUIJN)
S58: Final = np.uint64(58)


@_inline
def _pick_random(legal: Any, b: int, bits: Any) -> Any:
    """:func:`.env.random_policy` for game ``b``: the legal action of the highest hashed score (0 if none).

    Only the legal actions are hashed: each word of the mask becomes a 62-bit number (a loop LLVM vectorizes),
    whose set bits are taken lowest first; hashing all 124 actions took twice as long."""
    best = np.uint64(0)
    for word in range(NUM_ACTIONS // WORD):
        base = word * WORD
        mask = np.uint64(0)
        for bit in range(WORD):
            mask |= np.uint64(legal[b, base + bit]) << np.uint64(bit)
        while mask:
            lowest = mask & (~mask + np.uint64(1))
            index = np.uint64(base + LOWEST_BIT[(lowest * DE_BRUIJN_64) >> S58])
            best = max(best, (_mix(bits ^ ((index * GOLDEN) & M32)) & SCORE_BITS) | index)
            mask ^= lowest
    return np.int64(best & INDEX_BITS)


@_jit
def _random_all(legal: Any, bits: Any, out: Any) -> None:
    for b in range(bits.shape[0]):
        out[b] = _pick_random(legal, b, np.uint64(bits[b]))


# What plays for the other seats after a step (``_run``'s ``bots``).
NO_BOTS: Final = 0
RANDOM_BOTS: Final = 1
ROLLOUT_BOTS: Final = 2

MOST_COLOURED_POINTS: Final = int(max(_POINTS[face] for face in range(NUM_FACES) if _COLOUR[face] != NONE))
COLOUR_CARDS: Final = np.array(CARDS_OF_COLOUR, dtype=np.int64)


@_inline
def _threat(size: int) -> float:
    return float(4 - size) if size < 4 else 0.0


@_inline
def _most_dangerous(b: int, n: int, held: Any, scores: Any, direction: Any, seat: int) -> Any:
    """The rollout policy's target (as the search bot's): fewest cards, highest score, soonest after ``seat``."""
    best, best_key = -1, np.int64(1) << 62
    for other in range(n):
        if other != seat:  # the key (size, -score, order) as one number: scores are below 2**24
            order = ((other - seat) * direction[b]) % n
            key = (np.int64(held[b, other]) << 40) + ((np.int64(1) << 24) - scores[b, other]) * 8 + order
            if key < best_key:
                best, best_key = other, key
    return best


@_inline
def _rollout_action(b: int, n: int, hands: Any, held: Any, discard: Any, discard_size: Any, discard_counts: Any,
                    colour: Any, direction: Any, king: Any, jester: Any, decision: Any, drawn: Any, selected: Any,
                    chance: Any, legal: Any, scores: Any) -> Any:
    """:func:`royal_revenge.bots.search.rollout_policy` for game ``b``'s selected seat, on the batch's arrays.

    The same rules, the cards compared in the order of their faces (the engine's in the order of the hand: the
    two differ only where two playable cards are valued alike). UNO is called with the card, a player without
    it is caught, and any other chance is passed."""
    seat = selected[b]
    if legal[b, CALL_UNO_ACTION]:
        return CALL_UNO_ACTION
    for offset in range(1, n):
        if legal[b, CATCH + offset]:
            return CATCH + offset
    if chance[b]:
        return PASS
    stage = decision[b]
    if stage == DRAWN:
        card = drawn[b]
        if card >= 0 and legal[b, card]:
            return (PLAY_UNO if held[b, seat] == 2 else 0) + card
        return KEEP_ACTION
    if stage == TURN:
        playable = 0
        only = -1
        for face in range(FACES):
            if legal[b, face]:
                playable += hands[b, seat, face]
                only = face
        if playable == 0:
            return DRAW_ACTION
        plays = PLAY_UNO if held[b, seat] == 2 else 0
        if playable == 1:
            return plays + only
        counts = np.zeros(4, dtype=np.int64)
        for face in range(FACES):
            if CARD_COLOUR[face] >= 0:
                counts[CARD_COLOUR[face]] += hands[b, seat, face]
        next_size = held[b, (seat + direction[b]) % n]
        previous_size = held[b, (seat - direction[b]) % n]
        smallest_other = 1 << 30
        for other in range(n):
            if other != seat:
                smallest_other = min(smallest_other, held[b, other])
        best, best_value = only, -1000.0
        for face in range(FACES):
            if not legal[b, face]:
                continue
            kind = KIND[face]
            card_colour = CARD_COLOUR[face]
            if kind == NUMBER:
                value = POINTS[face] / MOST_COLOURED_POINTS
            elif kind == WILD_CARD:
                value = 1.0 - 4.0 * (playable > 1)
                if king[b] == seat:
                    value += 0.5 + counts.max()
                else:
                    value -= 1.0
                card_colour = -1
            else:
                value = 1.0
                if kind == SKIP:
                    value += 2.0 if n == 2 else 0.5 + 1.5 * _threat(next_size)
                elif kind == REVERSE:
                    if n > 2:
                        value += 0.2 + _threat(next_size) - _threat(previous_size)
                elif kind == JESTER_CARD:
                    hat = jester[b]
                    if hat == seat:
                        value -= 2.5
                    elif hat >= 0:
                        value += 1.0 + _threat(held[b, hat])
                elif king[b] == seat:  # a King's Choice the King plays
                    value += 1.0 + _threat(smallest_other)
                else:
                    value += 0.5
            if card_colour >= 0:
                value += counts[card_colour] - 1
            if value > best_value:
                best, best_value = face, value
        return plays + best
    if stage == COLOUR_CHOICE:
        mine = np.zeros(4, dtype=np.float64)
        unseen = COLOUR_CARDS.copy()
        for face in range(FACES):
            card_colour = CARD_COLOUR[face]
            if card_colour >= 0:
                mine[card_colour] += hands[b, seat, face] * (1 + POINTS[face] / 100)
                unseen[card_colour] -= hands[b, seat, face] + discard_counts[b, face]
        target = _most_dangerous(b, n, held, scores, direction, seat)
        values = mine - (0.08 + 0.12 * _threat(held[b, target])) * unseen
        return COLOUR + np.argmax(values)
    target = _most_dangerous(b, n, held, scores, direction, seat)
    return (VICTIM if stage == VICTIM_CHOICE else JESTER) + (target - seat) % n


@_jit
def _run(s: Any, packed: Any, actions: Any, active: Any, learner: Any, bot_counter: Any, earned: Any,
         learner_terminated: Any, learner_truncated: Any, bots: int) -> None:
    """Each game's step (:func:`.rules.step`); with ``bots`` RANDOM_BOTS, then its random bots, up to its learner's
    next decision (:func:`.env.learner_step`), with what the learner earned and whether its episode ended; with
    ROLLOUT_BOTS, then every seat played by :func:`_rollout_action` to the episode's end (the search's rollouts).

    ``s`` is the state and ``packed`` the :class:`Params`, both as plain tuples (Numba's dispatcher takes
    microseconds a call to type a named tuple, a fraction of one for a plain one).

    The rules are closures, compiled into this loop (a Numba function handed 40 arrays would pay for each at
    every call). They use the state's arrays, taken out of the tuple once here; and what a step decides in
    branches they keep in local values and store once after the branches. An array a closure uses in both
    branches of an ``if`` is referenced in each and released where they meet, which Numba's reference-count
    pruning cannot pair: atomic operations, a quarter of a step's time when the closures used the tuple."""
    (hands, held, hand_points, pile, pile_size, discard, discard_size, discard_counts, colour, direction,
     king, jester, dealer, current, decision, decider, drawn, resolving, jester_for_setup, uno_seat,
     fanfare_queued, scepter_running, scepter_left, turns_since_scepter, passes, scores, round_no, selected,
     chance, chance_next, steps, legal, rewards, terminated, truncated, illegal, drew, dealt, key, counter) = s
    p = Params(*packed)
    n = p.players

    def _next(b: int) -> Any:
        """The game's next 32 random bits (its counter moves on)."""
        bits = _bits(key[b], counter[b])
        counter[b] = np.uint32((np.uint64(counter[b]) + np.uint64(1)) & M32)
        return bits


    # ---------------------------------------------------------------------------------------- dealing


    def _deal(b: int) -> None:
        """R-SETUP-3: all 56 cards shuffled, 7 to each seat, the start card turned; the King chooses a Jester."""
        keys = np.empty(DECK_SIZE, dtype=np.uint64)
        base = np.uint64(counter[b])
        for place in range(DECK_SIZE):
            keys[place] = _bits(key[b], (base + np.uint64(place)) & M32)
        order = np.argsort(keys, kind="mergesort")  # (stable, as the NumPy form's argsort)
        counter[b] = np.uint32((base + np.uint64(DECK_SIZE)) & M32)
        dealt_cards = HAND_SIZE * n
        first = dealer[b]
        for seat in range(n):
            held[b, seat] = HAND_SIZE
            hand_points[b, seat] = 0
            for face in range(FACES):
                hands[b, seat, face] = 0
        for place in range(dealt_cards):  # D-16: place p goes to the seat p % n + 1 places left of the dealer
            card = DECK[order[place]]
            seat = (first + 1 + place % n) % n
            hands[b, seat, card] += 1
            hand_points[b, seat] += POINTS[card]
        start = DECK[order[dealt_cards]]
        for place in range(DECK_SIZE):
            pile[b, place] = DECK[order[dealt_cards + 1 + place]] if dealt_cards + 1 + place < DECK_SIZE else 0
            discard[b, place] = 0
        discard[b, 0] = start
        for face in range(FACES):
            discard_counts[b, face] = 0
        discard_counts[b, start] = 1
        colour[b] = CARD_COLOUR[start]
        pile_size[b] = DECK_SIZE - dealt_cards - 1
        discard_size[b] = 1
        direction[b] = 1
        current[b] = king[b]
        drawn[b] = NONE
        uno_seat[b] = NONE
        passes[b] = 0
        fanfare_queued[b] = False
        scepter_running[b] = False
        scepter_left[b] = NONE
        turns_since_scepter[b] = 0
        resolving[b] = NONE
        jester_for_setup[b] = True
        decision[b] = JESTER_CHOICE
        decider[b] = king[b]
        selected[b] = king[b]
        chance[b] = False
        dealt[b] = True


    def _new_game(b: int) -> None:
        """R-SETUP-2/4: scores cleared, a random dealer and first King (D-3), then the deal."""
        dealer[b] = _below(_bits(key[b], counter[b]), n)
        king[b] = _below(_bits(key[b], (np.uint64(counter[b]) + np.uint64(1)) & M32), n)
        counter[b] = np.uint32((np.uint64(counter[b]) + np.uint64(2)) & M32)
        for seat in range(n):
            scores[b, seat] = 0
        round_no[b] = 1
        jester[b] = NONE
        steps[b] = 0
        _deal(b)


    # ---------------------------------------------------------------------------------------- a step


    def _give(b: int, seat: int, count: int) -> int:
        """``seat`` draws up to ``count`` cards, fewer when the piles run dry (R-TURN-4); how many came."""
        seat = min(max(seat, 0), n - 1)
        got = 0
        for draw in range(count):
            if pile_size[b] == 0 and discard_size[b] > 1:
                # R-TURN-4: the discards but the top become the pile (a draw picks a random card of it anyway).
                size = discard_size[b]
                top = discard[b, size - 1]
                for place in range(DECK_SIZE):
                    pile[b, place] = discard[b, place]
                pile_size[b] = size - 1
                discard[b, 0] = top
                discard_size[b] = 1
                for face in range(FACES):
                    discard_counts[b, face] = 0
                discard_counts[b, top] = 1
            size = pile_size[b]
            if size > 0:
                place = _below(_next(b), size)
                card = pile[b, place]
                pile[b, place] = pile[b, size - 1]
                pile_size[b] = size - 1
                hands[b, seat, card] += 1
                held[b, seat] += 1
                hand_points[b, seat] += POINTS[card]
                drew[b, draw] = card
                got += 1
        return got


    def _start_scepter(b: int) -> None:
        """Choosing the Jester (re)starts the scepter (R-SETUP-5, R-KING-2): a random number of turns (R-KING-1)."""
        scepter_running[b] = True
        fanfare_queued[b] = False
        turns_since_scepter[b] = 0
        if p.scepter_low >= 0:
            scepter_left[b] = p.scepter_low + _below(_next(b), p.scepter_high - p.scepter_low + 1)


    def _score(b: int, winner: int) -> None:
        """R-SCORE-1, R-SCORE-4, R-TURN-6: the round is scored; the game ends at the target or after one round."""
        n = p.players
        if winner == NONE:  # a stalemate: the fewest points, the first in order of play after the current seat
            best = 1 << 40
            for seat in range(n):
                order = ((seat - current[b]) * direction[b] - 1) % n
                value = hand_points[b, seat] * 8 + order
                if value < best:
                    best, winner = value, seat
        total = 0
        for seat in range(n):
            total += hand_points[b, seat]
        worth = total - hand_points[b, winner]
        if p.standard_scoring:
            scores[b, winner] += worth
            over = p.single_round or scores[b, winner] >= p.target_score
        else:
            highest = -(1 << 40)
            for seat in range(n):
                scores[b, seat] += hand_points[b, seat]
                highest = max(highest, scores[b, seat])
            over = p.single_round or highest >= p.target_score
        uno_seat[b] = NONE  # D-8, D-14: the end of a round closes any UNO chance and stops the scepter
        drawn[b] = NONE
        fanfare_queued[b] = False
        scepter_running[b] = False
        scepter_left[b] = NONE
        decider[b] = NONE
        decision[b] = GAME_OVER if over else ROUND_OVER
        if p.reward_points:  # docs/rl.md, "Rewards"
            if p.standard_scoring:
                for seat in range(n):
                    rewards[b, seat] = worth if seat == winner else -hand_points[b, seat]
            else:
                mean = np.float32(np.float32(total) / np.float32(n))
                for seat in range(n):
                    rewards[b, seat] = mean - np.float32(hand_points[b, seat])
        elif over:
            lowest = 1 << 40
            for seat in range(n):
                lowest = min(lowest, scores[b, seat])
            winners = 0
            for seat in range(n):
                if (seat == winner) if p.standard_scoring else (scores[b, seat] == lowest):
                    winners += 1
            loss = np.float32(-np.float32(winners) / np.float32(max(n - winners, 1)))
            for seat in range(n):
                won = (seat == winner) if p.standard_scoring else (scores[b, seat] == lowest)
                rewards[b, seat] = 0.0 if winners == n else (1.0 if won else loss)


    def _play(b: int, player: int, action: int) -> tuple[int, int, int, int]:
        """Stage 1 for a card played (R-TURN-2/3, R-UNO-1, R-ACT): (what follows, seat, advance, who draws one)."""
        card = action % FACES
        # (The catch window and the card's player are stored once, after the branches: see _run's docstring.)
        window = NONE if decision[b] == TURN else uno_seat[b]  # a new turn closes the catch window (R-UNO-2)
        hands[b, player, card] -= 1
        held[b, player] -= 1
        hand_points[b, player] -= POINTS[card]
        discard[b, discard_size[b]] = card
        discard_size[b] += 1
        discard_counts[b, card] += 1
        drawn[b] = NONE
        passes[b] = 0
        gone_out = held[b, player] == 0
        if held[b, player] == 1 and action < PLAY_UNO:
            window = player  # anyone may catch them (R-UNO-2)
        uno_seat[b] = window
        kind = KIND[card]
        follow, advance, give_seat = GO_ON, 1, -1
        if kind == WILD_CARD:  # R-ACT-WILD; a player who went out names no colour
            colour[b] = NONE
            follow = END_ROUND if gone_out else ASK_COLOUR
        else:
            colour[b] = CARD_COLOUR[card]
        if kind == NUMBER:
            follow = FINISH
        elif kind == REVERSE:  # R-ACT-REV
            if p.reverse_skips:
                advance = 2
            else:
                direction[b] = -direction[b]
            follow = FINISH
        elif kind == SKIP:  # R-ACT-SKIP
            follow, advance = FINISH, 2
        elif kind == JESTER_CARD:  # R-ACT-JEST: the Jester draws one (not a player who went out: D-1)
            if not (jester[b] == player and gone_out):
                give_seat = jester[b]
            follow = FINISH
        elif kind == KINGS_CHOICE:  # R-ACT-KC
            follow = ASK_VICTIM
        if kind in (WILD_CARD, KINGS_CHOICE):  # the King's question is about this player's card
            resolving[b] = player
        return follow, player, advance, give_seat


    def _act(b: int, player: int, action: int) -> tuple[int, int, int, bool]:
        """Stage 1 and 2: what the action does at once and the cards it gives. Returns what follows (GO_ON,
        FINISH, ...), the seat and how many places on for FINISH and BEGIN, and whether a draw ended the round in a
        stalemate."""
        n = p.players
        follow, seat, advance = GO_ON, player, 1
        give_seat, give_count = 0, 0
        if action < DRAW_ACTION:
            follow, seat, advance, jester_seat = _play(b, player, action)
            if jester_seat >= 0:
                give_seat, give_count = jester_seat, 1
        elif action == DRAW_ACTION:  # R-TURN-2: one card; what follows depends on whether one came
            give_seat, give_count, follow = player, 1, DRAW_RESULT
        elif action == KEEP_ACTION:  # R-TURN-3
            drawn[b] = NONE
            follow = FINISH
        elif action < JESTER:  # the King's colour or victim: play goes on from the card's player (R-ACT-PLUS),
            resolver_seat = resolving[b]  # or the King starts after the start card (R-SETUP-6)
            if resolver_seat == NONE:
                follow, seat = BEGIN, king[b]
            else:
                follow, seat = FINISH, resolver_seat
            if action < VICTIM:
                colour[b] = action - COLOUR  # R-ACT-WILD
            else:
                victim = (player + action - VICTIM) % n  # R-ACT-KC
                give_seat = victim
                resolver = min(max(resolver_seat, 0), n - 1)
                give_count = 0 if (victim == resolver_seat and held[b, resolver] == 0) else 1
        elif action < CALL_UNO_ACTION:  # the Jester (R-SETUP-5, R-KING-2): the scepter (re)starts
            jester[b] = (player + action - JESTER) % n
            _start_scepter(b)
            follow, seat = BEGIN, king[b]  # the new King plays next (R-KING-2)
            if jester_for_setup[b]:  # at a round's start the start card follows (R-SETUP-6)
                start_kind = KIND[discard[b, 0]]
                if start_kind == REVERSE:  # the dealer plays first, going right (D-9)
                    direction[b] = -1
                    seat = dealer[b]
                elif start_kind == SKIP:  # the dealer's left is skipped (D-16)
                    seat = (dealer[b] + 2) % n
                elif start_kind == WILD_CARD:
                    follow = ASK_COLOUR
                elif start_kind == KINGS_CHOICE:
                    follow = ASK_VICTIM
                elif start_kind == JESTER_CARD:
                    give_seat, give_count = jester[b], 1
                resolving[b] = NONE
        elif CATCH <= action < PASS:  # a catch (R-UNO-2): the caught player draws two
            give_seat, give_count = (player + action - CATCH) % n, 2
        if action == DRAW_ACTION or CALL_UNO_ACTION <= action < PASS:  # a draw, a late call (R-UNO-1) or a catch
            uno_seat[b] = NONE  # closes the catch window (one store: see _run's docstring)
        got = _give(b, give_seat, give_count) if give_count > 0 else 0
        stalemate = False
        if action == DRAW_ACTION:
            passed = 0 if got > 0 else passes[b] | (1 << player)  # (one store: see _run's docstring)
            passes[b] = passed
            if got > 0:  # the card waits for its drawer (R-TURN-3)
                drawn[b] = drew[b, 0]
                decision[b] = DRAWN
                follow = GO_ON
            else:  # nothing to draw: the player passes (R-TURN-4/6)
                stalemate = passed == (1 << n) - 1
                follow = END_ROUND if stalemate else FINISH
        return follow, seat, advance, stalemate


    def _follow(b: int, follow: int, seat: int, advance: int, stalemate: bool,
                player: int) -> tuple[bool, int]:
        """Stage 3: the next turn, the scepter and the fanfare, the King's questions; whether the round ended, and
        its winner (-1: a stalemate's, found by the score)."""
        n = p.players
        out = False
        finish = follow == FINISH
        if finish and held[b, seat] == 0:  # _finish_turn (R-TURN-5): no card left, the round is won (R-SCORE-1)
            out, finish = True, False
        fanfare = fanfare_queued[b]  # (read once, stored once: see _run's docstring)
        if finish and scepter_running[b]:  # the scepter counts the turn (D-6) and may sound (R-KING-1)
            turns_since_scepter[b] += 1
            if scepter_left[b] > 0:
                scepter_left[b] -= 1
                if scepter_left[b] == 0:
                    fanfare = True
        # What is decided next and by whom, stored once after the branches (see _run's docstring).
        the_king = king[b]
        next_decision, next_decider = NONE, NONE
        if finish or follow == BEGIN:
            if fanfare:  # R-KING-3: a fanfare lands before the next turn; R-KING-2: the Crown goes left
                the_king = (the_king + 1) % n
                king[b] = the_king
                fanfare = False
                scepter_running[b] = False
                scepter_left[b] = NONE
                jester_for_setup[b] = False
                next_decision, next_decider = JESTER_CHOICE, the_king
            else:
                next_seat = (seat + advance * direction[b]) % n if finish else seat
                current[b] = next_seat
                next_decision, next_decider = TURN, next_seat
        elif follow in (ASK_COLOUR, ASK_VICTIM):  # the King decides out of turn (R-DIGITAL-1)
            next_decision = COLOUR_CHOICE if follow == ASK_COLOUR else VICTIM_CHOICE
            next_decider = the_king
        fanfare_queued[b] = fanfare
        if next_decision != NONE:  # (NONE, -1, is no decision: they count from 0)
            decision[b] = next_decision
            decider[b] = next_decider
        if out:
            return True, seat
        if follow == END_ROUND:
            return True, NONE if stalemate else player
        return False, NONE


    def _select(b: int, passing: bool, was_chance: bool, ended: bool) -> None:
        """Stage 4: who decides next (docs/rl.md, "Who decides"): the UNO chances, else the decider."""
        n = p.players
        if p.episode_game and ended and decision[b] == ROUND_OVER:  # R-SCORE-2, R-KING-4: the next round
            round_no[b] += 1
            dealer[b] = (dealer[b] + 1) % n
            king[b] = (king[b] + 1) % n
            _deal(b)
        owner = uno_seat[b]
        window = owner >= 0 and held[b, owner] == 1 and decision[b] < ROUND_OVER
        decider_seat = decider[b]
        asked = False
        seat = 0
        if window and ((not passing and not was_chance and not ended) or (passing and was_chance)):
            if not passing:
                chance_next[b] = 0
            k = chance_next[b]
            seat = (owner + k * direction[b]) % n
            if seat == decider_seat:  # the decider's own chance is among its legal actions
                k += 1
                seat = (owner + k * direction[b]) % n
            if k < n:
                asked = True
                chance_next[b] = k + 1
        chance[b] = asked
        before = selected[b]  # (one store after the branches: see _run's docstring)
        selected[b] = seat if asked else (decider_seat if decider_seat >= 0 else before)


    def _legal(b: int) -> None:
        """The selected seat's legal actions (as GameState.legal_actions, plus PASS in a chance)."""
        mask = legal  # (one reference for all the branches: see _run's docstring)
        for index in range(NUM_ACTIONS):
            mask[b, index] = False
        stage = decision[b]
        if stage >= ROUND_OVER:
            return
        me = selected[b]
        in_chance = chance[b]
        deciding = not in_chance and decider[b] == me
        if deciding and (stage in (TURN, DRAWN)):
            top = discard[b, max(discard_size[b] - 1, 0)]
            top_key = WILD_CODE + max(colour[b], 0) if top == WILD_CODE else top
            two_left = held[b, me] == 2
            if stage == TURN:
                mask[b, DRAW_ACTION] = True
                # No branches (which cards are held and playable is a coin toss); LLVM unrolls the loop of a
                # known count into straight stores.
                for face in range(FACES):
                    playable = (hands[b, me, face] > 0) & PLAYABLE[top_key, face]
                    mask[b, face] = playable
                    mask[b, PLAY_UNO + face] = playable & two_left
            else:
                mask[b, KEEP_ACTION] = True
                drawn_card = drawn[b]
                if drawn_card >= 0 and PLAYABLE[top_key, drawn_card]:
                    mask[b, drawn_card] = True
                    if two_left:
                        mask[b, PLAY_UNO + drawn_card] = True
        elif deciding and stage == COLOUR_CHOICE:
            for choice in range(4):
                mask[b, COLOUR + choice] = True
        elif deciding and stage == VICTIM_CHOICE:
            for seat in range(n):
                mask[b, VICTIM + seat] = True
        elif deciding and stage == JESTER_CHOICE:
            for seat in range(1, n):
                mask[b, JESTER + seat] = True
        owner = uno_seat[b]
        if (deciding or in_chance) and owner >= 0 and held[b, owner] == 1:
            if owner == me:
                mask[b, CALL_UNO_ACTION] = True
            else:
                mask[b, CATCH + (owner - me) % n] = True
        if in_chance:
            mask[b, PASS] = True


    def _step_game(b: int, action: int, active: bool) -> None:
        """One game's step (:func:`.rules.step` for game ``b``)."""
        n = p.players
        for seat in range(n):
            rewards[b, seat] = 0.0
        drew[b, 0] = NONE
        drew[b, 1] = NONE
        dealt[b] = False
        truncated[b] = False
        terminated[b] = False
        # Next-step autoreset: a game that ended in the previous step starts again now; its action is ignored.
        restarting = not p.same_step and active and decision[b] == GAME_OVER
        is_legal = 0 <= action < NUM_ACTIONS and legal[b, max(min(action, NUM_ACTIONS - 1), 0)]
        moving = active and not restarting
        illegal[b] = moving and not is_legal
        acting = moving and is_legal
        player = selected[b]
        if acting:
            was_chance = chance[b]
            follow, seat, advance, stalemate = _act(b, player, action)
            ended, winner = _follow(b, follow, seat, advance, stalemate, player)
            if ended:
                _score(b, winner)
            steps[b] += 1
            _select(b, action == PASS, was_chance, ended)
        over = decision[b] == GAME_OVER
        if p.max_steps >= 0:
            truncated[b] = acting and not over and steps[b] >= p.max_steps
        penalised = illegal[b]
        if p.penalty:
            if penalised:
                for seat in range(n):
                    rewards[b, seat] = p.illegal_reward if seat == player else 0.0
            illegal[b] = False
        terminated[b] = (acting and over) or (p.penalty and penalised)
        if (terminated[b] or truncated[b]) if p.same_step else restarting:
            _new_game(b)  # (one call site: each is compiled in full)
            chance[b] = False
        if not p.same_step and truncated[b]:
            decision[b] = GAME_OVER
        _legal(b)






    for b in range(actions.shape[0]):
        action, moves = actions[b], active[b]
        me = learner[b] if bots != NO_BOTS else 0
        bot_key = _mix(np.uint64(key[b]) ^ BOT_SALT)
        while True:  # (one call site of the step: each is compiled in full)
            _step_game(b, action, moves)
            if bots == NO_BOTS:
                break
            earned[b] += rewards[b, me]
            learner_terminated[b] = learner_terminated[b] or terminated[b]
            learner_truncated[b] = learner_truncated[b] or truncated[b]
            if decision[b] == GAME_OVER:
                break
            if bots == ROLLOUT_BOTS:
                if illegal[b]:  # (cannot happen, tests/rl/test_batch_rollouts.py; if it did, stop: not loop forever)
                    break
                action = _rollout_action(b, n, hands, held, discard, discard_size, discard_counts, colour, direction,
                                         king, jester, decision, drawn, selected, chance, legal, scores)
                continue
            if selected[b] == me:
                break
            action = _pick_random(legal, b, _bits(bot_key, bot_counter[b]))
            bot_counter[b] = np.uint32((np.uint64(bot_counter[b]) + np.uint64(1)) & M32)


@_jit
def _observe_all(s: Any, n: int, seats: Any, out: Any, compact: bool) -> None:
    """:func:`.rules.observe` (``compact``) or :func:`.rules.observe_float` into ``out`` (B, 292).

    The arrays are taken out of the state once and each game's values written to ``out[b, i]`` directly: a
    view of the row, or a field of the state read per game, would take and drop a reference at every game."""
    (hands, held, _, _, pile_size, discard, discard_size, discard_counts, colour, direction, king, jester, dealer,
     current, decision, decider, drawn, resolving, jester_for_setup, uno_seat, fanfare_queued, scepter_running, _,
     turns_since_scepter, passes, scores, _, selected, chance, _, _, _, _, _, _, _, _, _, _, _) = s
    cap = 255 if compact else TURNS_CAP
    score_cap = 255 if compact else INT32_MAX  # (the uint8 form saturates; the float32 one is exact)
    # Copies of a count known only at run time: LLVM vectorizes them (49 known steps it unrolls into single bytes).
    faces, size = hands.shape[2], out.shape[1]
    for b in range(seats.shape[0]):
        for index in range(size):
            out[b, index] = 0
        me = seats[b]
        offered = chance[b] and selected[b] == me  # an optional UNO chance is the selected seat's only
        for face in range(faces):
            out[b, face] = hands[b, me, face]
            out[b, 3 * FACES + 4 + face] = discard_counts[b, face]
        top = discard[b, max(discard_size[b] - 1, 0)]
        out[b, FACES + top] = 1
        at = 2 * FACES
        if colour[b] >= 0:
            out[b, at + colour[b]] = 1
        at += 4
        if decision[b] == DRAWN and decider[b] == me and drawn[b] >= 0:
            out[b, at + drawn[b]] = 1
        at += 2 * FACES  # (and the discard counts, written above)
        passed = passes[b]
        for rel in range(n):
            seat = me + rel - n if me + rel >= n else me + rel
            out[b, at + rel] = 1  # the seat exists
            out[b, at + MAX_SEATS + rel] = held[b, seat]
            out[b, at + 2 * MAX_SEATS + rel] = min(scores[b, seat], score_cap)
            out[b, at + 9 * MAX_SEATS + rel] = (passed >> seat) & 1
        # Who holds each role, by place after this seat: one store each (the other places hold zeros already).
        holders = (np.int64(king[b]), np.int64(jester[b]), np.int64(dealer[b]), np.int64(current[b]),
                   np.int64(decider[b]), np.int64(uno_seat[b]))
        for role, holder in enumerate(holders):
            if 0 <= holder < n:  # (NONE: nobody holds it)
                after = holder - me
                out[b, at + (3 + role) * MAX_SEATS + (after + n if after < 0 else after)] = 1
        at += 10 * MAX_SEATS
        stage = decision[b]
        if stage in (COLOUR_CHOICE, VICTIM_CHOICE):
            resolver = resolving[b]
            after = resolver - me
            out[b, at + (MAX_SEATS if resolver < 0 else (after + n if after < 0 else after))] = 1
        at += MAX_SEATS + 1
        out[b, at + stage] = 1
        at += 7
        role = ROLE_CHANCE if offered else (stage + 1 if stage < ROUND_OVER else 0)
        if decider[b] == me or offered:
            out[b, at + role] = 1
        else:
            out[b, at] = 1
        at += 7
        out[b, at + n - 2] = 1
        at += 5
        out[b, at] = direction[b] > 0
        out[b, at + 1] = pile_size[b]
        out[b, at + 2] = scepter_running[b]
        out[b, at + 3] = fanfare_queued[b]
        out[b, at + 4] = min(turns_since_scepter[b], cap)
        out[b, at + 5] = jester_for_setup[b]


# ---------------------------------------------------------------------------------------- the entry points


# The fields a step gives anew, and the mask (copied: a step checks the action against the last one).
_GIVEN: Final = tuple(State._fields.index(name) for name in
                      ("rewards", "terminated", "truncated", "illegal", "drew", "dealt"))
_LEGAL: Final = State._fields.index("legal")


def _fresh(state: State) -> State:
    """The state with new arrays for what a step gives (the mask, rewards, ends, ...), as :func:`.rules.step` makes:
    a caller may keep the last step's while the game fields are updated in place."""
    fields = list(state)  # (a list and State._make: a third of the time of state._replace)
    for index in _GIVEN:
        fields[index] = np.empty_like(fields[index])
    fields[_LEGAL] = state.legal.copy()  # (a step checks the action against the last mask, then writes the next)
    return State._make(fields)


# The learner's arrays, unused by a plain step, of their types (one compilation serves both).
_NO_SEATS: Final = np.zeros(0, dtype=np.int64)
_NO_COUNTERS: Final = np.zeros(0, dtype=np.uint32)
_NO_REWARDS: Final = np.zeros(0, dtype=np.float32)


def step(state: State, action: Any, config: Config, active: Any = None) -> State:
    """:func:`.rules.step` compiled per game: the same new state (the game fields of the NumPy state updated in
    place; the mask, rewards and ends in new arrays, as there)."""
    actions = np.asarray(action).astype(np.int64)
    batch = state.decision.shape[0]
    moving = np.ones(batch, dtype=bool) if active is None else np.asarray(active, dtype=bool)
    state = _fresh(state)
    _run(tuple(state), _packed(config), actions, moving, _NO_SEATS, _NO_COUNTERS, _NO_REWARDS, moving, moving, NO_BOTS)
    return state


def observe(state: State, config: Config, seat: Any = None, compact: bool = True) -> np.ndarray[Any, Any]:
    """:func:`.rules.observe` (or, with ``compact=False``, :func:`.rules.observe_float`): (B, 292)."""
    seats = (state.selected if seat is None else np.asarray(seat)).astype(np.int64)
    out = np.empty((seats.shape[0], OBS_SIZE), dtype=np.uint8 if compact else np.float32)
    _observe_all(tuple(state), config.players, seats, out, compact)
    return out


def learner_step(state: State, action: Any, learner: Any, bot_counter: Any,
                 config: Config) -> tuple[State, np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any],
                                          np.ndarray[Any, Any]]:
    """:func:`.env.learner_step` with random bots, each game played on its own until its learner decides again:
    (state, the learner's reward, terminated, truncated, the bots' next counter). ``config.autoreset`` must be
    ``"next-step"``. A game's bots make the same moves as there; the per-step fields of the state (``rewards``,
    ``drew``, ...) are those of each game's own last step."""
    if config.autoreset != "next-step":
        raise ValueError("the learner's step needs autoreset='next-step'")
    batch = state.decision.shape[0]
    counter = np.array(bot_counter, dtype=np.uint32)
    earned = np.zeros(batch, dtype=np.float32)
    terminated = np.zeros(batch, dtype=bool)
    truncated = np.zeros(batch, dtype=bool)
    state = _fresh(state)
    _run(tuple(state), _packed(config), np.asarray(action).astype(np.int64), np.ones(batch, dtype=bool),
         np.asarray(learner).astype(np.int64), counter, earned, terminated, truncated, RANDOM_BOTS)
    return state, earned, terminated, truncated, counter


def play_out(state: State, action: Any, learner: Any, config: Config) -> tuple[np.ndarray[Any, Any],
                                                                              np.ndarray[Any, Any]]:
    """Each game's ``action``, then every seat played by the search bot's rollout policy (:func:`_rollout_action`)
    to the end of the episode (its round, or ``config.max_steps`` steps of it, which ``config.autoreset``
    "next-step" keeps in place): the state's arrays are updated in place. Returns (what ``learner``, a seat per
    game, earned, whether the episode finished rather than being cut): :mod:`.rollouts`, the search's rollouts."""
    if config.autoreset != "next-step":
        raise ValueError("the rollouts need autoreset='next-step'")
    batch = state.decision.shape[0]
    earned = np.zeros(batch, dtype=np.float32)
    finished = np.zeros(batch, dtype=bool)
    cut = np.zeros(batch, dtype=bool)
    _run(tuple(state), _packed(config), np.asarray(action).astype(np.int64), np.ones(batch, dtype=bool),
         np.asarray(learner).astype(np.int64), np.zeros(batch, dtype=np.uint32), earned, finished, cut, ROLLOUT_BOTS)
    return earned, finished


def random_actions(state: State, bits: Any) -> np.ndarray[Any, Any]:
    """:func:`.env.random_policy` compiled: a uniformly random legal action per game from its 32 random ``bits``
    (of a wider unsigned integer array, the low 32)."""
    out = np.empty(state.legal.shape[0], dtype=np.int32)
    _random_all(state.legal, np.asarray(bits, dtype=np.uint32), out)
    return out


def policy_learner_step(state: State, action: Any, learner: Any, bot_counter: Any, config: Config,
                        policy: Policy) -> tuple[State, np.ndarray[Any, Any], np.ndarray[Any, Any],
                                                 np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """:func:`learner_step` with bots played by ``policy`` (a :data:`~royal_revenge.rl.batch.env.Policy` on NumPy
    arrays): the steps are compiled, the policy is called once per round of bot moves for the whole batch."""
    if config.autoreset != "next-step":
        raise ValueError("the learner's step needs autoreset='next-step'")
    numpy = arrays_for("numpy")
    learner = np.asarray(learner)
    rows = np.arange(learner.shape[0])
    state = step(state, action, config)
    earned = state.rewards[rows, learner].copy()
    terminated, truncated = state.terminated.copy(), state.truncated.copy()
    counter = np.array(bot_counter, dtype=np.uint32)
    bot_key = _mix_array(state.key ^ _BOT_SALT)
    while True:
        moving = (state.selected != learner) & (state.decision != GAME_OVER)
        if not moving.any():
            return state, earned, terminated, truncated, counter
        state = step(state, policy(state, config, numpy, _random_bits(bot_key, counter)), config, active=moving)
        earned += np.where(moving, state.rewards[rows, learner], np.float32(0.0))
        terminated |= moving & state.terminated
        truncated |= moving & state.truncated
        counter = counter + moving.astype(np.uint32)
