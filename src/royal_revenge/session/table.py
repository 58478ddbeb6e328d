"""A real-time table: seats, the scepter's clock, decision clocks and bot takeover.

A :class:`Table` owns one engine :class:`~royal_revenge.engine.Game` and everything about
playing it live that the rules do not know: who sits where, who is host, when the scepter
sounds (a random delay, hidden from everyone), how long a decision may take, when a bot
plays, and when the next round is dealt.

The table never reads a clock. Every method that can change something takes ``now``
(seconds, any epoch) and the owner calls :meth:`Table.tick` at :meth:`Table.next_deadline`;
tests move time by hand (:mod:`.runner` is the loop that does it live). The table does no I/O either: the
server persists what :meth:`Table.to_json` and :attr:`Table.moves` hold and sends what :meth:`Table.view`
returns.

The table is the game's life cycle (the lobby's commands, dealing, a person's action, a resumed record) over
parts of one concern each: :class:`~.seats.Seating` (seats, host, tokens), :class:`~.schedule.Scheduler`
(clocks and bots), :class:`~.views.Views` (what each seat is shown, cached), :class:`~.social.Social` (chat,
muting, rematch requests), :class:`~.log.EventLog` and :class:`~.log.MoveLog` (what happened), and the saved row
(:mod:`.row`).
"""

from __future__ import annotations

import random
import secrets
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Final

from ..engine import (
    Action,
    AnyAction,
    Game,
    GameRecord,
    IllegalActionError,
    Move,
    RoyalRevengeError,
    state_digest,
)
from ..engine import events as ev
from ..narration import explain_refusal
from . import row
from .log import EventLog, LoggedMove, MoveLog, MoveRow
from .replay import replay, replay_frames
from .row import CARRIED_IDS, RECENT_IDS, RESTART_GRACE_SECONDS
from .schedule import SLOW_LEVELS, AgentFactory, BotTurn, Deadlines, Scheduler
from .seats import (
    BOT_LEVELS,
    CODE_LENGTH,
    LEVEL_CHOICE,
    NAME_LENGTH,
    Seat,
    Seating,
    SeatKind,
    check_person,
    display_code,
    new_code,
    normalize_code,
)
from .settings import SETTING_WORDS, Phase, TableError, TableSettings
from .social import (
    CHAT_LENGTH,
    CHAT_SIZE,
    REACTIONS,
    SPECTATOR_NAME,
    Social,
    clean_chat_text,
    clean_spectator_name,
)
from .views import Views

__all__ = ["BOT_LEVELS", "CODE_LENGTH", "NAME_LENGTH", "RESTART_GRACE_SECONDS", "SLOW_LEVELS", "AgentFactory",
           "BotTurn", "LoggedMove", "MoveRow", "Phase", "Seat", "SeatKind", "Table", "TableError", "TableSettings",
           "display_code", "new_code", "normalize_code"]
__all__ += ["CHAT_LENGTH", "CHAT_SIZE", "REACTIONS", "SETTING_WORDS", "SPECTATOR_NAME", "clean_chat_text",
            "clean_spectator_name"]
_SEATS_OPEN: Final = "Fill every seat with a player or a bot first"


