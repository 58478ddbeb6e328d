"""A determinized Monte Carlo search bot (flat Monte Carlo over sampled worlds).

For each decision with a real choice the bot repeatedly

1. samples a full state that agrees with its observation
   (:meth:`~royal_revenge.engine.Observation.sample_state`: the hidden hands and the draw
   pile dealt at random, the scepter's remaining turns drawn among those still possible, so
   the fanfare is a chance event of the sampled world); with ``inference=True`` the hidden
   hands also agree with what the round's history says of them
   (:class:`~royal_revenge.bots.inference.HandInference`: a player who drew on a red 5 held no
   red card, no 5 and no Wild then; measured against three heuristic bots, whose play it
   describes exactly, it did not win more rounds than the uniform deal, and it costs a fifth
   more time, so it is off by default: README, "Bot strength"), then
2. tries every candidate action in that same world (paired comparisons: the actions are
   compared on identical hidden cards, which removes most of the noise), and
3. plays each world on with a fast rule-based policy for every seat, to the end of the round
   or for a bounded number of steps, scoring a finished round 1 for a win and 0 for a loss,
   and an unfinished one by an estimate from the hand sizes.

It chooses the action with the best mean, the heuristic's choice winning near-ties. The
sampled world is the bot's own imagination: the bot never sees the true state.

With ``rollouts="compiled"`` (the ``numba`` extra) the worlds are played on the batched core
compiled with Numba (:mod:`royal_revenge.rl.batch.rollouts`): the same rollout policy on arrays,
a chunk of worlds per call, six to ten times as many rollouts in the same time, and by default to
the end of the round (the engine's stop after 25 steps). Measured against three heuristic bots,
that is the strongest bot here (README, "Bot strength"); the ``hard`` level plays it.

The budget is ``iterations`` (rollouts per decision, deterministic for a given seed) and/or
``budget_ms`` (wall-clock milliseconds per decision, measured by an injectable ``clock``);
when both are given the first one reached stops the search. Decisions without a real choice
cost nothing: a single legal action is played at once, UNO is always called and a player
who forgot is always caught; optional chances with nothing to do are passed with ``None``.
"""

from __future__ import annotations

import importlib.util
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from ..engine import (
    AnyAction,
    CallUno,
    Catch,
    Decision,
    GameState,
    Observation,
    Play,
)
from ..engine.actions import COLOURS, DRAW, JESTERS, KEEP, PLAYS, PLAYS_UNO, VICTIMS
from ..engine.cards import CARDS_OF_COLOUR, COLOUR_OF, KIND_OF, PLAYABLE, POINTS_OF, Card, Colour, Kind, match_key
from ..engine.options import DEFAULT_SCEPTER_TURNS
from .base import seeded_rng
from .heuristic import MOST_COLOURED_POINTS, HeuristicAgent
from .inference import HandInference

if TYPE_CHECKING:
    from ..rl.batch.rollouts import CompiledRollouts

__all__ = ["SearchAgent", "rollout_policy", "rollout"]

_TURN: Final = Decision.TURN
_DRAWN: Final = Decision.DRAWN
_COLOUR: Final = Decision.COLOUR
_VICTIM: Final = Decision.VICTIM
_ROUND_OVER: Final = Decision.ROUND_OVER
_WILD: Final = Kind.WILD
_SKIP: Final = Kind.SKIP
_REVERSE: Final = Kind.REVERSE
_JESTER: Final = Kind.JESTER
_KINGS_CHOICE: Final = Kind.KINGS_CHOICE
_NUMBER: Final = Kind.NUMBER

DEFAULT_ROLLOUT_STEPS: Final = 25
"""Steps an engine rollout plays before the hand sizes decide its value (compiled rollouts, six to ten times as fast,
play to the end of the round: valued by the hand sizes, a cut-off rollout misjudges the long-term choices)."""
ROLLOUTS: Final = ("engine", "compiled")
"""Where the rollouts are played: on the engine (pure Python) or on the compiled batched core (Numba)."""
COMPILED_CHUNK: Final = 512
"""Worlds per call of the compiled rollouts."""
PRIOR_MARGIN: Final = 0.5
"""The heuristic's choice wins when within ``PRIOR_MARGIN / sqrt(worlds)`` of the best mean."""


