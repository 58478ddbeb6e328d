"""The one agent interface shared by the tables, the terminal game, tournaments and RL.

An agent sees only an :class:`~royal_revenge.engine.Observation` and the legal actions of
its seat, never the full state. It returns one of those actions, or ``None`` to let an
optional out-of-turn chance (an UNO call or a catch) go by. An agent holds its own
seeded generator, so a seeded agent is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ..engine import AnyAction, Observation

__all__ = ["Agent", "RandomAgent", "seeded_rng"]


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and an ``act`` method."""

    name: str

    def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
        """Choose an action from ``legal_actions``.

        When ``observation.pending.seat`` is the agent's own seat it must choose one; otherwise
        the chance is optional (calling UNO, catching) and ``None`` lets it pass.
        """
        ...


def seeded_rng(seed: int | random.Random | None) -> random.Random:
    """A generator from a seed, an existing generator, or (``None``) a fresh unseeded one."""
    if isinstance(seed, random.Random):
        return seed
    return random.Random(seed)


class RandomAgent:
    """Uniform over the legal actions; passes optional chances half of the time."""

    name = "random"

    def __init__(self, seed: int | random.Random | None = None) -> None:
        self.rng = seeded_rng(seed)

    def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
        if observation.pending.seat != observation.seat and self.rng.random() < 0.5:
            return None
        return self.rng.choice(legal_actions) if legal_actions else None
