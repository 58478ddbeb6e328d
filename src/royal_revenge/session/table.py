"""A real-time table: seats, the scepter's clock, decision clocks and bot takeover.

A :class:`Table` owns one engine :class:`~royal_revenge.engine.Game` and everything about
playing it live that the rules do not know: who sits where, who is host, when the scepter
sounds (a random delay, hidden from everyone), how long a decision may take, when a bot
plays, and when the next round is dealt.

The table never reads a clock. Every method that can change something takes ``now``
(seconds, any epoch) and the owner calls :meth:`Table.tick` at :meth:`Table.next_deadline`;
tests move time by hand. The table does no I/O either: the server persists what
:meth:`Table.to_json` and :attr:`Table.moves` hold and sends what :meth:`Table.view` returns.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import random
import re
import secrets
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final, NamedTuple, TypeAlias, overload

from ..bots.base import Agent
from ..engine import (
    FANFARE,
    NEXT_ROUND,
    Action,
    AnyAction,
    Catch,
    Decision,
    Game,
    GameOptions,
    GameRecord,
    IllegalActionError,
    Move,
    Observation,
    PublicJSON,
    RoyalRevengeError,
    Scoring,
    own_json,
)
from ..engine import events as ev
from ..engine.rng import SplitMix64
from ..narration import (
    GLOSSARY,
    MADE_FOR,
    action_labels,
    describe_event,
    describe_hint,
    describe_pending,
    explain_refusal,
)

__all__ = ["BOT_LEVELS", "CODE_LENGTH", "NAME_LENGTH", "RESTART_GRACE_SECONDS", "SLOW_LEVELS", "BotTurn", "Phase",
           "SeatKind", "Seat", "TableError", "TableSettings", "Table", "LoggedMove", "display_code", "new_code",
           "normalize_code"]
__all__ += ["CHAT_LENGTH", "CHAT_SIZE", "REACTIONS", "SPECTATOR_NAME", "clean_chat_text", "clean_spectator_name"]

BOT_LEVELS: Final = ("easy", "normal", "hard")
SLOW_LEVELS: Final = frozenset({"hard"})
"""Bot levels that search (tens of milliseconds a decision): a server works their moves out off its event loop."""
_LOG_SIZE: Final = 60
RESTART_GRACE_SECONDS: Final = 15.0
"""After a restart, how long a table with people waits for them to reconnect before its clocks run again (a
client's reconnection backoff reaches 10 s): see :meth:`Table.from_json`."""
_RECENT_IDS: Final = 64
_SEATS_OPEN: Final = "Fill every seat with a player or a bot first"


class TableError(ValueError):
    """A request the table refuses; ``code`` is a short machine-readable reason."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


class Phase(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"


_SEATS_GENERATIONS: Final = itertools.count()
_UNSEEN: Final[Any] = object()  # typed Any so that it may stand in a str | None slot
_PHASE_VALUES: Final = {phase: phase.value for phase in Phase}  # (Enum.value is a slow descriptor; views are hot)


class SeatKind(StrEnum):
    OPEN = "open"
    HUMAN = "human"
    BOT = "bot"


@functools.lru_cache(maxsize=8192)
def _hash_token(token: str) -> str:
    # Memoised: a connection's token is checked before every frame it is sent (a kicked token must not see).
    return hashlib.sha256(token.encode()).hexdigest()


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
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
        return "A table has 2 to 6 players"
    target = settings.target_score
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        return "The target score must be a whole number of points, at least 1"
    if settings.scoring not in {s.value for s in Scoring}:
        return "Choose the scoring: " + " or ".join(s.value for s in Scoring)
    return "Single round and the two-player Reverse must each be on or off"


@dataclass(slots=True)
class Seat:
    """One seat: open, a person (known by a secret token) or a bot of a level."""

    kind: SeatKind = SeatKind.OPEN
    name: str = ""
    age: int | None = None
    level: str | None = None
    token_hash: str | None = None
    client_hash: str | None = None
    """The hash of the client (a browser's cookie) that took this person's seat: one client, one seat."""
    connected: bool = False
    disconnected_at: float | None = None
    timeouts: int = 0
    autopilot: bool = False
    """A bot is playing this person's seat until they act again (timeouts or a long disconnect)."""

    def public(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "name": self.name,
            "level": self.level,
            "connected": self.connected if self.kind is SeatKind.HUMAN else None,
            "autopilot": self.autopilot,
        }

    def to_json(self) -> dict[str, Any]:
        # Every field is a plain value, so this equals asdict(self) at a tenth of the cost (saved on every move).
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["kind"] = self.kind.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        return cls(**{**data, "kind": SeatKind(data["kind"])})


class LoggedMove(NamedTuple):
    """An accepted move as it is persisted: the move, who caused it, the client's id, when.

    (A named tuple: one is made with every move, and a frozen dataclass is several times slower to make.)
    """

    move: str
    by: str
    """``player``, ``bot``, ``table``, ``record`` (a resumed record's), or the table deciding for a person:
    ``timeout`` (their time ran out) or ``autopilot`` (a bot plays their seat)."""
    client_id: str | None
    at: float
    version: int | None = None
    """The table's version right after the move (``None`` in records saved before it was kept)."""


MoveRow: TypeAlias = tuple[str, str, str | None, float, int | None]
"""A :class:`LoggedMove`'s fields as a plain tuple, as :class:`MoveLog` keeps them."""


class MoveLog:
    """The current game's moves as they are persisted: a sequence of :class:`LoggedMove`.

    A game keeps every move until it ends, and a busy server makes thousands of moves a second:
    each is kept as a plain tuple of strings and numbers, which the garbage collector stops
    tracking at its first look (a named tuple it would scan again at every collection of its
    generation). Reading one gives a :class:`LoggedMove`; :meth:`rows` gives the plain tuples.

    >>> log = MoveLog()
    >>> log.append("0:R7", "player", "a-1", 5.0, 3)
    >>> len(log), log[-1].move, log[0] == LoggedMove("0:R7", "player", "a-1", 5.0, 3)
    (1, '0:R7', True)
    """

    __slots__ = ("_rows",)

    def __init__(self, moves: Iterable[Sequence[Any]] = ()) -> None:
        self._rows: list[MoveRow] = [(move[0], move[1], move[2], move[3], move[4]) for move in moves]

    def append(self, move: str, by: str, client_id: str | None, at: float, version: int | None) -> None:
        self._rows.append((move, by, client_id, at, version))

    def rows(self, start: int = 0) -> list[MoveRow]:
        """The moves from ``start`` on, as plain tuples (``LoggedMove``'s fields in its order)."""
        return self._rows[start:]

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> LoggedMove: ...
    @overload
    def __getitem__(self, index: slice) -> list[LoggedMove]: ...
    def __getitem__(self, index: int | slice) -> LoggedMove | list[LoggedMove]:
        if isinstance(index, slice):
            return [LoggedMove(*row) for row in self._rows[index]]
        return LoggedMove(*self._rows[index])

    def __iter__(self) -> Iterator[LoggedMove]:
        return (LoggedMove(*row) for row in self._rows)


AgentFactory = Callable[[str, int], Agent]


def _default_agent_factory(level: str, seed: int) -> Agent:
    from ..bots.registry import make_agent

    return make_agent(level, seed=seed)




@dataclass(frozen=True, slots=True)
class BotTurn:
    """A bot's decision that :meth:`Table.tick` is about to make, to be worked out away from the table.

    It holds only what the bot may see (its observation and legal actions), so :meth:`decide`
    can run in another thread while the table goes on; :meth:`Table.tick` takes the answer only
    if the table is still at ``version``.
    """

    version: int
    seat: int
    agent: Agent
    observation: Observation
    legal: tuple[AnyAction, ...]

    def decide(self) -> AnyAction | None:
        return self.agent.act(self.observation, list(self.legal))


@dataclass(slots=True)
class _Deadlines:
    scepter: float | None = None
    decision: float | None = None
    bot: float | None = None
    catch: float | None = None
    next_round: float | None = None


class Table:
    """One live table. Create with :meth:`open`, restore with :meth:`from_json`."""

    def __init__(self, code: str, settings: TableSettings, *, seed: int, agent_factory: AgentFactory | None = None):
        self.code = code
        self.settings = settings
        self.seats = [Seat() for _ in range(settings.players)]
        self.host: int | None = None
        self.phase = Phase.LOBBY
        self.seed = seed
        self.game_no = 0
        self.game: Game | None = None
        self.moves = MoveLog()
        self.origin: dict[str, Any] | None = None
        """How the current game was dealt (its seed, ages and first King, as :meth:`Game.new` takes them), fixed
        when it was dealt: a restore deals from it, never from the seats as they are now (a kicked person's seat
        is a bot's, without an age). ``None`` before the first game."""
        self.version = 0
        self.changed_at: float | None = None
        """When the table last changed (``now`` of the change that moved :attr:`version`)."""
        self.resume_at: float | None = None
        """After a restart, when the table's clocks run again unless every person is back first (``None``: they
        run)."""
        self.deadlines = _Deadlines()
        self.log: deque[ev.Event] = deque(maxlen=_LOG_SIZE)
        """The recent events, oldest first: numbered consecutively, the newest :attr:`log_last` (numbers, not pairs
        of a number and an event: the log lives as long as the game, and every object in it is one more for the
        garbage collector to scan)."""
        self._log_by: deque[str | None] = deque(maxlen=_LOG_SIZE)
        """For each event of :attr:`log`, why the table made it for a person (``timeout``, ``autopilot``: a move's
        ``by``), or ``None`` (the person, a bot or the rules did it)."""
        self._log_base = 0
        """The number of the last event before the current game's first (log numbers go on across games)."""
        self._rng = SplitMix64(seed)  # (its whole state is one int: the table row is written with every move)
        self._agent_factory = agent_factory or _default_agent_factory
        self._agents: dict[tuple[int, str], Agent] = {}
        self._recent: dict[int, deque[tuple[str, int]]] = {}
        self._event_no = 0
        self._on_move: list[Callable[[LoggedMove], None]] = []
        self._prepared: tuple[BotTurn, AnyAction | None] | None = None
        self._narrated: tuple[dict[int, dict[str, Any] | None], dict[int, dict[str, Any] | None]] = ({}, {})
        """Log lines already narrated by event number: as the events are, and redacted (another player's draw);
        valid while the seat names stay the same."""
        self._narrated_names: tuple[str, ...] = ()
        self._names_checked = -1
        """The ``seats_generation`` at which the seat names behind the narration cache were last compared."""
        self._settings_json: tuple[TableSettings, dict[str, Any]] | None = None
        self._seats_json: list[dict[str, Any]] | None = None
        self._seats_saved: list[dict[str, Any]] | None = None
        """Caches of the seats' public and saved JSON, dropped by :meth:`_seats_changed`."""
        self.seats_generation = next(_SEATS_GENERATIONS)
        """Changes with every change to a seat, and is never the same at two tables: a connection whose seat was
        found held at this generation still holds it (the server checks seat tokens only when it changes)."""
        self._shared_json: dict[str, Any] | None = None
        """The parts of a view every seat shares (:meth:`shared_view`), built once per version..."""
        self._shared_version = self._shared_game_no = self._shared_moves = -1
        self._shared_settings: TableSettings | None = None
        """... and the version, game number, move count and settings it was built for."""
        self._public = PublicJSON()
        """The game's public view, each made from the one before (what did not change is the same object)."""
        self._init_social()
        self._uno_called: set[int] = set()
        """Seats that called UNO since they last drew (kept from the events: a restore replays them); the view's
        ``uno_called`` is those of them that hold one card."""
        self._prompts: dict[int | str | None, tuple[str | None, str | None]] = {}
        self._prompts_key: tuple[int, int, int] = (-1, -1, -1)
        """Each seat's prompt and hint (:meth:`prompt_view`), valid at one version, game and seats generation."""

    # ------------------------------------------------------------------ lobby

    @classmethod
    def open(cls, settings: TableSettings, *, code: str | None = None, seed: int | None = None,
             agent_factory: AgentFactory | None = None) -> Table:
        return cls(code or new_code(), settings, seed=secrets.randbits(63) if seed is None else seed,
                   agent_factory=agent_factory)

    def join(self, name: str, age: int | None, now: float, *, client: str | None = None) -> tuple[int, str]:
        """Take the first open seat; returns the seat and its secret token. The first person becomes host.

        ``client`` is an opaque id of whoever asks (the server's cookie): a client that holds a seat
        here already is refused another, so that one person cannot fill a table. Names are unique at
        a table, whatever their case.
        """
        self.refuse_if_closed()
        name = _clean_name(name)
        if age is not None and (isinstance(age, bool) or not isinstance(age, int) or not 0 <= age <= 150):
            raise TableError("bad_request", "An age must be a whole number from 0 to 150, or left empty")
        if self.phase is not Phase.LOBBY:
            raise TableError("wrong_phase", "The game has started; you can watch it")
        client_hash = _hash_client(self.code, client) if client is not None else None
        key = _name_key(name)
        for seat in self.seats:
            if client_hash is not None and seat.client_hash == client_hash and seat.kind is SeatKind.HUMAN:
                raise TableError("already_seated", f"You already have a seat at this table, as {seat.name}; "
                                                   "each person may take one seat")
        open_seats = [i for i, seat in enumerate(self.seats) if seat.kind is SeatKind.OPEN]
        if not open_seats:
            raise TableError("table_full", f"All {len(self.seats)} seats are taken")
        for seat in self.seats:
            if seat.kind is not SeatKind.OPEN and _name_key(seat.name) == key:
                raise TableError("name_taken", f"{seat.name} is already at this table; choose another name")
        index = open_seats[0]
        token = secrets.token_urlsafe(24)
        self.seats[index] = Seat(SeatKind.HUMAN, name, age, token_hash=_hash_token(token), client_hash=client_hash)
        self._seats_changed()
        if self.host is None:
            self.host = index
        self._changed(now)
        return index, token

    def holds(self, seat: int, token: str) -> bool:
        """Whether ``token`` still holds ``seat`` (checked before every frame a player's connection is sent)."""
        player = self.seats[seat] if 0 <= seat < len(self.seats) else None
        return (player is not None and player.kind is SeatKind.HUMAN and player.token_hash is not None
                and secrets.compare_digest(player.token_hash, _hash_token(token)))

    def seat_of(self, token: str | None) -> int:
        """The seat a token holds; refuses unknown or revoked tokens."""
        if token:
            digest = _hash_token(token)
            for index, seat in enumerate(self.seats):
                if seat.kind is SeatKind.HUMAN and seat.token_hash is not None and secrets.compare_digest(
                    seat.token_hash, digest
                ):
                    return index
        raise TableError("bad_token", "This seat is not yours at this table (it may have been given to someone else)")

    def _host_check(self, token: str | None) -> int:
        seat = self.seat_of(token)
        if seat != self.host:
            host = self.seats[self.host].name if self.host is not None else ""
            raise TableError("not_host", f"Only the host{', ' + host + ',' if host else ''} can do that")
        return seat

    def add_bot(self, token: str | None, level: str, now: float, seat: int | None = None) -> int:
        """Host: seat a bot of ``level`` in ``seat`` (an open seat), or in the first open seat."""
        self._host_check(token)
        if level not in BOT_LEVELS:
            raise TableError("bad_request", "Choose a bot level: easy, normal or hard")
        if self.phase is not Phase.LOBBY:
            raise TableError("wrong_phase", "Bots are added before the game starts")
        open_seats = [i for i, seat in enumerate(self.seats) if seat.kind is SeatKind.OPEN]
        if not open_seats:
            raise TableError("table_full", f"All {len(self.seats)} seats are taken")
        index = self._open_seat_for_bot(open_seats, seat)
        self.seats[index] = Seat(SeatKind.BOT, _bot_name(level, index), level=level)
        self._seats_changed()
        self._changed(now)
        return index

    def _open_seat_for_bot(self, open_seats: list[int], seat: int | None) -> int:
        """The seat a bot is to take: ``seat`` if it is open (refused in plain words otherwise), else the first open."""
        if seat is None:
            return open_seats[0]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise TableError("bad_request", f"This table has {len(self.seats)} seats: choose one of them")
        if seat not in open_seats:
            raise TableError("bad_request", f"{self._name(seat)} already sits there: choose an open seat")
        return seat

    def remove(self, token: str | None, seat: int, now: float) -> None:
        """Host: remove a bot, or kick a person (their token stops working). In play a bot takes the seat.

        In the lobby anyone may be removed. Once a game is dealt a person's seat goes to a bot only when
        they have left (no connection) or timed out: a host cannot take a seat from someone playing.
        """
        host = self._host_check(token)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise TableError("bad_request", "There is no such seat at this table")
        if seat == host:
            raise TableError("bad_request", "As the host you cannot remove yourself")
        current = self.seats[seat]
        if current.kind is SeatKind.OPEN:
            raise TableError("bad_request", "That seat is already open")
        if self.phase is Phase.LOBBY:
            self.seats[seat] = Seat()
            self._seats_changed()
        else:
            if (current.kind is SeatKind.HUMAN and current.connected and not current.autopilot
                    and not current.timeouts):
                raise TableError("still_playing", f"{current.name} is still playing; a seat can be handed to a bot "
                                                  "only when its player has left or timed out")
            # A game needs every seat: a bot takes over the kicked player's cards.
            self.seats[seat] = Seat(SeatKind.BOT, _bot_name("normal", seat), level="normal")
            self._seats_changed()
        self._changed(now)
        self._schedule(now)

    def start(self, token: str | None, now: float) -> None:
        self._host_check(token)
        if self.phase is not Phase.LOBBY:
            raise TableError("wrong_phase", "The game has already started")
        if any(seat.kind is SeatKind.OPEN for seat in self.seats):
            raise TableError("seats_open", _SEATS_OPEN)
        self._new_game(now)

    def rematch(self, token: str | None, now: float) -> None:
        self._host_check(token)
        if self.phase is not Phase.FINISHED:
            raise TableError("wrong_phase", "A rematch can start once this game is over")
        self._new_game(now)

    def resume(self, token: str | None, record: GameRecord, now: float) -> None:
        """Host: start by continuing a recorded game (a saved terminal game) instead of dealing a new one.

        The record is replayed move by move (and checked against its final digest when it has one); the
        seats must already be filled as they were. A running scepter gets a fresh random delay from ``now``.
        """
        from ..engine import state_digest

        self._host_check(token)
        if self.phase is not Phase.LOBBY:
            raise TableError("wrong_phase", "A saved game can be resumed only before any game starts")
        if any(seat.kind is SeatKind.OPEN for seat in self.seats):
            raise TableError("seats_open", _SEATS_OPEN)
        if record.options != self.settings.options():
            raise TableError("bad_record", "the saved game's rules differ from this table's settings")
        setup: list[ev.Event] = []
        try:
            game = Game.new(record.options, record.seed, ages=record.ages, first_king=record.first_king,
                            events=setup)
            happened = [game.state.apply(move.seat, move.action) for move in record.moves]
        except RoyalRevengeError as error:
            raise TableError("bad_record", f"the saved game does not replay: {error}") from None
        if record.final_digest is not None and state_digest(game.state) != record.final_digest:
            raise TableError("bad_record", "the saved game does not replay to its recorded state")
        self.game_no += 1
        self._recent.clear()
        self._clear_log()
        self._record_events(setup)
        for events in happened:
            self._record_events(events)
        self.moves = MoveLog((str(move), "record", None, now, self.version + 1) for move in record.moves)
        self.origin = {"seed": record.seed, "ages": record.ages, "first_king": record.first_king}
        self.game = game
        state = game.state
        self.phase = Phase.FINISHED if state.is_over() else Phase.PLAYING
        if state.scepter_running and not state.fanfare_queued and self.phase is Phase.PLAYING:
            low, high = self.settings.scepter_min_seconds, self.settings.scepter_max_seconds
            self.deadlines.scepter = now + self._rng.uniform(low, high)
        self._changed(now)
        self._schedule(now)

    def _new_game(self, now: float) -> None:
        self.game_no += 1
        self.moves = MoveLog()
        self._recent.clear()
        self._clear_log()
        ages = [seat.age if seat.kind is SeatKind.HUMAN else None for seat in self.seats]
        self.origin = {"seed": self._game_seed(), "ages": ages, "first_king": None}
        setup: list[ev.Event] = []
        self.game = self._deal(self.origin, setup)
        self.phase = Phase.PLAYING
        self._record_events(setup)
        self._changed(now)
        self._schedule(now)

    def _game_seed(self) -> int:
        return random.Random(f"{self.seed}/{self.game_no}").getrandbits(63)

    def _deal(self, origin: dict[str, Any], setup: list[ev.Event]) -> Game:
        """The current game as it was dealt (:attr:`origin`), its setup events appended to ``setup``."""
        return Game.new(self.settings.options(), origin["seed"], ages=origin["ages"], first_king=origin["first_king"],
                        events=setup)

    def _legacy_origin(self, moves: Sequence[LoggedMove]) -> dict[str, Any]:
        """The deal of a game saved before :attr:`origin` was kept: the table's seed and the seats' ages now.

        A person kicked since (their seat now a bot's, without an age) may have been the first King. A game's
        first move is its first King's choice of the Jester: if the ages now crown another seat, that seat is
        made the youngest (the engine crowns one of the youngest with one random number however many there are,
        so the deal is the same).
        """
        ages = [seat.age if seat.kind is SeatKind.HUMAN else None for seat in self.seats]
        origin: dict[str, Any] = {"seed": self._game_seed(), "ages": ages, "first_king": None}
        first = Move.parse(moves[0].move).seat if moves else None
        if first is not None and 0 <= first < len(ages) and self._deal(origin, []).state.king != first:
            origin["ages"] = [0 if seat == first else (None if age is None else max(age, 1))
                              for seat, age in enumerate(ages)]
        return origin

    def _clear_log(self) -> None:
        self._uno_called.clear()
        self.log.clear()
        self._log_by.clear()
        self._log_base = self._event_no

    # ------------------------------------------------------------------ connections

    def set_connected(self, seat: int, connected: bool, now: float) -> None:
        """The server reports a seat's connection; a returning player takes their seat back."""
        player = self.seats[seat]
        if player.kind is not SeatKind.HUMAN or player.connected == connected:
            return
        player.connected = connected
        player.disconnected_at = None if connected else now
        self._seats_changed()
        if connected and player.autopilot:
            player.autopilot = False
            player.timeouts = 0
        if connected and self.resume_at is not None and all(
                seat.connected for seat in self.seats if seat.kind is SeatKind.HUMAN):
            self.resume_at = None  # everyone is back after a restart: no need to wait any longer
        self._changed(now)
        self._schedule(now)

    # ------------------------------------------------------------------ playing

    def act(self, token: str | None, action: AnyAction | dict[str, Any] | str, now: float,
            client_id: str | None = None) -> int:
        """A person's action. Returns the version after it; a repeated ``client_id`` is not applied twice."""
        seat = self.seat_of(token)
        if client_id is not None:
            for seen, version in self._recent.get(seat, ()):
                if seen == client_id:
                    return version
        if self.phase is not Phase.PLAYING or self.game is None:
            raise TableError("wrong_phase", "The game has not started yet" if self.phase is Phase.LOBBY
                             else "The game is over")
        try:
            parsed = Action.parse(action) if isinstance(action, str) else (
                Action.from_json(action) if isinstance(action, dict) else action)
        except RoyalRevengeError as error:
            raise TableError("bad_action", str(error)) from None  # (a malformed action: only a forged frame)
        player = self.seats[seat]
        self._apply(seat, parsed, "player", client_id, now)
        if player.timeouts or player.autopilot:
            player.timeouts = 0
            player.autopilot = False
            self._seats_changed()
        if client_id is not None:
            recent = self._recent.get(seat)
            if recent is None:
                recent = self._recent[seat] = deque(maxlen=_RECENT_IDS)
            recent.append((client_id, self.version))
        self._schedule(now)
        return self.version

    def _apply(self, seat: int | None, action: AnyAction, by: str, client_id: str | None, now: float) -> None:
        assert self.game is not None
        try:
            # (the game's record is made from the table's moves when asked for: see record)
            happened = self.game.state.apply(seat, action)
        except IllegalActionError as error:
            if seat is None:
                raise TableError("illegal", str(error)) from None
            state = self.game.state
            raise TableError("illegal", explain_refusal(state.observe(seat), action, state.legal_actions(seat),
                                                        self._name)) from None
        self._changed(now)
        notation = str(action) if seat is None else f"{seat}:{action}"  # (str(Move(seat, action)))
        self.moves.append(notation, by, client_id, now, self.version)
        if self._on_move:
            logged = LoggedMove(notation, by, client_id, now, self.version)
            for listener in self._on_move:
                listener(logged)
        self._record_events(happened, seat, by)
        for event in happened:
            if isinstance(event, ev.JesterChosen):
                low, high = self.settings.scepter_min_seconds, self.settings.scepter_max_seconds
                self.deadlines.scepter = now + self._rng.uniform(low, high)
            elif isinstance(event, (ev.CrownPassed, ev.RoundEnded)):
                self.deadlines.scepter = None
        if self.game.state.is_over():
            self.phase = Phase.FINISHED

    def _record_events(self, happened: list[ev.Event], seat: int | None = None, by: str | None = None) -> None:
        """Log a move's events; when the table made the move for the person in ``seat`` (``by``: ``timeout``,
        ``autopilot``), the event that records their decision is marked so."""
        marked = _made_for(happened, seat, by)
        called = self._uno_called
        for index, event in enumerate(happened):
            self._event_no += 1
            self.log.append(event)
            self._log_by.append(by if index == marked else None)
            if isinstance(event, ev.UnoCalled):
                called.add(event.seat)
            elif isinstance(event, (ev.Drew, ev.Caught)):
                called.discard(event.seat)
            elif isinstance(event, ev.RoundStarted):
                called.clear()

    def _changed(self, now: float) -> None:
        self.version += 1
        self.changed_at = now

    def _agent(self, seat: int, level: str) -> Agent:
        key = (seat, level)
        agent = self._agents.get(key)
        if agent is None:
            agent = self._agent_factory(level, self._rng.getrandbits(32))
            self._agents[key] = agent
        return agent

    def _bot_by(self, seat: int) -> str:
        """How a bot's move for ``seat`` is logged: ``autopilot`` when it plays a person's seat."""
        return "autopilot" if self.seats[seat].kind is SeatKind.HUMAN else "bot"

    def _bot_level(self, seat: int) -> str | None:
        """The level of the bot that plays ``seat`` now, or ``None`` when a person plays it."""
        player = self.seats[seat]
        if player.kind is SeatKind.BOT:
            return player.level or "normal"
        return "normal" if player.autopilot else None

    def _schedule(self, now: float) -> None:
        """Work out the clocks after any change (counted from the end of a restart's pause, :attr:`resume_at`)."""
        d = self.deadlines
        d.decision = d.bot = d.catch = d.next_round = None
        if self.resume_at is not None and self.resume_at <= now:
            self.resume_at = None
        if self.game is None or self.phase is not Phase.PLAYING:
            d.scepter = self.resume_at = None
            return
        start = now if self.resume_at is None else self.resume_at
        state = self.game.state
        if state.decision is Decision.ROUND_OVER:
            d.next_round = start + self.settings.next_round_seconds
            return
        decider = state.decider
        assert decider is not None
        if self._bot_level(decider) is not None:
            d.bot = start + self.settings.bot_delay_seconds
        else:
            d.decision = start + self.settings.turn_seconds
        if state.uno_seat is not None and any(
            self._bot_level(seat) is not None for seat in range(state.players) if seat != decider
        ):
            d.catch = start + max(self.settings.bot_delay_seconds, 0.5) * 1.5
        for seat, player in enumerate(self.seats):
            if (player.kind is SeatKind.HUMAN and not player.connected and not player.autopilot
                    and player.disconnected_at is not None):
                grace_end = player.disconnected_at + self.settings.grace_seconds
                if d.decision is not None and seat == decider:
                    d.decision = min(d.decision, max(grace_end, start))

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has something to do (``None``: nothing until someone acts)."""
        d = self.deadlines
        times = [t for t in (d.scepter, d.decision, d.bot, d.catch, d.next_round) if t is not None]
        return min(times) if times else None

    def _first_due(self, now: float) -> str | None:
        """The name of the earliest clock due at ``now``, if any."""
        d = self.deadlines
        due = [(t, name) for name, t in (("scepter", d.scepter), ("next_round", d.next_round),
                                         ("catch", d.catch), ("decision", d.decision), ("bot", d.bot))
               if t is not None and t <= now]
        return min(due)[1] if due else None

    def slow_bot_turn(self, now: float) -> BotTurn | None:
        """The searching bot's move that :meth:`tick` would make first at ``now``, if that is what is due.

        A server works it out with :meth:`BotTurn.decide` off its event loop, then passes the
        answer to :meth:`tick`, so that one table's thinking bot does not hold up every other table.
        """
        if self.game is None or self.phase is not Phase.PLAYING or self._first_due(now) != "bot":
            return None
        state = self.game.state
        seat = state.decider
        level = self._bot_level(seat) if seat is not None else None
        if seat is None or level not in SLOW_LEVELS:
            return None
        legal = state.legal_actions(seat)
        return BotTurn(self.version, seat, self._agent(seat, level), state.observe(seat), tuple(legal))

    def tick(self, now: float, prepared: tuple[BotTurn, AnyAction | None] | None = None) -> bool:
        """Do whatever is due at ``now``: the fanfare, a timed-out decision, a bot's move, a deal.

        ``prepared`` is a :meth:`slow_bot_turn` and its answer, used if the table has not changed
        since (otherwise the bot decides afresh). Returns whether anything changed.
        """
        self._prepared = prepared
        changed = False
        for _ in range(100):  # each pass handles the earliest due item; a bound against loops
            if self.game is None or self.phase is not Phase.PLAYING:
                break
            d = self.deadlines
            state = self.game.state
            name = self._first_due(now)
            if name is None:
                break
            changed = True
            if name == "scepter":
                d.scepter = None
                if FANFARE not in state.legal_actions(None):
                    continue  # nothing happened: the other clocks run on
                self._apply(None, FANFARE, "table", None, now)
            elif name == "next_round":
                self._apply(None, NEXT_ROUND, "table", None, now)
            elif name == "catch":
                d.catch = None
                version = self.version
                self._bots_catch(now)
                if self.version == version:
                    continue  # the bots let it go: the other clocks run on
                # (after a catch, as after any move, the clocks are worked out afresh: a restore works them out
                # from the last move, see from_json)
            else:
                decider = state.decider
                assert decider is not None
                level = self._bot_level(decider) or "normal"
                if name == "decision":
                    player = self.seats[decider]
                    player.timeouts += 1
                    self._seats_changed()
                    gone = not player.connected and player.disconnected_at is not None and (
                        now - player.disconnected_at >= self.settings.grace_seconds)
                    if player.timeouts >= self.settings.max_timeouts or gone:
                        player.autopilot = True
                self._bot_move(decider, level, "timeout" if name == "decision" else self._bot_by(decider), now)
            self._schedule(now)
        self._prepared = None
        return changed

    def _bot_move(self, seat: int, level: str, by: str, now: float) -> None:
        assert self.game is not None
        state = self.game.state
        legal = state.legal_actions(seat)
        prepared, self._prepared = self._prepared, None
        if prepared is not None and prepared[0].version == self.version and prepared[0].seat == seat:
            action = prepared[1]
        else:
            action = self._agent(seat, level).act(state.observe(seat), legal)
        if action is None or action not in legal:
            action = legal[0]  # a bot must never stall the table
        self._apply(seat, action, by, None, now)

    def _bots_catch(self, now: float) -> None:
        assert self.game is not None
        state = self.game.state
        target = state.uno_seat
        if target is None:
            return
        for offset in range(1, state.players):
            seat = (target + offset) % state.players
            level = self._bot_level(seat)
            if level is None or seat == state.decider:
                continue
            legal = state.legal_actions(seat)
            if not any(isinstance(action, Catch) for action in legal):
                return
            choice = self._agent(seat, level).act(state.observe(seat), legal)
            if isinstance(choice, Catch):
                self._apply(seat, choice, self._bot_by(seat), None, now)
                return

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None, *, log_after: int = 0, share: bool = False) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) is shown: never another hand, never the scepter's time.

        ``log`` holds the recent log entries numbered above ``log_after`` (all of them by
        default): a connection that already holds the older ones is sent only the new. With
        ``share``, the parts that are the same in every view (settings, seats, the public game)
        are the table's cached objects rather than copies: for a caller that only reads them.

        A view is :meth:`shared_view` (the same for everyone) with the seat's own parts laid over
        it: ``you``, ``legal`` (:meth:`legal_view`) and its ``legal_labels``, the game's ``seat``, ``hand`` and
        ``drawn`` (:meth:`own_game_view`) and ``log`` (:meth:`log_view`), and the words of the cards and buttons
        (``glossary``, the same in every view). The server sends each connection only the parts that changed
        (the glossary once), and works out the shared part's changes once for everyone.
        """
        shared = self.shared_view()
        data = shared.copy()
        data["you"] = seat
        if "game" in shared:
            game = shared["game"].copy()
            game.update(self.own_game_view(seat))
            data["game"] = game
            data["legal"] = self.legal_view(seat)
            data["legal_labels"] = self.legal_labels(seat)
            data["prompt"], data["hint"] = self.prompt_view(seat)
        data["log"] = self.log_view(seat, log_after)
        data["glossary"] = GLOSSARY
        if not share:
            data = copy.deepcopy(data)
        return data

    def shared_view(self) -> dict[str, Any]:
        """The parts of a view that are the same for every seat: a spectator's view without its ``log``.

        Built once per change and cached: read it, never change it (the caller's copy of it is
        :meth:`view`).
        """
        cached = self._shared_json
        if (cached is not None and self._shared_version == self.version and self._shared_game_no == self.game_no
                and self._shared_moves == len(self.moves) and self._shared_settings is self.settings):
            return cached
        data: dict[str, Any] = {
            "code": self.code,
            "version": self.version,
            "phase": _PHASE_VALUES[self.phase],
            "you": None,
            "host": self.host,
            "settings": self._settings_shared(),
            "seats": self._seats_shared(),
            "game_no": self.game_no,
            "prompt": None,
            "hint": None,
        }
        if self.game is not None:
            data["game"] = self._public.of(self.game.state)
            data["legal"] = []
            data["legal_labels"] = []
            data["decision_deadline"] = self.deadlines.decision
            data["next_round_deadline"] = self.deadlines.next_round
            data["uno_called"] = self.uno_called()
        data.update(self._social_view())
        self._shared_json = data
        self._shared_version, self._shared_game_no, self._shared_moves = self.version, self.game_no, len(self.moves)
        self._shared_settings = self.settings
        return data

    def game_changes(self, before: dict[str, Any]) -> list[str] | None:
        """The keys of the shared view's ``game`` that changed since ``before`` (an earlier one of this table's), if
        that is known at no cost (``before`` is the one made just before the latest); ``None`` otherwise."""
        return self._public.changes(before)

    def own_game_view(self, seat: int | None) -> dict[str, Any]:
        """The game's keys that differ from seat to seat: ``seat``, ``hand`` and ``drawn`` (a fresh dict)."""
        if self.game is None:
            return {"seat": None, "hand": [], "drawn": None}
        return own_json(self.game.state, seat)

    def uno_called(self) -> list[int]:
        """The seats that called UNO and hold one card now."""
        if self.game is None or not self._uno_called:
            return []
        hands = self.game.state.hands
        return sorted(seat for seat in self._uno_called if len(hands[seat]) == 1)

    def prompt_view(self, seat: int | None) -> tuple[str | None, str | None]:
        """The view's ``prompt`` and ``hint`` for ``seat`` (``None``: a spectator): who must decide what, and a
        teaching sentence when one matters (:func:`~royal_revenge.narration.describe_pending`, ``describe_hint``).

        The shared view holds ``None`` for both; each seat's own are laid over it, like ``legal``.
        """
        if self.game is None:
            return None, None
        key = (self.version, self.game_no, self.seats_generation)
        prompts = self._prompts
        if key != self._prompts_key:
            prompts.clear()
            self._prompts_key = key
        state = self.game.state
        observer = seat if seat is not None and 0 <= seat < state.players else None
        # The sentences differ only for the seat that decides, the seat that may call UNO late, and at the end of
        # a round (its winners): every other seat reads what any other seat reads (one observation, not one each).
        special = (observer is None or observer == state.decider or observer == state.uno_seat
                   or state.decision is Decision.ROUND_OVER or state.decision is Decision.GAME_OVER)
        role: int | str | None = observer if special else "seated"
        cached = prompts.get(role)
        if cached is None:
            observation = state.observe(observer)
            cached = prompts[role] = (describe_pending(observation, self._name),
                                      describe_hint(observation, self._name))
        return cached

    def legal_view(self, seat: int | None) -> list[dict[str, Any]]:
        """The actions ``seat`` may take now, as JSON (none for a spectator or between games)."""
        return [action.to_json() for action in self.legal_actions(seat)]

    def legal_labels(self, seat: int | None, legal: Sequence[AnyAction] | None = None) -> list[str]:
        """The words of each of ``seat``'s legal actions (``legal``, by default :meth:`legal_actions`), in their
        order (:func:`~royal_revenge.narration.action_labels`): what the front ends show on their buttons."""
        return action_labels(self.legal_actions(seat) if legal is None else legal, seat, self._name)

    def legal_actions(self, seat: int | None) -> list[AnyAction]:
        """The actions ``seat`` may take now (none for a spectator or between games)."""
        if seat is None or self.game is None:
            return []
        return self.game.state.legal_actions(seat)

    def log_view(self, seat: int | None, log_after: int = 0) -> list[dict[str, Any]]:
        """The recent log entries numbered above ``log_after`` as ``seat`` sees them (shared: read only)."""
        if self._names_checked != self.seats_generation or len(self._narrated[0]) > 4 * _LOG_SIZE:
            self._names_checked = self.seats_generation  # (names change only with a seat)
            names = tuple(self._name(index) for index in range(len(self.seats)))
            if names != self._narrated_names or len(self._narrated[0]) > 4 * _LOG_SIZE:
                for cache in self._narrated:
                    cache.clear()  # a seat's name changed (or the cache grew): narrate afresh
                self._narrated_names = names
        plain, redacted = self._narrated
        hides = ev.hides
        entries = []
        log = self.log
        start = self._log_skip(log_after)
        number = self._event_no - len(log) + start
        for index in range(start, len(log)):
            event = log[index]
            number += 1
            hidden = hides(event, seat)
            entry = (redacted if hidden else plain).get(number, _UNSEEN)  # (a miss is common: no exceptions)
            if entry is _UNSEEN:
                entry = self._log_entry(number, event, seat, self._log_by[index])
            if entry is not None:
                entries.append(entry)
        return entries

    def log_private_seats(self, log_after: int = 0) -> set[int]:
        """The seats that see some log entry numbered above ``log_after`` otherwise than a spectator does (their
        own draw, with its cards): every other seat's :meth:`log_view` is the spectator's, entry for entry."""
        private_to = ev.private_to
        seats = set()
        log = self.log
        for index in range(self._log_skip(log_after), len(log)):
            seat = private_to(log[index])
            if seat is not None:
                seats.add(seat)
        return seats

    @property
    def log_first(self) -> int:
        """The number of the oldest entry in the log window (0 when it is empty)."""
        return self._event_no - len(self.log) + 1 if self.log else 0

    @property
    def log_last(self) -> int:
        """The number of the newest entry in the log window (0 when it is empty)."""
        return self._event_no if self.log else 0

    def _log_skip(self, log_after: int) -> int:
        """How many entries of the log window are numbered ``log_after`` or below."""
        log = self.log
        # Entries are numbered consecutively: skip the ones already sent without looking at them.
        return min(len(log), max(0, log_after - (self._event_no - len(log)))) if log else 0

    def _seats_changed(self) -> None:
        """Every change to a seat calls this: the seats' JSON is built again only after one (not after every move)."""
        self._seats_json = self._seats_saved = self._shared_json = None
        self.seats_generation = next(_SEATS_GENERATIONS)

    def _seats_json_full(self) -> list[dict[str, Any]]:
        """The seats as saved (token hashes included), built again only after a seat changed."""
        if self._seats_saved is None:
            self._seats_saved = [seat.to_json() for seat in self.seats]
        return self._seats_saved

    def seats_view(self) -> list[dict[str, Any]]:
        """The seats as everyone sees them (a fresh copy; the cache is rebuilt only after a seat changed)."""
        return [dict(seat) for seat in self._seats_shared()]

    def _seats_shared(self) -> list[dict[str, Any]]:
        if self._seats_json is None:
            self._seats_json = [player.public() for player in self.seats]
        return self._seats_json

    def _log_entry(self, number: int, event: ev.Event, seat: int | None, by: str | None) -> dict[str, Any] | None:
        """One log entry as ``seat`` sees it (``None``: not worth a line), narrated and cached (:meth:`log_view`
        looks in the cache first: views are built after every change).

        An event reads the same for everyone unless it hides something from ``seat`` (another
        player's draw): one entry per event as it is, and one redacted, shared by all who see it so.
        A decision the table made for a person (``by``) says so in its words and in ``by``.
        """
        hidden = ev.hides(event, seat)
        text = describe_event(ev.redact([event], seat)[0] if hidden else event, self._name, by)
        entry = None if text is None else {"n": number, "kind": type(event).__name__, "text": text}
        if entry is not None:
            entry.update(_log_facts(event))
            if by is not None:
                entry["by"] = by
        self._narrated[1 if hidden else 0][number] = entry
        return entry

    def settings_view(self) -> dict[str, Any]:
        """The table's settings (a fresh copy)."""
        return dict(self._settings_shared())

    def _settings_shared(self) -> dict[str, Any]:
        cached = self._settings_json
        if cached is None or cached[0] is not self.settings:
            cached = self._settings_json = (self.settings, self.settings.to_json())
        return cached[1]

    def _name(self, seat: int) -> str:
        return self.seats[seat].name or f"Seat {seat + 1}"

    def replay_frames(self) -> list[dict[str, Any]]:
        """A finished game, move by move, with every hand open: for the replay view."""
        if self.game is None or self.phase is not Phase.FINISHED:
            raise TableError("wrong_phase", "a game can be replayed once it is over")
        record = self.record()
        frames: list[dict[str, Any]] = []

        def frame(move: str | None, happened: list[ev.Event], seat: int | None = None, by: str | None = None) -> None:
            state = game.state
            marked = _made_for(happened, seat, by)
            frames.append({
                "move": move,
                "log": [text for index, event in enumerate(happened)
                        if (text := describe_event(event, self._name, by if index == marked else None)) is not None],
                "hands": [[str(card) for card in hand] for hand in state.hands],
                "discard_top": str(state.top),
                "active_colour": state.active_colour.letter if state.active_colour is not None else None,
                "king": state.king,
                "jester": state.jester,
                "direction": state.direction,
                "scores": list(state.scores),
                "round_no": state.round_no,
                "pending": {"kind": state.decision.name.lower(), "seat": state.decider},
            })

        setup: list[ev.Event] = []
        game = Game.new(record.options, record.seed, ages=record.ages, first_king=record.first_king, events=setup)
        frame(None, setup)
        for move, row in zip(record.moves, self.moves.rows(), strict=True):
            frame(str(move), game.apply(move.seat, move.action), move.seat, row[1])
        return frames

    def record(self) -> GameRecord:
        """The current game's record: its deal, every move so far, and the digest of the state they reach."""
        if self.game is None:
            raise TableError("wrong_phase", "no game has been played at this table")
        dealt = self.game.record()  # (the deal and the digest: the moves are the table's, see _apply)
        return GameRecord(dealt.options, dealt.seed, dealt.ages, dealt.first_king,
                          [Move.parse(row[0]) for row in self.moves.rows()], dealt.final_digest)

    # ------------------------------------------------------------------ chat, reactions, muting (issue 16)

    def _init_social(self) -> None:
        self.chat: deque[dict[str, Any]] = deque(maxlen=CHAT_SIZE)
        """The last chat lines, oldest first (kept across games and restarts: persisted with the table)."""
        self._chat_no = 0
        """The number of the newest chat line ever (line numbers grow through the table's life)."""
        self._chat_view: list[dict[str, Any]] = []
        """:attr:`chat` as the views show it: a new list with every new line (the same object until then)."""
        self._muted: dict[int, str] = {}
        """Seats the host muted, with the token hash of the person muted: a new person in the seat is not."""
        self._rematch: dict[int, tuple[str, int]] = {}
        """Seats asking for a rematch once the game is over, with the token hash of the person asking and the number
        of the game that was over (a request is for that game's rematch only)."""
        self.created_at: float | None = None
        """When the table was opened (its first person sat down): the public tables are listed newest first."""
        self.closed = False
        """Every person left the lobby: the table takes nobody any more."""

    def _person_marks(self, marks: dict[int, str]) -> list[int]:
        """The seats of ``marks`` still held by the person they were made for."""
        seats = self.seats
        return sorted(seat for seat, token_hash in marks.items()
                      if 0 <= seat < len(seats) and seats[seat].kind is SeatKind.HUMAN
                      and seats[seat].token_hash == token_hash)

    def _social_view(self) -> dict[str, Any]:
        """The view's fields of issue 16 that everyone shares (docs/protocol.md, The view)."""
        return {"chat": self._chat_view, "muted": self._person_marks(self._muted),
                "rematch_requests": self.rematch_requests, "closed": self.closed}

    @property
    def muted(self) -> list[int]:
        """The seats whose person the host muted."""
        return self._person_marks(self._muted)

    @property
    def rematch_requests(self) -> list[int]:
        """The seats whose person asks for a rematch of the game that is over."""
        if self.phase is not Phase.FINISHED or not self._rematch:
            return []
        return self._person_marks({seat: token_hash for seat, (token_hash, game_no) in self._rematch.items()
                                   if game_no == self.game_no})

    def ask_rematch(self, token: str | None, now: float) -> int:
        """A person asks for a rematch once the game is over; returns the version after it. The host's asking
        starts it (as the host's ``rematch`` command does), and so does everyone's at the table."""
        seat = self.seat_of(token)
        if self.phase is not Phase.FINISHED:
            raise TableError("wrong_phase", "You can ask for a rematch once the game is over")
        if seat == self.host:
            self.rematch(token, now)
            return self.version
        if seat in self.rematch_requests:
            return self.version  # (asked already: nothing changes)
        token_hash = self.seats[seat].token_hash
        assert token_hash is not None
        self._rematch[seat] = (token_hash, self.game_no)
        if not self._rematch_agreed(now):
            self._social_changed()
        return self.version

    def take_back(self, token: str | None, now: float) -> int:
        """The person holding ``token`` is back at the keyboard: a seat a bot was playing for them (on autopilot,
        after timed-out decisions) is theirs again, and their next decision waits for them. Returns the version
        after it (unchanged when the seat was theirs already)."""
        seat = self.seat_of(token)
        player = self.seats[seat]
        if not player.autopilot and not player.timeouts:
            return self.version
        player.autopilot = False
        player.timeouts = 0
        self._seats_changed()
        self._changed(now)
        self._schedule(now)
        return self.version

    def _rematch_agreed(self, now: float) -> bool:
        """If every person at the finished table asks for a rematch, deal it. "At the table" is connected: a
        rematch does not wait for someone who has gone away, the host included (the host's asking starts it
        anyway). With nobody connected (a table driven without connections), every person."""
        people = [seat for seat, player in enumerate(self.seats) if player.kind is SeatKind.HUMAN]
        present = [seat for seat in people if self.seats[seat].connected] or people
        if self.phase is not Phase.FINISHED or not present or not set(present) <= set(self.rematch_requests):
            return False
        self._new_game(now)
        return True

    def leave(self, token: str | None, now: float) -> int:
        """The person holding ``token`` leaves for good (their token stops working); returns the version after it.

        In the lobby their seat opens; once a game has been dealt a bot takes it (a game needs every seat). A
        host who leaves hands the host's role to the next person seated; a lobby nobody is left in is closed.
        """
        seat = self.seat_of(token)
        if self.phase is Phase.LOBBY:
            self.seats[seat] = Seat()
        else:
            self.seats[seat] = Seat(SeatKind.BOT, _bot_name("normal", seat), level="normal")
        self._seats_changed()
        people = [(seat + offset) % len(self.seats) for offset in range(1, len(self.seats))]
        people = [index for index in people if self.seats[index].kind is SeatKind.HUMAN]
        if seat == self.host:
            self.host = people[0] if people else None
        if not people and self.phase is Phase.LOBBY:
            self.closed = True
        self._changed(now)
        self._schedule(now)
        self._rematch_agreed(now)
        return self.version

    def refuse_if_closed(self) -> None:
        """A table every person left in its lobby takes nobody any more."""
        if self.closed:
            raise TableError("wrong_phase", "Everyone left this table, so it is closed; open a new table")

    def listed_at(self) -> float | None:
        """When the table was opened, while it is listed among the public tables (its host chose ``public``, it
        waits in its lobby with a seat open); ``None`` otherwise. The store keeps it in a column of its own."""
        if (not self.settings.public or self.phase is not Phase.LOBBY or self.closed
                or not any(seat.kind is SeatKind.OPEN for seat in self.seats)):
            return None
        return self.created_at if self.created_at is not None else self.changed_at or 0.0

    @property
    def stored_phase(self) -> str:
        """The phase the database lists the table under: ``closed`` once every person left its lobby (a restart
        then does not load it)."""
        return "closed" if self.closed else self.phase.value

    def chat_name(self, token: str | None, spectator: str | None = None) -> tuple[int | None, str]:
        """Who a chat line is from: the seat and its name, or a spectator (``spectator``: the name of their hello,
        already checked; ``None``: "Spectator"). A spectator may not pass for someone at the table."""
        if token is not None:
            seat = self.seat_of(token)
            return seat, self._name(seat)
        if spectator is None:
            return None, SPECTATOR_NAME
        key = _name_key(spectator)
        if any(seat.kind is not SeatKind.OPEN and _name_key(seat.name) == key for seat in self.seats):
            return None, f"{spectator} (watching)"
        return None, spectator

    def say(self, token: str | None, text: str, now: float, *, spectator: str | None = None) -> int:
        """A chat line from the person holding ``token`` (``None``: a spectator, named ``spectator``); returns the
        version after it. Refused in plain words: a muted seat, text that is empty, too long or not plain."""
        return self._add_line(token, clean_chat_text(text), "chat", now, spectator)

    def react(self, token: str | None, emoji: str, now: float, *, spectator: str | None = None) -> int:
        """A reaction (one of :data:`REACTIONS`), a chat line of kind ``reaction``; returns the version after it."""
        if emoji not in REACTIONS:
            raise TableError("bad_request", f"Choose one of the reactions: {' '.join(REACTIONS)}")
        return self._add_line(token, emoji, "reaction", now, spectator)

    def _add_line(self, token: str | None, text: str, kind: str, now: float, spectator: str | None) -> int:
        seat, name = self.chat_name(token, spectator)
        if seat is not None and seat in self.muted:
            raise TableError("muted", "The host has muted you")
        self._chat_no += 1
        self.chat.append({"n": self._chat_no, "seat": seat, "name": name, "text": text, "at": now, "kind": kind})
        self._chat_view = list(self.chat)
        self._social_changed()
        return self.version

    def mute(self, token: str | None, seat: int, muted: bool, now: float) -> int:
        """Host: mute (or unmute) the person in ``seat``: their chat lines and reactions are refused."""
        host = self._host_check(token)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise TableError("bad_request", f"This table has {len(self.seats)} seats: choose one of them")
        player = self.seats[seat]
        if seat == host:
            raise TableError("bad_request", "You cannot mute yourself")
        if player.kind is not SeatKind.HUMAN or player.token_hash is None:
            raise TableError("bad_request", "Only a person at the table can be muted" if player.kind is SeatKind.BOT
                             else "Nobody sits there")
        if (seat in self.muted) == muted:
            return self.version  # (already so: nothing changes)
        if muted:
            self._muted[seat] = player.token_hash
        else:
            self._muted.pop(seat, None)
        self._social_changed()
        return self.version

    def _social_changed(self) -> None:
        """A change of the chat, the muted seats or the rematch requests: a new version (so everyone is sent it),
        which leaves every clock alone (a chat line does not restart anyone's decision clock)."""
        self.version += 1
        self._shared_json = None

    def _social_json(self) -> dict[str, Any]:
        return {"chat": list(self.chat), "chat_no": self._chat_no,
                "muted": sorted([seat, token_hash] for seat, token_hash in self._muted.items()),
                "rematch": sorted([seat, token_hash, game_no] for seat, (token_hash, game_no) in self._rematch.items()),
                "created_at": self.created_at, "closed": self.closed}

    def _restore_social(self, data: dict[str, Any]) -> None:
        """The social part of a saved row (rows saved before issue 16 have none)."""
        self.chat.extend(dict(line) for line in data.get("chat") or ())
        self._chat_view = list(self.chat)
        self._chat_no = data.get("chat_no") or 0
        self._muted = {seat: token_hash for seat, token_hash in data.get("muted") or ()}
        self._rematch = {seat: (token_hash, game_no) for seat, token_hash, game_no in data.get("rematch") or ()}
        self.created_at = data.get("created_at")
        self.closed = bool(data.get("closed"))

    # ------------------------------------------------------------------ persistence

    def to_json(self) -> dict[str, Any]:
        """Everything but the moves (persisted one by one) needed to restore this table."""
        return {
            "code": self.code,
            "settings": self._settings_shared(),  # (encoded at once)
            "seats": self._seats_json_full(),
            "host": self.host,
            "phase": self.phase.value,
            "seed": self.seed,
            "game_no": self.game_no,
            "version": self.version,
            "deadlines": {name: getattr(self.deadlines, name) for name in self.deadlines.__dataclass_fields__},
            "rng": self._rng.state,
            "origin": self.origin,
            "at": self.changed_at,
            "resume_at": self.resume_at,
            "log_base": self._log_base,
            **self._social_json(),
        }

    def row_key(self) -> tuple[Any, ...]:
        """What :meth:`to_json` holds that the moves do not bring back: while it stays the same and the version
        has moved only by the new moves, the row saved before still restores this table (with those moves), so
        a server need not write it again with every move. (A restore takes the later of the row's ``at`` and the
        last move's, and works the other clocks out afresh from it; ``origin`` and ``log_base`` change only with
        ``game_no``.)
        """
        return (self.phase, self.host, self.game_no, self.seats_generation, self._rng.state, self.deadlines.scepter,
                self.settings, self.resume_at)

    @classmethod
    def from_json(cls, data: dict[str, Any], moves: Sequence[LoggedMove], now: float,
                  agent_factory: AgentFactory | None = None) -> Table:
        """Restore a table: deal its game as it was dealt, replay the moves, and re-arm its clocks from ``now``.

        The server was away between the table's last saved change and ``now``, and nobody could act: every
        clock (each person's decision, the scepter's hidden delay, a bot's move, the next deal) resumes with
        the time it had left when the table last ran, counted from the end of a pause of
        :data:`RESTART_GRACE_SECONDS` for the people to reconnect (which ends as soon as all are back).
        "When the table last ran" is its last saved change (a move's ``at``, or ``at`` in the row) or the end
        of an earlier pause: after a SIGKILL nothing says how long the server ran on after that (a graceful
        stop saves every person's disconnection, a change, so it is the stop), and that time is not counted
        against anyone. docs/protocol.md (Reconnecting) says what players see.
        """
        table = cls(data["code"], TableSettings.from_json(data["settings"]), seed=data["seed"],
                    agent_factory=agent_factory)
        table.seats = [Seat.from_json(seat) for seat in data["seats"]]
        table.host = data["host"]
        table.phase = Phase(data["phase"])
        table.game_no = data["game_no"]
        table.version = data["version"]
        table.resume_at = data.get("resume_at")
        saved_rng = data["rng"]
        # Rows written before version 0.2 hold a random.Random state: continue from a seed derived from it.
        table._rng.state = saved_rng if isinstance(saved_rng, int) else _legacy_rng_seed(saved_rng)
        if table.game_no:
            table._event_no = table._log_base = data.get("log_base") or 0
            setup: list[ev.Event] = []
            # Rows saved before the deal was kept have no origin (every game's row has one since).
            table.origin = data.get("origin") or table._legacy_origin(moves)
            table.game = table._deal(table.origin, setup)
            table._record_events(setup)
            for logged in moves:
                move = Move.parse(logged.move)
                table._record_events(table.game.state.apply(move.seat, move.action), move.seat, logged.by)
                if logged.version is not None:
                    # The row is not rewritten for a move that changes nothing else (see row_key): the moves
                    # carry the versions since.
                    table.version = max(table.version, logged.version)
                if logged.client_id is not None and move.seat is not None:
                    table._recent.setdefault(move.seat, deque(maxlen=_RECENT_IDS)).append(
                        (logged.client_id, logged.version if logged.version is not None else data["version"]))
            table.moves = MoveLog(moves)
        times = [at for at in (data.get("at"), moves[-1].at if moves else None) if at is not None]
        last = max(times) if times else now
        table.changed_at = last
        table._seats_changed()
        if table.phase is Phase.PLAYING:
            ran = last if table.resume_at is None else max(last, table.resume_at)
            table.deadlines.scepter = data["deadlines"].get("scepter")
            table._schedule(last)  # the clocks as they were after the last change (the scepter's is saved)
            people = any(seat.kind is SeatKind.HUMAN for seat in table.seats)
            resume = now + RESTART_GRACE_SECONDS if people else now
            deadlines = table.deadlines
            for name in deadlines.__dataclass_fields__:
                due = getattr(deadlines, name)
                if due is not None:
                    setattr(deadlines, name, resume + max(0.0, due - ran))
            for seat in table.seats:
                if seat.kind is SeatKind.HUMAN:
                    # Someone connected when the server went away is away from when the table resumes; an earlier
                    # disconnection keeps the grace it had left.
                    seat.disconnected_at = (resume if seat.connected or seat.disconnected_at is None
                                            else seat.disconnected_at + (resume - ran))
            # (With nobody to wait for the pause is over at once, but the row still says when the table resumed: a
            # change that leaves the clocks alone, such as a spectator's chat line at a table of bots, may rewrite it,
            # and the next restart must count from here, not from the last move.)
            table.resume_at = resume
            table._clamp_to_grace(resume)
        else:
            table._schedule(now)
            for seat in table.seats:
                if seat.kind is SeatKind.HUMAN and seat.disconnected_at is None:
                    seat.disconnected_at = now
        for seat in table.seats:
            seat.connected = False  # connections do not survive a restart; players reconnect
        table._restore_social(data)
        return table

    def _clamp_to_grace(self, start: float) -> None:
        """A restored decision clock ends no later than its person's grace, as :meth:`_schedule` has it: someone
        connected when the server went away is away from the end of the pause. (So the clocks of a restored table
        are the ones any later change works out: a chat line, which leaves the clocks alone, may rewrite the row
        that the next restart reads.)"""
        decision = self.deadlines.decision
        decider = self.game.state.decider if self.game is not None else None
        if decision is None or decider is None:
            return
        player = self.seats[decider]
        if player.kind is SeatKind.HUMAN and not player.autopilot and player.disconnected_at is not None:
            self.deadlines.decision = min(decision, max(player.disconnected_at + self.settings.grace_seconds, start))

    def add_move_listener(self, listener: Callable[[LoggedMove], None]) -> None:
        """Call ``listener`` with every accepted move, before anything is sent (for persistence)."""
        self._on_move.append(listener)


def _made_for(happened: list[ev.Event], seat: int | None, by: str | None) -> int:
    """The index of the event that records the decision the table made for the person in ``seat`` (a move
    ``by`` ``timeout`` or ``autopilot``), or -1."""
    if by is not None and by in MADE_FOR:
        for index, event in enumerate(happened):
            if ev.decided_by(event) == seat:
                return index
    return -1


def _legacy_rng_seed(data: list[Any]) -> int:
    state = random.Random()
    state.setstate((data[0], tuple(data[1]), data[2]))
    return state.getrandbits(64)


_CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH: Final = 10
"""Letters in a new table's code: 31**10, about 49.5 bits, so that a table cannot be found by guessing
(docs/protocol.md works out how long it would take). Tables opened with 6-letter codes keep them."""
_CODE_GROUP: Final = 5


def new_code(length: int = CODE_LENGTH) -> str:
    """A table code without look-alike characters (no 0/O, 1/I/L)."""
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(length))


NAME_LENGTH: Final = 24
"""The most characters a person's name may have."""
_HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})
"""Unicode categories of characters that show nothing or steer the text (controls, formats such as U+200B and
the right-to-left override U+202E, private use, unassigned, surrogates, line and paragraph separators)."""
_BLANKS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
"""Characters of visible categories that draw nothing (Hangul fillers, the blank Braille pattern, ...)."""
_BOT_NAME: Final = re.compile(rf"(?:{'|'.join(BOT_LEVELS)}) bot \d+")


