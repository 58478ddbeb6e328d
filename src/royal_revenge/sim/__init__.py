"""Synchronous drivers: play games between agents (self-play, tournaments)."""

from .driver import GameLog, play_game

__all__ = ["GameLog", "play_game"]
