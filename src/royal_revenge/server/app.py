"""The FastAPI application: HTTP endpoints, the WebSocket protocol and the static page.

Per WebSocket (plain ASGI, on uvicorn's WebSocket implementation: ``server/websocket.py``), one
task receives and one task sends, under one task group (as encode/broadcaster does). A client's
message is carried out as the receiver reads it (``Hub.submit``: callbacks, no task of its own);
the frames a table makes for a connection only go into that connection's bounded queue, which
its sender drains, so a slow client never holds up a table: it fills its own queue, and is
disconnected if that queue overflows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..bots.registry import warm_up_in_background
from ..session import Phase, Table, TableError, TableSettings
from ..session.runner import host_command
from ..session.table import AgentFactory, clean_chat_text, clean_spectator_name, normalize_code
from . import throttle
from .errors import Health, error_responses
from .hub import Clock, Hub, Subscriber
from .leases import DEFAULT_LEASE_SECONDS, Leases
from .protocol import (
    CLOSE_MOVED,
    PROTOCOL_VERSION,
    ActionMessage,
    BackMessage,
    ChatMessage,
    ClientMessage,
    CreateTableRequest,
    HelloMessage,
    HostMessage,
    JoinRequest,
    LeaveMessage,
    PingMessage,
    ProtocolError,
    PublicTables,
    ReactMessage,
    RematchMessage,
    SyncMessage,
    ack_message,
    error_message,
    message_id_of,
    parse_client_message,
    parse_hello,
    request_error_message,
)
from .store import SYNCHRONOUS, Store
from .throttle import Limits, RateLimited, Throttle, address_of, refuse_socket

__all__ = ["create_app"]

log = logging.getLogger("royal_revenge.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
_SEND_QUEUE = 256
_RATE_PER_SECOND = 20.0
_RATE_BURST = 40.0
_HELLO_SECONDS = 10.0
"""How long a new connection may take to send its hello (protocol 4)."""
_CLOSE_BAD_HELLO, _CLOSE_BAD_TOKEN, _CLOSE_NO_TABLE, _CLOSE_TOO_SLOW, _CLOSE_REPLACED = 4400, 4403, 4404, 4008, 4409
"""The WebSocket close codes of docs/protocol.md."""
_REFUSED = {"bad_hello": _CLOSE_BAD_HELLO, "bad_token": _CLOSE_BAD_TOKEN, "no_table": _CLOSE_NO_TABLE,
            "moved": CLOSE_MOVED}

_HTTP_STATUS = {"no_table": 404, "bad_token": 403, "not_host": 403, "table_full": 409, "wrong_phase": 409,
                "seats_open": 409, "too_many_tables": 409, "storage": 503, "name_taken": 409, "already_seated": 409,
                "moved": 503}
_RETRY_AFTER = {"moved": "1"}
"""Seconds after which a refused request may be tried again (a table moving between a cluster's processes)."""


_FRAMEWORK_CODES = {404: "not_found", 405: "method_not_allowed"}
_FRAMEWORK_MESSAGES = {"There was an error parsing the body": "the request body is not valid JSON"}


def _table_error(error: TableError) -> HTTPException:
    return HTTPException(_HTTP_STATUS.get(error.code, 400), {"code": error.code, "message": str(error)})


_CLIENT_COOKIE = "rr_client"
_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{32}")


def _client_id(request: Request, response: Response) -> str:
    """Who is asking for a seat: a random id in an HttpOnly cookie, made at the first create or join.

    A table refuses a second seat to a client that holds one (one person cannot fill a table), while
    friends behind one IP address each have their own. A client that keeps no cookies (a script, the
    terminal client) is a new client with every request.
    """
    client = request.cookies.get(_CLIENT_COOKIE)
    if client is None or not _CLIENT_ID.fullmatch(client):
        client = secrets.token_urlsafe(24)
    response.set_cookie(_CLIENT_COOKIE, client, max_age=400 * 86400, path="/api/tables", httponly=True,
                        samesite="strict", secure=request.url.scheme == "https")
    return client


def _warm_expert_bot() -> None:
    """Load NumPy and the expert bot's weights once, at startup and off the event loop: else the first expert
    bot to move in this process would hold every table up while they load."""
    from ..bots.registry import make_agent

    try:
        make_agent("expert")
    except Exception:  # (the tables play on: an expert seat would then fail in plain words when it plays)
        log.warning("the expert bot's weights could not be loaded", exc_info=True)


def create_app(db_url: str, *, clock: Clock | None = None, agent_factory: AgentFactory | None = None,
               store: Store | None = None, limits: Limits | None = None,
               synchronous: str = SYNCHRONOUS[0], node: str | None = None,
               lease_seconds: float = DEFAULT_LEASE_SECONDS) -> FastAPI:
    """Build the app. ``db_url`` is a SQLAlchemy async URL and ``synchronous`` an SQLite database's durability
    (:class:`Store`); ``limits`` the per-address limits (by default ``throttle.DEFAULT_LIMITS``); ``clock`` and
    ``agent_factory`` are for tests. ``node`` names this process in a cluster: it then owns only the tables whose
    lease it holds in the (PostgreSQL) database, for ``lease_seconds`` at a time (``server/leases.py``)."""
    chosen = limits or throttle.DEFAULT_LIMITS
    guard = Throttle(chosen)
    idle_seconds = {Phase.LOBBY: chosen.lobby_idle_seconds, Phase.PLAYING: chosen.playing_idle_seconds,
                    Phase.FINISHED: chosen.finished_idle_seconds}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own_store = store or await Store.connect(db_url, synchronous=synchronous)
        if agent_factory is None:
            await asyncio.to_thread(_warm_expert_bot)
            # The hard level's compiled rollouts, beside the start rather than before it (a first compilation
            # takes some 20 seconds; until it is done a hard bot's first move waits for it). A stop does not wait.
            warm_up_in_background("hard")
        leases = Leases(own_store, node, lease_seconds) if node is not None else None
        hub = Hub(own_store, clock, agent_factory, idle_seconds=idle_seconds,
                  tables_per_address=chosen.tables_per_address, leases=leases)
        await hub.start()
        app.state.hub = hub
        try:
            yield
        finally:
            await hub.stop()
            if store is None:
                await own_store.close()

    app = FastAPI(title="UNO Royal Revenge", version=str(PROTOCOL_VERSION), lifespan=lifespan)
    app.state.throttle = guard

    def hub_of(request: Request | WebSocket) -> Hub:
        hub: Hub = request.app.state.hub
        return hub

    async def find(request: Request, code: str) -> Table:
        """Look a table up for a client, counted against its address's lookups (and misses)."""
        address = address_of(request.scope)
        await guard.lookup(address)
        try:
            return (await hub_of(request).get(code)).table
        except TableError as error:
            if error.code == "no_table":
                await guard.missed(address)
            raise

    @app.exception_handler(RateLimited)
    async def _on_rate_limited(request: Request, error: RateLimited) -> JSONResponse:
        return JSONResponse({"detail": {"code": "rate_limited", "message": str(error)}}, status_code=429,
                            headers={"Retry-After": str(error.retry_after)})

    @app.exception_handler(TableError)
    async def _on_table_error(request: Request, error: TableError) -> JSONResponse:
        retry_after = _RETRY_AFTER.get(error.code)
        return JSONResponse({"detail": {"code": error.code, "message": str(error)}},
                            status_code=_HTTP_STATUS.get(error.code, 400),
                            headers={"Retry-After": retry_after} if retry_after is not None else None)

    @app.get("/healthz", response_model=Health, responses={503: {"model": Health,
                                                                 "description": "The database does not answer."}})
    async def healthz(request: Request) -> JSONResponse:
        hub = hub_of(request)
        db_ok = await hub.store.ping()
        health: dict[str, Any] = {"status": "ok" if db_ok else "degraded", "database": db_ok,
                                  "tables": hub.table_count, "protocol": PROTOCOL_VERSION}
        if hub.leases is not None:
            health["node"] = hub.leases.node
        return JSONResponse(health, status_code=200 if db_ok else 503)

    @app.post("/api/tables", status_code=201, responses=error_responses(400, 409, 422, 429, 503))
    async def create_table(body: CreateTableRequest, request: Request, response: Response) -> dict[str, Any]:
        address = address_of(request.scope)
        await guard.hit("create", address)
        try:
            settings = TableSettings.from_json(body.settings)
        except TableError as error:
            raise _table_error(error) from None
        hub = hub_of(request)
        client = _client_id(request, response)
        table, seat, token = await hub.create(settings, body.name, body.age, client, owner=address)
        for index, level in enumerate(body.bots[: settings.players - 1]):
            if level is not None:  # (None: the seat stays open for a friend)
                await hub.change(table.code, _adder(token, level, seat + 1 + index))
        return {"code": table.code, "seat": seat, "token": token, "url": f"/t/{table.code}"}

    @app.get("/api/tables", response_model=PublicTables, responses=error_responses(429))
    async def public_tables(request: Request) -> dict[str, Any]:
        """The public tables waiting in their lobbies with a seat open, newest first (at most 50), from the
        database (so that every server process lists the same)."""
        await guard.lookup(address_of(request.scope))
        tables = []
        for data in await hub_of(request).store.public_tables(_PUBLIC_TABLES):
            try:
                tables.append(_listing(data))
            except (KeyError, TypeError, ValueError, TableError):  # (a row that does not read: left out)
                log.warning("public_table_unreadable", extra={"table": data.get("code")})
        return {"tables": tables}

    @app.post("/api/tables/{code}/join", responses=error_responses(400, 404, 409, 422, 429, 503))
    async def join_table(code: str, body: JoinRequest, request: Request, response: Response) -> dict[str, Any]:
        address = address_of(request.scope)
        await guard.refuse_if_missing_too_often(address)  # (a join is a lookup too: guessing codes by joining)
        await guard.hit("join", address)
        code = normalize_code(code)
        try:
            client = _client_id(request, response)
            seat, token = await hub_of(request).change(
                code, lambda t, now: t.join(body.name, body.age, now, client=client))
        except TableError as error:
            if error.code == "no_table":
                await guard.missed(address)
            raise
        return {"code": code, "seat": seat, "token": token, "url": f"/t/{code}"}

    @app.get("/api/tables/{code}", responses=error_responses(404, 429))
    async def table_info(code: str, request: Request) -> dict[str, Any]:
        return (await find(request, code)).view(None)

    @app.get("/api/tables/{code}/record", responses={
        200: {"description": "The game record (docs/records.md), as a download.",
              "content": {"application/json": {"schema": {"type": "object"}}}},
        **error_responses(404, 409, 429)})
    async def table_record(code: str, request: Request) -> Response:
        table = await find(request, code)
        if table.phase is not Phase.FINISHED:
            raise HTTPException(409, {"code": "wrong_phase",
                                      "message": "the record can be downloaded once the game is over"})
        return Response(table.record().dumps(), media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="royal-revenge-{table.code}-{table.game_no}.json"'})

    @app.get("/api/tables/{code}/replay", responses=error_responses(404, 409, 429))
    async def table_replay(code: str, request: Request) -> dict[str, Any]:
        table = await find(request, code)
        seats = [seat.public()["name"] or f"Seat {index + 1}" for index, seat in enumerate(table.seats)]
        return {"code": table.code, "game_no": table.game_no, "seats": seats, "frames": table.replay_frames()}

    if (WEB_DIR / "index.html").exists():
        app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

        @app.get("/", include_in_schema=False)
        async def index() -> FileResponse:
            return FileResponse(WEB_DIR / "index.html")

        @app.get("/t/{code}", include_in_schema=False)
        async def table_page(code: str) -> FileResponse:
            return FileResponse(WEB_DIR / "index.html")

        @app.get("/help", include_in_schema=False)
        async def help_page() -> FileResponse:
            # The rules in plain words with the card pictures (web/help.html and its bundle, dist/help.js).
            return FileResponse(WEB_DIR / "help.html")
    else:
        @app.get("/", include_in_schema=False)
        async def index_plain() -> PlainTextResponse:
            return PlainTextResponse("UNO Royal Revenge server: see /docs for the API.")

    @app.exception_handler(StarletteHTTPException)
    async def _on_http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        # The framework's own refusals (a body that is not JSON, an unknown path, a wrong method) in the API's shape.
        detail: Any = error.detail
        if not isinstance(detail, dict):
            detail = {"code": _FRAMEWORK_CODES.get(error.status_code, "bad_request"),
                      "message": _FRAMEWORK_MESSAGES.get(str(detail), str(detail).lower())}
        headers = error.headers
        if error.status_code == 405:
            headers = {**(headers or {}), "Allow": _allowed_methods(request)}
        return JSONResponse({"detail": detail}, status_code=error.status_code, headers=headers)

    @app.exception_handler(ValidationError)
    async def _on_validation(request: Request, error: ValidationError) -> JSONResponse:
        # (pydantic's own words name fields and types: "name: String should have at least 1 character")
        return JSONResponse({"detail": {"code": "bad_request", "message": request_error_message(error.errors())}},
                            status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _on_request_validation(request: Request, error: RequestValidationError) -> JSONResponse:
        # FastAPI's own answer echoes the input, and fails (a 500) when the input holds NaN or Infinity.
        return JSONResponse({"detail": {"code": "bad_request", "message": request_error_message(error.errors())}},
                            status_code=422)

    app.state.seat_lines = _SeatLines()
    app.add_middleware(SocketRoute)  # (WebSockets to /ws/{code}: see SocketRoute)
    return app


class _Outbox:
    """A connection's outgoing frames, sent in order by the connection's sender task (:meth:`run`).

    A table never waits for a client: :meth:`put` only queues the frame. A client that reads so slowly that
    ``_SEND_QUEUE`` frames already wait for it is too slow: it is dropped (close code 4008, after the frame
    being sent) and gets a fresh snapshot when it reconnects.
    """

    __slots__ = ("_queue", "_send", "closing", "overflowed")

    def __init__(self, send: Any) -> None:
        self._send = send
        self._queue: asyncio.Queue[str | None] = asyncio.Queue(_SEND_QUEUE)
        """The frames to send; ``None`` after the last one (:meth:`close`)."""
        self.closing: int | None = None
        """The close code, once the connection is being closed: nothing more is queued."""
        self.overflowed = False

    def put(self, text: str) -> None:
        """Queue a frame (never waits)."""
        if self.closing is not None:
            return
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            self.closing, self.overflowed = _CLOSE_TOO_SLOW, True

    def close(self, code: int, last: str) -> None:
        """Send ``last`` after the frames already queued, then close the connection with ``code``."""
        self.put(last)
        if self.closing is None:
            self.closing = code
            try:
                self._queue.put_nowait(None)
            except asyncio.QueueFull:
                self.overflowed = True

    async def run(self) -> None:
        """The sender task: sends the queued frames one by one until the connection is closed."""
        queue, send = self._queue, self._send
        while True:
            text = await queue.get()
            if text is None or self.overflowed:  # (an overflow drops what is still queued)
                await send({"type": "websocket.close", "code": self.closing})
                return
            await send({"type": "websocket.send", "text": text})


class _Allowance:
    """A token bucket for a seat's (or a spectator's) messages: ``_RATE_PER_SECOND`` a second on average, in
    bursts of up to ``_RATE_BURST``."""

    __slots__ = ("left", "stamp")

    def __init__(self) -> None:
        self.left, self.stamp = _RATE_BURST, time.monotonic()

    def _refilled(self, now: float) -> float:
        return min(_RATE_BURST, self.left + (now - self.stamp) * _RATE_PER_SECOND)

    def take(self) -> bool:
        """Use one message of the allowance; ``False`` (and nothing used) if none is left."""
        now = time.monotonic()
        left = self._refilled(now)
        self.stamp = now
        if left < 1:
            self.left = left
            return False
        self.left = left - 1
        return True

    def seconds_to_full(self) -> float:
        return (_RATE_BURST - self._refilled(time.monotonic())) / _RATE_PER_SECOND


@dataclass(eq=False)
class _SeatLine:
    allowance: _Allowance = field(default_factory=_Allowance)
    outbox: _Outbox | None = None
    """The seat's connection, if it has one."""


class _SeatLines:
    """The seats' connections to this server, by seat token.

    A token has one connection at a time: a new one replaces the one before, which is told why (``replaced``)
    and closed with 4409. Its message allowance belongs to the token, not to a connection: a new connection
    goes on with what the one before left, and the allowance is forgotten only once it would have refilled.
    """

    __slots__ = ("_lines",)

    def __init__(self) -> None:
        self._lines: dict[str, _SeatLine] = {}

    def claim(self, token: str, outbox: _Outbox) -> _Allowance:
        """Make ``outbox``'s connection the token's one (closing the one before); the token's allowance."""
        line = self._lines.get(token)
        if line is None:
            line = self._lines[token] = _SeatLine()
        elif line.outbox is not None:
            line.outbox.close(_CLOSE_REPLACED, error_message(
                "replaced", "this seat was opened on another connection (another window or device); "
                            "this one is closed"))
        line.outbox = outbox
        return line.allowance

    def release(self, token: str, outbox: _Outbox) -> None:
        """``outbox``'s connection has ended."""
        line = self._lines.get(token)
        if line is not None and line.outbox is outbox:
            line.outbox = None
            asyncio.get_running_loop().call_later(line.allowance.seconds_to_full(), self._forget, token)

    def _forget(self, token: str) -> None:
        line = self._lines.get(token)
        if line is None or line.outbox is not None:
            return
        wait = line.allowance.seconds_to_full()
        if wait > 0:
            asyncio.get_running_loop().call_later(wait, self._forget, token)
        else:
            del self._lines[token]

    def __len__(self) -> int:
        return len(self._lines)


class SocketRoute:
    """ASGI middleware that takes WebSocket connections to ``/ws/{code}`` straight to :func:`serve_socket`.

    The frames of a game are the server's hot path: raw ASGI ``receive``/``send`` spare every
    frame the framework's per-message wrappers (routing, exception handling) that only the
    opening of a connection would need. Everything else goes on to the application.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            path: str = scope["path"]
            code = path[4:] if path.startswith("/ws/") else ""
            if code and "/" not in code:
                state = scope["app"].state
                await serve_socket(scope, receive, send, code, state.hub, state.seat_lines)
                return
        await self.app(scope, receive, send)


class _Gone(Exception):
    """The client left before its hello."""


async def _hello(scope: dict[str, Any], receive: Any) -> HelloMessage:
    """The connection's hello: its seat token (``None`` for a spectator) and a spectator's name."""
    if "token" in parse_qs(scope.get("query_string", b"").decode("latin-1")):
        raise ProtocolError("bad_hello", "the seat token goes in the hello message, never in the URL "
                                         f"(protocol {PROTOCOL_VERSION})")
    try:
        async with asyncio.timeout(_HELLO_SECONDS):
            message = await receive()
    except TimeoutError:
        raise ProtocolError("bad_hello", f"no hello message within {_HELLO_SECONDS:g} seconds") from None
    if message["type"] != "websocket.receive":  # websocket.disconnect
        raise _Gone
    raw = message.get("text")
    return parse_hello(raw if raw is not None else message.get("bytes") or b"")


async def _refuse(send: Any, error: ProtocolError | TableError) -> None:
    """Refuse a connection: the reason as an error message, then the close code that tells the client what to do."""
    with contextlib.suppress(OSError, RuntimeError):  # (the client may be gone already)
        await send({"type": "websocket.send", "text": error_message(error.code, str(error))})
        await send({"type": "websocket.close", "code": _REFUSED.get(error.code, _CLOSE_NO_TABLE)})


async def serve_socket(scope: dict[str, Any], receive: Any, send: Any, code: str, hub: Hub,
                       seat_lines: _SeatLines) -> None:
    """One connection (raw ASGI): the hello and the seat, then a receiver and a sender task until either ends."""
    if await refuse_socket(scope, receive, send, code):  # (per-address limits: server/throttle.py)
        return
    opening = await receive()
    if opening["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    try:
        hello = await _hello(scope, receive)
        token = hello.token
        live = await hub.get(code)
        seat = live.table.seat_of(token) if token else None
        spectator = None
        if seat is None and hello.name is not None:
            try:
                spectator = clean_spectator_name(hello.name)
            except TableError as error:
                raise ProtocolError("bad_hello", f"{error}") from None
    except (ProtocolError, TableError) as error:
        await _refuse(send, error)
        return
    except _Gone:
        return
    outbox = _Outbox(send)
    subscriber = Subscriber(seat, outbox.put, token=token if seat is not None else None, close=outbox.close)
    table_code = live.table.code
    try:
        await hub.subscribe(table_code, subscriber)
    except TableError as error:  # (a cluster: the table moved to another process meanwhile; the client reconnects)
        await hub.unsubscribe(table_code, subscriber)
        await _refuse(send, error)
        return
    allowance = seat_lines.claim(token, outbox) if token is not None and seat is not None else _Allowance()
    log.info("connected", extra={"table": table_code, "seat": seat})
    messages = _Messages(hub, table_code, token, seat, outbox, subscriber, allowance, scope["app"].state.throttle,
                         spectator)

    async def receiver() -> None:
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":  # websocket.disconnect
                return
            raw = message.get("text")
            messages(raw if raw is not None else message.get("bytes") or b"")

    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(receiver()), group.create_task(outbox.run())]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                task.cancel()
    except* (RuntimeError, ConnectionError, OSError):  # (the client went away mid-send)
        pass
    finally:
        if token is not None and seat is not None:
            seat_lines.release(token, outbox)
        await hub.unsubscribe(table_code, subscriber)
        log.info("disconnected", extra={"table": table_code, "seat": seat})


class _Messages:
    """A connection's messages, each carried out as the receiver task reads it: rate-limited (the allowance is
    the seat's, shared with its other connections), then :func:`handle_message`."""

    __slots__ = ("allowance", "code", "hub", "outbox", "seat", "spectator", "spectator_key", "subscriber",
                 "throttle", "token")

    def __init__(self, hub: Hub, code: str, token: str | None, seat: int | None, outbox: _Outbox,
                 subscriber: Subscriber, allowance: _Allowance, throttle: Throttle | None = None,
                 spectator: str | None = None) -> None:
        self.hub, self.code, self.token, self.seat = hub, code, token, seat
        self.outbox, self.subscriber, self.allowance = outbox, subscriber, allowance
        self.throttle = throttle
        self.spectator = spectator
        """A spectator's name from their hello (``None``: "Spectator")."""
        self.spectator_key = secrets.token_hex(8)
        """This connection's key for the chat's rate limit while it watches (a seat's key is the seat)."""

    def __call__(self, raw: str | bytes) -> None:
        put = self.outbox.put
        if self.outbox.closing is not None:
            return  # (replaced or dropped: this connection no longer speaks for anyone)
        if not self.allowance.take():
            put(error_message("rate_limited", "You are sending messages too fast; wait a moment", message_id_of(raw)))
            return
        try:
            self._handle(raw)
        except Exception:  # a bug: logged, and the client hears of it (the connection and the table go on)
            log.exception("message_failed", extra={"table": self.code, "seat": self.seat})
            put(error_message("server_error", "the server failed to carry out this message", message_id_of(raw)))


    def _handle(self, raw: str | bytes) -> None:
        """Validate one message and carry it out: the chat, a reaction, leaving and a rematch request here, the
        rest by :func:`handle_message`; every failure is answered with an error message."""
        put = self.outbox.put
        try:
            message = parse_client_message(raw)
        except ProtocolError as error:
            put(error_message(error.code, str(error), error.message_id))
            return
        if isinstance(message, (ChatMessage, ReactMessage)):
            self._chat(message)
        elif isinstance(message, LeaveMessage):
            self._leave(message)
        else:
            handle_message(self.hub, self.code, self.token, self.seat, message, put, self.subscriber)

    def _chat(self, message: ChatMessage | ReactMessage) -> None:
        """A chat line or a reaction: its text checked at once, then the seat's (or this spectator's) rate of
        lines (the ``limits`` counters, ``Throttle.chat_line``), then the table (a muted seat is refused there)."""
        put = self.outbox.put
        if isinstance(message, ChatMessage):
            try:
                clean_chat_text(message.text)  # (refused at once, before it counts against the rate)
            except TableError as error:
                put(error_message(error.code, str(error), message.id))
                return
        self.hub.spawn(self._chat_when_allowed(message), f"chat-{self.code}")

    def _leave(self, message: LeaveMessage) -> None:
        """The person leaves their seat for good: the connection watches on as a spectator (its next state is
        whole, with ``you: null``; no ``kicked`` error: they asked for it)."""
        put = self.outbox.put
        if self.seat is None or self.token is None or self.subscriber.seat is None:
            put(error_message("spectator", "You are watching: there is no seat to leave", message.id))
            return
        token, seat, subscriber = self.token, self.seat, self.subscriber

        def leave(table: Table, now: float) -> int:
            name = table.seats[seat].name
            version = table.leave(token, now)
            # (before the states go out: this connection is sent the spectator's view, whole)
            subscriber.seat = subscriber.token = self.seat = self.token = None
            self.spectator = name
            return version

        reply = _replier(put, message.id)

        def replied(version: Any, acked: bool, error: TableError | None) -> None:
            if error is not None and error.code == "storage":  # (not saved: the table was reloaded with the seat)
                subscriber.seat, subscriber.token, self.seat, self.token = seat, token, seat, token
                self.spectator = None
            reply(version, acked, error)

        self.hub.submit(self.code, leave, subscriber, message.id, replied)

    async def _chat_when_allowed(self, message: ChatMessage | ReactMessage) -> None:
        put = self.outbox.put
        seat = self.subscriber.seat  # (None once the seat was left or taken away: the connection watches)
        key = f"{self.code}/seat/{seat}" if seat is not None else f"{self.code}/watching/{self.spectator_key}"
        if self.throttle is not None:
            try:
                await self.throttle.chat_line(key)
            except RateLimited as limited:
                put(error_message("rate_limited", str(limited), message.id))
                return
        token, spectator = self.token if seat is not None else None, self.spectator
        operation: Callable[[Table, float], int]
        if isinstance(message, ChatMessage):
            text = message.text
            operation = partial(_say, token, text, spectator)
        else:
            operation = partial(_react, token, message.emoji, spectator)
        self.hub.submit(self.code, operation, self.subscriber, message.id, _replier(put, message.id))


def _say(token: str | None, text: str, spectator: str | None, table: Table, now: float) -> int:
    return table.say(token, text, now, spectator=spectator)


def _react(token: str | None, emoji: str, spectator: str | None, table: Table, now: float) -> int:
    return table.react(token, emoji, now, spectator=spectator)


def _replier(send: Callable[[str], None], message_id: str) -> Callable[[Any, bool, TableError | None], None]:
    """How a message that goes to the table is answered: its error, or an ``ack`` unless one rode in a state."""
    def reply(version: Any, acked: bool, error: TableError | None) -> None:
        if error is not None and error.code == "moved":
            return  # (the connection is being closed with CLOSE_MOVED: the client resends the message elsewhere)
        if error is not None:
            send(error_message(error.code, str(error), message_id))
        elif not acked:  # nothing changed (a repeated id): no state went out to carry the acknowledgement
            send(ack_message(message_id, version))

    return reply


def handle_message(hub: Hub, code: str, token: str | None, seat: int | None, message: ClientMessage,
                   send: Callable[[str], None], subscriber: Subscriber) -> None:
    """Carry out one client message (parsed; the chat's are :class:`_Messages`'); every failure is answered with an
    error message.

    An accepted action or host command is answered once it is committed: its id rides in the state it caused
    (``"ack"``), or, if it changed nothing (a repeated id), in an ``ack`` of its own.
    """
    if isinstance(message, PingMessage):
        send(json.dumps({"type": "pong", "id": message.id}))
        return
    if isinstance(message, SyncMessage):
        hub.resend(code, subscriber)
        return
    assert not isinstance(message, (ChatMessage, ReactMessage, LeaveMessage))  # (_Messages carries them out)
    if seat is None:
        send(error_message("spectator", "You are watching this game; only the players at the table can act",
                           message.id))
        return
    message_id = message.id
    reply = _replier(send, message_id)

    if isinstance(message, ActionMessage):
        action, game_no = message.action, message.game
        hub.submit(code, lambda t, now: t.act(token, action, now, client_id=message_id, game_no=game_no),
                   subscriber, message_id, reply)
    elif isinstance(message, RematchMessage):
        hub.submit(code, lambda t, now: t.ask_rematch(token, now), subscriber, message_id, reply)
    elif isinstance(message, BackMessage):
        hub.submit(code, lambda t, now: t.take_back(token, now), subscriber, message_id, reply)
    else:
        hub.submit(code, lambda t, now: _host_command(t, token, message, now), subscriber, message_id, reply)


def _allowed_methods(request: Request) -> str:
    """Every method the request's path takes, for a 405's ``Allow`` (Starlette names only the first route's, and
    ``/api/tables`` has two: GET lists the public tables, POST opens one)."""
    from starlette.routing import Match, Route

    methods: set[str] = set()
    for route in request.app.routes:
        if isinstance(route, Route) and route.methods and route.matches(request.scope)[0] is not Match.NONE:
            methods |= route.methods
    return ", ".join(sorted(methods))


_PUBLIC_TABLES = 50
"""How many public tables ``GET /api/tables`` lists at most."""


def _listing(data: dict[str, Any]) -> dict[str, Any]:
    """A public table's entry from its saved row (``Table.to_json``), without restoring its game."""
    seats = data["seats"]
    host = data.get("host")
    name = seats[host]["name"] if isinstance(host, int) and 0 <= host < len(seats) else None
    return {"code": data["code"], "host": name, "seats": len(seats),
            "taken": sum(seat["kind"] != "open" for seat in seats),
            "settings": TableSettings.from_json(data["settings"]).to_json()}


def _adder(token: str, level: str, seat: int | None = None) -> Any:
    def add(table: Table, now: float) -> int:
        return table.add_bot(token, level, now, seat)

    return add


def _host_command(table: Table, token: str | None, message: HostMessage, now: float) -> int:
    return host_command(table, token, message.command, now, level=message.level, seat=message.seat)
