"""The rule options that RULES.md allows, and nothing else.

>>> GameOptions(players=4).target_score
500
>>> GameOptions(players=7)
Traceback (most recent call last):
...
royal_revenge.engine.errors.OptionsError: players must be 2 to 6 (R-SETUP-1), not 7
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from .errors import OptionsError

__all__ = ["Scoring", "GameOptions", "DEFAULT_SCEPTER_TURNS", "MIN_PLAYERS", "MAX_PLAYERS"]

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6
"""A game has 2 to 6 players (R-SETUP-1)."""

DEFAULT_SCEPTER_TURNS: Final = (9, 15)
"""The turn-counted scepter's default: it sounds after 9 to 15 turns, chosen at random (R-KING-1, D-6)."""


class Scoring(StrEnum):
    """How points are kept (R-SCORE-3, R-SCORE-4)."""

    STANDARD = "standard"
    """The round's winner scores the points left in the opponents' hands; first to the target wins."""
    LOWEST_TALLY = "lowest-tally"
    """Everyone adds the points left in their own hand; when a tally reaches the target, the lowest wins."""


@dataclass(frozen=True, slots=True)
class GameOptions:
    """Options of one game.

    ``scepter_turns`` is the scepter for play without a clock (R-KING-1): after choosing a
    Jester, the fanfare lands after a uniformly random number of turns in that inclusive
    range. ``None`` turns the schedule off; a real-time table then sends ``Fanfare`` itself.
    """

    players: int = 4
    target_score: int = 500
    scoring: Scoring = Scoring.STANDARD
    single_round: bool = False
    two_player_reverse_skips: bool = False
    scepter_turns: tuple[int, int] | None = DEFAULT_SCEPTER_TURNS

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int) or not (
            MIN_PLAYERS <= self.players <= MAX_PLAYERS
        ):
            raise OptionsError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS} (R-SETUP-1), not {self.players}")
        if isinstance(self.target_score, bool) or not isinstance(self.target_score, int) or self.target_score < 1:
            raise OptionsError(f"target_score must be a positive whole number (R-SCORE-5), not {self.target_score}")
        if not isinstance(self.scoring, Scoring):
            try:
                object.__setattr__(self, "scoring", Scoring(self.scoring))
            except ValueError:
                allowed = ", ".join(s.value for s in Scoring)
                raise OptionsError(f"scoring must be one of {allowed}, not {self.scoring!r}") from None
        for name in ("single_round", "two_player_reverse_skips"):
            if not isinstance(getattr(self, name), bool):
                raise OptionsError(f"{name} must be true or false, not {getattr(self, name)!r}")
        turns = self.scepter_turns
        if turns is not None:
            if (
                not isinstance(turns, (tuple, list))
                or len(turns) != 2
                or not all(isinstance(t, int) and not isinstance(t, bool) for t in turns)
                or not 1 <= turns[0] <= turns[1]
            ):
                raise OptionsError(
                    f"scepter_turns must be two whole numbers 1 <= low <= high, or None to turn it off, not {turns!r}"
                )
            object.__setattr__(self, "scepter_turns", (turns[0], turns[1]))

    def to_json(self) -> dict[str, Any]:
        # Spelled out rather than dataclasses.asdict: views carry the options after every move.
        return {
            "players": self.players,
            "target_score": self.target_score,
            "scoring": self.scoring.value,
            "single_round": self.single_round,
            "two_player_reverse_skips": self.two_player_reverse_skips,
            "scepter_turns": list(self.scepter_turns) if self.scepter_turns else None,
        }

    @classmethod
    def from_json(cls, data: object) -> GameOptions:
        """Read options written by :meth:`to_json`; unknown keys are refused."""
        if not isinstance(data, dict):
            raise OptionsError(f"options must be a JSON object, not {type(data).__name__}")
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise OptionsError(f"unknown options: {', '.join(sorted(unknown))} (known: {', '.join(sorted(known))})")
        values = dict(data)
        if isinstance(values.get("scepter_turns"), list):
            values["scepter_turns"] = tuple(values["scepter_turns"])
        return cls(**values)
