"""Which process of a cluster owns which table: leases in PostgreSQL, fenced by epochs.

Several ``royal-revenge serve --node NAME`` processes share one PostgreSQL database. Each table is owned by exactly
one of them at a time, which runs its lock, clocks, bots and connections (docs/scaling.md). Ownership is a row of
``rr_leases`` (:class:`~royal_revenge.server.store.LeaseRow`):

* **taking a table** (:meth:`Leases.acquire`) succeeds when nobody holds it, when its owner handed it back, or when
  the owner's lease has expired (it died, or is paused, or cut off); each taking adds one to the table's
  ``epoch``;
* **the owner renews** all its leases in one statement every third of the lease (:meth:`Leases.renew`); a lease
  that had already expired is not renewed: it is lost, even if nobody has taken it yet;
* **every write is fenced**: the store refuses a write unless its process holds the table's lease, unexpired, at
  the epoch the write was made under (:meth:`Store._fence
  <royal_revenge.server.store.Store>`); so a stale owner's late write is refused by the database, never applied;
* **handing over on demand**: a process asked for a table that another one holds asks for it
  (:meth:`Leases.ask`: ``NOTIFY``, and ``wanted_by`` in the row, which the owner's next renewal also sees); the
  owner finishes what it is doing, hands the lease back (:meth:`Leases.release`) and closes the table's
  connections with "moved", and the asker takes the table;
* **orphans** (:meth:`Leases.orphans`): games whose owner died with nobody connected would stand still, so every
  process looks for expired leases of games in play now and then, and takes some over.

Times are the database's clock (``clock_timestamp()``), so the processes' clocks never need to agree.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import and_, func, literal, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.engine import make_url

from .store import LeaseRow, Store, StoreError, _TableRow

__all__ = ["CHANNEL", "DEFAULT_LEASE_SECONDS", "Held", "Leases"]

log: Final = logging.getLogger("royal_revenge.server")

DEFAULT_LEASE_SECONDS: Final = 2.0
"""How long a lease lasts unless renewed (``serve --lease-seconds``): a dead process's tables are taken over after
at most this long. Renewed every third of it."""

CHANNEL: Final = "rr_leases"
"""The ``LISTEN``/``NOTIFY`` channel: ``want OWNER CODE`` (hand this table over) and ``released CODE``."""

_NOW = func.extract("epoch", func.clock_timestamp())


@dataclass(frozen=True, slots=True)
class Held:
    """A lease this process still holds after a renewal: its epoch, and whether another process asked for it."""

    epoch: int
    wanted: bool


class Leases:
    """This process's leases (one instance per process). :meth:`start` before use, :meth:`close` after.

    ``node`` names the process in logs and in ``/healthz``; the owner id written in the rows is ``node`` with a
    random suffix, new at every start, so that a restarted process never mistakes its dead predecessor's leases for
    its own.
    """

    def __init__(self, store: Store, node: str, seconds: float = DEFAULT_LEASE_SECONDS) -> None:
        if store.dialect != "postgresql":
            raise StoreError("a cluster's processes share a PostgreSQL database (--db postgresql://...); "
                             f"{store.dialect} cannot be shared")
        if seconds <= 0:
            raise StoreError(f"a lease must last more than 0 seconds, not {seconds:g}")
        self.store = store
        self.node = node
        self.seconds = seconds
        self.owner = f"{node}:{secrets.token_hex(4)}"
        self._released: dict[str, asyncio.Event] = {}
        """Tables some coroutine of this process waits to see handed back (``released CODE``)."""
        self._on_wanted: Callable[[str], None] = lambda code: None
        self._listener: asyncio.Task[None] | None = None
        self._listening: Any = None

    async def start(self, on_wanted: Callable[[str], None]) -> None:
        """Listen for requests to hand a table over (``on_wanted(code)``) and for tables handed back; from now on
        the store's writes are fenced by this process's leases."""
        self._on_wanted = on_wanted
        self.store.fence_owner = self.owner
        connected = asyncio.get_running_loop().create_future()
        self._listener = asyncio.create_task(self._listen(connected), name="lease-listener")
        with contextlib.suppress(TimeoutError):  # (the renewals see requests too; the listener keeps trying)
            await asyncio.wait_for(asyncio.shield(connected), 10)

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener

    # ------------------------------------------------------------------ the rows

    async def acquire(self, code: str) -> int | None:
        """Take table ``code`` if nobody holds it (never held, handed back, or the lease expired): its new epoch;
        ``None`` while another process holds it."""
        insert = pg_insert(LeaseRow).values(code=code, owner=self.owner, epoch=1,
                                            expires_at=_NOW + self.seconds, wanted_by=None, idle=False)
        statement = insert.on_conflict_do_update(
            index_elements=[LeaseRow.code],
            set_={"owner": self.owner, "epoch": LeaseRow.epoch + 1, "expires_at": insert.excluded.expires_at,
                  "wanted_by": None, "idle": False},
            where=or_(LeaseRow.owner.is_(None), LeaseRow.expires_at <= _NOW),
        ).returning(LeaseRow.epoch)
        async with self.store.engine.begin() as conn:
            epoch = (await conn.execute(statement)).scalar()
        return int(epoch) if epoch is not None else None

    async def ask(self, code: str) -> None:
        """Ask the process that holds ``code`` to hand it over."""
        async with self.store.engine.begin() as conn:
            owner = (await conn.execute(
                update(LeaseRow).where(LeaseRow.code == code, LeaseRow.owner.is_not(None))
                .values(wanted_by=self.owner).returning(LeaseRow.owner))).scalar()
            if owner is not None:
                await conn.execute(select(func.pg_notify(CHANNEL, f"want {owner} {code}")))

    async def release(self, code: str, epoch: int, *, idle: bool = False) -> None:
        """Hand ``code`` back (its state is all in the database): any process may take it at once. ``idle``: nobody
        uses it, so no process takes it up by itself (:meth:`orphans`)."""
        async with self.store.engine.begin() as conn:
            done = (await conn.execute(
                update(LeaseRow).where(LeaseRow.code == code, LeaseRow.owner == self.owner, LeaseRow.epoch == epoch)
                .values(owner=None, wanted_by=None, expires_at=_NOW, idle=idle).returning(LeaseRow.code))).scalar()
            if done is not None:
                await conn.execute(select(func.pg_notify(CHANNEL, f"released {code}")))

    async def renew(self, codes: Collection[str] | None = None) -> dict[str, Held]:
        """Renew this process's unexpired leases on ``codes`` (the tables it runs; ``None``: all of its leases);
        the leases it still holds (any other is lost). A lease on a table the process no longer runs must not be
        renewed: it would keep the table from everyone, the process included, which would not hand it over."""
        if codes is not None and not codes:
            return {}
        held = update(LeaseRow).where(LeaseRow.owner == self.owner, LeaseRow.expires_at > _NOW)
        if codes is not None:
            held = held.where(LeaseRow.code.in_(list(codes)))
        async with self.store.engine.begin() as conn:
            rows = (await conn.execute(held.values(expires_at=_NOW + self.seconds)
                                       .returning(LeaseRow.code, LeaseRow.epoch, LeaseRow.wanted_by))).all()
        return {code: Held(int(epoch), wanted is not None) for code, epoch, wanted in rows}

    async def orphans(self, limit: int = 20, settle: float = 1.0) -> list[str]:
        """Games in play that nobody runs: their owner's lease expired (it died), or it handed them back (a drain)
        at least ``settle`` seconds ago and nobody has asked for them since, or they never had a lease (a database
        from before the cluster). Tables handed back as idle are left alone."""
        lease, tables = LeaseRow.__table__, _TableRow.__table__
        query = (select(_TableRow.code).select_from(tables.outerjoin(lease, lease.c.code == tables.c.code))
                 .where(_TableRow.phase == "playing",
                        or_(LeaseRow.code.is_(None),
                            and_(LeaseRow.owner.is_not(None), LeaseRow.expires_at <= _NOW),
                            and_(LeaseRow.owner.is_(None), LeaseRow.idle.is_(False),
                                 LeaseRow.expires_at <= _NOW - literal(settle))))
                 .limit(limit))
        async with self.store.engine.connect() as conn:
            return [code for (code,) in (await conn.execute(query)).all()]

    async def released(self, code: str, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for ``code`` to be handed back by its owner (``False``: not yet)."""
        event = self._released.setdefault(code, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            if self._released.get(code) is event and not event.is_set():
                del self._released[code]

    # ------------------------------------------------------------------ notifications

    async def _listen(self, connected: asyncio.Future[None]) -> None:
        """``LISTEN`` on its own connection (asyncpg's listener), reconnecting after a loss."""
        import asyncpg  # type: ignore[import-untyped]

        url = make_url(self.store.engine.url).set(drivername="postgresql")
        dsn = url.render_as_string(hide_password=False)
        delay = 0.1
        while True:
            try:
                connection = await asyncpg.connect(dsn, timeout=10)
            except (OSError, asyncpg.PostgresError, TimeoutError) as error:
                log.warning("lease_listener_failed", extra={"error": str(error), "retry_in": delay})
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            delay = 0.1
            try:
                await connection.add_listener(CHANNEL, self._heard)
                if not connected.done():
                    connected.set_result(None)
                while not connection.is_closed():
                    await asyncio.sleep(1.0)
                    with contextlib.suppress(Exception):  # (a dead connection shows as closed next time)
                        await connection.execute("SELECT 1")
            finally:
                with contextlib.suppress(Exception):
                    await connection.close(timeout=1)

    def _heard(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        kind, _, rest = payload.partition(" ")
        if kind == "want":
            owner, _, code = rest.partition(" ")
            if owner == self.owner:
                self._on_wanted(code)
        elif kind == "released":
            event = self._released.pop(rest, None)
            if event is not None:
                event.set()

