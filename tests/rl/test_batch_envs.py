"""The batched core's interfaces: BatchEnv (self-play batch), the pure functions for JAX, and the Gymnasium
vector environment (one learner against bots on arrays, or self-play). The rules themselves are checked
against the engine in test_batch.py."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from royal_revenge.engine import GameOptions
from royal_revenge.rl.batch import BatchEnv, IllegalBatchActionError, RoyalRevengeVectorEnv, functional
from royal_revenge.rl.batch.env import random_policy
from royal_revenge.rl.encoding import NUM_ACTIONS, OBS_SIZE


def random_actions(mask: Any, rng: np.random.Generator) -> np.ndarray[Any, Any]:
    """A uniformly random legal action per row (0 where the mask is empty)."""
    mask = np.asarray(mask)
    return np.asarray((rng.random(mask.shape) * mask).argmax(axis=1))


def snapshot(state: Any) -> dict[str, np.ndarray[Any, Any]]:
    return {name: np.array(value) for name, value in state._asdict().items()}


# ---------------------------------------------------------------------------------------- BatchEnv


@pytest.mark.parametrize("players", [2, 4, 6])
def test_batch_env_plays_whole_episodes_with_zero_sum_points(players: int) -> None:
    env = BatchEnv(64, players=players, seed=3)
    out = env.reset()
    assert out.observation.shape == (64, OBS_SIZE) and out.observation.dtype == np.uint8
    assert out.action_mask.shape == (64, NUM_ACTIONS) and out.action_mask.dtype == np.bool_
    assert out.rewards.shape == (64, players)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(600):
        assert out.action_mask.any(axis=1).all(), "every game has an agent with a legal action"
        assert ((out.agent >= 0) & (out.agent < players)).all()
        out = env.step(random_actions(out.action_mask, rng))
        ended = out.terminated | out.truncated
        episodes += int(ended.sum())
        # Points are zero-sum, paid only when an episode ends.
        assert np.allclose(out.rewards.sum(axis=1), 0)
        assert (out.rewards[~ended] == 0).all()
        assert (np.abs(out.rewards[out.terminated]).sum(axis=1) > 0).all()
    assert episodes >= 24


def test_batch_env_same_seed_same_games() -> None:
    def trajectory(seed: int) -> list[np.ndarray[Any, Any]]:
        env = BatchEnv(32, players=3, seed=seed)
        out = env.reset()
        rng = np.random.default_rng(1)
        seen = []
        for _ in range(120):
            out = env.step(random_actions(out.action_mask, rng))
            seen.append(np.concatenate([out.observation, out.rewards.astype(np.uint8)], axis=1))
        return seen

    first, again, other = trajectory(5), trajectory(5), trajectory(6)
    assert all(np.array_equal(x, y) for x, y in zip(first, again, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(first, other, strict=True))


def test_batch_env_refuses_illegal_actions_and_changes_nothing() -> None:
    env = BatchEnv(16, players=4, seed=9)
    out = env.reset()
    actions = random_actions(out.action_mask, np.random.default_rng(2))
    wrong = 5
    actions[wrong] = int(np.flatnonzero(~out.action_mask[wrong])[0])
    before = snapshot(env.state)
    with pytest.raises(IllegalBatchActionError) as caught:
        env.step(actions)
    message = str(caught.value)
    assert f"game {wrong}:" in message and "is not legal for seat" in message and "none applied" in message
    assert caught.value.games == [wrong]
    after = snapshot(env.state)
    assert all(np.array_equal(before[name], after[name]) for name in before), "the refused step changed a game"
    with pytest.raises(ValueError, match="one per game"):
        env.step(actions[:3])
    with pytest.raises(ValueError, match="whole numbers"):
        env.step(actions.astype(np.float32))
    env.step(random_actions(out.action_mask, np.random.default_rng(2)))  # and it plays on


def test_batch_env_penalty_ends_only_the_offending_game() -> None:
    env = BatchEnv(8, players=3, illegal="penalty", illegal_reward=-5.0, seed=4)
    out = env.reset()
    actions = random_actions(out.action_mask, np.random.default_rng(0))
    actions[2] = NUM_ACTIONS  # outside the action space
    offender = int(out.agent[2])
    out = env.step(actions)
    assert out.terminated[2] and out.rewards[2, offender] == -5.0
    assert out.rewards[2].sum() == -5.0
    assert not out.terminated[[0, 1, 3, 4, 5, 6, 7]].any()


def test_batch_env_float_observations_are_the_compact_ones_as_float() -> None:
    compact = BatchEnv(16, players=4, seed=2).reset()
    exact = BatchEnv(16, players=4, seed=2, compact=False).reset()
    assert exact.observation.dtype == np.float32
    assert np.array_equal(compact.observation.astype(np.float32), exact.observation)  # (scores are 0 at the start)


# ---------------------------------------------------------------------------------------- JAX: pure functions


def test_functional_jax_runs_a_whole_rollout_inside_scan_as_the_host_loop_does() -> None:
    game = functional(players=4)
    state = game.init(64, seed=1)

    def choose(state: Any, t: Any) -> Any:
        bits = jax.lax.bitcast_convert_type(jnp.full(64, t * 7919 + 13, dtype=jnp.int32), jnp.uint32)
        return random_policy(state, game.config, game.arrays, bits ^ jnp.arange(64, dtype=jnp.uint32))

    def one(state: Any, t: Any) -> tuple[Any, tuple[Any, Any]]:
        state = game.step(state, choose(state, t))
        return state, (state.rewards, game.observe(state))

    scanned, (rewards, observations) = jax.jit(lambda s: jax.lax.scan(one, s, jnp.arange(200)))(state)
    host = state
    for t in range(200):
        host = game.step(host, choose(host, jnp.int32(t)))
        assert np.array_equal(np.asarray(host.rewards), np.asarray(rewards[t]))
        assert np.array_equal(np.asarray(game.observe(host)), np.asarray(observations[t]))
    assert float(jnp.abs(rewards).sum()) > 0, "episodes ended within the rollout"
    assert np.array_equal(np.asarray(scanned.hands), np.asarray(host.hands))


def test_functional_numpy_and_jax_agree() -> None:
    on_numpy = functional(players=5, backend="numpy")
    on_jax = functional(players=5, backend="jax")
    s_np, s_jax = on_numpy.init(32, seed=8), on_jax.init(32, seed=8)
    rng = np.random.default_rng(4)
    for _ in range(100):
        action = random_actions(s_np.legal, rng)
        s_np, s_jax = on_numpy.step(s_np, action), on_jax.step(s_jax, jnp.asarray(action))
    assert np.array_equal(on_numpy.observe(s_np), np.asarray(on_jax.observe(s_jax)))
    assert np.array_equal(s_np.scores, np.asarray(s_jax.scores))


def test_functional_refuses_a_bad_batch_size() -> None:
    with pytest.raises(ValueError, match="positive whole number"):
        functional(players=3, backend="numpy").init(0)


# ---------------------------------------------------------------------------------------- the vector environment


def play(env: RoyalRevengeVectorEnv, steps: int, seed: int) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen = []
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(random_actions(obs["action_mask"], rng))
        seen.append((obs["observation"].copy(), obs["action_mask"].copy(), reward.copy(), terminated.copy(),
                     truncated.copy()))
    return seen


@pytest.mark.parametrize("players", [2, 4, 6])
def test_vector_env_the_learner_decides_at_every_step(players: int) -> None:
    env = RoyalRevengeVectorEnv(48, players=players, learner_seat=None, seed=1)
    assert env.observation_space["observation"].shape == (48, OBS_SIZE)
    assert env.action_space.shape == (48,)
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(3)
    episodes, returns = 0, np.zeros(48)
    seats_seen: set[int] = set()
    over = np.zeros(48, dtype=bool)
    for _ in range(300):
        mask = obs["action_mask"].astype(bool)
        # Every game waits for its learner, except those whose episode just ended (next-step autoreset).
        assert mask.any(axis=1)[~over].all()
        assert not mask[over].any()
        assert obs["observation"][~over].any(axis=1).all()
        seats_seen.update(info["seat"].tolist())
        obs, reward, terminated, truncated, info = env.step(random_actions(mask, rng))
        returns += reward
        over = terminated | truncated
        episodes += int(over.sum())
    assert episodes >= 24
    assert seats_seen == set(range(players))
    assert returns.std() > 0


def test_vector_env_next_step_autoreset_ignores_the_finished_games_actions() -> None:
    env = RoyalRevengeVectorEnv(32, players=3, seed=2)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(400):
        obs, reward, terminated, truncated, _ = env.step(random_actions(obs["action_mask"], rng))
        if terminated.any():
            break
    else:
        pytest.fail("no episode ended")
    ended = terminated | truncated
    assert not obs["action_mask"][ended].any(), "a finished game's last observation has no legal action"
    actions = random_actions(obs["action_mask"], rng)
    actions[ended] = NUM_ACTIONS + 7  # ignored: those games start again
    obs, reward, terminated, truncated, _ = env.step(actions)
    assert obs["action_mask"][ended].any(axis=1).all(), "the new episode waits for the learner"
    assert (reward[ended] == 0).all() and not terminated[ended].any()


def test_vector_env_same_step_autoreset_gives_the_final_observation_in_info() -> None:
    env = RoyalRevengeVectorEnv(32, players=4, autoreset_mode=AutoresetMode.SAME_STEP, seed=3)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(1)
    finals = 0
    for _ in range(300):
        obs, reward, terminated, truncated, info = env.step(random_actions(obs["action_mask"], rng))
        assert obs["action_mask"].any(axis=1).all(), "every game waits for its learner at once"
        if terminated.any():
            finals += 1
            ended = info["_final_obs"]
            assert np.array_equal(ended, terminated | truncated)
            assert not info["final_obs"]["action_mask"][ended].any()
            assert (reward[terminated] != 0).any()
    assert finals > 0


def test_vector_env_self_play_rewards_every_seat() -> None:
    env = RoyalRevengeVectorEnv(32, players=4, opponents="self", seed=4)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(400):
        acting = info["agent"].copy()
        obs, reward, terminated, _, info = env.step(random_actions(obs["action_mask"], rng))
        assert np.array_equal(reward, info["rewards"][np.arange(32), acting])
        assert np.allclose(info["rewards"].sum(axis=1), 0)
        ended += int(terminated.sum())
    assert ended > 0


def test_vector_env_same_seed_same_games_and_numpy_equals_jax() -> None:
    on_numpy = play(RoyalRevengeVectorEnv(24, players=4, learner_seat=None), 120, seed=7)
    again = play(RoyalRevengeVectorEnv(24, players=4, learner_seat=None), 120, seed=7)
    on_jax = play(RoyalRevengeVectorEnv(24, players=4, learner_seat=None, backend="jax"), 120, seed=7)
    for x, y, z in zip(on_numpy, again, on_jax, strict=True):
        for part_x, part_y, part_z in zip(x, y, z, strict=True):
            assert np.array_equal(part_x, part_y)
            assert np.array_equal(part_x, np.asarray(part_z))


def test_vector_env_with_a_policy_on_arrays() -> None:
    def first_legal(state: Any, config: Any, a: Any, bits: Any) -> Any:
        return a.xp.argmax(state.legal, axis=1)

    rng = np.random.default_rng(0)
    env = RoyalRevengeVectorEnv(16, players=3, opponents=first_legal, seed=5)
    obs, _ = env.reset(seed=5)
    for _ in range(100):
        obs, *_ = env.step(random_actions(obs["action_mask"], rng))


def test_vector_env_refuses_illegal_actions_and_bad_settings() -> None:
    env = RoyalRevengeVectorEnv(8, players=3, seed=6)
    obs, _ = env.reset(seed=6)
    actions = random_actions(obs["action_mask"], np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    before = snapshot(env.state)
    with pytest.raises(IllegalBatchActionError, match="game 1:"):
        env.step(actions)
    assert all(np.array_equal(value, snapshot(env.state)[name]) for name, value in before.items())
    with pytest.raises(ValueError, match="opponents"):
        RoyalRevengeVectorEnv(4, players=3, opponents="heuristic")
    with pytest.raises(ValueError, match="learner_seat"):
        RoyalRevengeVectorEnv(4, players=3, learner_seat=3)
    with pytest.raises(RuntimeError, match="reset"):
        RoyalRevengeVectorEnv(4, players=3).step(np.zeros(4, dtype=np.int64))


def test_vector_env_exact_float_observations() -> None:
    env = RoyalRevengeVectorEnv(8, options=GameOptions(players=3), compact=False, seed=1)
    obs, _ = env.reset(seed=1)
    assert obs["observation"].dtype == np.float32
    assert env.single_observation_space["observation"].dtype == np.float32
