"""Bots: agents that play from an observation, never from the full state."""

from .base import Agent, RandomAgent, seeded_rng

__all__ = ["Agent", "RandomAgent", "seeded_rng"]