class Table:
    """One live table. Create with :meth:`open`, restore with :meth:`from_json`."""

    def __init__(self, code: str, settings: TableSettings, *, seed: int, agent_factory: AgentFactory | None = None):
        self.code = code
        self.settings = settings
        self.seating = Seating(settings.players)
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
        self.created_at: float | None = None
        """When the table was opened (its first person sat down): the public tables are listed newest first."""
        self.closed = False
        """Every person left the lobby: the table takes nobody any more."""
        self.events = EventLog()
        self.recent: dict[int, deque[tuple[str, int]]] = {}
        """Each seat's last message ids and the version each left the table at (a repeated id is answered so)."""
        self.carried_ids: dict[int, list[tuple[str, int]]] = {}
        """The last ids of each seat in the game before this one (:data:`~.row.CARRIED_IDS`), kept in
        :attr:`recent` too: the row saves them, as the moves hold only this game's."""
        self.scheduler = Scheduler(self, seed, agent_factory)
        self.views = Views(self)
        self.social = Social(self)
        self._on_move: list[Callable[[LoggedMove], None]] = []

    # ------------------------------------------------------------------ the parts, as the callers name them

    @property
    def seats(self) -> list[Seat]:
        return self.seating.seats

    @property
    def host(self) -> int | None:
        return self.seating.host

    @property
    def seats_generation(self) -> int:
        """Changes with every change to a seat (see :attr:`Seating.generation`)."""
        return self.seating.generation

    @property
    def deadlines(self) -> Deadlines:
        """When each clock comes due (:class:`~.schedule.Deadlines`)."""
        return self.scheduler.deadlines

    @property
    def resume_at(self) -> float | None:
        """After a restart, when the table's clocks run again unless every person is back first."""
        return self.scheduler.resume_at

    @property
    def log(self) -> deque[ev.Event]:
        """The recent events, oldest first (numbered up to :attr:`log_last`)."""
        return self.events.events

    @property
    def chat(self) -> deque[dict[str, Any]]:
        """The last chat lines, oldest first."""
        return self.social.chat

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
        name, age = check_person(name, age)
        if self.phase is not Phase.LOBBY:
            raise TableError("wrong_phase", "The game has started; you can watch it")
        seated = self.seating.seat_person(self.code, name, age, client)
        self._changed(now)
        return seated

    def holds(self, seat: int, token: str) -> bool:
        """Whether ``token`` still holds ``seat`` (checked before every frame a player's connection is sent)."""
        return self.seating.holds(seat, token)

    def seat_of(self, token: str | None) -> int:
        """The seat a token holds; refuses unknown or revoked tokens."""
        return self.seating.seat_of(token)

    def add_bot(self, token: str | None, level: str, now: float, seat: int | None = None) -> int:
        """Host: seat a bot of ``level`` in ``seat`` (an open seat), or in the first open seat."""
        self.seating.host_check(token)
        if level not in BOT_LEVELS:
            raise TableError("bad_request", LEVEL_CHOICE)
        if self.phase is not Phase.LOBBY:
            raise TableError("wrong_phase", "Bots are added before the game starts")
        index = self.seating.seat_bot(level, seat)
        self._changed(now)
        return index

    def remove(self, token: str | None, seat: int, now: float) -> None:
        """Host: remove a bot, or kick a person (their token stops working). In play a bot takes the seat.

        In the lobby anyone may be removed. Once a game is dealt a person's seat goes to a bot only when
        they have left (no connection) or timed out: a host cannot take a seat from someone playing.
        """
        seating = self.seating
        host = seating.host_check(token)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seating.seats):
            raise TableError("bad_request", "There is no such seat at this table")
        if seat == host:
            raise TableError("bad_request", "As the host you cannot remove yourself")
        current = seating.seats[seat]
        if current.kind is SeatKind.OPEN:
            raise TableError("bad_request", "That seat is already open")
        if (self.phase is not Phase.LOBBY and current.kind is SeatKind.HUMAN and current.connected
                and not current.autopilot and not current.timeouts):
            raise TableError("still_playing", f"{current.name} is still playing; a seat can be handed to a bot "
                                              "only when its player has left or timed out")
        seating.vacate(seat, in_play=self.phase is not Phase.LOBBY)  # (a game needs every seat: a bot takes it)
        self._changed(now)
        self.scheduler.plan(now)

    def start(self, token: str | None, now: float) -> None:
        self.seating.host_check(token)
        if self.phase is not Phase.LOBBY:
            raise TableError("wrong_phase", "The game has already started")
        if self.seating.any_open():
            raise TableError("seats_open", _SEATS_OPEN)
        self._new_game(now)

    def rematch(self, token: str | None, now: float) -> None:
        self.seating.host_check(token)
        if self.phase is not Phase.FINISHED:
            raise TableError("wrong_phase", "A rematch can start once this game is over")
        self._new_game(now)

    def resume(self, token: str | None, record: GameRecord, now: float) -> None:
        """Host: start by continuing a recorded game (a saved terminal game) instead of dealing a new one.

        The record is replayed move by move (and checked against its final digest when it has one); the
        seats must already be filled as they were. A running scepter gets a fresh random delay from ``now``.
        """
        self.seating.host_check(token)
        if self.phase is not Phase.LOBBY:
            raise TableError("wrong_phase", "A saved game can be resumed only before any game starts")
        if self.seating.any_open():
            raise TableError("seats_open", _SEATS_OPEN)
        if record.options != self.settings.options():
            raise TableError("bad_record", "the saved game's rules differ from this table's settings")
        setup: list[ev.Event] = []
        happened: list[list[ev.Event]] = []
        try:
            game = replay(record, lambda index, move, events: happened.append(events), setup.extend)
        except RoyalRevengeError as error:
            reason = str(error).removeprefix("record: ")
            raise TableError("bad_record", f"the saved game does not replay: {reason}") from None
        if record.final_digest is not None and state_digest(game.state) != record.final_digest:
            raise TableError("bad_record", "the saved game does not replay to its recorded state")
        self.game_no += 1
        self.recent.clear()  # (a loaded record's game: its moves carry no ids)
        self.carried_ids = {}
        self.events.new_game()
        self.events.record(setup)
        for events in happened:
            self.events.record(events)
        self.moves = MoveLog((str(move), "record", None, now, self.version + 1) for move in record.moves)
        self.origin = {"seed": record.seed, "ages": record.ages, "first_king": record.first_king}
        self.game = game
        state = game.state
        self.phase = Phase.FINISHED if state.is_over() else Phase.PLAYING
        if state.scepter_running and not state.fanfare_queued and self.phase is Phase.PLAYING:
            self.scheduler.deadlines.scepter = self.scheduler.scepter_delay(now)
        self._changed(now)
        self.scheduler.plan(now)

    def _new_game(self, now: float) -> None:
        self.game_no += 1
        self.moves = MoveLog()
        # An action of the last game resent after a reconnection is acknowledged, not applied to this one.
        self.carried_ids = {seat: list(ids)[-CARRIED_IDS:] for seat, ids in self.recent.items() if ids}
        self.recent = {seat: deque(ids, maxlen=RECENT_IDS) for seat, ids in self.carried_ids.items()}
        self.events.new_game()
        self.origin = {"seed": self.game_seed(), "ages": self.seating.ages(), "first_king": None}
        setup: list[ev.Event] = []
        self.game = self.deal(self.origin, setup)
        self.phase = Phase.PLAYING
        self.events.record(setup)
        self._changed(now)
        self.scheduler.plan(now)

    def game_seed(self) -> int:
        """The seed the current game (:attr:`game_no`) is dealt from: from the table's seed."""
        return random.Random(f"{self.seed}/{self.game_no}").getrandbits(63)

    def deal(self, origin: dict[str, Any], setup: list[ev.Event]) -> Game:
        """The current game as it was dealt (:attr:`origin`), its setup events appended to ``setup``."""
        return Game.new(self.settings.options(), origin["seed"], ages=origin["ages"], first_king=origin["first_king"],
                        events=setup)

    def leave(self, token: str | None, now: float) -> int:
        """The person holding ``token`` leaves for good (their token stops working); returns the version after it.

        In the lobby their seat opens; once a game has been dealt a bot takes it (a game needs every seat). A
        host who leaves hands the host's role to the next person seated; a lobby nobody is left in is closed.
        """
        seating = self.seating
        seat = seating.seat_of(token)
        seating.vacate(seat, in_play=self.phase is not Phase.LOBBY)
        people = seating.people_after(seat)
        if seat == seating.host:
            seating.host = people[0] if people else None
        if not people and self.phase is Phase.LOBBY:
            self.closed = True
        self._changed(now)
        self.scheduler.plan(now)
        self._rematch_agreed(now)
        return self.version

    def refuse_if_closed(self) -> None:
        """A table every person left in its lobby takes nobody any more."""
        if self.closed:
            raise TableError("wrong_phase", "Everyone left this table, so it is closed; open a new table")

    def listed_at(self) -> float | None:
        """When the table was opened, while it is listed among the public tables (its host chose ``public``, it
        waits in its lobby with a seat open); ``None`` otherwise. The store keeps it in a column of its own."""
        if not self.settings.public or self.phase is not Phase.LOBBY or self.closed or not self.seating.any_open():
            return None
        return self.created_at if self.created_at is not None else self.changed_at or 0.0

    @property
    def stored_phase(self) -> str:
        """The phase the database lists the table under: ``closed`` once every person left its lobby (a restart
        then does not load it)."""
        return "closed" if self.closed else self.phase.value

    # ------------------------------------------------------------------ connections

    def set_connected(self, seat: int, connected: bool, now: float) -> None:
        """The server reports a seat's connection; a returning player takes their seat back."""
        seating = self.seating
        player = seating.seats[seat]
        if player.kind is not SeatKind.HUMAN or player.connected == connected:
            return
        player.connected = connected
        player.disconnected_at = None if connected else now
        seating.changed()
        if connected and player.autopilot:
            player.autopilot = False
            player.timeouts = 0
        scheduler = self.scheduler
        if connected and scheduler.resume_at is not None and all(
                seat.connected for seat in seating.seats if seat.kind is SeatKind.HUMAN):
            scheduler.resume_at = None  # everyone is back after a restart: no need to wait any longer
        self._changed(now)
        scheduler.plan(now)

    def take_back(self, token: str | None, now: float) -> int:
        """The person holding ``token`` is back at the keyboard: a seat a bot was playing for them (on autopilot,
        after timed-out decisions) is theirs again, and their next decision waits for them. Returns the version
        after it (unchanged when the seat was theirs already)."""
        player = self.seating.seats[self.seating.seat_of(token)]
        if not player.autopilot and not player.timeouts:
            return self.version
        player.autopilot = False
        player.timeouts = 0
        self.seating.changed()
        self._changed(now)
        self.scheduler.plan(now)
        return self.version

    # ------------------------------------------------------------------ playing

    def act(self, token: str | None, action: AnyAction | dict[str, Any] | str, now: float,
            client_id: str | None = None, game_no: int | None = None) -> int:
        """A person's action. Returns the version after it; a repeated ``client_id`` is not applied twice (also
        once the next game has started), and an action for game ``game_no`` is refused in any other game."""
        seat = self.seating.seat_of(token)
        if client_id is not None:
            for seen, version in self.recent.get(seat, ()):
                if seen == client_id:
                    return version
        if game_no is not None and game_no != self.game_no:
            # (sent for a game that has ended, e.g. resent after a reconnection while a rematch began)
            raise TableError("wrong_game", "That move was meant for the game before this one, so it was not made")
        if self.phase is not Phase.PLAYING or self.game is None:
            raise TableError("wrong_phase", "The game has not started yet" if self.phase is Phase.LOBBY
                             else "The game is over")
        try:
            parsed = Action.parse(action) if isinstance(action, str) else (
                Action.from_json(action) if isinstance(action, dict) else action)
        except RoyalRevengeError as error:
            raise TableError("bad_action", str(error)) from None  # (a malformed action: only a forged frame)
        player = self.seating.seats[seat]
        self._apply(seat, parsed, "player", client_id, now)
        if player.timeouts or player.autopilot:
            player.timeouts = 0
            player.autopilot = False
            self.seating.changed()
        if client_id is not None:
            recent = self.recent.get(seat)
            if recent is None:
                recent = self.recent[seat] = deque(maxlen=RECENT_IDS)
            recent.append((client_id, self.version))
        self.scheduler.plan(now)
        return self.version

    def _apply(self, seat: int | None, action: AnyAction, by: str, client_id: str | None, now: float) -> None:
        """Apply a move to the game (a person's, a bot's, the table's own), log it and its events."""
        assert self.game is not None
        state = self.game.state
        try:
            # (the game's record is made from the table's moves when asked for: see record)
            happened = state.apply(seat, action)
        except IllegalActionError as error:
            if seat is None:
                raise TableError("illegal", str(error)) from None
            raise TableError("illegal", explain_refusal(state.observe(seat), action, state.legal_actions(seat),
                                                        self.seating.name)) from None
        self._changed(now)
        notation = str(action) if seat is None else f"{seat}:{action}"  # (str(Move(seat, action)))
        self.moves.append(notation, by, client_id, now, self.version)
        if self._on_move:
            logged = LoggedMove(notation, by, client_id, now, self.version)
            for listener in self._on_move:
                listener(logged)
        self.events.record(happened, seat, by)
        self.scheduler.after_events(happened, now)
        if state.is_over():
            self.phase = Phase.FINISHED

    def _changed(self, now: float) -> None:
        self.version += 1
        self.changed_at = now

    # ------------------------------------------------------------------ clocks and bots (.schedule)

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has something to do (``None``: nothing until someone acts)."""
        return self.scheduler.next_deadline()

    def slow_bot_turn(self, now: float) -> BotTurn | None:
        """The searching bot's move that :meth:`tick` would make first at ``now``, if that is what is due.

        A server works it out with :meth:`BotTurn.decide` off its event loop, then passes the
        answer to :meth:`tick`, so that one table's thinking bot does not hold up every other table.
        """
        return self.scheduler.slow_bot_turn(now)

    def tick(self, now: float, prepared: tuple[BotTurn, AnyAction | None] | None = None) -> bool:
        """Do whatever is due at ``now``: the fanfare, a timed-out decision, a bot's move or catch, a deal.

        ``prepared`` is a :meth:`slow_bot_turn` and its answer, used if the table has not changed
        since (otherwise the bot decides afresh). Returns whether anything changed.
        """
        return self.scheduler.tick(now, prepared)

    # ------------------------------------------------------------------ views (.views)

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
        return self.views.view(seat, log_after, share)

    def shared_view(self) -> dict[str, Any]:
        """The parts of a view that are the same for every seat: a spectator's view without its ``log``.

        Built once per change and cached: read it, never change it (the caller's copy of it is
        :meth:`view`).
        """
        return self.views.shared()

    def game_changes(self, before: dict[str, Any]) -> list[str] | None:
        """The keys of the shared view's ``game`` that changed since ``before`` (an earlier one of this table's), if
        that is known at no cost (``before`` is the one made just before the latest); ``None`` otherwise."""
        return self.views.game_changes(before)

    def own_game_view(self, seat: int | None) -> dict[str, Any]:
        """The game's keys that differ from seat to seat: ``seat``, ``hand`` and ``drawn`` (a fresh dict)."""
        return self.views.own_game(seat)

    def uno_called(self) -> list[int]:
        """The seats that called UNO and hold one card now."""
        return self.views.uno_called()

    def prompt_view(self, seat: int | None) -> tuple[str | None, str | None]:
        """The view's ``prompt`` and ``hint`` for ``seat`` (``None``: a spectator): who must decide what, and a
        teaching sentence when one matters (:func:`~royal_revenge.narration.describe_pending`, ``describe_hint``).

        The shared view holds ``None`` for both; each seat's own are laid over it, like ``legal``.
        """
        return self.views.prompt(seat)

    def legal_view(self, seat: int | None) -> list[dict[str, Any]]:
        """The actions ``seat`` may take now, as JSON (none for a spectator or between games)."""
        return self.views.legal(seat)

    def legal_labels(self, seat: int | None, legal: Sequence[AnyAction] | None = None) -> list[str]:
        """The words of each of ``seat``'s legal actions (``legal``, by default :meth:`legal_actions`), in their
        order (:func:`~royal_revenge.narration.action_labels`): what the front ends show on their buttons."""
        return self.views.legal_labels(seat, legal)

    def legal_actions(self, seat: int | None) -> list[AnyAction]:
        """The actions ``seat`` may take now (none for a spectator or between games)."""
        return self.views.legal_actions(seat)

    def log_view(self, seat: int | None, log_after: int = 0) -> list[dict[str, Any]]:
        """The recent log entries numbered above ``log_after`` as ``seat`` sees them (shared: read only)."""
        return self.views.log(seat, log_after)

    def log_private_seats(self, log_after: int = 0) -> set[int]:
        """The seats that see some log entry numbered above ``log_after`` otherwise than a spectator does (their
        own draw, with its cards): every other seat's :meth:`log_view` is the spectator's, entry for entry."""
        return self.events.private_seats(log_after)

    @property
    def log_first(self) -> int:
        """The number of the oldest entry in the log window (0 when it is empty)."""
        return self.events.first

    @property
    def log_last(self) -> int:
        """The number of the newest entry in the log window (0 when it is empty)."""
        return self.events.last

    def seats_view(self) -> list[dict[str, Any]]:
        """The seats as everyone sees them (a fresh copy; the cache is rebuilt only after a seat changed)."""
        return [dict(seat) for seat in self.seating.public_json()]

    def settings_view(self) -> dict[str, Any]:
        """The table's settings (a fresh copy)."""
        return dict(self.views.settings())

    def _name(self, seat: int) -> str:
        return self.seating.name(seat)

    def replay_frames(self) -> list[dict[str, Any]]:
        """A finished game, move by move, with every hand open: for the replay view."""
        return replay_frames(self)

    def record(self) -> GameRecord:
        """The current game's record: its deal, every move so far, and the digest of the state they reach."""
        if self.game is None:
            raise TableError("wrong_phase", "no game has been played at this table")
        dealt = self.game.record()  # (the deal and the digest: the moves are the table's, see _apply)
        return GameRecord(dealt.options, dealt.seed, dealt.ages, dealt.first_king,
                          [Move.parse(row[0]) for row in self.moves.rows()], dealt.final_digest)

    # ------------------------------------------------------------------ chat, reactions, muting (.social)

    @property
    def muted(self) -> list[int]:
        """The seats whose person the host muted."""
        return self.social.muted()

    @property
    def rematch_requests(self) -> list[int]:
        """The seats whose person asks for a rematch of the game that is over."""
        return self.social.rematch_requests()

    def ask_rematch(self, token: str | None, now: float) -> int:
        """A person asks for a rematch once the game is over; returns the version after it. The host's asking
        starts it (as the host's ``rematch`` command does), and so does everyone's at the table."""
        seat = self.seating.seat_of(token)
        if self.phase is not Phase.FINISHED:
            raise TableError("wrong_phase", "You can ask for a rematch once the game is over")
        if seat == self.seating.host:
            self.rematch(token, now)
            return self.version
        if self.social.ask_rematch(seat) and not self._rematch_agreed(now):
            self._social_changed()
        return self.version

    def _rematch_agreed(self, now: float) -> bool:
        """If every person at the finished table asks for a rematch, deal it (:meth:`Social.rematch_agreed`)."""
        if not self.social.rematch_agreed():
            return False
        self._new_game(now)
        return True

    def chat_name(self, token: str | None, spectator: str | None = None) -> tuple[int | None, str]:
        """Who a chat line is from: the seat and its name, or a spectator (``spectator``: the name of their hello,
        already checked; ``None``: "Spectator"). A spectator may not pass for someone at the table."""
        return self.social.chat_name(token, spectator)

    def say(self, token: str | None, text: str, now: float, *, spectator: str | None = None) -> int:
        """A chat line from the person holding ``token`` (``None``: a spectator, named ``spectator``); returns the
        version after it. Refused in plain words: a muted seat, text that is empty, too long or not plain."""
        self.social.add_line(token, clean_chat_text(text), "chat", now, spectator)
        self._social_changed()
        return self.version

    def react(self, token: str | None, emoji: str, now: float, *, spectator: str | None = None) -> int:
        """A reaction (one of :data:`REACTIONS`), a chat line of kind ``reaction``; returns the version after it."""
        if emoji not in REACTIONS:
            raise TableError("bad_request", f"Choose one of the reactions: {' '.join(REACTIONS)}")
        self.social.add_line(token, emoji, "reaction", now, spectator)
        self._social_changed()
        return self.version

    def mute(self, token: str | None, seat: int, muted: bool, now: float) -> int:
        """Host: mute (or unmute) the person in ``seat``: their chat lines and reactions are refused."""
        host = self.seating.host_check(token)
        if self.social.mute(host, seat, muted):
            self._social_changed()
        return self.version

    def _social_changed(self) -> None:
        """A change of the chat, the muted seats or the rematch requests: a new version (so everyone is sent it),
        which leaves every clock alone (a chat line does not restart anyone's decision clock)."""
        self.version += 1
        self.views.forget_shared()

    # ------------------------------------------------------------------ persistence (.row)

    def to_json(self) -> dict[str, Any]:
        """Everything but the moves (persisted one by one) needed to restore this table."""
        return row.row_json(self)

    def row_key(self) -> tuple[Any, ...]:
        """What :meth:`to_json` holds that the moves do not bring back: while it stays the same and the version
        has moved only by the new moves, the row saved before still restores this table (with those moves), so
        a server need not write it again with every move. (A restore takes the later of the row's ``at`` and the
        last move's, and works the other clocks out afresh from it; ``origin`` and ``log_base`` change only with
        ``game_no``.)
        """
        return row.row_key(self)

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
        return row.restore(cls, data, moves, now, agent_factory)

    def add_move_listener(self, listener: Callable[[LoggedMove], None]) -> None:
        """Call ``listener`` with every accepted move, before anything is sent (for persistence)."""
        self._on_move.append(listener)
