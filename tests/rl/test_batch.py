"""The batched core (royal_revenge.rl.batch) against the engine, step by step, and NumPy against JAX.

tests/rl/batch_reference.py steps an engine table beside every game of a batch and compares the
whole state, the selection, the rewards, the legal mask and the observation after every step.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np
import pytest

from royal_revenge.engine import GameOptions, Scoring
from royal_revenge.rl.batch.arrays import arrays_for
from royal_revenge.rl.batch.rules import Config, State, init, observe, observe_float, step
from royal_revenge.rl.encoding import DRAW_ACTION, NUM_ACTIONS, OBS_SIZE, PASS

from .batch_reference import check_batch

NUMPY = arrays_for("numpy")
# ROYAL_REVENGE_BATCH_SCALE=10 runs the main differential test on ten times as many games (docs/rl.md gives that run).
SCALE = int(os.environ.get("ROYAL_REVENGE_BATCH_SCALE", "1"))


def playing(seed: int, play: float = 0.8) -> Any:
    """A policy that mostly plays when it can (short rounds, many of them) and otherwise picks any legal action."""
    rng = np.random.default_rng(seed)

    def choose(state: State) -> np.ndarray:
        legal = np.asarray(state.legal)
        noise = rng.random(legal.shape)
        plays = legal[:, :DRAW_ACTION]
        prefer = (rng.random(legal.shape[0]) < play) & plays.any(axis=1)
        only_plays = np.concatenate([plays, np.zeros_like(legal[:, DRAW_ACTION:])], axis=1)
        weights = np.where(prefer[:, None], only_plays, legal)
        return np.argmax(weights * noise, axis=1)

    return choose


def numpy_step(config: Config) -> Any:
    return lambda state, action: step(state, action, config, NUMPY)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_batch_plays_exactly_as_the_engine(players: int) -> None:
    config = Config(GameOptions(players=players))
    state = init(config, 160 * SCALE, seed=players, a=NUMPY)
    seen = check_batch(numpy_step(config), state, config, NUMPY, playing(players), 300)
    # Hundreds of whole games, and the moments that are easy to get wrong were all there, many times.
    assert seen["terminated"] >= 250 * SCALE, seen
    for moment in ("reshuffles", "chances", "catches", "fanfare jesters"):
        assert seen.get(moment, 0) >= 10, (moment, seen)


@pytest.mark.parametrize("players", [2, 6])
def test_random_play_long_rounds_and_stalemates(players: int) -> None:
    """Uniformly random play: long rounds, reshuffles again and again, draws from an empty pile."""
    config = Config(GameOptions(players=players))
    state = init(config, 32, seed=10 + players, a=NUMPY)
    seen = check_batch(numpy_step(config), state, config, NUMPY, playing(players, play=0.0), 300)
    assert seen["reshuffles"] >= 30, seen


@pytest.mark.parametrize(
    ("options", "episode", "reward"),
    [
        (GameOptions(players=3, target_score=150), "game", "win"),
        (GameOptions(players=4, target_score=120, scoring=Scoring.LOWEST_TALLY), "game", "points"),
        (GameOptions(players=4, target_score=120, scoring=Scoring.LOWEST_TALLY), "game", "win"),
        (GameOptions(players=2, two_player_reverse_skips=True), "round", "points"),
        (GameOptions(players=5, scepter_turns=None), "round", "win"),
        (GameOptions(players=3, scepter_turns=(1, 2)), "round", "points"),
    ],
    ids=["game-win", "lowest-points", "lowest-win", "reverse-skips", "no-scepter", "quick-scepter"],
)
def test_options_episodes_and_rewards_as_the_engine(options: GameOptions, episode: str, reward: str) -> None:
    config = Config(options, episode=episode, reward=reward)
    state = init(config, 32, seed=5, a=NUMPY)
    seen = check_batch(numpy_step(config), state, config, NUMPY, playing(1), 200)
    assert seen.get("deals", 0) >= 10, seen


def test_max_steps_truncates_and_deals_again() -> None:
    config = Config(GameOptions(players=4), max_steps=30)
    state = init(config, 16, seed=1, a=NUMPY)
    choose = playing(0, play=0.0)
    truncated = 0
    for _ in range(61):
        state = step(state, choose(state), config, NUMPY)
        truncated += int(state.truncated.sum())
        assert (state.steps <= 30).all()
        assert state.legal.any(axis=1).all()
    assert truncated >= 16  # every game was cut at least once (random rounds are longer than 30 decisions)
    assert not (state.truncated & state.terminated).any()


def test_the_same_seed_gives_the_same_batch_and_another_seed_another() -> None:
    config = Config(GameOptions(players=4))
    runs = []
    for seed in (3, 3, 4):
        state = init(config, 16, seed=seed, a=NUMPY)
        choose = playing(9)
        for _ in range(50):
            state = step(state, choose(state), config, NUMPY)
        runs.append(observe(state, config, NUMPY).copy())
    assert np.array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


def test_the_deal_is_uniform() -> None:
    """Every card is equally likely in every place: the first King's hand over many deals (R-SETUP-3)."""
    config = Config(GameOptions(players=4))
    state = init(config, 20_000, seed=8, a=NUMPY)
    hands = np.asarray(state.hands)[np.arange(20_000), np.asarray(state.king)]  # (B, 49)
    from royal_revenge.engine.cards import COPIES_OF

    expected = 20_000 * 7 * np.array(COPIES_OF) / 56
    chi2 = float((((hands.sum(axis=0) - expected) ** 2) / expected).sum())
    assert chi2 < 90, chi2  # 48 degrees of freedom: p < 0.001 above 84.0... with some room
    assert set(np.asarray(state.dealer).tolist()) == {0, 1, 2, 3}
    assert abs(np.mean(np.asarray(state.dealer) == np.asarray(state.king)) - 0.25) < 0.02


