"""Persistence of tables and their moves (SQLAlchemy 2, async; SQLite by default, PostgreSQL too).

Every accepted move is written before it is acknowledged. Writes from all tables are committed
in groups, so that a busy server pays for one commit per burst rather than one per move; each
caller still waits until its own write is committed (:meth:`Store.save`), or is called back
then (:meth:`Store.save_then`, the hub's way for a player's move: no future to wait on).

With a SQLite file (the default) the group is written on the event loop itself, through one
plain ``sqlite3`` connection, once per turn of the loop (handing the rows to a thread cost more
than writing them: ``sqlite3`` gives up and takes back the GIL around every row, and under load
each hand-over waited for the busy event loop). How durable a commit is is the ``synchronous``
setting (:data:`SYNCHRONOUS`, ``serve --sqlite-sync``):

* ``FULL`` (the default): a commit syncs the write-ahead log to the disk before any write of the
  group is acknowledged, so an acknowledged move survives a power loss or an OS crash too. The
  sync (about 0.4 ms here) runs on a thread of its own while the event loop goes on; the writes
  made meanwhile wait, and go together in the next group as soon as it is done.
* ``NORMAL``: a commit only appends to the log (no sync), about 14 µs a move, all on the loop; an
  acknowledged move survives the server process being killed, but the last commits before a
  power loss or an OS crash may be lost.

The checkpoint that copies the log into the database (and syncs it) runs on another thread with
its own connection, while moves go on being committed. Other databases (PostgreSQL) get their
groups from one writer task through SQLAlchemy, with the database's own durability settings.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    delete,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from ..session import LoggedMove
from ..session.table import MoveRow

__all__ = ["SCHEMA_VERSION", "SYNCHRONOUS", "LeaseLost", "LeaseRow", "Store", "StoreError", "database_url",
           "default_database_path"]

SCHEMA_VERSION = 4
"""1: tables and moves. 2: each move keeps the table's version after it (the row is not rewritten with every
move). 3: a table's ``listed_at``, when it is listed among the public tables. 4: ``rr_leases``, which process of a
cluster owns each table (``server/leases.py``). An older database is migrated on start."""

log = logging.getLogger("royal_revenge.server")

SYNCHRONOUS = ("FULL", "NORMAL")
"""The SQLite ``synchronous`` settings a store may use, the default first (see the module's docstring)."""

_encode_json = msgspec.json.Encoder().encode  # a table's row is written on every move: the fast encoder


class StoreError(RuntimeError):
    """The database cannot be reached or used; the message says which and why."""


class LeaseLost(StoreError):
    """The write was refused because this process no longer holds the table's lease (a cluster: another process
    took the table over, or the lease ran out while this one was paused); nothing of it was kept."""


class _Base(DeclarativeBase):
    pass


class _Meta(_Base):
    __tablename__ = "rr_meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class _TableRow(_Base):
    __tablename__ = "rr_tables"
    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    data: Mapped[str] = mapped_column(Text)
    phase: Mapped[str] = mapped_column(String(16), index=True)
    updated_at: Mapped[float] = mapped_column(Float)
    listed_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    """When the table was opened, while it is a public table in its lobby with a seat open (``NULL`` otherwise)."""


class _MoveRow(_Base):
    __tablename__ = "rr_moves"
    code: Mapped[str] = mapped_column(String(16), ForeignKey("rr_tables.code", ondelete="CASCADE"), primary_key=True)
    game_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    move: Mapped[str] = mapped_column(String(64))
    by: Mapped[str] = mapped_column(String(16))
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    at: Mapped[float] = mapped_column(Float)
    version: Mapped[int | None] = mapped_column(Integer, nullable=True)


class LeaseRow(_Base):
    """Which process of a cluster owns a table (``server/leases.py``): only the holder of the current ``epoch`` of an
    unexpired lease may write the table (:meth:`Store.fence`)."""

    __tablename__ = "rr_leases"
    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    owner: Mapped[str | None] = mapped_column(String(80), nullable=True, index=True)
    """The owning process (``NODE:RANDOM``, new at every start); ``NULL`` once handed back."""
    epoch: Mapped[int] = mapped_column(BigInteger)
    """One more at every taking over: a write carries the epoch it was made under."""
    expires_at: Mapped[float] = mapped_column(Float)
    """Seconds since the epoch, by the database's clock (processes' clocks never enter into it)."""
    wanted_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    """A process that was asked for the table and asks the owner to hand it over."""
    idle: Mapped[bool] = mapped_column(Boolean, default=False)
    """Handed back because nobody used it: no process takes it up until somebody asks for it."""


def default_database_path() -> Path:
    """``$XDG_DATA_HOME/royal-revenge/tables.db`` (``~/.local/share/...`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "royal-revenge" / "tables.db"


def database_url(db: str | None) -> str:
    """A SQLAlchemy async URL from ``--db``: a URL as it is, a file path as SQLite, ``None`` the default file."""
    if db is None:
        path = default_database_path()
    elif "://" in db:
        url = db
        if url.startswith("postgresql://") or url.startswith("postgres://"):
            url = "postgresql+asyncpg://" + url.split("://", 1)[1]
        elif url.startswith("sqlite://") and "+aiosqlite" not in url:
            url = "sqlite+aiosqlite://" + url.split("://", 1)[1]
        return url
    elif db == ":memory:":
        return "sqlite+aiosqlite:///:memory:"
    else:
        path = Path(db).expanduser()
    return f"sqlite+aiosqlite:///{path}"


Committed = Callable[["StoreError | None"], None]
"""Called once a write is committed (``None``) or refused (the error: nothing of the write was kept)."""


@dataclass(slots=True)
class _Write:
    code: str
    table: tuple[str, str, str, float, float | None] | None  # code, data, phase, at, listed_at; None: only moves
    moves: list[tuple[str, int, int, MoveRow]]
    reset_game: tuple[str, int] | None
    done: Committed
    epoch: int | None = None
    """The table's lease epoch the write was made under (a cluster: :attr:`Store.fence_owner`)."""


def _answer(batch: list[_Write], error: StoreError | None) -> None:
    """Tell every write of a committed (or refused) group: one failing callback must not keep the others waiting."""
    for write in batch:
        try:
            write.done(error)
        except Exception:
            log.exception("commit_callback_failed")


class Store:
    """Tables and moves in one database. Use :meth:`connect`, then the async methods, then :meth:`close`.

    ``url`` is anything ``royal-revenge serve --db`` takes (:func:`database_url`): an SQLite file's
    path, a ``postgresql://`` URL (driven by asyncpg), or a SQLAlchemy async URL.
    """

    def __init__(self, url: str, *, synchronous: str = SYNCHRONOUS[0]) -> None:
        if synchronous.upper() not in SYNCHRONOUS:
            raise StoreError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, not {synchronous!r}")
        self.url = database_url(url)
        self.synchronous = synchronous.upper()
        """An SQLite database's ``synchronous`` setting: ``FULL`` syncs every group commit to the disk."""
        self._engine: AsyncEngine | None = None
        self._queue: asyncio.Queue[_Write | None] | None = None
        """The writer task's writes (other databases than an SQLite file); ``None`` in it: close when done."""
        self._closed = False
        self._writer: asyncio.Task[None] | None = None
        self._upsert: Any = None
        self._sqlite_file: str | None = None
        """A file database's path: its group commits then go through one plain sqlite3 connection (see above)."""
        self._sqlite: sqlite3.Connection | None = None
        self._pending: list[_Write] = []
        """Writes waiting for this turn of the event loop's group commit (SQLite file only)."""
        self._commit_scheduled = False
        self._syncer: concurrent.futures.ThreadPoolExecutor | None = None
        """Where a ``FULL`` commit's sync waits for the disk, off the event loop."""
        self._syncing: asyncio.Future[None] | None = None
        """The group commit being synced (its writes are answered when it is done; the next group waits)."""
        self._checkpointer: concurrent.futures.ThreadPoolExecutor | None = None
        self._checkpoint_running = False
        self._since_checkpoint = 0
        self.fence_owner: str | None = None
        """In a cluster, this process's owner id (``server/leases.py``): every write must then be made under the
        table's current lease epoch, else it is refused (:class:`LeaseLost`). PostgreSQL only."""

    @classmethod
    async def connect(cls, url: str, *, synchronous: str = SYNCHRONOUS[0]) -> Store:
        """Open (and create or migrate) the database; ``synchronous`` is an SQLite file's durability setting."""
        store = cls(url, synchronous=synchronous)
        await store._open()
        return store

    async def _open(self) -> None:
        try:
            parsed = make_url(self.url)
        except ArgumentError:
            raise StoreError(f"not a database URL: {self.url!r}") from None
        is_sqlite = parsed.get_backend_name() == "sqlite"
        if is_sqlite and parsed.database and parsed.database != ":memory:":
            folder = Path(parsed.database).expanduser().parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(f"cannot create the database folder {folder}: {error.strerror}") from None
        try:
            kwargs: dict[str, Any] = {}
            if is_sqlite and (not parsed.database or parsed.database == ":memory:"):
                from sqlalchemy.pool import StaticPool

                kwargs = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
            engine = create_async_engine(self.url, **kwargs)
        except (ArgumentError, ImportError) as error:
            raise StoreError(f"cannot use database {self.url!r}: {error}") from None
        synchronous = self.synchronous
        if is_sqlite:
            @event.listens_for(engine.sync_engine, "connect")
            def _pragmas(dbapi_connection: Any, _record: Any) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute(f"PRAGMA synchronous={synchronous}")
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.close()

        self._engine = engine
        try:
            async with asyncio.timeout(15):
                async with engine.begin() as conn:
                    await conn.run_sync(_Base.metadata.create_all)
                    found = (await conn.execute(select(_Meta.value).where(_Meta.key == "schema_version"))).scalar()
                    if found is None:
                        await conn.execute(insert(_Meta).values(key="schema_version", value=str(SCHEMA_VERSION)))
                    elif int(found) > SCHEMA_VERSION:
                        raise StoreError(
                            f"the database uses schema version {found}, newer than this program's {SCHEMA_VERSION}"
                        )
                    elif int(found) < SCHEMA_VERSION:
                        await _migrate(conn, int(found))
        except StoreError:
            await engine.dispose()
            raise
        except (OSError, SQLAlchemyError, TimeoutError) as error:
            await engine.dispose()
            reason = _first_line(getattr(error, "orig", None) or error)
            raise StoreError(f"cannot reach the database {_safe(self.url)}: {reason}") from None
        self._upsert = _upsert_statement(engine.dialect.name)
        if is_sqlite and parsed.database and parsed.database != ":memory:":
            self._sqlite_file = str(Path(parsed.database).expanduser())
            try:
                self._sqlite = _sqlite_connect(self._sqlite_file, autocheckpoint=False, synchronous=synchronous)
            except sqlite3.Error as error:
                await engine.dispose()
                raise StoreError(f"cannot open the database {self._sqlite_file}: {error}") from None
            self._checkpointer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="store-checkpoint")
            if synchronous == "FULL":
                self._syncer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="store-sync")
        if self._sqlite is None:  # (a SQLite file commits on the loop: no writer task)
            self._queue = asyncio.Queue()
            self._writer = asyncio.create_task(self._write_loop(), name="store-writer")

    async def close(self) -> None:
        """Commit the writes already made (each is answered), then close the database."""
        self._closed = True
        if self._writer is not None:
            assert self._queue is not None
            self._queue.put_nowait(None)  # the writer ends after the writes before it
            try:
                await asyncio.wait_for(asyncio.shield(self._writer), _CLOSE_WAIT)
            except TimeoutError:  # (a database that does not answer: those writes are refused)
                self._writer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._writer
                left = [write for write in (self._queue.get_nowait() for _ in range(self._queue.qsize()))
                        if write is not None]
                _answer(left, StoreError("the server stopped before the write was committed"))
        while self._syncing is not None or self._pending:
            if self._syncing is not None:
                await asyncio.shield(self._syncing)  # (its writes are answered; the next group starts itself)
            else:
                self._commit_sqlite()
        if self._syncer is not None:
            self._syncer.shutdown()
        if self._checkpointer is not None:
            self._checkpointer.shutdown()  # (waits for a running checkpoint)
        if self._sqlite is not None:
            self._sqlite.close()
        if self._engine is not None:
            await self._engine.dispose()

    async def settled(self) -> bool:
        """Wait until no write of this store is waiting or being committed; returns whether there was any (tests:
        a fake clock moves on in no time, while a commit synced to the disk takes real time)."""
        waited = False
        while self._syncing is not None or self._pending or (self._queue is not None and not self._queue.empty()):
            waited = True
            if self._syncing is not None:
                await asyncio.shield(self._syncing)
            else:
                await asyncio.sleep(0.001)
        return waited

    @property
    def engine(self) -> AsyncEngine:
        """The SQLAlchemy engine (for the leases of a cluster, ``server/leases.py``)."""
        assert self._engine is not None, "connect() first"
        return self._engine

    @property
    def dialect(self) -> str:
        """The database's SQLAlchemy dialect name (``sqlite``, ``postgresql``)."""
        return self.engine.dialect.name

    async def ping(self) -> bool:
        assert self._engine is not None
        try:
            async with self._engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return True
        except (OSError, SQLAlchemyError):
            return False

    async def save(self, code: str, data: dict[str, Any] | None, phase: str, at: float,
                   moves: Sequence[tuple[int, int, MoveRow]] = (), reset_game: int | None = None, *,
                   listed: float | None = None, epoch: int | None = None) -> None:
        """Write a table's row (unless ``data`` is ``None``: the row stays as it is) and its new moves
        ``(game_no, seq, move)`` in one commit; returns once durable. ``listed``: when the table was opened, while
        it is listed among the public tables (:meth:`public_tables`). ``epoch``: the table's lease it is written
        under, in a cluster (:attr:`fence_owner`; a stale one is refused with :class:`LeaseLost`)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def committed(error: StoreError | None) -> None:
            if not done.done():
                if error is None:
                    done.set_result(None)
                else:
                    done.set_exception(error)

        self.save_then(code, data, phase, at, moves, reset_game, done=committed, listed=listed, epoch=epoch)
        await done

    def save_then(self, code: str, data: dict[str, Any] | None, phase: str, at: float,
                  moves: Sequence[tuple[int, int, MoveRow]] = (), reset_game: int | None = None, *,
                  done: Committed, listed: float | None = None, epoch: int | None = None) -> None:
        """:meth:`save` without waiting: ``done(None)`` is called once the write is durable, ``done(error)`` if the
        database refused it (a :class:`StoreError`; nothing of it is kept). Call from the event loop."""
        if self._closed:
            done(StoreError("the database is closed: the server is stopping"))
            return
        row = (code, _encode_json(data).decode(), phase, at, listed) if data is not None else None
        write = _Write(code, row, [(code, g, s, m) for g, s, m in moves],
                       (code, reset_game) if reset_game is not None else None, done, epoch)
        if self._sqlite is not None:
            self._pending.append(write)
            if not self._commit_scheduled:  # one commit for every write made before the loop gets to it
                self._commit_scheduled = True
                asyncio.get_running_loop().call_soon(self._commit_sqlite)
        else:
            assert self._queue is not None
            self._queue.put_nowait(write)

    async def _write_loop(self) -> None:
        assert self._queue is not None and self._engine is not None
        session_factory = async_sessionmaker(self._engine, expire_on_commit=False)
        stopping = False
        while not stopping:
            first = await self._queue.get()
            if first is None:
                return
            batch = [first]
            while not self._queue.empty() and len(batch) < 500:
                write = self._queue.get_nowait()
                if write is None:
                    stopping = True
                    break
                batch.append(write)
            refused: list[_Write] = []
            try:
                if self._upsert is not None:
                    async with self._engine.begin() as conn:
                        if self.fence_owner is not None:
                            refused = await self._fence(conn, batch)
                            if refused:
                                batch = [write for write in batch if write not in refused]
                        await self._write_grouped(conn, batch)
                else:  # (a database without an upsert: one write after the other, through the ORM)
                    async with session_factory() as session, session.begin():
                        for write in batch:
                            if write.table is not None:
                                code, data, phase, at, listed = write.table
                                row = await session.get(_TableRow, code)
                                if row is None:
                                    session.add(_TableRow(code=code, data=data, phase=phase, updated_at=at,
                                                          listed_at=listed))
                                else:
                                    row.data, row.phase, row.updated_at, row.listed_at = data, phase, at, listed
                                await session.flush()
                            if write.reset_game is not None:
                                code, game_no = write.reset_game
                                await session.execute(delete(_MoveRow).where(_MoveRow.code == code,
                                                                             _MoveRow.game_no == game_no))
                            for code, game_no, seq, (move, by, client_id, at, version) in write.moves:
                                session.add(_MoveRow(code=code, game_no=game_no, seq=seq, move=move, by=by,
                                                     client_id=client_id, at=at, version=version))
            except asyncio.CancelledError:
                _answer(batch, StoreError("the server stopped before the write was committed"))
                _answer(refused, LeaseLost("this server no longer owns the table"))
                raise
            except Exception as error:  # every waiter must hear about a failed commit
                _answer(batch, StoreError(f"the database refused a write: {_first_line(error)}"))
            else:
                _answer(batch, None)
            _answer(refused, LeaseLost("this server no longer owns the table"))

    async def _fence(self, conn: Any, batch: list[_Write]) -> list[_Write]:
        """The writes of ``batch`` that this process may not make: those of tables whose lease it does not hold at
        the epoch the write was made under, unexpired. The leases that hold are locked (``FOR SHARE``) until the
        group is committed, so no process can take one of them over in between: a stale owner's write is refused
        by the database, never applied."""
        codes = {write.code for write in batch}
        held = dict((await conn.execute(
            select(LeaseRow.code, LeaseRow.epoch)
            .where(LeaseRow.code.in_(codes), LeaseRow.owner == self.fence_owner,
                   LeaseRow.expires_at > func.extract("epoch", func.clock_timestamp()))
            .with_for_update(read=True))).all())
        return [write for write in batch if write.epoch is None or held.get(write.code) != write.epoch]

    async def _write_grouped(self, conn: Any, batch: list[_Write]) -> None:
        """A batch in one transaction of a few statements: the games restarted, an upsert of each table's latest
        row, then every new move.

        Each statement is one ``executemany``, so a batch of any size costs a handful of round trips to the
        database driver instead of several per write.
        """
        assert self._upsert is not None
        tables: dict[str, dict[str, Any]] = {}
        moves: list[dict[str, Any]] = []
        resets: list[tuple[str, int]] = []
        for write in batch:
            if write.table is not None:
                code, data, phase, at, listed = write.table
                tables[code] = {"code": code, "data": data, "phase": phase, "updated_at": at,  # the latest row wins
                                "listed_at": listed}
            if write.reset_game is not None:
                resets.append(write.reset_game)
                moves = [move for move in moves if (move["code"], move["game_no"]) != write.reset_game]
            moves.extend({"code": code, "game_no": game_no, "seq": seq, "move": move, "by": by, "client_id": client_id,
                          "at": at, "version": version}
                         for code, game_no, seq, (move, by, client_id, at, version) in write.moves)
        for code, game_no in resets:
            await conn.execute(delete(_MoveRow).where(_MoveRow.code == code, _MoveRow.game_no == game_no))
        if tables:
            await conn.execute(self._upsert, list(tables.values()))
        if moves:
            await conn.execute(insert(_MoveRow), moves)

    def _commit_sqlite(self) -> None:
        """Commit every pending write in one transaction on the event loop, then wake their callers.

        A failed commit fails every write of the group (each caller hears why); nothing of it is kept.
        """
        self._commit_scheduled = False
        if self._syncing is not None:
            return  # (the group being synced starts the next one when it is done)
        batch, self._pending = self._pending, []
        if not batch:
            return
        connection = self._sqlite
        assert connection is not None
        tables: dict[str, tuple[str, str, str, float, float | None]] = {}
        moves: list[tuple[str, int, int, str, str, str | None, float, int | None]] = []
        for write in batch:
            if write.table is not None:
                tables[write.table[0]] = write.table  # the latest row of a table wins
            if write.reset_game is not None:
                moves = [move for move in moves if move[:2] != write.reset_game]
            moves.extend((code, game_no, seq, *row) for code, game_no, seq, row in write.moves)
        resets = [write.reset_game for write in batch if write.reset_game is not None]
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                for code, game_no in resets:
                    connection.execute("DELETE FROM rr_moves WHERE code = ? AND game_no = ?", (code, game_no))
                if tables:
                    connection.executemany(_SQLITE_UPSERT, tables.values())
                if moves:
                    connection.executemany(_SQLITE_INSERT_MOVE, moves)
                if self._syncer is None:
                    connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:  # a failed statement or commit: leave the connection clean
                    connection.execute("ROLLBACK")
                raise
        except Exception as error:  # every waiter must hear about a failed commit
            _answer(batch, StoreError(f"the database refused a write: {_first_line(error)}"))
            return
        if self._syncer is not None:
            # The COMMIT waits for the disk on the sync thread (sqlite3 lets go of the GIL meanwhile); nothing else
            # uses the connection until it is done.
            loop = asyncio.get_running_loop()
            self._syncing = loop.create_future()
            commit = self._syncer.submit(connection.execute, "COMMIT")
            commit.add_done_callback(lambda done: loop.call_soon_threadsafe(self._synced, batch, done))
            return
        self._committed(batch)

    def _synced(self, batch: list[_Write], commit: concurrent.futures.Future[Any]) -> None:
        """A ``FULL`` group commit's sync is done (on the loop): answer its writes, then start the next group."""
        syncing, self._syncing = self._syncing, None
        error = commit.exception()
        if error is not None:
            connection = self._sqlite
            if connection is not None and connection.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
            _answer(batch, StoreError(f"the database refused a write: {_first_line(error)}"))
        else:
            self._committed(batch)
        if syncing is not None and not syncing.done():
            syncing.set_result(None)
        if self._pending and not self._commit_scheduled:
            self._commit_scheduled = True
            asyncio.get_running_loop().call_soon(self._commit_sqlite)

    def _committed(self, batch: list[_Write]) -> None:
        self._since_checkpoint += len(batch)
        if self._since_checkpoint >= _CHECKPOINT_EVERY and not self._checkpoint_running:
            self._checkpoint()
        _answer(batch, None)

    def _checkpoint(self) -> None:
        """Copy the write-ahead log into the database on the checkpoint thread (moves go on being committed)."""
        assert self._checkpointer is not None and self._sqlite_file is not None
        self._since_checkpoint, self._checkpoint_running = 0, True
        path = self._sqlite_file

        def checkpoint() -> None:
            connection = _sqlite_connect(path, autocheckpoint=True, synchronous=self.synchronous)
            try:
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            finally:
                connection.close()

        def finished(future: concurrent.futures.Future[None]) -> None:
            self._checkpoint_running = False
            if future.exception() is not None:
                log.warning("checkpoint_failed", extra={"error": str(future.exception())})

        self._checkpointer.submit(checkpoint).add_done_callback(finished)

    async def load_tables(self, phases: Sequence[str] | None = None) -> list[tuple[dict[str, Any], list[LoggedMove]]]:
        """Every stored table (optionally only in these phases) with the moves of its current game."""
        assert self._engine is not None
        session_factory = async_sessionmaker(self._engine, expire_on_commit=False)
        async with session_factory() as session:
            query = select(_TableRow)
            if phases is not None:
                query = query.where(_TableRow.phase.in_(list(phases)))
            rows = (await session.execute(query)).scalars().all()
            result = []
            for row in rows:
                data = json.loads(row.data)
                moves = (await session.execute(
                    select(_MoveRow).where(_MoveRow.code == row.code, _MoveRow.game_no == data["game_no"])
                    .order_by(_MoveRow.seq))).scalars().all()
                result.append((data, [LoggedMove(m.move, m.by, m.client_id, m.at, m.version) for m in moves]))
            return result

    async def public_tables(self, limit: int = 50) -> list[dict[str, Any]]:
        """The saved rows (``Table.to_json``) of the public tables in their lobbies with a seat open, newest first."""
        assert self._engine is not None
        async with self._engine.connect() as conn:
            rows = (await conn.execute(select(_TableRow.data).where(_TableRow.listed_at.is_not(None))
                                       .order_by(_TableRow.listed_at.desc()).limit(limit))).scalars().all()
        return [json.loads(row) for row in rows]

    async def load_table(self, code: str) -> tuple[dict[str, Any], list[LoggedMove]] | None:
        assert self._engine is not None
        session_factory = async_sessionmaker(self._engine, expire_on_commit=False)
        async with session_factory() as session:
            row = await session.get(_TableRow, code)
            if row is None:
                return None
            data = json.loads(row.data)
            moves = (await session.execute(
                select(_MoveRow).where(_MoveRow.code == code, _MoveRow.game_no == data["game_no"])
                .order_by(_MoveRow.seq))).scalars().all()
            return data, [LoggedMove(m.move, m.by, m.client_id, m.at, m.version) for m in moves]


