"""Scripted people for the cluster's end-to-end tests: each plays one seat through the load balancer, and
reconnects and resends the way the browser does (docs/protocol.md: a new connection after any close but the final
ones, the unacknowledged actions resent with the same ids).

Each player keeps what it needs to check the cluster afterwards: every acknowledged action id (each must be in the
table's moves exactly once), every reconnection (when the connection closed, when the first state came again), and
every frame goes through the reliability probe's leak checks on arrival.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from royal_revenge.client import merge_state

_PROBE = Path(__file__).resolve().parents[2] / "benchmarks" / "reliability.py"
FINAL_CLOSE = {4400, 4403, 4404, 4409, 4429}


def probe() -> Any:
    """benchmarks/reliability.py as a module (its leak checks: ``check_on_arrival``, ``LeakStats``, ``Watcher``)."""
    module = sys.modules.get("reliability_probe")
    if module is None:
        spec = importlib.util.spec_from_file_location("reliability_probe", _PROBE)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


@dataclass
class Reconnection:
    closed_at: float
    close_code: int | None
    back_at: float | None = None
    """When the first state came on the new connection (``None``: not yet)."""


@dataclass(eq=False)
class Player:
    """One seat's person: plays a random legal action soon after each state that offers one."""

    ws_base: str
    code: str
    seat: int
    token: str
    rng: random.Random
    leaks: Any
    """The probe's ``LeakStats`` that every frame is checked into."""
    think: tuple[float, float] = (0.0, 0.05)
    view: dict[str, Any] | None = None
    acked: set[str] = field(default_factory=set)
    unacked: dict[str, dict[str, Any]] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    reconnections: list[Reconnection] = field(default_factory=list)
    final_close: int | None = None
    frames: int = 0
    last_frame_at: float = 0.0
    _ids: int = 0
    _ws: Any = None
    _watcher: Any = None

    def __post_init__(self) -> None:
        self._watcher = probe().Watcher(self.seat, "seat")

    @property
    def finished(self) -> bool:
        return bool(self.view and self.view.get("phase") == "finished")

    async def run(self, stop: asyncio.Event) -> None:
        """Play until the game is over (and every action is answered), ``stop`` is set, or a final close."""
        delay = 0.1
        while not stop.is_set() and not (self.finished and not self.unacked):
            closed: Reconnection | None = None
            try:
                async with websockets.connect(f"{self.ws_base}/ws/{self.code}", open_timeout=10,
                                              max_size=None, compression=None) as ws:
                    self._ws = ws
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    first = True
                    async for raw in ws:
                        message = json.loads(raw)
                        if first and message.get("type") == "state":
                            first, delay = False, 0.1
                            if self.reconnections and self.reconnections[-1].back_at is None:
                                self.reconnections[-1].back_at = time.monotonic()
                            for message_id, action in list(self.unacked.items()):  # (resent with the same id)
                                resend = action if action.get("type") == "host" else {
                                    "type": "action", "id": message_id, "action": action}
                                await ws.send(json.dumps(resend))
                        await self._receive(ws, message)
                        if stop.is_set() or (self.finished and not self.unacked):
                            break
                    if ws.close_code is not None:
                        closed = Reconnection(time.monotonic(), ws.close_code)
            except websockets.ConnectionClosed as error:
                code = error.rcvd.code if error.rcvd is not None else None
                closed = Reconnection(time.monotonic(), code)
            except (OSError, TimeoutError, websockets.InvalidStatus, websockets.InvalidHandshake):
                closed = Reconnection(time.monotonic(), None)
            finally:
                self._ws = None
            if closed is not None:
                if closed.close_code in FINAL_CLOSE:
                    self.final_close = closed.close_code
                    return
                if not self.reconnections or self.reconnections[-1].back_at is not None:
                    self.reconnections.append(closed)
            if stop.is_set() or (self.finished and not self.unacked):
                return
            await asyncio.sleep(delay * self.rng.uniform(0.5, 1.0))
            delay = min(delay * 2, 1.0)

    async def _receive(self, ws: Any, message: dict[str, Any]) -> None:
        kind = message.get("type")
        self.frames += 1
        self.last_frame_at = time.monotonic()
        if kind == "state":
            self.view = merge_state(self.view, message)
            probe().check_on_arrival(self.leaks, self._watcher, self.view, message["view"])
            self._answered(message.get("ack"))
        elif kind == "ack":
            self._answered(message.get("id"))
        elif kind == "error" and message.get("id") in self.unacked:
            self.refused[message["id"]] = message.get("code", "")
            del self.unacked[message["id"]]
        view = self.view
        if (kind == "state" and view and view.get("phase") == "lobby" and view.get("host") == self.seat
                and not self.unacked and all(seat["kind"] != "open" for seat in view["seats"])):
            self._ids += 1  # the host starts the game once every seat is taken (resent like an action if need be)
            start = {"type": "host", "id": f"s{self.seat}-{self.code}-{self._ids}", "command": "start"}
            self.unacked[start["id"]] = start
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.send(json.dumps(start))
            return
        if kind == "state" and view and view.get("phase") == "playing" and view.get("legal") and not self.unacked:
            await asyncio.sleep(self.rng.uniform(*self.think))
            legal = view["legal"]
            plays = [action for action in legal if action.get("type") == "play"]
            action = self.rng.choice(plays) if plays and self.rng.random() < 0.9 else self.rng.choice(legal)
            self._ids += 1
            message_id = f"s{self.seat}-{self.code}-{self._ids}"
            self.unacked[message_id] = action
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.send(json.dumps({"type": "action", "id": message_id, "action": action}))

    def _answered(self, message_id: str | None) -> None:
        if message_id is not None and message_id in self.unacked:
            del self.unacked[message_id]
            self.acked.add(message_id)


async def open_table(http: httpx.AsyncClient, rng: random.Random, *, humans: int = 2, bots: int = 2,
                     bot_delay: float = 0.2) -> tuple[str, dict[int, str]]:
    """Open a single-round table through the balancer with ``humans`` people and ``bots`` bots, started."""
    settings = {"players": humans + bots, "single_round": True, "turn_seconds": 60.0,
                "bot_delay_seconds": bot_delay, "scepter_min_seconds": 4.0, "scepter_max_seconds": 8.0}
    created = await _retrying(http, "post", "/api/tables",
                              json={"name": "Host", "settings": settings, "bots": ["normal"] * bots})
    code, tokens = created["code"], {created["seat"]: created["token"]}
    for index in range(1, humans):
        joined = await _retrying(http, "post", f"/api/tables/{code}/join", json={"name": f"P{index}"})
        tokens[joined["seat"]] = joined["token"]
    return code, tokens


async def _retrying(http: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
    """A request through the balancer, tried again on 503 (the table is moving) or a connection refused."""
    for attempt in range(40):
        try:
            response = await http.request(method.upper(), url, **kwargs)
        except httpx.TransportError:
            await asyncio.sleep(0.1 * (attempt + 1))
            continue
        if response.status_code in (502, 503, 504):
            await asyncio.sleep(0.1 * (attempt + 1))
            continue
        assert response.status_code < 400, (url, response.status_code, response.text)
        answer: dict[str, Any] = response.json()
        return answer
    raise AssertionError(f"{method} {url} kept failing")