def _bot_name(level: str, seat: int) -> str:
    """A bot's name: its level and its seat as people count them (``Hard bot 3``); no person may take one."""
    return f"{level.capitalize()} bot {seat + 1}"


def _name_key(name: str) -> str:
    """What two names must not share at one table: ``ANN``, ``ann`` and a full-width ``Ann`` are one name."""
    return unicodedata.normalize("NFKC", name).casefold()


def normalize_code(text: str) -> str:
    """A table code as typed or read aloud, in the form the server keeps: grouping dashes and spaces
    dropped, upper case.

    >>> normalize_code(" k7qmp-wxab3 ")
    'K7QMPWXAB3'
    """
    return "".join(text.split()).replace("-", "").upper()


def display_code(code: str) -> str:
    """A table code as people read it: a long code in groups of five (a 6-letter code stays whole).

    >>> display_code("K7QMPWXAB3"), display_code("K7QMPW")
    ('K7QMP-WXAB3', 'K7QMPW')
    """
    if len(code) <= 6:
        return code
    return "-".join(code[start:start + _CODE_GROUP] for start in range(0, len(code), _CODE_GROUP))


def _clean_name(name: object) -> str:
    """A person's name as shown: trimmed, inner spaces collapsed; refused in plain words if it is not fit to show."""
    if not isinstance(name, str):
        raise TableError("bad_request", "Please enter your name")
    cleaned = unicodedata.normalize("NFC", name).strip()
    if any(unicodedata.category(char) in _HIDDEN_CATEGORIES or char in _BLANKS for char in cleaned):
        raise TableError("bad_request", "A name must not contain invisible or control characters")
    cleaned = " ".join(cleaned.split())  # (runs of spaces, no-break spaces included, become one space)
    if not cleaned:
        raise TableError("bad_request", "Please enter your name")
    if len(cleaned) > NAME_LENGTH:
        raise TableError("bad_request", f"A name may have at most {NAME_LENGTH} characters")
    if not any(unicodedata.category(char)[0] in "LNPS" for char in cleaned):
        raise TableError("bad_request", "A name must have a letter, a digit or a symbol that can be seen")
    if _BOT_NAME.fullmatch(_name_key(cleaned)):
        raise TableError("bad_request", f"{cleaned} is a name kept for the table's bots; choose another name")
    return cleaned


