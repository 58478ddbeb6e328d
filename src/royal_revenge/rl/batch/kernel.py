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
from ...engine.cards import NUM_FACES, WILD_CODE
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

__all__ = ["Params", "learner_step", "observe", "params", "policy_learner_step", "random_actions", "step"]

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


@_inline
def _pick_random(legal: Any, b: int, bits: Any) -> Any:
    """:func:`.env.random_policy` for game ``b``: the legal action of the highest hashed score (0 if none)."""
    best = np.uint64(0)
    for index in range(NUM_ACTIONS):
        if legal[b, index]:
            score = (_mix(bits ^ ((np.uint64(index) * GOLDEN) & M32)) & SCORE_BITS) | np.uint64(index)
            best = max(best, score)
    return np.int64(best & INDEX_BITS)


@_jit
def _random_all(legal: Any, bits: Any, out: Any) -> None:
    for b in range(bits.shape[0]):
        out[b] = _pick_random(legal, b, np.uint64(bits[b]))


@_jit
def _run(s: Any, p: Params, actions: Any, active: Any, learner: Any, bot_counter: Any, earned: Any,
         terminated: Any, truncated: Any, with_bots: bool) -> None:
    """Each game's step (:func:`.rules.step`); ``with_bots``: then its random bots, up to its learner's next
    decision (:func:`.env.learner_step`), with what the learner earned and whether its episode ended.

    The rules are closures over the state, not functions of it: a Numba function that is handed the state's 40
    arrays pays for each of them at every call, a closure is compiled into the caller."""
    n = p.players

    def _next(b: int) -> Any:
        """The game's next 32 random bits (its counter moves on)."""
        bits = _bits(s.key[b], s.counter[b])
        s.counter[b] = np.uint32((np.uint64(s.counter[b]) + np.uint64(1)) & M32)
        return bits


    # ---------------------------------------------------------------------------------------- dealing


    def _deal(b: int) -> None:
        """R-SETUP-3: all 56 cards shuffled, 7 to each seat, the start card turned; the King chooses a Jester."""
        keys = np.empty(DECK_SIZE, dtype=np.uint64)
        base = np.uint64(s.counter[b])
        for place in range(DECK_SIZE):
            keys[place] = _bits(s.key[b], (base + np.uint64(place)) & M32)
        order = np.argsort(keys, kind="mergesort")  # (stable, as the NumPy form's argsort)
        s.counter[b] = np.uint32((base + np.uint64(DECK_SIZE)) & M32)
        dealt = HAND_SIZE * n
        dealer = s.dealer[b]
        for seat in range(n):
            s.held[b, seat] = HAND_SIZE
            s.hand_points[b, seat] = 0
            for face in range(FACES):
                s.hands[b, seat, face] = 0
        for place in range(dealt):  # D-16: place p goes to the seat p % n + 1 places left of the dealer
            card = DECK[order[place]]
            seat = (dealer + 1 + place % n) % n
            s.hands[b, seat, card] += 1
            s.hand_points[b, seat] += POINTS[card]
        start = DECK[order[dealt]]
        for place in range(DECK_SIZE):
            s.pile[b, place] = DECK[order[dealt + 1 + place]] if dealt + 1 + place < DECK_SIZE else 0
            s.discard[b, place] = 0
        s.discard[b, 0] = start
        for face in range(FACES):
            s.discard_counts[b, face] = 0
        s.discard_counts[b, start] = 1
        s.colour[b] = CARD_COLOUR[start]
        s.pile_size[b] = DECK_SIZE - dealt - 1
        s.discard_size[b] = 1
        s.direction[b] = 1
        s.current[b] = s.king[b]
        s.drawn[b] = NONE
        s.uno_seat[b] = NONE
        s.passes[b] = 0
        s.fanfare_queued[b] = False
        s.scepter_running[b] = False
        s.scepter_left[b] = NONE
        s.turns_since_scepter[b] = 0
        s.resolving[b] = NONE
        s.jester_for_setup[b] = True
        s.decision[b] = JESTER_CHOICE
        s.decider[b] = s.king[b]
        s.selected[b] = s.king[b]
        s.chance[b] = False
        s.dealt[b] = True


    def _new_game(b: int) -> None:
        """R-SETUP-2/4: scores cleared, a random dealer and first King (D-3), then the deal."""
        s.dealer[b] = _below(_bits(s.key[b], s.counter[b]), n)
        s.king[b] = _below(_bits(s.key[b], (np.uint64(s.counter[b]) + np.uint64(1)) & M32), n)
        s.counter[b] = np.uint32((np.uint64(s.counter[b]) + np.uint64(2)) & M32)
        for seat in range(n):
            s.scores[b, seat] = 0
        s.round_no[b] = 1
        s.jester[b] = NONE
        s.steps[b] = 0
        _deal(b)


    # ---------------------------------------------------------------------------------------- a step


    def _give(b: int, seat: int, count: int) -> int:
        """``seat`` draws up to ``count`` cards, fewer when the piles run dry (R-TURN-4); how many came."""
        seat = min(max(seat, 0), n - 1)
        got = 0
        for draw in range(count):
            if s.pile_size[b] == 0 and s.discard_size[b] > 1:
                # R-TURN-4: the discards but the top become the pile (a draw picks a random card of it anyway).
                size = s.discard_size[b]
                top = s.discard[b, size - 1]
                for place in range(DECK_SIZE):
                    s.pile[b, place] = s.discard[b, place]
                s.pile_size[b] = size - 1
                s.discard[b, 0] = top
                s.discard_size[b] = 1
                for face in range(FACES):
                    s.discard_counts[b, face] = 0
                s.discard_counts[b, top] = 1
            size = s.pile_size[b]
            if size > 0:
                place = _below(_next(b), size)
                card = s.pile[b, place]
                s.pile[b, place] = s.pile[b, size - 1]
                s.pile_size[b] = size - 1
                s.hands[b, seat, card] += 1
                s.held[b, seat] += 1
                s.hand_points[b, seat] += POINTS[card]
                s.drew[b, draw] = card
                got += 1
        return got


    def _start_scepter(b: int) -> None:
        """Choosing the Jester (re)starts the scepter (R-SETUP-5, R-KING-2): a random number of turns (R-KING-1)."""
        s.scepter_running[b] = True
        s.fanfare_queued[b] = False
        s.turns_since_scepter[b] = 0
        if p.scepter_low >= 0:
            s.scepter_left[b] = p.scepter_low + _below(_next(b), p.scepter_high - p.scepter_low + 1)


    def _score(b: int, winner: int) -> None:
        """R-SCORE-1, R-SCORE-4, R-TURN-6: the round is scored; the game ends at the target or after one round."""
        n = p.players
        if winner == NONE:  # a stalemate: the fewest points, the first in order of play after the current seat
            best = 1 << 40
            for seat in range(n):
                order = ((seat - s.current[b]) * s.direction[b] - 1) % n
                value = s.hand_points[b, seat] * 8 + order
                if value < best:
                    best, winner = value, seat
        total = 0
        for seat in range(n):
            total += s.hand_points[b, seat]
        worth = total - s.hand_points[b, winner]
        if p.standard_scoring:
            s.scores[b, winner] += worth
            over = p.single_round or s.scores[b, winner] >= p.target_score
        else:
            highest = -(1 << 40)
            for seat in range(n):
                s.scores[b, seat] += s.hand_points[b, seat]
                highest = max(highest, s.scores[b, seat])
            over = p.single_round or highest >= p.target_score
        s.uno_seat[b] = NONE  # D-8, D-14: the end of a round closes any UNO chance and stops the scepter
        s.drawn[b] = NONE
        s.fanfare_queued[b] = False
        s.scepter_running[b] = False
        s.scepter_left[b] = NONE
        s.decider[b] = NONE
        s.decision[b] = GAME_OVER if over else ROUND_OVER
        if p.reward_points:  # docs/rl.md, "Rewards"
            if p.standard_scoring:
                for seat in range(n):
                    s.rewards[b, seat] = worth if seat == winner else -s.hand_points[b, seat]
            else:
                mean = np.float32(np.float32(total) / np.float32(n))
                for seat in range(n):
                    s.rewards[b, seat] = mean - np.float32(s.hand_points[b, seat])
        elif over:
            lowest = 1 << 40
            for seat in range(n):
                lowest = min(lowest, s.scores[b, seat])
            winners = 0
            for seat in range(n):
                if (seat == winner) if p.standard_scoring else (s.scores[b, seat] == lowest):
                    winners += 1
            loss = np.float32(-np.float32(winners) / np.float32(max(n - winners, 1)))
            for seat in range(n):
                won = (seat == winner) if p.standard_scoring else (s.scores[b, seat] == lowest)
                s.rewards[b, seat] = 0.0 if winners == n else (1.0 if won else loss)


    def _play(b: int, player: int, action: int) -> tuple[int, int, int, int]:
        """Stage 1 for a card played (R-TURN-2/3, R-UNO-1, R-ACT): (what follows, seat, steps, who draws one)."""
        card = action % FACES
        if s.decision[b] == TURN:
            s.uno_seat[b] = NONE  # the next player has begun their turn: the catch window closes (R-UNO-2)
        s.hands[b, player, card] -= 1
        s.held[b, player] -= 1
        s.hand_points[b, player] -= POINTS[card]
        s.discard[b, s.discard_size[b]] = card
        s.discard_size[b] += 1
        s.discard_counts[b, card] += 1
        s.drawn[b] = NONE
        s.passes[b] = 0
        gone_out = s.held[b, player] == 0
        if s.held[b, player] == 1 and action < PLAY_UNO:
            s.uno_seat[b] = player  # anyone may catch them (R-UNO-2)
        kind = KIND[card]
        follow, steps, give_seat = GO_ON, 1, -1
        if kind == WILD_CARD:  # R-ACT-WILD; a player who went out names no colour
            s.colour[b] = NONE
            follow = END_ROUND if gone_out else ASK_COLOUR
            s.resolving[b] = player
        else:
            s.colour[b] = CARD_COLOUR[card]
        if kind == NUMBER:
            follow = FINISH
        elif kind == REVERSE:  # R-ACT-REV
            if p.reverse_skips:
                steps = 2
            else:
                s.direction[b] = -s.direction[b]
            follow = FINISH
        elif kind == SKIP:  # R-ACT-SKIP
            follow, steps = FINISH, 2
        elif kind == JESTER_CARD:  # R-ACT-JEST: the Jester draws one (not a player who went out: D-1)
            if not (s.jester[b] == player and gone_out):
                give_seat = s.jester[b]
            follow = FINISH
        elif kind == KINGS_CHOICE:  # R-ACT-KC
            follow = ASK_VICTIM
            s.resolving[b] = player
        return follow, player, steps, give_seat


    def _act(b: int, player: int, action: int) -> tuple[int, int, int, bool]:
        """Stage 1 and 2: what the action does at once and the cards it gives. Returns what follows (GO_ON,
        FINISH, ...), the seat and steps for FINISH and BEGIN, and whether a draw ended the round in a stalemate."""
        n = p.players
        follow, seat, steps = GO_ON, player, 1
        give_seat, give_count = 0, 0
        if action < DRAW_ACTION:
            follow, seat, steps, jester = _play(b, player, action)
            if jester >= 0:
                give_seat, give_count = jester, 1
        elif action == DRAW_ACTION:  # R-TURN-2: one card; what follows depends on whether one came
            s.uno_seat[b] = NONE
            give_seat, give_count, follow = player, 1, DRAW_RESULT
        elif action == KEEP_ACTION:  # R-TURN-3
            s.drawn[b] = NONE
            follow = FINISH
        elif action < JESTER:  # the King's colour or victim: play goes on from the card's player (R-ACT-PLUS),
            resolving = s.resolving[b]  # or the King starts after the start card (R-SETUP-6)
            if resolving == NONE:
                follow, seat = BEGIN, s.king[b]
            else:
                follow, seat = FINISH, resolving
            if action < VICTIM:
                s.colour[b] = action - COLOUR  # R-ACT-WILD
            else:
                victim = (player + action - VICTIM) % n  # R-ACT-KC
                give_seat = victim
                resolver = min(max(resolving, 0), n - 1)
                give_count = 0 if (victim == resolving and s.held[b, resolver] == 0) else 1
        elif action < CALL_UNO_ACTION:  # the Jester (R-SETUP-5, R-KING-2): the scepter (re)starts
            s.jester[b] = (player + action - JESTER) % n
            _start_scepter(b)
            follow, seat = BEGIN, s.king[b]  # the new King plays next (R-KING-2)
            if s.jester_for_setup[b]:  # at a round's start the start card follows (R-SETUP-6)
                start_kind = KIND[s.discard[b, 0]]
                if start_kind == REVERSE:  # the dealer plays first, going right (D-9)
                    s.direction[b] = -1
                    seat = s.dealer[b]
                elif start_kind == SKIP:  # the dealer's left is skipped (D-16)
                    seat = (s.dealer[b] + 2) % n
                elif start_kind == WILD_CARD:
                    follow = ASK_COLOUR
                elif start_kind == KINGS_CHOICE:
                    follow = ASK_VICTIM
                elif start_kind == JESTER_CARD:
                    give_seat, give_count = s.jester[b], 1
                s.resolving[b] = NONE
        elif action == CALL_UNO_ACTION:  # late (R-UNO-1)
            s.uno_seat[b] = NONE
        elif action < PASS:  # a catch (R-UNO-2): the caught player draws two
            s.uno_seat[b] = NONE
            give_seat, give_count = (player + action - CATCH) % n, 2
        got = _give(b, give_seat, give_count) if give_count > 0 else 0
        stalemate = False
        if action == DRAW_ACTION:
            if got > 0:  # the card waits for its drawer (R-TURN-3)
                s.drawn[b] = s.drew[b, 0]
                s.passes[b] = 0
                s.decision[b] = DRAWN
                follow = GO_ON
            else:  # nothing to draw: the player passes (R-TURN-4/6)
                s.passes[b] = s.passes[b] | (1 << player)
                stalemate = s.passes[b] == (1 << n) - 1
                follow = END_ROUND if stalemate else FINISH
        return follow, seat, steps, stalemate


    def _follow(b: int, follow: int, seat: int, steps: int, stalemate: bool,
                player: int) -> tuple[bool, int]:
        """Stage 3: the next turn, the scepter and the fanfare, the King's questions; whether the round ended, and
        its winner (-1: a stalemate's, found by the score)."""
        n = p.players
        out = False
        finish = follow == FINISH
        if finish and s.held[b, seat] == 0:  # _finish_turn (R-TURN-5): no card left, the round is won (R-SCORE-1)
            out, finish = True, False
        if finish and s.scepter_running[b]:  # the scepter counts the turn (D-6) and may sound (R-KING-1)
            s.turns_since_scepter[b] += 1
            if s.scepter_left[b] > 0:
                s.scepter_left[b] -= 1
                if s.scepter_left[b] == 0:
                    s.fanfare_queued[b] = True
        if finish or follow == BEGIN:
            if s.fanfare_queued[b]:  # R-KING-3: a fanfare lands before the next turn; R-KING-2: the Crown goes left
                king = (s.king[b] + 1) % n
                s.king[b] = king
                s.fanfare_queued[b] = False
                s.scepter_running[b] = False
                s.scepter_left[b] = NONE
                s.jester_for_setup[b] = False
                s.decision[b] = JESTER_CHOICE
                s.decider[b] = king
            else:
                next_seat = (seat + steps * s.direction[b]) % n if finish else seat
                s.current[b] = next_seat
                s.decider[b] = next_seat
                s.decision[b] = TURN
        elif follow in (ASK_COLOUR, ASK_VICTIM):  # the King decides out of turn (R-DIGITAL-1)
            s.decision[b] = COLOUR_CHOICE if follow == ASK_COLOUR else VICTIM_CHOICE
            s.decider[b] = s.king[b]
        if out:
            return True, seat
        if follow == END_ROUND:
            return True, NONE if stalemate else player
        return False, NONE


    def _select(b: int, passing: bool, was_chance: bool, ended: bool) -> None:
        """Stage 4: who decides next (docs/rl.md, "Who decides"): the UNO chances, else the decider."""
        n = p.players
        if p.episode_game and ended and s.decision[b] == ROUND_OVER:  # R-SCORE-2, R-KING-4: the next round
            s.round_no[b] += 1
            s.dealer[b] = (s.dealer[b] + 1) % n
            s.king[b] = (s.king[b] + 1) % n
            _deal(b)
        owner = s.uno_seat[b]
        window = owner >= 0 and s.held[b, owner] == 1 and s.decision[b] < ROUND_OVER
        asked = False
        seat = 0
        if window and ((not passing and not was_chance and not ended) or (passing and was_chance)):
            if not passing:
                s.chance_next[b] = 0
            k = s.chance_next[b]
            seat = (owner + k * s.direction[b]) % n
            if seat == s.decider[b]:  # the decider's own chance is among its legal actions
                k += 1
                seat = (owner + k * s.direction[b]) % n
            if k < n:
                asked = True
                s.chance_next[b] = k + 1
        s.chance[b] = asked
        if asked:
            s.selected[b] = seat
        elif s.decider[b] >= 0:
            s.selected[b] = s.decider[b]


    # The legal actions of the game stepped last, as a list too: its bots choose among them (not among all 124).
    allowed = np.empty(NUM_ACTIONS, dtype=np.int64)
    allowed_count = np.zeros(1, dtype=np.int64)

    def _allow(b: int, index: int) -> None:
        s.legal[b, index] = True
        allowed[allowed_count[0]] = index
        allowed_count[0] += 1

    def _pick_allowed(bits: Any) -> Any:
        """:func:`_pick_random` for the game stepped last, from its list of legal actions."""
        best = np.uint64(0)
        for place in range(allowed_count[0]):
            index = np.uint64(allowed[place])
            best = max(best, (_mix(bits ^ ((index * GOLDEN) & M32)) & SCORE_BITS) | index)
        return np.int64(best & INDEX_BITS)

    def _legal(b: int) -> None:
        """The selected seat's legal actions (as GameState.legal_actions, plus PASS in a chance)."""
        legal = s.legal
        for index in range(NUM_ACTIONS):
            legal[b, index] = False
        allowed_count[0] = 0
        decision = s.decision[b]
        if decision >= ROUND_OVER:
            return
        me = s.selected[b]
        chance = s.chance[b]
        deciding = not chance and s.decider[b] == me
        if deciding and (decision in (TURN, DRAWN)):
            top = s.discard[b, max(s.discard_size[b] - 1, 0)]
            key = WILD_CODE + max(s.colour[b], 0) if top == WILD_CODE else top
            two_left = s.held[b, me] == 2
            if decision == TURN:
                _allow(b, DRAW_ACTION)
                for face in range(FACES):
                    if s.hands[b, me, face] > 0 and PLAYABLE[key, face]:
                        _allow(b, face)
                        if two_left:
                            _allow(b, PLAY_UNO + face)
            else:
                _allow(b, KEEP_ACTION)
                drawn = s.drawn[b]
                if drawn >= 0 and PLAYABLE[key, drawn]:
                    _allow(b, drawn)
                    if two_left:
                        _allow(b, PLAY_UNO + drawn)
        elif deciding and decision == COLOUR_CHOICE:
            for colour in range(4):
                _allow(b, COLOUR + colour)
        elif deciding and decision == VICTIM_CHOICE:
            for seat in range(n):
                _allow(b, VICTIM + seat)
        elif deciding and decision == JESTER_CHOICE:
            for seat in range(1, n):
                _allow(b, JESTER + seat)
        owner = s.uno_seat[b]
        if (deciding or chance) and owner >= 0 and s.held[b, owner] == 1:
            if owner == me:
                _allow(b, CALL_UNO_ACTION)
            else:
                _allow(b, CATCH + (owner - me) % n)
        if chance:
            _allow(b, PASS)


    def _step_game(b: int, action: int, active: bool) -> None:
        """One game's step (:func:`.rules.step` for game ``b``)."""
        n = p.players
        for seat in range(n):
            s.rewards[b, seat] = 0.0
        s.drew[b, 0] = NONE
        s.drew[b, 1] = NONE
        s.dealt[b] = False
        s.truncated[b] = False
        s.terminated[b] = False
        # Next-step autoreset: a game that ended in the previous step starts again now; its action is ignored.
        restarting = not p.same_step and active and s.decision[b] == GAME_OVER
        legal = 0 <= action < NUM_ACTIONS and s.legal[b, max(min(action, NUM_ACTIONS - 1), 0)]
        moving = active and not restarting
        s.illegal[b] = moving and not legal
        acting = moving and legal
        player = s.selected[b]
        if acting:
            was_chance = s.chance[b]
            follow, seat, steps, stalemate = _act(b, player, action)
            ended, winner = _follow(b, follow, seat, steps, stalemate, player)
            if ended:
                _score(b, winner)
            s.steps[b] += 1
            _select(b, action == PASS, was_chance, ended)
        over = s.decision[b] == GAME_OVER
        if p.max_steps >= 0:
            s.truncated[b] = acting and not over and s.steps[b] >= p.max_steps
        penalised = s.illegal[b]
        if p.penalty:
            if penalised:
                for seat in range(n):
                    s.rewards[b, seat] = p.illegal_reward if seat == player else 0.0
            s.illegal[b] = False
        s.terminated[b] = (acting and over) or (p.penalty and penalised)
        if (s.terminated[b] or s.truncated[b]) if p.same_step else restarting:
            _new_game(b)  # (one call site: each is compiled in full)
            s.chance[b] = False
        if not p.same_step and s.truncated[b]:
            s.decision[b] = GAME_OVER
        _legal(b)






    for b in range(actions.shape[0]):
        action, moves = actions[b], active[b]
        me = learner[b] if with_bots else 0
        bot_key = _mix(np.uint64(s.key[b]) ^ BOT_SALT)
        while True:  # (one call site of the step: each is compiled in full)
            _step_game(b, action, moves)
            if not with_bots:
                break
            earned[b] += s.rewards[b, me]
            terminated[b] = terminated[b] or s.terminated[b]
            truncated[b] = truncated[b] or s.truncated[b]
            if s.selected[b] == me or s.decision[b] == GAME_OVER:
                break
            action = _pick_allowed(_bits(bot_key, bot_counter[b]))
            bot_counter[b] = np.uint32((np.uint64(bot_counter[b]) + np.uint64(1)) & M32)


