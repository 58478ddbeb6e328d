"""The engine's exceptions. All are :class:`ValueError` subclasses.

Whatever an action does wrong, illegal or malformed, it raises :class:`IllegalActionError`
(or its subclass :class:`NotationError` for text that does not parse), and the state is
exactly as it was before the call.
"""

from __future__ import annotations

__all__ = ["RoyalRevengeError", "IllegalActionError", "NotationError", "OptionsError", "RecordError"]


class RoyalRevengeError(ValueError):
    """Base class of every error the engine raises on bad input."""


class IllegalActionError(RoyalRevengeError):
    """An action that the rules refuse; ``rule`` is the id of the rule that forbids it."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        self.rule = rule
        super().__init__(f"{rule}: {message}" if rule else message)


class NotationError(IllegalActionError):
    """Text that is not a valid card, colour or action in the notation."""


class OptionsError(RoyalRevengeError):
    """Game options outside what RULES.md allows."""


class RecordError(RoyalRevengeError):
    """A state or game record that is corrupt, of another format, or of an unknown version."""