_LOG_SEATS: Final[dict[type, tuple[str, str | None]]] = {
    ev.Played: ("seat", None), ev.Drew: ("seat", None), ev.Kept: ("seat", None), ev.Passed: ("seat", None),
    ev.Skipped: ("seat", None), ev.UnoCalled: ("seat", None), ev.Caught: ("seat", "catcher"),
    ev.ColourChosen: ("king", None), ev.VictimChosen: ("victim", "king"), ev.JesterChosen: ("jester", "king"),
    ev.CrownPassed: ("new_king", "old_king"), ev.RoundEnded: ("winner", None),
}
"""For each kind of event, the field naming the seat it happens to (the log entry's ``seat``) and the one naming
the seat it comes from (``from``), so that a client can animate it without reading the sentence."""


def _log_seats(event: ev.Event) -> dict[str, int]:
    """A log entry's ``seat`` and ``from`` (and a draw's ``count``) for ``event``."""
    fields = _LOG_SEATS.get(type(event))
    if fields is None:
        return {}
    subject, source = fields
    seats = {"seat": getattr(event, subject)}
    if source is not None:
        seats["from"] = getattr(event, source)
    if isinstance(event, ev.Drew):
        seats["count"] = event.count
    return seats


def _log_facts(event: ev.Event) -> dict[str, Any]:
    """A log entry's public facts besides its sentence: its seats (:func:`_log_seats`) and a played card."""
    facts: dict[str, Any] = _log_seats(event)
    if isinstance(event, ev.Played):
        facts["card"] = str(event.card)
    return facts


