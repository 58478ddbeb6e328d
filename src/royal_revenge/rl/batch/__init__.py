"""The batched core: B games of UNO Royal Revenge per call, as arrays (NumPy, or JAX), checked against the engine.

* :class:`BatchEnv`: the multi-agent batch for self-play (every game's selected seat acts; rewards for all seats);
* :class:`RoyalRevengeVectorEnv`: a Gymnasium ``VectorEnv``, one learner against bots on arrays, or self-play;
* :func:`functional`: the rules as pure functions ``init`` / ``step`` / ``observe`` for ``jax.jit`` and ``jax.vmap``;
* :mod:`.rules`: the rules over arrays themselves, written once for NumPy and JAX (:mod:`.arrays`).

See docs/rl.md, "The batched core".
"""

from .env import BatchEnv, BatchStep, Functions, IllegalBatchActionError, functional, observation_policy, random_policy
from .rules import Config, State
from .vector import RoyalRevengeVectorEnv

__all__ = [
    "BatchEnv",
    "BatchStep",
    "Config",
    "Functions",
    "IllegalBatchActionError",
    "RoyalRevengeVectorEnv",
    "State",
    "functional",
    "observation_policy",
    "random_policy",
]