@_jit
def _observe_all(s: Any, n: int, seats: Any, out: Any, compact: bool) -> None:
    """:func:`.rules.observe` (``compact``) or :func:`.rules.observe_float` into ``out`` (B, 292)."""
    cap = 255 if compact else TURNS_CAP
    for b in range(seats.shape[0]):
        row = out[b]
        row[:] = 0
        me = seats[b]
        offered = s.chance[b] and s.selected[b] == me  # an optional UNO chance is the selected seat's only
        for face in range(FACES):
            row[face] = s.hands[b, me, face]
            row[3 * FACES + 4 + face] = s.discard_counts[b, face]
        top = s.discard[b, max(s.discard_size[b] - 1, 0)]
        row[FACES + top] = 1
        at = 2 * FACES
        if s.colour[b] >= 0:
            row[at + s.colour[b]] = 1
        at += 4
        if s.decision[b] == DRAWN and s.decider[b] == me and s.drawn[b] >= 0:
            row[at + s.drawn[b]] = 1
        at += 2 * FACES  # (and the discard counts, written above)
        for rel in range(n):
            seat = me + rel - n if me + rel >= n else me + rel
            row[at + rel] = 1  # the seat exists
            row[at + MAX_SEATS + rel] = s.held[b, seat]
            row[at + 2 * MAX_SEATS + rel] = min(s.scores[b, seat], 255) if compact else s.scores[b, seat]
            place = at + 3 * MAX_SEATS + rel
            row[place] = seat == s.king[b]
            row[place + MAX_SEATS] = seat == s.jester[b]
            row[place + 2 * MAX_SEATS] = seat == s.dealer[b]
            row[place + 3 * MAX_SEATS] = seat == s.current[b]
            row[place + 4 * MAX_SEATS] = seat == s.decider[b]
            row[place + 5 * MAX_SEATS] = seat == s.uno_seat[b]
            row[place + 6 * MAX_SEATS] = (s.passes[b] >> seat) & 1
        at += 10 * MAX_SEATS
        decision = s.decision[b]
        if decision in (COLOUR_CHOICE, VICTIM_CHOICE):
            resolving = s.resolving[b]
            after = resolving - me
            row[at + (MAX_SEATS if resolving < 0 else (after + n if after < 0 else after))] = 1
        at += MAX_SEATS + 1
        row[at + decision] = 1
        at += 7
        role = ROLE_CHANCE if offered else (decision + 1 if decision < ROUND_OVER else 0)
        if s.decider[b] == me or offered:
            row[at + role] = 1
        else:
            row[at] = 1
        at += 7
        row[at + n - 2] = 1
        at += 5
        row[at] = s.direction[b] > 0
        row[at + 1] = s.pile_size[b]
        row[at + 2] = s.scepter_running[b]
        row[at + 3] = s.fanfare_queued[b]
        row[at + 4] = min(s.turns_since_scepter[b], cap)
        row[at + 5] = s.jester_for_setup[b]


