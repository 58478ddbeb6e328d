"""Reinforcement-learning environments for UNO Royal Revenge (needs the ``rl`` extra).

* :func:`aec_env` / :func:`raw_env`: a PettingZoo AEC environment for 2 to 6 agents;
* :func:`gym_env`: a Gymnasium environment, one learner against bots;
* :mod:`royal_revenge.rl.encoding`: the fixed action space and the observation encoding.

The environments are a thin adapter over the engine: legality comes from
``GameState.legal_actions``, and an agent sees only its :class:`~royal_revenge.engine.Observation`.
See docs/rl.md.

The encoding needs only NumPy (the ``expert`` bot plays through it at tables that have no RL
extra); the environments need Gymnasium and PettingZoo, and are here when those are installed.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from .encoding import (
    NUM_ACTIONS,
    OBS_SIZE,
    PASS,
    Layout,
    Role,
    action_to_int,
    describe_action,
    encode_observation,
    int_to_action,
)

__all__ = [
    "RoyalRevengeAEC",
    "RoyalRevengeEnv",
    "IllegalRLActionError",
    "aec_env",
    "env",
    "raw_env",
    "gym_env",
    "GYM_ID",
    "make_bot",
    "game_rewards",
    "round_rewards",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PASS",
    "Layout",
    "Role",
    "action_to_int",
    "int_to_action",
    "describe_action",
    "encode_observation",
]

GYM_ID = "RoyalRevenge-v0"
"""Also registered with Gymnasium: ``gymnasium.make("RoyalRevenge-v0", players=3)``."""

if importlib.util.find_spec("gymnasium") is not None and importlib.util.find_spec("pettingzoo") is not None:
    import gymnasium

    from .aec import RoyalRevengeAEC, aec_env, raw_env
    from .core import IllegalRLActionError, game_rewards, round_rewards
    from .gym_env import RoyalRevengeEnv, make_bot

    env = aec_env
    """PettingZoo's conventional name for the wrapped AEC constructor."""

    def gym_env(players: int | None = None, **kwargs: Any) -> RoyalRevengeEnv:
        """The Gymnasium single-agent environment (see :class:`RoyalRevengeEnv`)."""
        return RoyalRevengeEnv(players, **kwargs)

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="royal_revenge.rl.gym_env:RoyalRevengeEnv")
else:
    def __getattr__(name: str) -> Any:
        if name in __all__:
            raise ImportError(f"royal_revenge.rl.{name} needs the rl extra: pip install 'royal-revenge[rl]'")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