_CHECKPOINT_EVERY = 2_000
"""Moves committed between two checkpoints (about 3 MB of log)."""

_CLOSE_WAIT = 10.0
"""Seconds :meth:`Store.close` waits for the writes already made to be committed."""


def _sqlite_connect(path: str, *, autocheckpoint: bool, synchronous: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5)
    pragmas = ["journal_mode=WAL", f"synchronous={synchronous}"]
    if not autocheckpoint:
        pragmas.append("wal_autocheckpoint=0")  # the checkpoint thread does it, off the event loop
    # The connection that commits the moves leaves foreign keys unchecked: checking that a move's table exists
    # took about half of the time of writing the move (17.5 against 9.3 µs a row, measured with 250 tables),
    # and the hub writes a table's row when the table is opened, before any of its moves, and deletes no
    # table. (The SQLAlchemy connections, which load and may delete, keep the checks and the cascade.)
    for pragma in pragmas:
        connection.execute(f"PRAGMA {pragma}")
    return connection


_SQLITE_UPSERT = ("INSERT INTO rr_tables (code, data, phase, updated_at, listed_at) VALUES (?, ?, ?, ?, ?) "
                  "ON CONFLICT (code) DO UPDATE SET data = excluded.data, phase = excluded.phase, "
                  "updated_at = excluded.updated_at, listed_at = excluded.listed_at")
