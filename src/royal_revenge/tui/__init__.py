"""The terminal game (Textual): ``royal-revenge play``."""

from .app import DEFAULT_SAVE, RoyalRevengeApp

__all__ = ["DEFAULT_SAVE", "RoyalRevengeApp"]