def _most_dangerous(state: GameState, king: int) -> int:
    """As :func:`~royal_revenge.bots.heuristic.most_dangerous`: fewest cards, highest score, soonest."""
    hands, scores, players, direction = state.hands, state.scores, state.players, state.direction
    best, best_key = -1, (1 << 30, 0, 0)
    for seat in range(players):
        if seat != king:
            key = (len(hands[seat]), -scores[seat], ((seat - king) * direction) % players)
            if key < best_key:
                best, best_key = seat, key
    return best


def _king_colour(state: GameState, king: int) -> int:
    """As :func:`~royal_revenge.bots.heuristic.best_colour`, from the King's own view of the world."""
    mine = [0.0] * len(Colour)
    unseen = list(CARDS_OF_COLOUR)
    for card in state.hands[king]:
        colour = COLOUR_OF[card]
        if colour is not None:
            mine[colour] += 1 + POINTS_OF[card] / 100
            unseen[colour] -= 1
    for card in state.discard:
        colour = COLOUR_OF[card]
        if colour is not None:
            unseen[colour] -= 1
    weight = 0.08 + 0.12 * _threat(len(state.hands[_most_dangerous(state, king)]))
    values = [mine[c] - weight * unseen[c] for c in Colour]
    return values.index(max(values))


def _threat(size: int) -> float:
    return float(4 - size) if size < 4 else 0.0


def _best_play(state: GameState, seat: int, hand: list[Card], playable: list[Card]) -> Card:
    """A cheap copy of :meth:`HeuristicAgent.play_value` on a full state (no unseen-card term)."""
    counts = [0] * len(Colour)
    for card in hand:
        colour = COLOUR_OF[card]
        if colour is not None:
            counts[colour] += 1
    hands = state.hands
    players = state.players
    direction = state.direction
    next_size = len(hands[(seat + direction) % players])
    best = playable[0]
    best_value = -1000.0
    for card in playable:
        kind = KIND_OF[card]
        colour = COLOUR_OF[card]
        if kind is _NUMBER:
            value = POINTS_OF[card] / MOST_COLOURED_POINTS
        elif kind is _WILD:
            value = 1.0 - 4.0 * (len(playable) > 1)
            if state.king == seat:
                value += 0.5 + max(counts)
            else:
                value -= 1.0
            colour = None
        else:
            value = 1.0
            if kind is _SKIP:
                value += 2.0 if players == 2 else 0.5 + 1.5 * _threat(next_size)
            elif kind is _REVERSE:
                if players > 2:
                    value += 0.2 + _threat(next_size) - _threat(len(hands[(seat - direction) % players]))
            elif kind is _JESTER:
                jester = state.jester
                if jester == seat:
                    value -= 2.5
                elif jester is not None:
                    value += 1.0 + _threat(len(hands[jester]))
            elif state.king == seat:  # a King's Choice the King plays
                value += 1.0 + _threat(min(len(hands[s]) for s in range(players) if s != seat))
            else:
                value += 0.5
        if colour is not None:
            value += counts[colour] - 1
        if value > best_value:
            best, best_value = card, value
    return best


