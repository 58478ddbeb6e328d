"""Bots: agents that play from an observation, never from the full state.

:func:`make_agent` builds one by name (``random``, ``heuristic``, ``search``) or by level
for people (``easy``, ``normal``, ``hard``).
"""

from .base import Agent, RandomAgent, seeded_rng
from .heuristic import HeuristicAgent
from .registry import BOT_NAMES, BOTS, LEVELS, BotConfigError, make_agent
from .search import SearchAgent

__all__ = [
    "Agent", "RandomAgent", "seeded_rng", "HeuristicAgent", "SearchAgent",
    "BOT_NAMES", "BOTS", "LEVELS", "BotConfigError", "make_agent",
]
