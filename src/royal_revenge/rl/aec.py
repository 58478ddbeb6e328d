"""A PettingZoo AEC environment for 2 to 6 players (see docs/rl.md).

>>> from royal_revenge.rl import aec_env
>>> env = aec_env(players=3)
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> sorted(obs), obs["observation"].shape, obs["action_mask"].shape
(['action_mask', 'observation'], (292,), (124,))
>>> env.agent_selection in env.possible_agents
True
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from ..engine import GameOptions
from .core import AECCore, EpisodeKind, RewardKind, Table
from .encoding import NUM_ACTIONS, OBS_SIZE, observation_high

__all__ = ["RoyalRevengeAEC", "aec_env", "raw_env"]

ObsDict = dict[str, npt.NDArray[Any]]
_ILLEGAL_MODES: Final = ("raise", "terminate")


def observation_space(options: GameOptions) -> spaces.Dict:
    """The observation space: ``observation`` (float32 encoding) and ``action_mask`` (int8)."""
    return spaces.Dict(
        {
            "observation": spaces.Box(
                low=np.zeros(OBS_SIZE, dtype=np.float32), high=observation_high(options.target_score), dtype=np.float32
            ),
            "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
        }
    )


def _core_field(name: str) -> property:
    """A property for the AECCore field ``name`` (read in C through ``attrgetter``)."""

    def set_field(env: RoyalRevengeAEC, value: Any) -> None:
        setattr(env._core, name, value)

    return property(attrgetter(f"_core.{name}"), set_field)


class RoyalRevengeAEC(AECEnv):  # type: ignore[misc]
    """UNO Royal Revenge as a PettingZoo AEC environment (agents ``player_0`` .. ``player_{n-1}``).

    Use :func:`aec_env` for the wrapped, order-enforced environment. Parameters:

    * ``players`` (2-6) or ``options`` (a :class:`GameOptions`, for scoring, target, the
      scepter schedule ``scepter_turns`` or ``None`` for no scepter, ...);
    * ``episode``: ``"round"`` (default: one round, played as a single-round game) or
      ``"game"`` (rounds until someone reaches the target; the next round is dealt automatically);
    * ``reward``: ``"points"`` (zero-sum round points, paid at the end of every round) or
      ``"win"`` (+1 to the winner, the losers share -1; paid at the end of the episode);
    * ``max_steps``: truncate the episode after that many steps (``None``: never);
    * ``fast_observation``: encode through :class:`~royal_revenge.rl.encoding.PublicEncoder`
      (default) or from a freshly built :class:`Observation` (slower, same result);
    * ``render_mode``: ``None``, ``"ansi"`` or ``"human"``.

    An illegal action raises :class:`~royal_revenge.rl.core.IllegalRLActionError`.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "royal_revenge_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    # PettingZoo's per-agent state lives in the compiled AECCore (self._core), which the hot path
    # updates natively; these properties let PettingZoo's helpers and wrappers read, mutate and
    # replace it as plain attributes.
    agents = _core_field("agents")
    rewards = _core_field("rewards")
    _cumulative_rewards = _core_field("cumulative")
    terminations = _core_field("terminations")
    truncations = _core_field("truncations")
    infos = _core_field("infos")
    agent_selection = _core_field("selection")

    def __init__(
        self,
        players: int | None = None,
        *,
        options: GameOptions | None = None,
        episode: EpisodeKind = "round",
        reward: RewardKind = "points",
        max_steps: int | None = None,
        fast_observation: bool = True,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if options is None:
            options = GameOptions(players=4 if players is None else players)
        elif players is not None and players != options.players:
            raise ValueError(f"players={players} disagrees with options.players={options.players}")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.table = Table(
            options, episode=episode, reward=reward, max_steps=max_steps, fast_observation=fast_observation
        )
        n = options.players
        self.possible_agents: list[str] = [f"player_{seat}" for seat in range(n)]
        core = self._core = AECCore(self.table, self.possible_agents)
        core.env = self
        self.render_mode = render_mode
        # The hot methods, bound straight to the compiled core unless a subclass overrides them:
        # an interpreted method that only forwards the call costs about as much as a tenth of
        # the step. The methods below stay the documented API (and what super() reaches).
        cls = type(self)
        if cls.last is RoyalRevengeAEC.last:
            self.last = core.last  # type: ignore[method-assign]
        if cls.observe is RoyalRevengeAEC.observe:
            self.observe = core.observe  # type: ignore[method-assign]
        if cls.step is RoyalRevengeAEC.step:
            self.step = core.env_step  # type: ignore[method-assign]
        obs_space = observation_space(self.table.options)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self._np_random_seed: int | None = None

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new episode. ``seed`` seeds the engine; without one, a fresh seed is drawn.

        The seeds of later resets without a seed come from ``numpy.random.default_rng(seed)`` (or
        from fresh entropy before any seed), made only when the first such reset needs it.
        """
        if seed is not None:
            self._np_random = None
            self._np_random_seed = seed
            game_seed = int(seed)
        else:
            if self._np_random is None:
                self._np_random = np.random.default_rng(self._np_random_seed)
            game_seed = int(self._np_random.integers(0, 2**63))
        self._core.reset(game_seed)

    @property
    def render_mode(self) -> str | None:
        return self._render_mode

    @render_mode.setter
    def render_mode(self, value: str | None) -> None:
        self._render_mode = value
        self._core.human = value == "human"

    def observe(self, agent: str) -> ObsDict:
        return self._core.observe(agent)

    def last(self, observe: bool = True) -> tuple[ObsDict | None, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``: the selected agent's observation, cumulative reward, flags and info."""
        return self._core.last(observe)

    def step(self, action: Any) -> None:
        """``AECEnv.step``; PettingZoo's ``_was_dead_step`` / ``_deads_step_first`` when due (see AECCore)."""
        self._core.env_step(action)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = render_text(self.table)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def state(self) -> npt.NDArray[Any]:
        raise NotImplementedError("the full state holds hidden cards; use observe(agent)")


def render_text(table: Table) -> str:
    """A one-screen text view for a spectator (no hidden cards)."""
    view = table.state.observe(None)
    king, jester = view.king, view.jester
    lines = [
        f"round {view.round_no}, top {view.top}"
        + (f" (colour {view.active_colour.letter})" if view.active_colour is not None else "")
        + f", direction {'left' if view.direction > 0 else 'right'}, draw pile {view.draw_pile_size}",
    ]
    for seat in range(view.players):
        marks = ("K" if seat == king else " ") + ("J" if seat == jester else " ")
        lines.append(f"  player_{seat} {marks} cards {view.hand_sizes[seat]:>2}  score {view.scores[seat]}")
    kind = "chance" if table.chance else view.pending.kind.name.lower()
    lines.append(f"  to decide: player_{table.selected} ({kind})")
    return "\n".join(lines)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper with ``last()`` forwarded in one call.

    The inherited ``last()`` reads four dictionaries through the wrappers' ``__getattr__`` chain,
    which costs more than the whole observation; the checks are the same (``last()`` before
    ``reset()`` is an error, as ``observe()`` is).
    """

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result

    def step(self, action: Any) -> None:
        """The inherited checks, with ``agents`` read from the wrapped environment directly."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def __str__(self) -> str:
        return str(self.env)


def raw_env(**kwargs: Any) -> RoyalRevengeAEC:
    """The unwrapped environment (raises on an illegal action)."""
    return RoyalRevengeAEC(**kwargs)


def aec_env(players: int | None = None, *, illegal_action: str = "raise", **kwargs: Any) -> AECEnv:
    """The AEC environment, wrapped the PettingZoo way.

    ``illegal_action="raise"`` (default): an illegal action raises a clear
    :class:`~royal_revenge.rl.core.IllegalRLActionError` naming the legal ones.
    ``illegal_action="terminate"``: PettingZoo's ``TerminateIllegalWrapper`` (the mover gets
    -1, the others 0, the episode ends), as in PettingZoo's classic games.
    """
    if illegal_action not in _ILLEGAL_MODES:
        raise ValueError(f"illegal_action must be one of {_ILLEGAL_MODES}, not {illegal_action!r}")
    env: AECEnv = RoyalRevengeAEC(players, **kwargs)
    if illegal_action == "terminate":
        env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = OrderEnforcingWrapper(env)
    return env