def rollout_policy(state: GameState) -> AnyAction:
    """A fast rule-based action for whoever must decide in ``state`` (which it reads in full).

    Used inside the bot's imagined worlds only. It always calls UNO with the card.
    """
    decision = state.decision
    seat = state.decider
    assert seat is not None
    if decision is _TURN or decision is _DRAWN:
        hand = state.hands[seat]
        table = PLAYABLE[match_key(state.discard[-1], state.active_colour)]
        if decision is _DRAWN:
            drawn = state.drawn
            assert drawn is not None
            if table[drawn]:
                return (PLAYS_UNO if len(hand) == 2 else PLAYS)[drawn]
            return KEEP
        playable = [card for card in hand if table[card]]
        if not playable:
            return DRAW
        plays = PLAYS_UNO if len(hand) == 2 else PLAYS
        if len(playable) == 1:
            return plays[playable[0]]
        return plays[_best_play(state, seat, hand, playable)]
    if decision is _COLOUR:
        return COLOURS[_king_colour(state, seat)]
    target = _most_dangerous(state, seat)
    if decision is _VICTIM:
        return VICTIMS[target]
    return JESTERS[target]


def rollout(state: GameState, me: int, max_steps: int | None = DEFAULT_ROLLOUT_STEPS) -> float:
    """Play ``state`` on with :func:`rollout_policy` and return ``me``'s value in [0, 1].

    A finished round is 1 for a win and 0 otherwise; a round still going after
    ``max_steps`` steps (``None``: no limit) is valued by :func:`hand_size_value`.
    """
    steps = 0
    while state.decision < _ROUND_OVER:
        if max_steps is not None and steps >= max_steps:
            return hand_size_value(state, me)
        seat = state.decider
        state.step(seat, rollout_policy(state))
        steps += 1
    result = state.last_round
    assert result is not None
    return 1.0 if result.winner == me else 0.0


def hand_size_value(state: GameState, me: int) -> float:
    """An estimate of ``me``'s chance to win the round from the hand sizes alone."""
    weights = [math.exp(-0.55 * len(hand)) for hand in state.hands]
    return weights[me] / sum(weights)