_SQLITE_INSERT_MOVE = ("INSERT INTO rr_moves (code, game_no, seq, move, by, client_id, at, version) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")


async def _migrate(conn: Any, found: int) -> None:
    """Bring a database of schema version ``found`` up to :data:`SCHEMA_VERSION` (in the caller's transaction)."""
    if found < 2:
        await conn.execute(text("ALTER TABLE rr_moves ADD COLUMN version INTEGER"))
    if found < 3:
        await conn.execute(text("ALTER TABLE rr_tables ADD COLUMN listed_at FLOAT"))
        await conn.execute(text("CREATE INDEX IF NOT EXISTS ix_rr_tables_listed_at ON rr_tables (listed_at)"))
    await conn.execute(update(_Meta).where(_Meta.key == "schema_version").values(value=str(SCHEMA_VERSION)))
    log.info("database_migrated", extra={"from": found, "to": SCHEMA_VERSION})


def _upsert_statement(dialect: str) -> Any:
    """``INSERT ... ON CONFLICT (code) DO UPDATE`` for the tables row, where the dialect has it (else ``None``)."""
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    elif dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert  # type: ignore[assignment]
    else:
        return None
    statement = dialect_insert(_TableRow)
    excluded = statement.excluded
    return statement.on_conflict_do_update(index_elements=[_TableRow.code], set_={
        "data": excluded.data, "phase": excluded.phase, "updated_at": excluded.updated_at,
        "listed_at": excluded.listed_at})


def _first_line(error: BaseException) -> str:
    lines = str(error).splitlines()
    return lines[0] if lines else type(error).__name__


def _safe(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<bad url>"