def _hash_client(code: str, client: str) -> str:
    # With the table's code: the same browser's seats at two tables do not share a hash.
    return hashlib.sha256(f"{code}/{client}".encode()).hexdigest()


CHAT_LENGTH: Final = 200
"""The most characters a chat line may have."""
CHAT_SIZE: Final = 50
"""How many chat lines a table keeps (and every view shows)."""
SPECTATOR_NAME: Final = "Spectator"
"""The name of a spectator's chat lines when their hello gave none."""
REACTIONS: Final = ("\U0001f44d", "\U0001f44f", "\U0001f602", "\U0001f62e", "\U0001f621", "\U0001f451",
                    "\U0001f0cf", "\U0001f389")
"""The reactions a person may send (thumbs up, clapping, laughing, surprise, anger, the Crown, the Joker, party)."""


def clean_chat_text(text: object) -> str:
    """A chat line's text: trimmed, then 1 to :data:`CHAT_LENGTH` characters of plain text (the same invisible and
    control characters as in names are refused). Markup is only text: it is kept as it is, and shown as text."""
    if not isinstance(text, str):
        raise TableError("bad_request", "A chat message must be text")
    cleaned = unicodedata.normalize("NFC", text).strip()
    if any(unicodedata.category(char) in _HIDDEN_CATEGORIES or char in _BLANKS for char in cleaned):
        raise TableError("bad_request", "A chat message must not contain invisible or control characters "
                                        "(nor line breaks)")
    if not cleaned or not any(unicodedata.category(char)[0] in "LNPS" for char in cleaned):
        raise TableError("bad_request", "Write something before sending")
    if len(cleaned) > CHAT_LENGTH:
        raise TableError("bad_request", f"A chat message can have at most {CHAT_LENGTH} characters")
    return cleaned


def clean_spectator_name(name: object) -> str:
    """A spectator's name for the chat, from their hello: the rules of people's names."""
    return _clean_name(name)


# Keep dataclass helpers referenced for readers: seats are replaced whole, never mutated by views.
_ = (replace, field)
