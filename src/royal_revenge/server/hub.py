"""The live tables of one server process: locks, clocks, persistence and fan-out (frames: ``frames.py``).

Every change to a table happens under that table's lock, in arrival order: the table
changes, its new moves are written to the database, and only then are the acknowledgement
and everyone's new view queued for sending. One scheduler task wakes tables when their next
deadline (scepter, decision clock, bot move, next deal) comes due.

A player's message takes the short way (:meth:`Hub.submit`): no coroutine, task or future of
its own, only callbacks, from the moment its frame is read to the moment the frames it causes
are written (the table's turn, the database's group commit, the broadcast). Under load this is
most of what the server does, and every object a message leaves alive until it is answered is
one more the garbage collector scans. Everything else (joining, host commands over HTTP, the
clocks, bots) goes through :meth:`Hub.change` and friends, on the same lock.

The clock is injectable: :class:`FakeClock` lets tests move time by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

from ..clock import Clock, FakeClock, SystemClock
from ..engine import AnyAction
from ..session import BotTurn, Phase, Table, TableError, TableSettings
from ..session.runner import TableRunner
from ..session.table import AgentFactory, normalize_code
from .frames import Frames, Sent
from .leases import Held, Leases
from .protocol import CLOSE_MOVED, error_message
from .store import LeaseLost, Store, StoreError

__all__ = ["Clock", "FakeClock", "Hub", "Reply", "Subscriber", "SystemClock", "TableLock"]


log: Final = logging.getLogger("royal_revenge.server")

_TAKE_EXTRA_SECONDS: Final = 2.0
"""How long past a lease's length a request waits for a table another process holds (it asked for it)."""
_TAKE_POLL_SECONDS: Final = 0.1
"""How often a request waiting for a table tries to take it (a hand-over's notification usually comes first)."""

_RELOAD_FIRST_DELAY: Final = 0.05
_RELOAD_MAX_DELAY: Final = 5.0
"""Seconds between tries to read a table back from a database that refused its write and cannot be read."""

@dataclass(eq=False)
class Subscriber:
    """One connection watching a table: its seat (``None`` for spectators) and its outgoing queue."""

    seat: int | None
    send: Callable[[str], None]
    """Queue a text frame for this connection (never blocks)."""
    last_version: int = -1
    token: str | None = None
    """The token the seat was claimed with: a connection whose token no longer holds its seat (the player
    was kicked) is turned into a spectator, so that it never sees the next occupant's cards."""
    basis_seat: int | None = None
    basis_phase: Phase | None = None
    basis_game: int = -1
    """The seat, phase and game number of the last state sent; a different basis gets a full view
    (docs/protocol.md). (Three fields rather than a tuple made with every state: see ``Sent``.)"""
    log_after: int = 0
    """The newest log entry number this connection has been sent."""
    shared: dict[str, Any] | None = None
    """The shared view (``Table.shared_view``) as of the last state sent: what the next partial one leaves out."""
    sent: Sent = field(default_factory=Sent)
    """This seat's own parts (hand, drawn card, legal actions) as last sent."""
    seats_checked: int = -1
    """The table's ``seats_generation`` at which this connection's token was last found to hold its seat."""
    ack: str | None = None
    """The id of this connection's message whose change is being sent out: it rides in the next state."""
    close: Callable[[int, str], None] | None = None
    """Close this connection with a code, after a last frame (the table moved to another process of a cluster)."""

    def resync(self) -> None:
        """Send the next view whole (a ``sync`` request)."""
        self.last_version, self.basis_phase = -1, None


Reply = Callable[[Any, bool, "TableError | None"], None]
"""How :meth:`Hub.submit` answers: ``(result, acknowledged, error)``. ``acknowledged`` says the message's id
rode in the state the change caused; ``error`` is the refusal (then nothing changed)."""


