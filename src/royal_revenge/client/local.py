"""A table in this process: the person at seat 0 against bots, driven by the server's table runner.

The :class:`LocalClient` owns a :class:`~royal_revenge.session.Table` and does what the
server's hub does for one table: it carries out action and host messages (the host's by the
server's :func:`~royal_revenge.session.runner.host_command`), has the hub's
:class:`~royal_revenge.session.runner.TableRunner` tick the table at :meth:`Table.next_deadline`
(bots, the scepter's fanfare, the decision clock, the next deal), and delivers ``state``, ``ack``
and ``error`` messages of the same shapes as the server's.

Saved games
-----------

:meth:`LocalClient.save` writes one JSON object (``docs`` call it a *terminal save*)::

    {
      "format": "royal-revenge-terminal-save",
      "version": 1,
      "settings": {...},        # TableSettings.to_json()
      "name": "Ann", "age": 9,  # the person, always at seat 0 (the host)
      "bots": ["easy", "hard"], # the bots' levels, seats 1, 2, ...
      "seed": 123,              # the table's seed (rematches deal from it)
      "record": {...}           # the engine's GameRecord JSON (format royal-revenge-record)
    }

Resuming (:func:`load_save`, then a client with ``record=``) rebuilds the table with the same
seats and replays the record move by move; the scepter restarts with a fresh random delay.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..bots.registry import warm_up_in_background
from ..engine import GameRecord, RoyalRevengeError
from ..session import BOT_LEVELS, Table, TableError, TableSettings
from ..session.runner import TableRunner, host_command
from ..session.table import AgentFactory
from .base import BaseClient, ClientError
from .clock import Clock, SystemClock

__all__ = ["SAVE_FORMAT", "LocalClient", "LocalGame", "load_save"]

SAVE_FORMAT: Final = "royal-revenge-terminal-save"
SAVE_VERSION: Final = 1


@dataclass(frozen=True)
class LocalGame:
    """A local game's set-up: the table's settings, the person, and one bot level per other seat."""

    settings: TableSettings = field(default_factory=TableSettings)
    name: str = "You"
    age: int | None = None
    bots: tuple[str, ...] = ("normal", "normal", "normal")
    seed: int | None = None

    def __post_init__(self) -> None:
        if len(self.bots) != self.settings.players - 1:
            raise TableError("bad_settings", f"{self.settings.players} players need {self.settings.players - 1} "
                                             f"bot(s), not {len(self.bots)}")
        for level in self.bots:
            if level not in BOT_LEVELS:
                raise TableError("bad_settings", f"bot level must be one of {', '.join(BOT_LEVELS)}, not {level!r}")


class LocalClient(BaseClient):
    """One person (seat 0, the host) at an in-process table of bots."""

    local = True

    def __init__(self, game: LocalGame, *, clock: Clock | None = None, agent_factory: AgentFactory | None = None,
                 record: GameRecord | None = None) -> None:
        super().__init__()
        self.game = game
        self.clock: Clock = clock or SystemClock()
        self.agent_factory = agent_factory
        self.resume_record = record
        self.table: Table | None = None
        self._token: str | None = None
        self.seed: int | None = None
        self._runner = TableRunner(self.clock, self._table_of, self._due)
        self._task: asyncio.Task[None] | None = None
        """The runner's loop, while the table runs."""
        self._warming: asyncio.Future[bool] | None = None
        self._published = -1

    # ------------------------------------------------------------------ the interface

    def now(self) -> float:
        return self.clock.now()

    def _own_time(self) -> float:
        return self.clock.now()

    async def start(self) -> None:
        if self.table is not None:
            return
        now = self.clock.now()
        game = self.game
        seed = game.seed if game.seed is not None else secrets.randbits(63)
        table = Table.open(game.settings, code="LOCAL", seed=seed, agent_factory=self.agent_factory)
        try:
            seat, token = table.join(game.name, game.age, now)
            for level in game.bots:
                table.add_bot(token, level, now)
            table.set_connected(seat, True, now)
            if self.resume_record is not None:
                table.resume(token, self.resume_record, now)
            else:
                table.start(token, now)
        except TableError as error:
            raise ClientError(str(error)) from None
        self.table, self._token, self.seed = table, token, seed
        self._publish()
        self._runner.arm(table.code, table)
        self._task = asyncio.create_task(self._runner.run(), name="local-table-clock")
        if self.agent_factory is None and "hard" in game.bots:
            # The hard level's compiled rollouts, while the first turns are played (registry.warm_up).
            self._warming = asyncio.wrap_future(warm_up_in_background("hard"))

    async def act(self, action: dict[str, Any]) -> None:
        await self._handle(self.action_message(action))

    async def host(self, command: str, *, level: str | None = None, seat: int | None = None) -> None:
        await self._handle(self.host_message(command, level, seat))

    async def back(self) -> None:
        await self._handle({"type": "back", "id": self.next_id("b")})

    async def sync(self) -> None:
        self._published = -1
        self._publish()

    async def close(self) -> None:
        self._warming = None  # (its thread finishes on its own; a stop does not wait for it)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    # ------------------------------------------------------------------ saving

    def save(self, path: Path) -> None:
        """Write the game so far (see the module's documentation for the format)."""
        table = self._table()
        data = {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "settings": table.settings.to_json(),
            "name": self.game.name,
            "age": self.game.age,
            "bots": list(self.game.bots),
            "seed": self.seed,
            "record": table.record().to_json(),
        }
        path.write_text(json.dumps(data, indent=1) + "\n")

    # ------------------------------------------------------------------ the table

    def idle(self) -> bool:
        """Nothing is due at the clock's time and the newest view has been delivered (for tests)."""
        table = self._table()
        deadline = table.next_deadline()
        return (deadline is None or deadline > self.clock.now()) and self._published == table.version

    def _table(self) -> Table:
        if self.table is None:
            raise ClientError("the local table has not started")
        return self.table

    async def _handle(self, message: dict[str, Any]) -> None:
        """What the server's ``handle_message`` does with one message, for this one seat."""
        table = self._table()
        message_id = message["id"]
        try:
            if message["type"] == "action":
                version = table.act(self._token, message["action"], self.clock.now(), client_id=message_id,
                                    game_no=message.get("game"))
            elif message["type"] == "back":
                version = table.take_back(self._token, self.clock.now())
            else:
                version = host_command(table, self._token, message["command"], self.clock.now(),
                                       level=message.get("level"), seat=message.get("seat"))
        except TableError as error:
            self.deliver({"type": "error", "id": message_id, "code": error.code, "message": str(error)})
            return
        self._publish()
        self._runner.arm(table.code, table)
        self.deliver({"type": "ack", "id": message_id, "version": version})

    def _publish(self) -> None:
        table = self._table()
        if table.version == self._published:
            return
        self._published = table.version
        self.deliver({"type": "state", "version": table.version, "server_time": self.clock.now(),
                      "view": table.view(0)})

    def _table_of(self, code: str) -> Table | None:
        return self.table

    async def _due(self, code: str, table: Table) -> None:
        """The table's deadline came (:class:`TableRunner`): tick it, show the new view, arm it again."""
        table.tick(self.clock.now())
        self._publish()
        self._runner.arm(code, table)
        await asyncio.sleep(0)  # let the screen draw between moves


def load_save(path: Path) -> tuple[LocalGame, GameRecord]:
    """Read a terminal save; raises :class:`ClientError` with a plain reason when it cannot be used."""
    try:
        data = json.loads(path.read_text())
    except OSError as error:
        raise ClientError(f"cannot read {path}: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ClientError(f"{path} is not a saved game (not JSON: {error})") from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise ClientError(f"{path} is not a saved terminal game (format {SAVE_FORMAT!r})")
    if data.get("version") != SAVE_VERSION:
        raise ClientError(f"{path}: save version {data.get('version')!r} is not supported (expected {SAVE_VERSION})")
    try:
        settings = TableSettings.from_json(data.get("settings"))
        bots = data.get("bots")
        if not isinstance(bots, Sequence) or isinstance(bots, str):
            raise TableError("bad_settings", "bots must be a list of levels")
        age = data.get("age")
        seed = data.get("seed")
        game = LocalGame(settings, str(data.get("name") or "You"), age if isinstance(age, int) else None,
                         tuple(str(level) for level in bots), seed if isinstance(seed, int) else None)
        record = GameRecord.from_json(data.get("record"))
    except (TableError, RoyalRevengeError) as error:
        raise ClientError(f"{path}: {error}") from None
    return game, record