# ---------------------------------------------------------------------------------------- the entry points


def _fresh(state: State) -> State:
    """The state with new arrays for what a step gives (the mask, rewards, ends, ...), as :func:`.rules.step` makes:
    a caller may keep the last step's while the game fields are updated in place."""
    return state._replace(legal=state.legal.copy(), rewards=np.empty_like(state.rewards),
                          terminated=np.empty_like(state.terminated), truncated=np.empty_like(state.truncated),
                          illegal=np.empty_like(state.illegal), drew=np.empty_like(state.drew),
                          dealt=np.empty_like(state.dealt))


def step(state: State, action: Any, config: Config, active: Any = None) -> State:
    """:func:`.rules.step` compiled per game: the same new state (the game fields of the NumPy state updated in
    place; the mask, rewards and ends in new arrays, as there)."""
    actions = np.asarray(action).astype(np.int64)
    batch = state.decision.shape[0]
    moving = np.ones(batch, dtype=bool) if active is None else np.asarray(active, dtype=bool)
    state = _fresh(state)
    nothing = np.zeros(0, dtype=np.uint32)  # (the learner's arrays, unused here, of their types: one compilation)
    _run(state, params(config), actions, moving, nothing.astype(np.int64), nothing, nothing.astype(np.float32),
         moving, moving, False)
    return state


def observe(state: State, config: Config, seat: Any = None, compact: bool = True) -> np.ndarray[Any, Any]:
    """:func:`.rules.observe` (or, with ``compact=False``, :func:`.rules.observe_float`): (B, 292)."""
    seats = (state.selected if seat is None else np.asarray(seat)).astype(np.int64)
    out = np.empty((seats.shape[0], OBS_SIZE), dtype=np.uint8 if compact else np.float32)
    _observe_all(state, config.players, seats, out, compact)
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
    _run(state, params(config), np.asarray(action).astype(np.int64), np.ones(batch, dtype=bool),
         np.asarray(learner).astype(np.int64), counter, earned, terminated, truncated, True)
    return state, earned, terminated, truncated, counter


def random_actions(state: State, bits: Any) -> np.ndarray[Any, Any]:
    """:func:`.env.random_policy` compiled: a uniformly random legal action per game from its 32 random ``bits``."""
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