class TableLock:
    """A table's turn: one change at a time, in arrival order, for coroutines and callbacks alike.

    ``async with lock:`` waits for its turn as :class:`asyncio.Lock` does; :meth:`run` gives the
    turn to a callback instead (called at once if the table is free), which must :meth:`release`
    it, perhaps only later (once its change is committed). Waiters of both kinds share one queue,
    so a table's messages are carried out in the order they arrived, however they came.

    >>> lock, calls = TableLock(), []
    >>> lock.run(lambda: calls.append("first"))   # free: called at once, and now holds the turn
    >>> lock.run(lambda: calls.append("second"))  # waits for it
    >>> calls, lock.locked()
    (['first'], True)
    """

    __slots__ = ("_held", "_waiting")

    def __init__(self) -> None:
        self._held = False
        self._waiting: deque[Callable[[], None] | asyncio.Future[None]] = deque()

    def locked(self) -> bool:
        return self._held

    def try_take(self) -> bool:
        """Take the turn if the table is free and nobody waits (then :meth:`release` it); ``False`` otherwise."""
        if self._held:
            return False
        self._held = True
        return True

    def run(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` holding the turn: now if the table is free, else when its turn comes."""
        if self._held:
            self._waiting.append(callback)
            return
        self._held = True
        callback()

    def release(self) -> None:
        """Pass the turn to the next waiter (a callback is called on the next turn of the event loop)."""
        waiting = self._waiting
        while waiting:
            waiter = waiting.popleft()
            if isinstance(waiter, asyncio.Future):
                if waiter.done():
                    continue  # (its coroutine was cancelled while waiting)
                waiter.set_result(None)
            else:
                # (not called here: a chain of waiters that finish at once would nest calls as deep as the queue)
                asyncio.get_running_loop().call_soon(waiter)
            return
        self._held = False

    async def __aenter__(self) -> None:
        if not self._held:
            self._held = True
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # the turn came just as the coroutine was cancelled: pass it on
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        self.release()


@dataclass(eq=False)
class _Live:
    table: Table
    lock: TableLock = field(default_factory=TableLock)
    subscribers: list[Subscriber] = field(default_factory=list)
    saved_moves: int = 0
    saved_game: int = 0
    saved_key: tuple[Any, ...] | None = None
    """``Table.row_key`` when the table's row was last written (None: write it next time)..."""
    saved_version: int = -1
    """... and the table's version when its moves were last written."""
    thinking: asyncio.Task[None] | None = None
    """A searching bot's move being worked out in a worker thread: the table's clocks wait for it."""
    owner: str | None = None
    """The address that opened the table in this process (counted against its live tables), if it did."""
    active_at: float = 0.0
    active_version: int = -1
    """When the table was last seen in use (a connection, a request, a move) and its version then."""
    epoch: int | None = None
    """In a cluster: the epoch of this process's lease on the table, which every write carries (``leases.py``)."""
    leased_at: float = 0.0
    """When the lease was taken (the event loop's time): a renewal that began before it does not know of it."""


class Hub:
    """All tables of this process."""

    def __init__(self, store: Store, clock: Clock | None = None, agent_factory: AgentFactory | None = None,
                 base_url: str = "", idle_seconds: dict[Phase, float] | None = None,
                 tables_per_address: int = 1_000_000_000, leases: Leases | None = None) -> None:
        self.store = store
        self.leases = leases
        """In a cluster, this process's leases: it holds only the tables it owns (``leases.py``); ``None`` for a
        process that is the only one and holds every table."""
        self._taking: dict[str, asyncio.Future[_Live]] = {}
        """Tables whose lease is being taken and whose row read (cluster): later requests wait for the same."""
        self._renewed_at = 0.0
        self._cluster_tasks: list[asyncio.Task[None]] = []
        self.idle_seconds: dict[Phase, float] = idle_seconds if idle_seconds is not None else {}
        """How long a table nobody uses stays in memory, by phase (a phase left out: for ever); see :meth:`sweep`."""
        self.tables_per_address = tables_per_address
        self._owned: dict[str, int] = {}
        """How many live tables each address opened."""
        self._sweeper: asyncio.Task[None] | None = None
        self.clock: Clock = clock or SystemClock()
        self.agent_factory = agent_factory
        self.base_url = base_url
        self._live: dict[str, _Live] = {}
        self._unrestorable: set[str] = set()
        """Tables whose saved rows failed to restore (logged once, with the reason): refused until a restart."""
        self._runner = TableRunner(self.clock, self._table_of, self._due)
        """Wakes each table at its next deadline (the same loop drives the terminal's local table)."""
        self._scheduler: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Future[None]] = set()
        self.view_listeners: list[Callable[[Table, Subscriber], None]] = []
        """Called with the table and the connection just before a state is made for it (diagnostics: the tests
        check every frame against the table's true state at that moment)."""

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Load every open or running table, re-arm its clocks, and start the scheduler. In a cluster, load nothing:
        a table is taken when asked for, or when its owner died (:meth:`_orphan_loop`)."""
        now = self.clock.now()
        if self.leases is not None:
            await self.leases.start(self._wanted)
            self._renewed_at = asyncio.get_running_loop().time()
            self._cluster_tasks = [asyncio.create_task(self._renew_loop(), name="lease-renewal"),
                                   asyncio.create_task(self._orphan_loop(), name="lease-orphans")]
        rows = [] if self.leases is not None else await self.store.load_tables(
            phases=[Phase.LOBBY.value, Phase.PLAYING.value])
        for data, moves in rows:
            try:
                table = Table.from_json(data, moves, now, agent_factory=self.agent_factory)
            except Exception:  # one bad row must not keep every other table down
                log.exception("table_restore_failed", extra={"table": data.get("code")})
                self._unrestorable.add(str(data.get("code")))
                continue
            self._live[table.code] = _Live(table, saved_moves=len(table.moves), saved_game=table.game_no,
                                           active_at=now)
            self._arm(table)
            log.info("table_restored", extra={"table": table.code, "moves": len(moves), "phase": table.phase.value})
        self._scheduler = asyncio.create_task(self._runner.run(), name="table-scheduler")
        if self.idle_seconds:
            self._sweeper = asyncio.create_task(self._sweep_loop(), name="table-sweeper")

    async def stop(self) -> None:
        """Stop the clocks and tasks; in a cluster, first hand every table back (a drain: another process takes each
        at once, with everything committed)."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for cluster_task in self._cluster_tasks:
            cluster_task.cancel()
        if self.leases is not None:
            for live in list(self._live.values()):
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._hand_over(live.table.code), 5)
            await self.leases.close()
        for task in list(self._tasks):
            task.cancel()
        for live in self._live.values():
            if live.thinking is not None:
                live.thinking.cancel()
        if self._scheduler is not None:
            self._scheduler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._scheduler

    @property
    def table_count(self) -> int:
        return len(self._live)

    # ------------------------------------------------------------------ tables

    async def create(self, settings: TableSettings, name: str, age: int | None,
                     client: str | None = None, *, owner: str | None = None) -> tuple[Table, int, str]:
        """Open a table with its host seated (``client``: see :meth:`Table.join`); ``owner`` (the client's address)
        may have only ``tables_per_address`` live tables at once (:class:`TableError` ``too_many_tables``)."""
        if owner is not None:
            owned = self._owned.get(owner, 0)
            if owned >= self.tables_per_address:
                raise TableError("too_many_tables", f"your address already has {self.tables_per_address} open "
                                 "tables; please finish or leave one of them first")
            self._owned[owner] = owned + 1  # (counted now: two creations at once must not both slip in)
        try:
            table = Table.open(settings, agent_factory=self.agent_factory)
            epoch = None
            while True:
                if table.code not in self._live and await self.store.load_table(table.code) is None:
                    if self.leases is None:
                        break
                    epoch = await self.leases.acquire(table.code)  # (a new code: free, unless another took it now)
                    if epoch is not None:
                        break
                table = Table.open(settings, agent_factory=self.agent_factory)
            seat, token = table.join(name, age, self.clock.now(), client=client)
            table.created_at = self.clock.now()
        except BaseException:
            self._disown(owner)
            raise
        live = _Live(table, owner=owner, active_at=self.clock.now(), epoch=epoch,
                     leased_at=asyncio.get_running_loop().time())
        self._live[table.code] = live
        async with live.lock:
            await self._persist(live)
        log.info("table_created", extra={"table": table.code, "players": settings.players})
        return table, seat, token

    async def get(self, code: str) -> _Live:
        """The live table ``code`` (as typed: :func:`normalize_code`), read back from the database if this process
        does not hold it (let go when idle, or not loaded yet).

        Refuses an unknown code (``no_table``) and a table whose saved row does not restore (``storage``:
        the reason is logged the first time, and the row is not read again for every request).
        """
        code = normalize_code(code)
        live = self._live.get(code)
        if live is not None:
            live.active_at = self.clock.now()
        elif self.leases is not None:
            live = await self._take(code)
        else:
            if code in self._unrestorable:
                raise _unrestorable(code)
            found = await self.store.load_table(code) if 4 <= len(code) <= 16 and code.isalnum() else None
            if found is None:
                raise TableError("no_table", "There is no table with this code; check the code you were given")
            live = self._live.get(code)  # another request may have loaded it meanwhile
            if live is None:
                if code in self._unrestorable:
                    raise _unrestorable(code)
                try:
                    table = Table.from_json(found[0], found[1], self.clock.now(), agent_factory=self.agent_factory)
                except Exception:
                    log.exception("table_restore_failed", extra={"table": code})
                    self._unrestorable.add(code)
                    raise _unrestorable(code) from None
                live = _Live(table, saved_moves=len(table.moves), saved_game=table.game_no,
                             active_at=self.clock.now())
                self._live[code] = live
                self._arm(table)
                log.info("table_loaded", extra={"table": code, "phase": table.phase.value})
        return live

    # ------------------------------------------------------------------ ownership in a cluster (leases.py)

    async def _take(self, code: str, *, wait: bool = True) -> _Live:
        """Take table ``code`` over (a cluster): its lease, then its row, read after the lease is held. ``wait``: if
        another process holds it, ask for it and wait up to a lease's length for it to be handed over (else, or
        then, :class:`TableError` ``moved``). Requests for the same table share one taking."""
        taking = self._taking.get(code)
        if taking is None:
            taking = asyncio.ensure_future(self._take_now(code, wait))
            self._taking[code] = taking

            def taken(future: asyncio.Future[_Live]) -> None:
                self._taking.pop(code, None)
                if not future.cancelled():
                    future.exception()  # (retrieved: a failure nobody waits for is no warning)

            taking.add_done_callback(taken)
        return await asyncio.shield(taking)

    async def _take_now(self, code: str, wait: bool) -> _Live:
        leases = self.leases
        assert leases is not None
        if code in self._unrestorable:
            raise _unrestorable(code)
        if not (4 <= len(code) <= 16 and code.isalnum()) or await self.store.load_table(code) is None:
            raise TableError("no_table", "There is no table with this code; check the code you were given")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + leases.seconds + _TAKE_EXTRA_SECONDS
        ask_at = loop.time()
        while True:
            epoch = await leases.acquire(code)
            if epoch is not None:
                break
            if not wait or loop.time() >= deadline:
                raise TableError("moved", "This table is moving between servers; try again in a moment")
            if loop.time() >= ask_at:
                # Asked again every third of a lease: a take by another process meanwhile (its orphan sweep, say)
                # clears the request, and the new owner would never hear of it.
                await leases.ask(code)
                ask_at = loop.time() + leases.seconds / 3
            await leases.released(code, _TAKE_POLL_SECONDS)
        try:
            found = await self.store.load_table(code)  # (read once the lease is held: nobody else writes it now)
            if found is None:
                raise TableError("no_table", "There is no table with this code; check the code you were given")
            try:
                table = Table.from_json(found[0], found[1], self.clock.now(), agent_factory=self.agent_factory)
            except Exception:
                log.exception("table_restore_failed", extra={"table": code})
                self._unrestorable.add(code)
                raise _unrestorable(code) from None
        except BaseException:
            with contextlib.suppress(Exception):
                await leases.release(code, epoch, idle=True)
            raise
        # (leased_at: once the lease is committed, so that a renewal that began before is known not to know of it)
        live = _Live(table, saved_moves=len(table.moves), saved_game=table.game_no, active_at=self.clock.now(),
                     epoch=epoch, leased_at=loop.time())
        self._live[code] = live
        self._arm(table)
        log.info("table_taken", extra={"table": code, "phase": table.phase.value, "epoch": epoch})
        return live

    def _wanted(self, code: str) -> None:
        """Another process asks for ``code`` (the balancer sends its players there): hand it over."""
        if code in self._live:
            self._spawn(self._hand_over(code), f"hand-over-{code}")

    async def _hand_over(self, code: str, *, idle: bool = False) -> None:
        """Hand table ``code`` back, with everything it did committed: in its turn (no change in flight), let go of
        it (its connections are told it moved, and reconnect through the balancer), then release the lease."""
        live = self._live.get(code)
        if live is None or self.leases is None:
            return
        async with live.lock:
            if self._live.get(code) is not live:
                return
            self._let_go(live, "idle" if idle else "handed_over")
            if live.epoch is not None:
                try:
                    await self.leases.release(code, live.epoch, idle=idle)
                except Exception as error:  # (the lease runs out by itself)
                    log.warning("lease_release_failed", extra={"table": code, "error": str(error)})

    def _let_go(self, live: _Live, reason: str) -> None:
        """Stop running a table here (a cluster: it moved, or this process lost its lease): its clocks stop and its
        connections are closed with "moved" (``CLOSE_MOVED``: reconnect, and the balancer finds the new owner)."""
        code = live.table.code
        if self._live.get(code) is live:
            del self._live[code]
            self._runner.forget(code)
            self._disown(live.owner)
        if live.thinking is not None:
            live.thinking.cancel()
        subscribers, live.subscribers = live.subscribers, []
        for subscriber in subscribers:
            if subscriber.close is not None:
                subscriber.close(CLOSE_MOVED, error_message("moved", "This table moved to another server; "
                                                                     "reconnecting"))
        log.info("table_let_go", extra={"table": code, "reason": reason})

    async def _renew_loop(self) -> None:
        """Renew this process's leases every third of a lease; let go of any table whose lease was lost."""
        leases = self.leases
        assert leases is not None
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(leases.seconds / 3)
            began = loop.time()
            try:
                held = await asyncio.wait_for(leases.renew({*self._live, *self._taking}), leases.seconds)
            except Exception as error:
                log.warning("lease_renewal_failed", extra={"error": str(error)})
                if loop.time() - self._renewed_at >= leases.seconds:  # (every lease has run out by now)
                    for live in list(self._live.values()):
                        self._let_go(live, "lease_expired")
                continue
            self._renewed_at = began
            self._renewed(held, began)

    def _renewed(self, held: dict[str, Held], began: float) -> None:
        for code, live in list(self._live.items()):
            if live.leased_at >= began:
                continue  # (taken after the renewal began: it does not know of it)
            lease = held.get(code)
            if lease is None or lease.epoch != live.epoch:
                self._let_go(live, "lease_lost")
            elif lease.wanted:
                self._wanted(code)

    async def _orphan_loop(self) -> None:
        """Take over games in play that nobody runs (their process died with nobody connected to them), a few at a
        time, at random moments so that the processes do not all race for the same ones."""
        leases = self.leases
        assert leases is not None
        while True:
            await asyncio.sleep(leases.seconds * random.uniform(0.5, 1.0))
            try:
                codes = await leases.orphans()
            except Exception as error:
                log.warning("lease_orphans_failed", extra={"error": str(error)})
                continue
            random.shuffle(codes)
            for code in codes:
                if code in self._live or code in self._taking:
                    continue
                try:
                    await self._take(code, wait=False)
                except TableError:
                    pass  # (another process took it first)
                except Exception:
                    log.exception("lease_orphan_failed", extra={"table": code})

    # ------------------------------------------------------------------ letting idle tables go

    def sweep(self) -> int:
        """Let go of the tables nobody uses (the database has them all; :meth:`get` reads one back on demand).

        A table is in use while anyone is connected, while it is changing (a move, a bot thinking, a write
        in flight) and for a while after its last connection, request or move: ``idle_seconds`` by phase.
        A game moves on its clocks even with nobody there (bots take over disconnected seats), so it stays
        until it is over; only one stuck for ``idle_seconds[PLAYING]`` is let go (reloading it restarts its
        clocks from then, as a restart of the server does). Returns how many tables were let go.
        """
        now = self.clock.now()
        idle_seconds = self.idle_seconds
        gone: list[str] = []
        for code, live in self._live.items():
            table = live.table
            busy = live.subscribers or live.lock.locked() or live.thinking is not None
            if busy or table.version != live.active_version:
                live.active_at, live.active_version = now, table.version
                continue
            limit = idle_seconds.get(table.phase)
            if limit is not None and now - live.active_at >= limit:
                gone.append(code)
        for code in gone:
            if self.leases is not None:  # (handed back as idle: no process takes it up until it is asked for)
                self._spawn(self._hand_over(code, idle=True), f"unload-{code}")
                continue
            live = self._live.pop(code)
            self._runner.forget(code)
            self._disown(live.owner)
            log.info("table_unloaded", extra={"table": code, "phase": live.table.phase.value})
        return len(gone)

    def _disown(self, owner: str | None) -> None:
        if owner is not None:
            left = self._owned.get(owner, 0) - 1
            if left > 0:
                self._owned[owner] = left
            else:
                self._owned.pop(owner, None)

    async def _sweep_loop(self) -> None:
        every = max(1.0, min(60.0, min(self.idle_seconds.values()) / 5))
        while True:
            await self.clock.sleep(every)
            try:
                self.sweep()
            except Exception:  # a failing sweep must not stop the next ones
                log.exception("sweep_failed")

    async def change(self, code: str, operation: Callable[[Table, float], Any]) -> Any:
        """Run ``operation(table, now)`` under the table's lock, persist, then fan out the new views.

        A refused operation (:class:`TableError`) changes nothing. If the database refuses the
        write, the table is reloaded from the database so that memory never runs ahead of it.
        """
        result, _acked = await self.change_for(code, operation)
        return result

    async def change_for(self, code: str, operation: Callable[[Table, float], Any],
                         by: Subscriber | None = None, message_id: str | None = None) -> tuple[Any, bool]:
        """:meth:`change` for connection ``by``'s message ``message_id``: if the table changed, the message's
        acknowledgement rides in the state sent to ``by`` (``"ack"``, protocol 3). Returns the operation's
        result and whether it was acknowledged so (if not, the caller sends an ``ack`` of its own).
        """
        live = self._live.get(code) or await self.get(code)
        async with live.lock:
            table = live.table
            before = table.version
            result = operation(table, self.clock.now())
            acked = False
            if table.version != before:
                acked = await self._commit(live, by, message_id)
        return result, acked

    def submit(self, code: str, operation: Callable[[Table, float], Any], by: Subscriber | None,
               message_id: str | None, reply: Reply) -> None:
        """:meth:`change_for` by callbacks (a player's message, the hot path): ``reply(result, acknowledged, error)``
        is called once the change is committed and its frames are sent, or at once if it changed nothing or was
        refused (a :class:`TableError`: nothing changed). Any other exception of ``operation`` is raised here."""
        live = self._live.get(code)
        if live is None:  # (a table this process has not loaded: the long way)
            self._spawn(self._submit_loading(code, operation, by, message_id, reply), f"submit-{code}")
            return
        lock = live.lock
        if lock.try_take():
            self._change_now(live, operation, by, message_id, reply)
        else:
            lock.run(partial(self._change_now, live, operation, by, message_id, reply))

    async def _submit_loading(self, code: str, operation: Callable[[Table, float], Any], by: Subscriber | None,
                              message_id: str | None, reply: Reply) -> None:
        try:
            result, acked = await self.change_for(code, operation, by, message_id)
        except TableError as error:
            reply(None, False, error)
        else:
            reply(result, acked, None)

    def _change_now(self, live: _Live, operation: Callable[[Table, float], Any], by: Subscriber | None,
                    message_id: str | None, reply: Reply) -> None:
        """:meth:`submit`'s change, holding the table's turn (which it passes on once the change is answered)."""
        table = live.table
        before = table.version
        try:
            result = operation(table, self.clock.now())
        except TableError as error:
            live.lock.release()
            reply(None, False, error)
            return
        except Exception:  # (a bug: the message is answered, the table freed; run by the lock, nobody else would)
            log.exception("change_failed", extra={"table": table.code})
            live.lock.release()
            reply(None, False, TableError("server_error", "the server failed to carry out this message"))
            return
        except BaseException:
            live.lock.release()
            raise
        if table.version == before:
            live.lock.release()
            reply(result, False, None)
            return
        self._commit_then(live, by, message_id, partial(self._answer, live, result, reply))

    @staticmethod
    def _answer(live: _Live, result: Any, reply: Reply, acked: bool, error: TableError | None) -> None:
        """:meth:`submit`'s change is committed (or refused by the database): the table's turn passes on, and the
        message is answered."""
        live.lock.release()
        reply(None if error is not None else result, acked, error)

    def spawn(self, coroutine: Awaitable[None], name: str) -> None:
        """Run ``coroutine`` as a task of the hub's (kept until it is done; cancelled when the hub stops)."""
        self._spawn(coroutine, name)

    def _spawn(self, coroutine: Awaitable[None], name: str) -> None:
        task = asyncio.ensure_future(coroutine)
        task.set_name(name)
        self._tasks.add(task)  # (kept until done: the event loop keeps only weak references to tasks)
        task.add_done_callback(self._tasks.discard)

    def _commit_then(self, live: _Live, by: Subscriber | None, message_id: str | None,
                     done: Callable[[bool, TableError | None], None]) -> None:
        """The one way a change is committed (the table's turn held): its moves and row are written, then the
        clocks are armed and everyone's new state is sent (``by``'s carrying ``message_id`` as its ``ack``), and
        ``done(acknowledged, None)`` is called. If the database refuses the write, the table is reloaded from it
        (memory never runs ahead of the database) and ``done(False, error)`` is called with the refusal."""
        if by is not None and message_id is not None and by in live.subscribers:
            by.ack = message_id

        def stored(error: StoreError | None) -> None:
            if isinstance(error, LeaseLost):  # (another process runs the table now: nothing to reload here)
                log.warning("write_refused", extra={"table": live.table.code, "reason": "lease_lost"})
                self._let_go(live, "lease_lost")
                if by is not None:
                    by.ack = None
                done(False, TableError("moved", "This table moved to another server; try again"))
                return
            if error is not None:
                self._spawn(self._recover(live, by, error, done), f"recover-{live.table.code}")
                return
            try:
                self._arm(live.table)
                self._broadcast(live)
            except Exception:  # (the change is committed: it is answered all the same, by a plain ack)
                log.exception("broadcast_failed", extra={"table": live.table.code})
            acked = False
            if by is not None and by.ack is not None:
                by.ack = None  # not sent: never ride on a later change
            elif by is not None and message_id is not None:
                acked = True
            done(acked, None)

        self._persist_then(live, stored)

    async def _recover(self, live: _Live, by: Subscriber | None, error: StoreError,
                       done: Callable[[bool, TableError | None], None]) -> None:
        """A refused write (:meth:`_commit_then`): the table is reloaded, then the refusal is the answer."""
        refused = TableError("storage", "the move could not be saved; please try again")
        try:
            await self._reload_after(live, error)
        except TableError as reloaded:
            refused = reloaded
        finally:
            if by is not None:
                by.ack = None
            done(False, refused)  # (also when cancelled: the table's turn must pass on)

    async def _commit(self, live: _Live, by: Subscriber | None = None, message_id: str | None = None) -> bool:
        """:meth:`_commit_then` for a coroutine holding the table's turn: returns whether ``by``'s state carried the
        acknowledgement; raises the refusal (:class:`TableError` ``storage``) if the database refused the write."""
        committed: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def done(acked: bool, error: TableError | None) -> None:
            if not committed.done():
                if error is None:
                    committed.set_result(acked)
                else:
                    committed.set_exception(error)

        self._commit_then(live, by, message_id, done)
        return await committed

    async def _reload_after(self, live: _Live, error: StoreError) -> None:
        """The database refused a change: the table is reloaded from it (memory never runs ahead of the database),
        and :class:`TableError` ``storage`` is raised."""
        code = live.table.code
        log.error("persist_failed", extra={"table": code, "error": str(error)})
        # The table in memory holds the refused change, so it must not be used until the database's state is
        # back: while the database cannot be read either, the table's turn is kept (its changes wait) and the
        # read is retried, less and less often.
        delay = _RELOAD_FIRST_DELAY
        while True:
            try:
                found = await self.store.load_table(code)
                break
            except Exception:
                log.exception("reload_failed", extra={"table": code, "retry_in": delay})
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RELOAD_MAX_DELAY)
        if found is not None:
            live.table = Table.from_json(found[0], found[1], self.clock.now(), agent_factory=self.agent_factory)
            live.saved_moves, live.saved_game, live.saved_key = len(live.table.moves), live.table.game_no, None
        raise TableError("storage", "the move could not be saved; please try again") from None

    async def _persist(self, live: _Live) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def stored(error: StoreError | None) -> None:
            if not done.done():
                if error is None:
                    done.set_result(None)
                else:
                    done.set_exception(error)

        self._persist_then(live, stored)
        await done

    def _persist_then(self, live: _Live, done: Callable[[StoreError | None], None]) -> None:
        """Write the table's new moves (and its row, if more than the game changed); ``done(error)`` once committed."""
        table = live.table
        if table.game_no != live.saved_game:
            live.saved_game, live.saved_moves = table.game_no, 0
        game_no, first = table.game_no, live.saved_moves
        new = [(game_no, seq, row) for seq, row in enumerate(table.moves.rows(first), first)]
        count = first + len(new)
        key = table.row_key()
        version = table.version
        # A move that changes nothing but the game needs only its own row: the moves bring the game and the version
        # back (Table.row_key); the table's row is written when anything else changed.
        rewrite = live.saved_key is None or live.saved_key != key or version - live.saved_version != len(new)

        def stored(error: StoreError | None) -> None:
            if error is None:
                live.saved_moves = count
                live.saved_version = version
                if rewrite:
                    live.saved_key = key  # (else the key kept is equal: no new object kept per move)
            done(error)

        try:
            self.store.save_then(table.code, table.to_json() if rewrite else None, table.stored_phase,
                                 self.clock.now(), new, done=stored, listed=table.listed_at(), epoch=live.epoch)
        except Exception as error:  # (the write could not even be made: as a refused one, the table is reloaded)
            log.exception("persist_prepare_failed", extra={"table": table.code})
            done(StoreError(f"the move could not be written: {error}"))

    # ------------------------------------------------------------------ subscribers

    async def subscribe(self, code: str, subscriber: Subscriber) -> None:
        live = await self.get(code)
        async with live.lock:
            live.subscribers.append(subscriber)
            table = live.table
            if subscriber.seat is not None:
                before = table.version
                table.set_connected(subscriber.seat, True, self.clock.now())
                if table.version != before:
                    await self._commit(live)
                    return
            self._send_view(live, subscriber)

    async def unsubscribe(self, code: str, subscriber: Subscriber) -> None:
        live = self._live.get(code)
        if live is None:
            return
        async with live.lock:
            if subscriber not in live.subscribers:
                return  # (let go of meanwhile: the table moved, and this is another process's affair now)
            live.subscribers.remove(subscriber)
            seat = subscriber.seat
            if seat is not None and not any(s.seat == seat for s in live.subscribers):
                before = live.table.version
                live.table.set_connected(seat, False, self.clock.now())
                if live.table.version != before:
                    with contextlib.suppress(TableError):
                        await self._commit(live)

    def resend(self, code: str, subscriber: Subscriber) -> None:
        """Send ``subscriber`` its whole view (a ``sync`` message), in its turn after the table's pending changes."""
        live = self._live.get(code)
        if live is None:
            return
        subscriber.resync()

        def send() -> None:
            try:
                self._send_view(live, subscriber)
            finally:
                live.lock.release()

        live.lock.run(send)

    def _broadcast(self, live: _Live) -> None:
        frames = Frames(live.table, self.clock.now())
        for subscriber in live.subscribers:
            self._send_view(live, subscriber, frames)

    def _send_view(self, live: _Live, subscriber: Subscriber, frames: Frames | None = None) -> None:
        """Queue ``subscriber``'s state: whole on a new basis, else only what changed since its last one.

        A partial view (``"full": false``, docs/protocol.md) holds only the keys whose values
        changed since this connection's previous state, ``game`` likewise only its changed
        keys, and ``log`` only the entries after the last ones sent (``log_from`` says where the
        table's log window now starts). Within a broadcast (``frames``) the parts every seat
        shares are worked out and encoded once, and only each seat's own keys (its hand, legal
        actions and log) seat by seat: a frame is spliced together from encoded parts.
        """
        table = live.table
        if frames is None:
            frames = Frames(table, self.clock.now())
        elif subscriber.last_version == table.version:
            return
        if self.view_listeners:
            for listener in self.view_listeners:
                listener(table, subscriber)
        if (subscriber.seat is not None and subscriber.token is not None
                and subscriber.seats_checked != table.seats_generation):
            if _holds(table, subscriber):
                subscriber.seats_checked = table.seats_generation
            else:
                subscriber.seat = None
                subscriber.send(error_message("kicked", "You no longer hold a seat at this table; you are watching"))
        seat = subscriber.seat
        shared = frames.shared
        ack, subscriber.ack = subscriber.ack, None
        in_game = "game" in shared
        own_game = table.own_game_view(seat) if in_game else None
        legal = table.legal_actions(seat) if in_game else None
        before = subscriber.shared
        if (before is None or subscriber.basis_phase is not table.phase or subscriber.basis_game != table.game_no
                or subscriber.basis_seat != seat):
            text = frames.full(seat, own_game, legal, ack, subscriber.sent)
            subscriber.basis_seat, subscriber.basis_phase, subscriber.basis_game = seat, table.phase, table.game_no
        else:
            text = frames.partial(seat, before, subscriber.log_after, own_game, legal, ack, subscriber.sent)
        subscriber.last_version = table.version
        subscriber.shared = shared
        subscriber.log_after = frames.log_after
        subscriber.send(text)

    # ------------------------------------------------------------------ clocks

    def _arm(self, table: Table) -> None:
        """Make sure the runner looks at the table by its next deadline."""
        self._runner.arm(table.code, table)

    def _table_of(self, code: str) -> Table | None:
        live = self._live.get(code)
        return live.table if live is not None else None

    async def _due(self, code: str, table: Table) -> None:
        """A table's deadline came (:class:`TableRunner`): a searching bot thinks in a worker thread, anything
        else is ticked at once."""
        live = self._live.get(code)
        if live is None or live.thinking is not None:
            return  # (its bot is thinking: the table is armed again when it has moved)
        turn = table.slow_bot_turn(self.clock.now())
        if turn is not None:
            live.thinking = asyncio.create_task(self._think(live, turn), name=f"bot-{code}")
            return
        try:
            await self._tick(live)
        except Exception:  # a failing table must not stop every other table's clocks
            log.exception("tick_failed", extra={"table": code})

    async def _think(self, live: _Live, turn: BotTurn) -> None:
        """Work out a searching bot's move in a worker thread, then make it (if the table has not moved on).

        A hard bot searches for up to 100 ms; on the event loop that would hold up every table.
        """
        code = live.table.code
        try:
            action: AnyAction | None = await asyncio.to_thread(turn.decide)
        except Exception:  # a failing bot must not stall the table: it plays its first legal action
            log.exception("bot_failed", extra={"table": code})
            action = None
        try:
            if live.table.version == turn.version:
                await self._tick(live, (turn, action))
        except Exception:  # as for any tick: logged, and the table's clocks are not re-armed
            live.thinking = None
            log.exception("tick_failed", extra={"table": code})
            return
        live.thinking = None
        self._runner.rearm(code, live.table)  # even at the same deadline (a stale answer is worked out again)

    async def _tick(self, live: _Live, prepared: tuple[BotTurn, AnyAction | None] | None = None) -> None:
        async with live.lock:
            table = live.table
            before = table.version
            table.tick(self.clock.now(), prepared)
            if table.version != before:
                try:
                    await self._commit(live)
                except TableError:
                    self._arm(live.table)
            else:
                self._arm(table)

    async def run_until_idle(self, step: Callable[[], Awaitable[None]] | None = None) -> None:
        """Let queued work run (tests), the database's writes in flight included (a synced commit takes real time)."""
        for _ in range(50):
            await asyncio.sleep(0)
        for _ in range(20):
            if not await self.store.settled():
                break
            for _ in range(50):
                await asyncio.sleep(0)
        if step is not None:
            await step()


def _unrestorable(code: str) -> TableError:
    return TableError("storage", f"table {code} cannot be opened: its saved game could not be restored "
                                 "(the server has logged why)")


def _holds(table: Table, subscriber: Subscriber) -> bool:
    seat, token = subscriber.seat, subscriber.token
    return seat is not None and token is not None and table.holds(seat, token)
