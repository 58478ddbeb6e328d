"""Random games for the engine's property tests: option strategies and a seeded random driver.

The driver plays uniformly random legal actions with a bias chosen per game (to play
whenever it can, to hoard by drawing, or neither), and mixes in what a real table does
between decisions: the scepter's fanfare (``state.apply(None, FANFARE)``) whenever the
table may sound it, and out-of-turn UNO calls and catches from every seat's own legal
actions. It yields after every applied action so that tests can check the state.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hypothesis import strategies as st

from royal_revenge.engine import (
    FULL_DECK,
    NEXT_ROUND,
    AnyAction,
    Decision,
    Draw,
    GameOptions,
    GameState,
    Keep,
    Scoring,
)
from royal_revenge.engine.actions import FANFARE

ROUND_STEP_BOUND = 20_000
"""Generous bound on the actions of one round (R-TURN-6 guarantees that a round ends)."""

POLICIES = ("uniform", "eager", "hoard")
"""uniform: any legal action; eager: play a card when possible; hoard: draw and keep (stalemates)."""

SHORT = ("uniform", "eager", "eager", "eager", "eager", "hoard", "hoard")
"""Policies weighted towards short games (uniform random play takes about 1000 actions a round)."""

FULL_DECK_COUNT = Counter(FULL_DECK)


@st.composite
def game_options(draw: st.DrawFn, players: int | None = None, single_round: bool | None = None) -> GameOptions:
    """Options over everything RULES.md allows, with small targets so whole games finish quickly."""
    n = draw(st.integers(2, 6)) if players is None else players
    return GameOptions(
        players=n,
        target_score=draw(st.sampled_from([1, 40, 120, 250])),
        scoring=draw(st.sampled_from(list(Scoring))),
        single_round=draw(st.booleans()) if single_round is None else single_round,
        two_player_reverse_skips=draw(st.booleans()),
        scepter_turns=draw(st.sampled_from([None, (1, 1), (1, 4), (9, 15)])),
    )


@dataclass(frozen=True)
class GameSpec:
    """Everything that decides one random game."""

    options: GameOptions
    seed: int
    policy: str
    fanfare_rate: float
    outside_rate: float

    def new_state(self) -> GameState:
        return GameState.new(self.options, self.seed)


@st.composite
def game_specs(draw: st.DrawFn, policies: tuple[str, ...] = SHORT, single_round: bool | None = None) -> GameSpec:
    return GameSpec(
        options=draw(game_options(single_round=single_round)),
        seed=draw(st.integers(0, 2**64 - 1)),
        policy=draw(st.sampled_from(policies)),
        fanfare_rate=draw(st.sampled_from([0.0, 0.02, 0.2])),
        outside_rate=draw(st.sampled_from([0.0, 0.3, 1.0])),
    )


def choose(rng: random.Random, legal: list[AnyAction], policy: str) -> AnyAction:
    """One random legal action of the decider, biased by the policy."""
    if policy == "eager":
        plays = [a for a in legal if not isinstance(a, (Draw, Keep))]
        if plays and rng.random() < 0.9:
            return rng.choice(plays)
    elif policy == "hoard":
        lazy = [a for a in legal if isinstance(a, (Draw, Keep))]
        if lazy and rng.random() < 0.97:
            return rng.choice(lazy)
    return rng.choice(legal)


Apply = Callable[[int | None, AnyAction], object]


def drive(
    state: GameState,
    rng: random.Random,
    spec: GameSpec,
    apply: Apply | None = None,
    *,
    round_bound: int = ROUND_STEP_BOUND,
) -> Iterator[tuple[int | None, AnyAction]]:
    """Play ``state`` to the end of the game with ``apply`` (default ``state.step``), yielding each move after it.

    Asserts that the decider always has a legal action and that every round ends within
    ``round_bound`` actions.
    """
    do: Apply = state.step if apply is None else apply
    n = state.players
    round_steps = 0
    while not state.is_over():
        if state.decision is Decision.ROUND_OVER:
            assert state.legal_actions(None) == [NEXT_ROUND]
            do(None, NEXT_ROUND)
            round_steps = 0
            yield None, NEXT_ROUND
            continue
        round_steps += 1
        assert round_steps <= round_bound, f"round {state.round_no} did not end within {round_bound} actions"
        # The table's scepter may sound at any moment it is allowed to.
        if spec.fanfare_rate and state.legal_actions(None) and rng.random() < spec.fanfare_rate:
            do(None, FANFARE)
            yield None, FANFARE
            continue
        # Out-of-turn UNO calls and catches from the seats that are not deciding (only possible while
        # an UNO window is open: elsewhere the tests check that those seats have no legal action).
        if spec.outside_rate and state.uno_seat is not None:
            acted = False
            seats = list(range(n))
            rng.shuffle(seats)
            for seat in seats:
                if seat == state.decider:
                    continue
                extra = state.legal_actions(seat)
                if extra and rng.random() < spec.outside_rate:
                    action = rng.choice(extra)
                    do(seat, action)
                    yield seat, action
                    acted = True
                    break
            if acted:
                continue
        decider = state.decider
        assert decider is not None, state.pending
        legal = state.legal_actions(decider)
        assert legal, f"the decider {decider} has no legal action in {state!r}"
        action = choose(rng, legal, spec.policy)
        do(decider, action)
        yield decider, action


def all_cards(state: GameState) -> Counter[int]:
    cards: Counter[int] = Counter(state.draw_pile)
    cards.update(state.discard)
    for hand in state.hands:
        cards.update(hand)
    return cards
