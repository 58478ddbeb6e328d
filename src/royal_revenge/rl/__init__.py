"""Reinforcement-learning environments for UNO Royal Revenge (needs the ``rl`` extra).

* :func:`aec_env` / :func:`raw_env`: a PettingZoo AEC environment for 2 to 6 agents;
* :func:`gym_env`: a Gymnasium environment, one learner against bots;
* :mod:`royal_revenge.rl.encoding`: the fixed action space and the observation encoding.

The environments are a thin adapter over the engine: legality comes from
``GameState.legal_actions``, and an agent sees only its :class:`~royal_revenge.engine.Observation`.
See docs/rl.md.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from .aec import RoyalRevengeAEC, aec_env, raw_env
from .core import IllegalRLActionError, game_rewards, round_rewards
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
from .gym_env import RoyalRevengeEnv, make_bot

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

env = aec_env
"""PettingZoo's conventional name for the wrapped AEC constructor."""


def gym_env(players: int | None = None, **kwargs: Any) -> RoyalRevengeEnv:
    """The Gymnasium single-agent environment (see :class:`RoyalRevengeEnv`)."""
    return RoyalRevengeEnv(players, **kwargs)


GYM_ID = "RoyalRevenge-v0"
"""Also registered with Gymnasium: ``gymnasium.make("RoyalRevenge-v0", players=3)``."""

if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="royal_revenge.rl.gym_env:RoyalRevengeEnv")
