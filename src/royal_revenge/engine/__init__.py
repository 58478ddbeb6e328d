"""The rules of UNO Royal Revenge: pure Python, standard library only.

The engine knows no clock, does no I/O and prints nothing; its only randomness is a
SplitMix64 stream seeded by the caller and kept in the state.

>>> from royal_revenge.engine import GameState, GameOptions, Action
>>> game = GameState.new(GameOptions(players=2), seed=3)
>>> game.pending.kind.name
'JESTER'
"""

from .actions import (
    CALL_UNO,
    DRAW,
    FANFARE,
    KEEP,
    NEXT_ROUND,
    Action,
    AnyAction,
    CallUno,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Draw,
    Fanfare,
    Keep,
    Move,
    NextRound,
    Play,
)
from .cards import ALL_CARDS, FULL_DECK, WILD, Card, Colour, Kind, is_playable
from .errors import IllegalActionError, NotationError, OptionsError, RecordError, RoyalRevengeError
from .events import Event, redact
from .observation import History, Observation, PublicJSON, observation_json, own_json
from .options import GameOptions, Scoring
from .records import Game, GameRecord, state_digest, state_from_json, state_to_json
from .state import Decision, GameState, Outcome, Pending, RoundResult

__all__ = [
    "Action", "AnyAction", "CallUno", "Catch", "ChooseColour", "ChooseJester", "ChooseVictim", "Draw",
    "Fanfare", "Keep", "Move", "NextRound", "Play", "CALL_UNO", "DRAW", "FANFARE", "KEEP", "NEXT_ROUND",
    "ALL_CARDS", "FULL_DECK", "WILD", "Card", "Colour", "Kind", "is_playable",
    "IllegalActionError", "NotationError", "OptionsError", "RecordError", "RoyalRevengeError",
    "Event", "redact", "History", "Observation", "PublicJSON", "observation_json", "own_json", "GameOptions", "Scoring",
    "Game", "GameRecord", "state_digest", "state_from_json", "state_to_json",
    "Decision", "GameState", "Outcome", "Pending", "RoundResult",
]
