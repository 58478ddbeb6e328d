"""A Gymnasium ``VectorEnv`` on the batched core: one learner seat against bots on arrays, or self-play.

``num_envs`` games run as one batch (:mod:`.rules`). With ``opponents`` set (``"random"``, or a
:data:`~royal_revenge.rl.batch.env.Policy` such as ``observation_policy(my_network)``), the learner sits
at ``learner_seat`` in every game (or at a random seat, drawn per game at every new episode) and a step is
one learner decision followed by the other seats' decisions, on the whole batch at once, until the learner
decides again: with JAX that whole step is one compiled call. With ``opponents="self"`` every seat is the
learner: a step applies each game's action for its selected seat, ``info["agent"]`` says whose turn it is
now and ``info["rewards"]`` (``num_envs``, N) what every seat earned (the returned reward is the acting
seat's).

Autoreset is Gymnasium's (``metadata["autoreset_mode"]``): ``NEXT_STEP`` by default (the step that ends an
episode returns its last observation; the next step deals again and ignores that game's action) or
``SAME_STEP`` (the new episode's first observation at once, the last one in ``info["final_obs"]``).
Observations are ``{"observation": (num_envs, 292), "action_mask": (num_envs, 124)}``: ``uint8`` counts and
flags by default (``compact=True``: the six scores and the turn counter saturate at 255; ``float32`` and
exact with ``compact=False``); the mask is ``int8`` as in the single-game environments, and also in
``info["action_mask"]`` as booleans.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ...engine import GameOptions
from ..aec import observation_space
from ..encoding import NUM_ACTIONS, OBS_SIZE
from .arrays import arrays_for
from .env import Policy, _as_actions, _config, check_actions, learner_step, random_policy
from .rules import State, init, observe, observe_float, step

__all__ = ["RoyalRevengeVectorEnv"]


class RoyalRevengeVectorEnv(VectorEnv[dict[str, Any], Any, Any]):
    """``num_envs`` games as one Gymnasium vector environment (see the module's docstring).

    * ``players`` (2-6) or ``options``; ``episode``, ``reward``, ``max_steps`` as in ``gym_env`` (docs/rl.md);
    * ``opponents``: ``"random"``, a policy on arrays, or ``"self"`` (self-play: every seat is the learner);
    * ``learner_seat``: 0-based seat of the learner in every game, or ``None`` for a random seat per episode;
    * ``backend``: ``"numba"`` (the rules compiled per game, each game's bots played in the same compiled loop: the
      fastest on a CPU; ``pip install 'royal-revenge[numba]'``), ``"numpy"``, or ``"jax"`` (the learner's step and
      the bots' moves compiled together);
    * ``autoreset_mode``: ``AutoresetMode.NEXT_STEP`` (Gymnasium's default) or ``AutoresetMode.SAME_STEP``.

    Illegal actions raise :class:`~royal_revenge.rl.batch.env.IllegalBatchActionError` before any game moves.
    """

    def __init__(self, num_envs: int, players: int | None = None, *, options: GameOptions | None = None,
                 opponents: str | Policy = "random", learner_seat: int | None = 0, episode: str = "round",
                 reward: str = "points", max_steps: int | None = None, backend: str = "numpy",
                 compact: bool = True, autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 seed: int | None = None) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive whole number, not {num_envs!r}")
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError("autoreset_mode must be NEXT_STEP or SAME_STEP")
        self.config = _config(players, options, episode=episode, reward=reward, max_steps=max_steps,
                              autoreset="next-step")
        n = self.config.players
        self.self_play = isinstance(opponents, str) and opponents == "self"
        if isinstance(opponents, str) and opponents not in ("self", "random"):
            raise ValueError(f"opponents must be 'random', 'self' or a policy on arrays, not {opponents!r}")
        self.policy: Policy = random_policy if isinstance(opponents, str) else opponents
        if learner_seat is not None and not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be a seat from 0 to {n - 1} or None, not {learner_seat!r}")
        self.learner_seat = learner_seat
        self.num_envs = num_envs
        self.backend = backend
        self.compact = compact
        if backend not in ("numpy", "jax", "numba"):
            raise ValueError(f"backend must be 'numpy', 'jax' or 'numba', not {backend!r}")
        self.a = arrays_for("numpy" if backend == "numba" else backend)
        self.metadata = {"autoreset_mode": mode}
        self.autoreset_mode = mode

        single_obs = observation_space(self.config.options)
        if compact:
            single_obs = spaces.Dict({
                "observation": spaces.Box(0, 255, shape=(OBS_SIZE,), dtype=np.uint8),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            })
        self.single_observation_space = single_obs
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(single_obs, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

        config, a = self.config, self.a
        see = observe if compact else observe_float
        self._observe = functools.partial(see, config=config, a=a)
        self._step = functools.partial(step, config=config, a=a)
        self._learner_step = functools.partial(learner_step, config=config, a=a, policy=self.policy)
        if backend == "numba":  # the rules compiled per game (.kernel); random bots move in the compiled loop
            from . import kernel

            self._observe = functools.partial(kernel.observe, config=config, compact=compact)
            self._step = functools.partial(kernel.step, config=config)
            self._learner_step = (functools.partial(kernel.learner_step, config=config) if isinstance(opponents, str)
                                  else functools.partial(kernel.policy_learner_step, config=config,
                                                         policy=self.policy))
        if backend == "jax":
            jax = a.jax
            self._observe = jax.jit(self._observe)
            self._step = jax.jit(self._step)
            self._learner_step = jax.jit(self._learner_step)
        self._rng = np.random.default_rng(seed)
        self._seed = seed
        self.state: State | None = None
        self.learner = np.zeros(num_envs, dtype=np.int32)
        self._bot_counter = np.zeros(num_envs, dtype=np.uint32)
        self._over = np.zeros(num_envs, dtype=bool)  # (next-step) the game ended in the last step
        self._nobody = self.a.xp.asarray(np.full(num_envs, -1, dtype=np.int32))

    # ------------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """New games in every sub-environment (``seed``: one whole number for the batch)."""
        if isinstance(seed, list):
            raise ValueError("seed must be one whole number for the whole batch (its games get their own streams)")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = int(self._rng.integers(0, 2**63))
        self.state = init(self.config, self.num_envs, game_seed, self.a)
        self._bot_counter = np.zeros(self.num_envs, dtype=np.uint32)
        self._over = np.zeros(self.num_envs, dtype=bool)
        self._draw_learners(np.ones(self.num_envs, dtype=bool))
        if not self.self_play:
            self._bring_learners()
        return self._obs(), self._info()

    def step(self, actions: Any) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
        """One decision per game: the learner's (the bots then play up to its next one), or in self-play
        the selected seat's. A game whose episode ended in the last step (next-step mode) starts again
        and its action is ignored."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        a, xp = self.a, self.a.xp
        chosen = _as_actions(a.to_numpy(actions) if self.backend == "jax" else actions, self.num_envs)
        state = self.state
        check_actions(a.to_numpy(state.legal), chosen, a.to_numpy(state.selected), among=~self._over)
        restarting = self._over
        if restarting.any():
            self._draw_learners(restarting)
        acting_seat = a.to_numpy(state.selected)
        if self.self_play:
            state = self._step(state, xp.asarray(chosen))
            rewards = a.to_numpy(state.rewards)
            reward = rewards[np.arange(self.num_envs), acting_seat]
            terminated, truncated = a.to_numpy(state.terminated), a.to_numpy(state.truncated)
        else:
            state, reward, terminated, truncated, counter = self._learner_step(
                state, xp.asarray(chosen), xp.asarray(self.learner), xp.asarray(self._bot_counter))
            self._bot_counter = np.array(a.to_numpy(counter))
            reward, terminated, truncated = (a.to_numpy(x) for x in (reward, terminated, truncated))
            rewards = None
        self.state = state
        finished = terminated | truncated
        info = self._info()
        if rewards is not None:
            info["rewards"] = rewards
        if self.autoreset_mode == AutoresetMode.SAME_STEP and finished.any():
            info["final_obs"] = self._obs()
            info["final_info"] = {"seat": self.learner.copy()}
            info["_final_obs"] = info["_final_info"] = finished
            self._draw_learners(finished)
            if self.self_play:  # deals those games again (-1: no action anywhere else)
                self.state = self._step(self.state, self._nobody)._replace(
                    illegal=xp.zeros(self.num_envs, dtype=bool))
            else:
                self._bring_learners()
            self._over = np.zeros(self.num_envs, dtype=bool)
            info.update(self._info())
        else:
            self._over = finished
        return self._obs(), reward, terminated, truncated, info

    # ------------------------------------------------------------------ internals

    def _draw_learners(self, games: np.ndarray[Any, Any]) -> None:
        if self.self_play:
            return
        if self.learner_seat is None:
            drawn = self._rng.integers(0, self.config.players, size=self.num_envs, dtype=np.int32)
            self.learner = np.where(games, drawn, self.learner).astype(np.int32)
        else:
            self.learner = np.full(self.num_envs, self.learner_seat, dtype=np.int32)

    def _bring_learners(self) -> None:
        """Deal again the games that are over, then let the bots play until the learner is selected."""
        assert self.state is not None
        xp = self.a.xp
        # The learner's step with an action for no game (-1 is never legal; the rules' "raise" leaves those
        # games unchanged): the games that are over start again, then the bots move.
        state, _, _, _, counter = self._learner_step(self.state, self._nobody, xp.asarray(self.learner),
                                                     xp.asarray(self._bot_counter))
        self.state = state._replace(illegal=xp.zeros(self.num_envs, dtype=bool))
        self._bot_counter = np.array(self.a.to_numpy(counter))

    def _obs(self) -> dict[str, Any]:
        assert self.state is not None
        a = self.a
        state = self.state
        if self.self_play:
            observation = self._observe(state)
            mask = state.legal
        else:
            xp = a.xp
            learner = xp.asarray(self.learner)
            observation = self._observe(state, seat=learner)
            mask = state.legal & (state.selected == learner)[:, None]
        return {"observation": a.to_numpy(observation), "action_mask": a.to_numpy(mask).astype(np.int8)}

    def _info(self) -> dict[str, Any]:
        assert self.state is not None
        info: dict[str, Any] = {"action_mask": self.a.to_numpy(self.state.legal)}
        if self.self_play:
            info["agent"] = self.a.to_numpy(self.state.selected)
        else:
            info["seat"] = self.learner.copy()
        return info
