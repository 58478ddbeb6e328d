"""A Gymnasium single-agent environment: one learner against bots (see docs/rl.md).

The learner sits at ``learner_seat`` (or a seat drawn at every reset); the other seats are
played by agents from the bot library (``royal_revenge.bots.registry.make_agent``) or by
any :class:`~royal_revenge.bots.Agent` given directly. ``step`` applies the learner's action
and lets the bots play until the learner must decide again or the episode ends; the reward
is everything the learner earned meanwhile. Observations and actions are the same as in the
AEC environment, including the optional UNO chances (``Role.CHANCE``, with PASS).

>>> from royal_revenge.rl import gym_env
>>> env = gym_env(players=3, opponents="random")
>>> obs, info = env.reset(seed=5)
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((292,), True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final, SupportsFloat

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..bots.base import Agent, RandomAgent
from ..engine import GameOptions
from .aec import observation_space, render_text
from .core import EpisodeKind, IllegalRLActionError, RewardKind, Table
from .encoding import NUM_ACTIONS, PASS, action_to_int

__all__ = ["RoyalRevengeEnv", "make_bot"]

ObsDict = dict[str, npt.NDArray[Any]]
_ILLEGAL_MODES: Final = ("raise", "terminate")


def make_bot(name: str, seed: int | None) -> Agent:
    """A bot from the library by name (``registry.make_agent``), or ``RandomAgent`` for ``"random"``."""
    try:
        from ..bots.registry import make_agent  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        if name == "random":
            return RandomAgent(seed)
        raise ValueError(f"unknown bot {name!r}: the bot registry is not available, only 'random' is") from None
    agent: Agent = make_agent(name, seed)
    return agent


class RoyalRevengeEnv(gym.Env[ObsDict, np.int64]):
    """One learner against bots.

    * ``players`` (2-6) or ``options`` (:class:`GameOptions`);
    * ``opponents``: a bot name for every other seat (``"random"``, or any name the registry
      knows), a list of names or agents (one per other seat, in seat order);
    * ``learner_seat``: the learner's seat, or ``None`` to draw it at every reset;
    * ``episode``, ``reward``, ``max_steps``: as in the AEC environment;
    * ``illegal_action``: ``"raise"`` (default) raises
      :class:`~royal_revenge.rl.core.IllegalRLActionError`; ``"terminate"`` ends the episode
      with ``illegal_reward`` for the learner (PettingZoo's wrapper's rule).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"]}  # noqa: RUF012 (gymnasium declares it so)

    def __init__(
        self,
        players: int | None = None,
        *,
        opponents: str | Sequence[str | Agent] = "random",
        learner_seat: int | None = 0,
        options: GameOptions | None = None,
        episode: EpisodeKind = "round",
        reward: RewardKind = "points",
        max_steps: int | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        if options is None:
            options = GameOptions(players=2 if players is None else players)
        elif players is not None and players != options.players:
            raise ValueError(f"players={players} disagrees with options.players={options.players}")
        n = options.players
        if learner_seat is not None and not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be a seat from 0 to {n - 1} or None, not {learner_seat!r}")
        if illegal_action not in _ILLEGAL_MODES:
            raise ValueError(f"illegal_action must be one of {_ILLEGAL_MODES}, not {illegal_action!r}")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        specs: list[str | Agent] = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"{n} players need {n - 1} opponents, not {len(specs)}")
        for spec in specs:
            if isinstance(spec, str):
                make_bot(spec, 0)  # fail early on an unknown name
        self._specs = specs
        self.table = Table(options, episode=episode, reward=reward, max_steps=max_steps)
        self.learner_seat_option = learner_seat
        self.learner = learner_seat if learner_seat is not None else 0
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        # (Gymnasium's annotation of this attribute changed between versions: 1.2, which RLlib pins, and 1.4)
        self.observation_space = observation_space(self.table.options)  # type: ignore[assignment, unused-ignore]
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._bots: list[Agent | None] = [None] * n
        self._over = True

    # ------------------------------------------------------------------ API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        game_seed = int(rng.integers(0, 2**63))
        n = self.table.players
        if self.learner_seat_option is None:
            self.learner = int(rng.integers(0, n))
        others = [seat for seat in range(n) if seat != self.learner]
        self._bots = [None] * n
        for seat, spec in zip(others, self._specs, strict=True):
            bot_seed = int(rng.integers(0, 2**63))
            if isinstance(spec, str):
                self._bots[seat] = make_bot(spec, bot_seed)
            else:
                rng_attr = getattr(spec, "rng", None)
                if isinstance(rng_attr, random.Random):
                    rng_attr.seed(bot_seed)  # reseed a given agent so that reset(seed) reproduces
                self._bots[seat] = spec
        self.table.reset(game_seed)
        self._over = False
        self._play_bots()
        while self.table.done:  # the bots finished before the learner ever decided: deal again
            self.table.reset(int(rng.integers(0, 2**63)))
            self._play_bots()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[ObsDict, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._over:
            raise IllegalRLActionError("the episode is over; call reset()")
        table = self.table
        try:
            index = table.check(action)
        except IllegalRLActionError:
            if self.illegal_action == "raise":
                raise
            self._over = True
            return self._obs(), self.illegal_reward, True, False, {**self._info(), "illegal_action": True}
        reward = 0.0
        rewards = table.step(index)
        if rewards is not None:
            reward += rewards[self.learner]
        reward += self._play_bots()
        terminated = table.done
        truncated = table.truncated
        self._over = terminated or truncated
        if self.render_mode == "human":
            print(render_text(table))
        return self._obs(), reward, terminated, truncated, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions as booleans (the convention of sb3-contrib's MaskablePPO)."""
        return self.table.mask(self.learner).astype(bool)

    def render(self) -> str | None:  # type: ignore[override, unused-ignore]  # (as observation_space above)
        if self.render_mode is None:
            return None
        text = render_text(self.table)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------------ internals

    def _obs(self) -> ObsDict:
        vector, mask = self.table.observation(self.learner)
        return {"observation": vector, "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        return {"seat": self.learner, "role": int(self.table.role(self.learner))}

    def _play_bots(self) -> float:
        """Let the bots decide until the learner is selected or the episode ends; the learner's rewards."""
        table = self.table
        state = table.state
        learner = self.learner
        players = table.players
        total = 0.0
        while not table.done and not table.truncated and table.selected != learner:
            seat = table.selected
            bot = self._bots[seat]
            assert bot is not None
            legal = table.engine_legal()
            choice = bot.act(state.observe(seat), legal)
            if choice is None and not table.chance:
                raise IllegalRLActionError(f"bot {bot.name!r} at seat {seat} must decide but passed")
            index = PASS if choice is None else action_to_int(choice, seat, players)
            rewards = table.step(table.check(index))
            state = table.state
            if rewards is not None:
                total += rewards[learner]
        return total