class SearchAgent:
    """Determinized flat Monte Carlo search within a budget of rollouts and/or milliseconds."""

    name = "search"

    def __init__(
        self,
        seed: int | random.Random | None = None,
        *,
        iterations: int | None = None,
        budget_ms: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
        rollout_steps: int | None = None,
        inference: bool = False,
        rollouts: str = "engine",
        name: str | None = None,
    ) -> None:
        if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int)
                                       or iterations < 1):
            raise ValueError(f"iterations must be a whole number of at least 1, not {iterations!r}")
        if budget_ms is not None and (isinstance(budget_ms, bool) or not isinstance(budget_ms, (int, float))
                                      or not budget_ms > 0 or math.isinf(budget_ms)):
            raise ValueError(f"budget_ms must be a positive number of milliseconds, not {budget_ms!r}")
        if rollout_steps is not None and (isinstance(rollout_steps, bool) or not isinstance(rollout_steps, int)
                                          or rollout_steps < 0):
            raise ValueError(f"rollout_steps must be a whole number of at least 0, not {rollout_steps!r}")
        if not isinstance(inference, bool):
            raise ValueError(f"inference must be true or false, not {inference!r}")
        if rollouts not in ROLLOUTS:
            raise ValueError(f"rollouts must be {' or '.join(map(repr, ROLLOUTS))}, not {rollouts!r}")
        if rollouts == "compiled":
            if inference:
                raise ValueError("inference works with the engine's rollouts only, not with rollouts='compiled'")
            if importlib.util.find_spec("numba") is None:
                raise ValueError("rollouts='compiled' needs Numba: pip install 'royal-revenge[numba]'")
        if iterations is None and budget_ms is None:
            iterations = 200
        self.rng = seeded_rng(seed)
        self.iterations = iterations
        self.budget_ms = budget_ms
        self.clock = clock
        self.rollout_steps: int | None = rollout_steps
        """The steps a rollout plays before the hand sizes value it; None: to the end of the round."""
        if rollout_steps is None and rollouts == "engine":
            self.rollout_steps = DEFAULT_ROLLOUT_STEPS
        self.inference = inference
        self.rollouts = rollouts
        self._compiled: CompiledRollouts | None = None
        self.fallback = HeuristicAgent(self.rng)
        self.last_rollouts = 0
        """Rollouts made for the last decision (for benchmarks and tests)."""
        self.last_values: dict[AnyAction, float] = {}
        """Mean value of each candidate at the last searched decision."""
        if name is not None:
            self.name = name

    def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
        self.last_rollouts = 0
        if not legal_actions:
            return None
        for action in legal_actions:
            if isinstance(action, (CallUno, Catch)):
                return action
        me = observation.seat
        if me is None or observation.pending.seat != me:
            return None
        candidates = _candidates(legal_actions)
        if len(candidates) == 1:
            return candidates[0]
        preferred = self.fallback.decide(observation, candidates)
        if isinstance(preferred, Play) and not preferred.uno and Play(preferred.card, True) in candidates:
            preferred = Play(preferred.card, True)
        return self._search(observation, me, candidates, preferred)

    def _search(
        self, observation: Observation, me: int, candidates: list[AnyAction], preferred: AnyAction
    ) -> AnyAction:
        clock = self.clock
        deadline = None if self.budget_ms is None else clock() + self.budget_ms / 1000.0
        limit = self.iterations
        k = len(candidates)
        totals = [0.0] * k
        worlds = 0
        rng = self.rng
        compiled = self._compiled_rollouts(observation) if self.rollouts == "compiled" else None
        inferred = HandInference(observation) if self.inference else None
        if inferred is not None and not inferred.informative:
            inferred = None  # (nothing to infer yet: the uniform deal, which is cheaper)
        most_worlds = None if limit is None else max(limit, k) // k
        while most_worlds is None or worlds < most_worlds:
            if deadline is not None and worlds > 0 and clock() >= deadline:
                break
            if compiled is not None:
                # A chunk of worlds per call (small enough for a millisecond budget to stop in time).
                count = COMPILED_CHUNK if most_worlds is None else min(COMPILED_CHUNK, most_worlds - worlds)
                base = observation.sample_state(rng)
                chunk = compiled.totals(base, me, candidates, count, rng.getrandbits(64))
                totals = [total + more for total, more in zip(totals, chunk, strict=True)]
                worlds += count
                continue
            world = observation.sample_state(rng, inferred.deal(rng) if inferred is not None else None)
            if observation.options.scepter_turns is None and world.scepter_running and not world.fanfare_queued:
                # With no turn-counted scepter, imagine the default one (R-KING-1).
                world.scepter_left = max(1, rng.randint(*DEFAULT_SCEPTER_TURNS) - world.turns_since_scepter)
            for index, action in enumerate(candidates):
                trial = world.copy()
                trial.step(me, action)
                totals[index] += rollout(trial, me, self.rollout_steps)
            worlds += 1
        self.last_rollouts = worlds * k
        means = [total / worlds for total in totals]
        self.last_values = dict(zip(candidates, means, strict=True))
        # Near-ties go to the heuristic's choice: within about one standard error of a win rate.
        margin = PRIOR_MARGIN / math.sqrt(worlds)
        best = max(range(k), key=lambda i: means[i] + (margin if candidates[i] == preferred else 0.0))
        return candidates[best]

    def _compiled_rollouts(self, observation: Observation) -> CompiledRollouts:
        """The compiled rollouts for this table's options (made at the first decision, kept while they hold)."""
        from ..rl.batch.rollouts import CompiledRollouts  # (NumPy and Numba: imported only when used)

        compiled = self._compiled
        if compiled is None or compiled.options != observation.options:
            compiled = self._compiled = CompiledRollouts(observation.options, self.rollout_steps)
        return compiled


def _candidates(legal_actions: Sequence[AnyAction]) -> list[AnyAction]:
    """The actions worth comparing: UNO is always called with the card, calls and catches aside."""
    uno_cards = {action.card for action in legal_actions if isinstance(action, Play) and action.uno}
    return [
        action
        for action in legal_actions
        if not isinstance(action, (CallUno, Catch))
        and not (isinstance(action, Play) and not action.uno and action.card in uno_cards)
    ]