def test_observation_compact_and_float_agree() -> None:
    config = Config(GameOptions(players=5), episode="game")
    state = init(config, 32, seed=2, a=NUMPY)
    choose = playing(2)
    for _ in range(120):
        state = step(state, choose(state), config, NUMPY)
        compact = observe(state, config, NUMPY)
        exact = observe_float(state, config, NUMPY)
        assert compact.dtype == np.uint8 and compact.shape == (32, OBS_SIZE)
        assert np.array_equal(compact, np.minimum(exact, 255).astype(np.uint8))


def test_an_illegal_action_is_refused_and_changes_nothing_in_that_game() -> None:
    config = Config(GameOptions(players=3))
    state = init(config, 4, seed=0, a=NUMPY)
    before = {name: np.array(value) for name, value in state._asdict().items()}
    action = np.argmax(state.legal, axis=1)
    action[2] = PASS  # never legal for a King choosing a Jester
    state = step(state, action, config, NUMPY)
    assert state.illegal.tolist() == [False, False, True, False]
    for name in ("hands", "decision", "decider", "jester", "selected", "pile_size", "counter"):
        assert np.array_equal(np.asarray(getattr(state, name))[2], before[name][2]), name
    assert not np.array_equal(np.asarray(state.jester)[[0, 1, 3]], before["jester"][[0, 1, 3]])


def test_the_penalty_option_ends_the_offending_game() -> None:
    config = Config(GameOptions(players=3), illegal="penalty", illegal_reward=-2.0)
    state = init(config, 4, seed=0, a=NUMPY)
    king = int(state.selected[1])
    action = np.argmax(state.legal, axis=1)
    action[1] = NUM_ACTIONS + 5  # outside the space
    state = step(state, action, config, NUMPY)
    assert state.terminated.tolist() == [False, True, False, False]
    assert state.rewards[1].tolist() == [(-2.0 if seat == king else 0.0) for seat in range(3)]
    assert not state.illegal.any() and state.dealt[1]


# ---------------------------------------------------------------------------------------- JAX

import jax  # noqa: E402  (the JAX extra is part of the test install)


@pytest.mark.parametrize("players", [3, 6])
def test_jax_and_numpy_give_the_same_games(players: int) -> None:
    jnp = jax.numpy
    a = arrays_for("jax")
    config = Config(GameOptions(players=players), episode="game", chunk=4)
    state_np = init(config, 48, seed=11, a=NUMPY)
    state_jax = init(config, 48, seed=11, a=a)
    jit_step = jax.jit(functools.partial(step, config=config, a=a))
    jit_observe = jax.jit(functools.partial(observe, config=config, a=a))
    choose = playing(4)
    for t in range(150):
        action = choose(state_np)
        state_np = step(state_np, action, config, NUMPY)
        state_jax = jit_step(state_jax, jnp.asarray(action))
        for name in State._fields:
            assert np.array_equal(np.asarray(getattr(state_np, name)), np.asarray(getattr(state_jax, name))), (t, name)
        assert np.array_equal(observe(state_np, config, NUMPY), np.asarray(jit_observe(state_jax)))


def test_jax_plays_exactly_as_the_engine() -> None:
    a = arrays_for("jax")
    config = Config(GameOptions(players=4), chunk=2)
    jit_step = jax.jit(functools.partial(step, config=config, a=a))
    state = init(config, 16, seed=21, a=a)
    seen = check_batch(lambda s, act: jit_step(s, jax.numpy.asarray(act)), state, config, a, playing(5), 150)
    assert seen["terminated"] >= 10, seen


def test_jax_step_vmaps_over_groups_of_batches() -> None:
    a = arrays_for("jax")
    config = Config(GameOptions(players=3))
    one = init(config, 8, seed=1, a=a)
    two = init(config, 8, seed=2, a=a)
    stacked = jax.tree_util.tree_map(lambda x, y: jax.numpy.stack([x, y]), one, two)
    action = jax.numpy.argmax(stacked.legal, axis=-1)
    stepped = jax.jit(jax.vmap(functools.partial(step, config=config, a=a)))(stacked, action)
    alone = step(one, jax.numpy.argmax(one.legal, axis=-1), config, a)
    assert np.array_equal(np.asarray(stepped.hands[0]), np.asarray(alone.hands))
    assert np.array_equal(np.asarray(stepped.selected[0]), np.asarray(alone.selected))
