"""A table's settings, its phases and its refusals (:class:`TableError`): what every part of a table shares."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from ..engine import GameOptions, RoyalRevengeError, Scoring
from ..engine.options import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["PHASE_VALUES", "SETTING_WORDS", "Phase", "TableError", "TableSettings"]


class TableError(ValueError):
    """A request the table refuses; ``code`` is a short machine-readable reason."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


class Phase(StrEnum):
    """Where a table is: seating people in its lobby, playing a game, or over (finished)."""

    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"



@dataclass(frozen=True, slots=True)
class TableSettings:
    """Everything chosen when a table is opened; validated with messages that name the limits in plain words
    (:data:`SETTING_WORDS`: a refusal never names a field)."""

    players: int = 4
    target_score: int = 500
    scoring: str = Scoring.STANDARD.value
    single_round: bool = False
    two_player_reverse_skips: bool = False
    turn_seconds: float = 30.0
    """Time for one decision (R-DIGITAL-3), the King's choices included."""
    scepter_min_seconds: float = 45.0
    scepter_max_seconds: float = 75.0
    bot_delay_seconds: float = 1.2
    """How long a bot waits before acting, so people can follow."""
    next_round_seconds: float = 12.0
    grace_seconds: float = 30.0
    """How long a disconnected player's seat waits before a bot takes over."""
    max_timeouts: int = 2
    """Consecutive timed-out decisions after which a bot plays the seat until the player acts again."""
    public: bool = False
    """The table is listed (``GET /api/tables``) while it waits in its lobby for people to join."""

    def __post_init__(self) -> None:
        def number(name: str, low: float, high: float) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                words, unit = SETTING_WORDS[name]
                raise TableError("bad_settings", f"{words} must be from {low:g} to {high:g}{unit}")

        self.options()  # the engine validates the rule options
        number("turn_seconds", 3, 600)
        number("scepter_min_seconds", 5, 3600)
        number("scepter_max_seconds", 5, 3600)
        if self.scepter_max_seconds < self.scepter_min_seconds:
            raise TableError("bad_settings", "The longest time before the fanfare must be at least the shortest")
        number("bot_delay_seconds", 0, 30)
        number("next_round_seconds", 0, 600)
        number("grace_seconds", 0, 3600)
        number("max_timeouts", 1, 100)
        self._check_social()

    def _check_social(self) -> None:
        if not isinstance(self.public, bool):
            raise TableError("bad_settings", "Choose whether the table is public: yes or no")

    def options(self) -> GameOptions:
        """The engine options: the scepter is this table's clock, so the turn schedule is off."""
        try:
            return GameOptions(
                players=self.players,
                target_score=self.target_score,
                scoring=Scoring(self.scoring) if self.scoring in {s.value for s in Scoring} else self.scoring,  # type: ignore[arg-type]
                single_round=self.single_round,
                two_player_reverse_skips=self.two_player_reverse_skips,
                scepter_turns=None,
            )
        except RoyalRevengeError:
            raise TableError("bad_settings", _options_refusal(self)) from None

    def to_json(self) -> dict[str, Any]:
        # Every field is a plain value, so this equals asdict(self) at a fraction of the cost.
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, data: object) -> TableSettings:
        if not isinstance(data, dict):
            raise TableError("bad_settings", "The table's settings did not arrive in a form the server reads")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise TableError("bad_settings", "Some of the settings are not known to this server")
        if not isinstance(data.get("public", False), bool):
            # (checked before the dataclass is made: compiled, its typed field refuses a str with a TypeError)
            raise TableError("bad_settings", "Choose whether the table is public: yes or no")
        try:
            return cls(**data)
        except TypeError:
            raise TableError("bad_settings", "Some of the settings are not known to this server") from None


SETTING_WORDS: Final = {
    "players": ("The number of players", ""),
    "target_score": ("The target score", " points"),
    "turn_seconds": ("The time for each decision", " seconds"),
    "scepter_min_seconds": ("The shortest time before the fanfare", " seconds"),
    "scepter_max_seconds": ("The longest time before the fanfare", " seconds"),
    "bot_delay_seconds": ("The bots' pause before they act", " seconds"),
    "next_round_seconds": ("The pause between rounds", " seconds"),
    "grace_seconds": ("The time a seat waits for its player to come back", " seconds"),
    "max_timeouts": ("The number of timed-out decisions before a bot steps in", ""),
}
"""Each number setting as a refusal names it, and its unit."""


def _options_refusal(settings: TableSettings) -> str:
    """Why the engine refused a table's rule options, in plain words (the engine's own message names fields)."""
    players = settings.players
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return f"A table has {MIN_PLAYERS} to {MAX_PLAYERS} players"
    target = settings.target_score
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        return "The target score must be a whole number of points, at least 1"
    if settings.scoring not in {s.value for s in Scoring}:
        return "Choose the scoring: " + " or ".join(s.value for s in Scoring)
    return "Single round and the two-player Reverse must each be on or off"



PHASE_VALUES: Final = {phase: phase.value for phase in Phase}
"""Each phase's value (``Enum.value`` is a slow descriptor, and views are hot)."""
