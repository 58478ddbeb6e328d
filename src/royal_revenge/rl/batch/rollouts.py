"""The search bot's rollouts on the compiled batched core: thousands of imagined worlds in one call.

:class:`~royal_revenge.bots.search.SearchAgent` compares its candidate actions by playing sampled worlds on
(flat Monte Carlo). With ``rollouts="compiled"`` it does that here: the worlds are dealt as rows of a batch
(:class:`~royal_revenge.rl.batch.rules.State`), one row per world and candidate, and the Numba kernel plays
every row on with :func:`~royal_revenge.rl.batch.kernel.play_out` (the search's rule-based rollout
policy, on arrays), each game on its own to the end of the round or the step limit. The rows of one world
share its deal and its random stream, so the candidates are compared on the same hidden cards, as in the
engine's rollouts.

Needs the ``numba`` extra. The values are those of the engine's rollouts in distribution, not draw for draw:
the batch draws from its own random stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...engine import AnyAction, GameOptions, GameState, Scoring
from ...engine.cards import NUM_FACES
from ...engine.options import DEFAULT_SCEPTER_TURNS
from ..encoding import NUM_ACTIONS, action_index
from . import kernel
from .rules import _POINTS, DECK_SIZE, NONE, Config, State

__all__ = ["CompiledRollouts"]

def _optional(value: int | None) -> int:
    return NONE if value is None else int(value)


class CompiledRollouts:
    """Values of candidate actions from rollouts of sampled worlds, compiled (one kernel call per decision).

    ``rollout_steps`` bounds a rollout as the engine's do, after the candidate's own step (``None``: to the end of
    the round); an unfinished rollout is valued by the hand sizes (:func:`royal_revenge.bots.search.hand_size_value`).
    """

    def __init__(self, options: GameOptions, rollout_steps: int | None) -> None:
        # A game whose scepter runs on real time imagines the default one, as the engine's rollouts do (R-KING-1).
        self.options = options
        self.real_time_scepter = options.scepter_turns is None
        turns = DEFAULT_SCEPTER_TURNS if options.scepter_turns is None else options.scepter_turns
        single = replace(options, single_round=True, scepter_turns=turns)
        self.config = Config(single, episode="round", reward="win", autoreset="next-step",
                             max_steps=None if rollout_steps is None else rollout_steps + 1)
        self.players = options.players
        self.scepter_turns = turns

    def totals(self, world: GameState, me: int, candidates: Sequence[AnyAction], worlds: int,
               seed: int) -> list[float]:
        """The summed value for ``me`` of each candidate over ``worlds`` deals of ``world``'s hidden cards
        (each value from 0, a lost round, to 1, a won one), the deals drawn from ``seed``.

        ``world`` is one state that agrees with ``me``'s observation (``Observation.sample_state``); every
        deal keeps what ``me`` sees (its hand, the discard pile, the public fields) and deals the other hands
        and the draw pile anew from the cards ``me`` cannot place, with a new scepter delay.
        """
        rng = np.random.default_rng(seed)
        n, k = self.players, len(candidates)
        base = self._row(world, me)
        hidden = [int(card) for seat in range(n) if seat != me for card in world.hands[seat]]
        hidden += [int(card) for card in world.draw_pile]
        pool = np.array(hidden, dtype=np.int8)
        # Each world's hidden cards in a random order: the other hands take them in turn, the rest is the pile.
        order = np.argsort(rng.random((worlds, pool.size)), axis=1)
        dealt = pool[order]
        hands = np.repeat(base["hands"][None], worlds, axis=0)
        start = 0
        for seat in range(n):
            if seat == me:
                continue
            size = len(world.hands[seat])
            counts = np.zeros((worlds, NUM_FACES), dtype=np.int32)
            np.add.at(counts, (np.arange(worlds)[:, None], dealt[:, start:start + size].astype(np.int64)), 1)
            hands[:, seat] = counts
            start += size
        fields = {name: np.repeat(np.asarray(value)[None], worlds, axis=0) for name, value in base.items()}
        fields["hands"] = hands
        fields["hand_points"] = (hands.astype(np.int32) * _POINTS).sum(axis=2, dtype=np.int32)
        fields["pile"][:, : pool.size - start] = dealt[:, start:]
        if world.scepter_running and not world.fanfare_queued:
            # As the engine's search draws them: among the delays still possible, or with no turn-counted
            # scepter the default one's, at least one turn (Observation.sample_state, SearchAgent).
            low, high = self.scepter_turns
            since = world.turns_since_scepter
            if self.real_time_scepter:
                left = np.maximum(1, rng.integers(low, high + 1, size=worlds) - since)
            else:
                left = rng.integers(max(low, since + 1), high + 1, size=worlds) - since
            fields["scepter_left"] = left.astype(np.int32)
        fields["key"] = rng.integers(0, 1 << 32, size=worlds, dtype=np.uint32)
        # Every world once per candidate: rows world * k + candidate.
        state = State(**{name: np.repeat(value, k, axis=0) for name, value in fields.items()})
        rows = worlds * k
        actions = np.tile(np.array([action_index(action, me, n) for action in candidates], dtype=np.int64), worlds)
        state.legal[np.arange(rows), actions] = True
        earned, finished = kernel.play_out(state, actions, np.full(rows, me), self.config)
        weights = np.exp(-0.55 * state.held.astype(np.float64))
        by_hands = weights[:, me] / weights.sum(axis=1)
        # A finished round is won by going out (or, standard scoring, by the fewest points in a stalemate,
        # where the reward says who won; with the lowest tally it would name the lowest total instead).
        won = state.held[:, me] == 0
        if self.options.scoring is Scoring.STANDARD:
            won |= earned > 0
        value = np.where(finished, won.astype(np.float64), by_hands)
        return [float(total) for total in value.reshape(worlds, k).sum(axis=0)]

    def _row(self, state: GameState, me: int) -> dict[str, Any]:
        """One game of the batch from an engine state (the inverse of tests/rl/batch_reference.engine_state),
        the table selecting ``me`` for its decision."""
        n = self.players
        hands = np.zeros((n, NUM_FACES), dtype=np.int8)
        for seat in range(n):
            for card in state.hands[seat]:
                hands[seat, int(card)] += 1
        pile = np.zeros(DECK_SIZE, dtype=np.int8)
        pile[: len(state.draw_pile)] = [int(card) for card in state.draw_pile]
        discard = np.zeros(DECK_SIZE, dtype=np.int8)
        discard[: len(state.discard)] = [int(card) for card in state.discard]
        discard_counts = np.bincount(discard[: len(state.discard)], minlength=NUM_FACES).astype(np.int8)
        return {
            "hands": hands,
            "held": np.array([len(hand) for hand in state.hands], dtype=np.int32),
            "hand_points": np.zeros(n, dtype=np.int32),
            "pile": pile,
            "pile_size": np.int32(len(state.draw_pile)),
            "discard": discard,
            "discard_size": np.int32(len(state.discard)),
            "discard_counts": discard_counts,
            "colour": np.int32(_optional(state.active_colour)),
            "direction": np.int32(state.direction),
            "king": np.int32(state.king),
            "jester": np.int32(_optional(state.jester)),
            "dealer": np.int32(state.dealer),
            "current": np.int32(state.current),
            "decision": np.int32(int(state.decision)),
            "decider": np.int32(_optional(state.decider)),
            "drawn": np.int32(_optional(state.drawn)),
            "resolving": np.int32(state.resolving),
            "jester_for_setup": np.bool_(state.jester_for_setup),
            "uno_seat": np.int32(_optional(state.uno_seat)),
            "fanfare_queued": np.bool_(state.fanfare_queued),
            "scepter_running": np.bool_(state.scepter_running),
            "scepter_left": np.int32(_optional(state.scepter_left)),
            "turns_since_scepter": np.int32(state.turns_since_scepter),
            "passes": np.int32(state.passes),
            "scores": np.array(state.scores, dtype=np.int32),
            "round_no": np.int32(state.round_no),
            "selected": np.int32(me),
            "chance": np.bool_(False),
            "chance_next": np.int32(0),
            "steps": np.int32(0),
            "legal": np.zeros(NUM_ACTIONS, dtype=bool),
            "rewards": np.zeros(n, dtype=np.float32),
            "terminated": np.bool_(False),
            "truncated": np.bool_(False),
            "illegal": np.bool_(False),
            "drew": np.full(2, NONE, dtype=np.int8),
            "dealt": np.bool_(False),
            "key": np.uint32(0),
            "counter": np.uint32(0),
        }



def warm_up() -> None:
    """Compile the kernel the rollouts use (or load it from Numba's cache: about a second), so that the first
    compiled search to decide in this process does not wait for it. A first compilation takes some 20 seconds."""
    state = GameState.new(GameOptions(players=3, single_round=True), seed=0)
    king = state.decider  # (a new game waits for its King to choose the Jester: two choices)
    assert king is not None
    CompiledRollouts(state.options, None).totals(state, king, state.legal_actions(king), 1, seed=0)
