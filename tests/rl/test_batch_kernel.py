"""The batched core compiled per game (rl/batch/kernel.py, Numba) against the rules over arrays and the engine.

The kernel works on the NumPy backend's state with the same random stream, so the two must give the same games
to the last field at every step, whatever the options, the episode, the reward, the autoreset or an illegal
action; and, like the array form, it must play exactly as the engine (tests/rl/batch_reference.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from royal_revenge.engine import GameOptions, Scoring
from royal_revenge.rl.batch import BatchEnv, IllegalBatchActionError, RoyalRevengeVectorEnv, kernel
from royal_revenge.rl.batch.arrays import arrays_for
from royal_revenge.rl.batch.env import learner_step, observation_policy, random_policy
from royal_revenge.rl.batch.rules import GAME_OVER, Config, State, init, observe, observe_float, step
from royal_revenge.rl.encoding import NUM_ACTIONS, PASS

from .batch_reference import check_batch
from .test_batch import SCALE, playing

NUMPY = arrays_for("numpy")


def _same_state(expected: State, got: State, where: Any) -> None:
    for name in State._fields:
        want, have = np.asarray(getattr(expected, name)), np.asarray(getattr(got, name))
        if not np.array_equal(want, have):
            games = np.flatnonzero((want != have).reshape(want.shape[0], -1).any(axis=1))
            raise AssertionError(f"{where}: {name} differs in games {games[:8].tolist()}")


def _copy(state: State) -> State:
    return State(*(np.array(value) for value in state))


def _sometimes_illegal(seed: int, share: float) -> Any:
    """Mostly legal play, and now and then an action that is not legal (or outside the space)."""
    rng = np.random.default_rng(seed)
    legal_play = playing(seed)

    def choose(state: State) -> np.ndarray:
        action = legal_play(state)
        wrong = rng.random(action.shape[0]) < share
        return np.where(wrong, rng.integers(-2, NUM_ACTIONS + 2, size=action.shape[0]), action)

    return choose


SETTINGS = [
    (GameOptions(players=2), {}),
    (GameOptions(players=3), {"autoreset": "next-step"}),
    (GameOptions(players=4), {"episode": "game", "reward": "win"}),
    (GameOptions(players=5), {"max_steps": 40}),
    (GameOptions(players=6), {"episode": "game"}),
    (GameOptions(players=4, target_score=120, scoring=Scoring.LOWEST_TALLY), {"episode": "game"}),
    (GameOptions(players=3, target_score=120, scoring=Scoring.LOWEST_TALLY), {"episode": "game", "reward": "win"}),
    (GameOptions(players=2, two_player_reverse_skips=True), {"autoreset": "next-step", "max_steps": 25}),
    (GameOptions(players=5, scepter_turns=None), {"reward": "win"}),
    (GameOptions(players=3, scepter_turns=(1, 2)), {}),
]


@pytest.mark.parametrize(("options", "settings"), SETTINGS, ids=[f"{o.players}p-{s}" for o, s in SETTINGS])
def test_the_kernel_gives_the_games_of_the_rules_over_arrays(options: GameOptions, settings: dict[str, Any]) -> None:
    config = Config(options, **settings)
    arrays = init(config, 96, seed=options.players, a=NUMPY)
    compiled = _copy(arrays)
    choose = playing(options.players)
    for t in range(400):
        action = choose(arrays)
        arrays = step(arrays, action, config, NUMPY)
        compiled = kernel.step(compiled, action.copy(), config)
        _same_state(arrays, compiled, f"step {t}")
        assert np.array_equal(observe(arrays, config, NUMPY), kernel.observe(compiled, config)), t
        assert np.array_equal(observe_float(arrays, config, NUMPY), kernel.observe(compiled, config, compact=False))
        seat = (np.arange(96) + t) % options.players  # (anyone's view, not only the selected seat's)
        assert np.array_equal(observe(arrays, config, NUMPY, seat=seat), kernel.observe(compiled, config, seat=seat))


@pytest.mark.parametrize("illegal", ["raise", "penalty"])
def test_illegal_actions_and_inactive_games_as_the_rules_over_arrays(illegal: str) -> None:
    config = Config(GameOptions(players=4), illegal=illegal, illegal_reward=-1000.5, autoreset="next-step")
    arrays = init(config, 64, seed=3, a=NUMPY)
    compiled = _copy(arrays)
    choose = _sometimes_illegal(3, share=0.05)
    rng = np.random.default_rng(4)
    refused = penalised = 0
    for t in range(300):
        action = choose(arrays)
        active = rng.random(64) < 0.8
        arrays = step(arrays, action, config, NUMPY, active=active)
        compiled = kernel.step(compiled, action.copy(), config, active=active)
        _same_state(arrays, compiled, f"step {t}")
        refused += int(arrays.illegal.sum())
        penalised += int((arrays.rewards == -1000.5).any(axis=1).sum())
    if illegal == "penalty":
        assert refused == 0 and penalised > 0, (refused, penalised)
    else:
        assert refused > 0 and penalised == 0, (refused, penalised)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_kernel_plays_exactly_as_the_engine(players: int) -> None:
    config = Config(GameOptions(players=players))
    state = init(config, 160 * SCALE, seed=100 + players, a=NUMPY)

    def compiled_step(state: State, action: np.ndarray) -> State:
        after = kernel.step(state, action, config)
        assert np.array_equal(kernel.observe(after, config, compact=False), observe_float(after, config, NUMPY))
        return after

    seen = check_batch(compiled_step, state, config, NUMPY, playing(players), 300)
    assert seen["terminated"] >= 250 * SCALE, seen
    for moment in ("reshuffles", "chances", "catches", "fanfare jesters"):
        assert seen.get(moment, 0) >= 10, (moment, seen)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_learners_step_with_random_bots_as_the_rules_over_arrays(players: int) -> None:
    """The compiled loop plays each game's bots as env.learner_step does on the whole batch: the same moves, the
    same rewards and episode ends for the learner, the same games afterwards."""
    config = Config(GameOptions(players=players), autoreset="next-step")
    arrays = init(config, 64, seed=5, a=NUMPY)
    compiled = _copy(arrays)
    learner = (np.arange(64) % players).astype(np.int32)
    counter = np.zeros(64, dtype=np.uint32)
    compiled_counter = counter.copy()
    nobody = np.full(64, -1, dtype=np.int32)
    rng = np.random.default_rng(6)
    persistent = [name for name in State._fields if name not in ("rewards", "drew", "dealt", "terminated",
                                                                  "truncated", "illegal")]
    for t in range(150):
        if t == 0:
            action = nobody
        else:
            mask = arrays.legal & (arrays.selected == learner)[:, None]
            action = np.argmax(mask * rng.random(mask.shape), axis=1).astype(np.int32)
        arrays, reward, terminated, truncated, counter = learner_step(
            arrays, action, learner, counter, config, NUMPY, random_policy)
        compiled, compiled_reward, compiled_terminated, compiled_truncated, compiled_counter = kernel.learner_step(
            compiled, action.copy(), learner, compiled_counter, config)
        for name in persistent:
            assert np.array_equal(getattr(arrays, name), getattr(compiled, name)), (t, name)
        assert np.array_equal(reward, compiled_reward), t
        assert np.array_equal(terminated, compiled_terminated) and np.array_equal(truncated, compiled_truncated), t
        assert np.array_equal(counter, compiled_counter), t
        assert ((arrays.selected == learner) | (arrays.decision == GAME_OVER)).all()


def test_a_policy_learners_step_as_the_rules_over_arrays() -> None:
    config = Config(GameOptions(players=4), autoreset="next-step")
    policy = observation_policy(lambda observation, legal: np.argmax(legal * (observation[:, :124] + 1), axis=1))
    arrays = init(config, 32, seed=8, a=NUMPY)
    compiled = _copy(arrays)
    learner = np.zeros(32, dtype=np.int32)
    counter = np.zeros(32, dtype=np.uint32)
    compiled_counter = counter.copy()
    action = np.full(32, -1, dtype=np.int32)
    for t in range(60):
        arrays, reward, terminated, _, counter = learner_step(arrays, action, learner, counter, config, NUMPY,
                                                              policy)
        compiled, compiled_reward, compiled_terminated, _, compiled_counter = kernel.policy_learner_step(
            compiled, action.copy(), learner, compiled_counter, config, policy)
        assert np.array_equal(arrays.hands, compiled.hands) and np.array_equal(arrays.legal, compiled.legal), t
        assert np.array_equal(reward, compiled_reward) and np.array_equal(terminated, compiled_terminated), t
        action = np.argmax(arrays.legal, axis=1).astype(np.int32)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("opponents", ["random", "self"])
def test_the_vector_env_on_the_kernel_is_the_vector_env_on_numpy(mode: AutoresetMode, opponents: str) -> None:
    envs = [RoyalRevengeVectorEnv(48, players=4, opponents=opponents, learner_seat=None, backend=backend,
                                  autoreset_mode=mode, seed=12) for backend in ("numpy", "numba")]
    outs = [env.reset(seed=12) for env in envs]
    rng = np.random.default_rng(13)
    for t in range(120):
        (obs, info), (obs2, info2) = outs[0], outs[1]
        assert np.array_equal(info["action_mask"], info2["action_mask"]), t
        assert np.array_equal(obs["observation"], obs2["observation"]), t
        assert np.array_equal(obs["action_mask"], obs2["action_mask"]), t
        mask = obs["action_mask"].astype(bool) if opponents == "random" else info["action_mask"]
        action = np.argmax(mask * rng.random(mask.shape), axis=1)
        steps = [env.step(action) for env in envs]
        for one, other in zip(steps[0][1:4], steps[1][1:4], strict=True):
            assert np.array_equal(one, other), t
        outs = [(obs, info) for obs, _, _, _, info in steps]


def test_the_batch_env_on_the_kernel_refuses_illegal_actions_and_plays_as_on_numpy() -> None:
    envs = [BatchEnv(32, players=5, backend=backend, seed=2) for backend in ("numpy", "numba")]
    outs = [env.reset() for env in envs]
    for t in range(100):
        assert all(np.array_equal(a, b) for a, b in zip(outs[0], outs[1], strict=True)), t
        outs = [env.step(np.argmax(outs[0].action_mask, axis=1)) for env in envs]
    before = _copy(envs[1].state)
    wrong = np.argmax(outs[1].action_mask, axis=1)
    wrong[3] = PASS if not outs[1].action_mask[3, PASS] else 0
    with pytest.raises(IllegalBatchActionError, match="game 3"):
        envs[1].step(wrong)
    _same_state(before, envs[1].state, "after the refused step")


def test_the_compiled_random_policy_finds_every_action_of_the_mask() -> None:
    """The kernel reads the mask in 62-bit words and finds their set bits by a de Bruijn table: each of the 124
    actions, alone in a mask, is chosen; with two, the choice is the array form's (the higher hashed score)."""
    config = Config(GameOptions(players=4))
    state = init(config, NUM_ACTIONS, seed=1, a=NUMPY)
    alone = np.eye(NUM_ACTIONS, dtype=bool)
    bits = np.arange(NUM_ACTIONS, dtype=np.uint32) * np.uint32(2654435761)
    assert np.array_equal(kernel.random_actions(state._replace(legal=alone), bits), np.arange(NUM_ACTIONS))
    pairs = alone | np.roll(alone, 61, axis=1)  # (pairs across the two words and within one)
    paired = state._replace(legal=pairs)
    assert np.array_equal(kernel.random_actions(paired, bits), random_policy(paired, config, NUMPY, bits))
    assert np.array_equal(kernel.random_actions(state._replace(legal=np.zeros_like(alone)), bits),
                          np.zeros(NUM_ACTIONS, dtype=np.int32))  # no legal action: 0, as the array form


def test_the_compiled_random_policy_is_the_random_policy() -> None:
    config = Config(GameOptions(players=6))
    state = init(config, 256, seed=9, a=NUMPY)
    rng = np.random.default_rng(10)
    for _ in range(50):
        bits = rng.integers(0, 2**32, size=256, dtype=np.uint64).astype(np.uint32)
        chosen = kernel.random_actions(state, bits)
        assert np.array_equal(chosen, random_policy(state, config, NUMPY, bits))
        assert state.legal[np.arange(256), chosen].all()
        state = kernel.step(state, chosen, config)
