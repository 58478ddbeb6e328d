"""The FastAPI application: HTTP endpoints, the WebSocket protocol and the static page.

Per WebSocket, one task receives and one task sends, under one task group (as
encode/broadcaster does): a slow client never blocks a table, it only fills its own queue,
and is disconnected if that queue overflows. Where the server's WebSocket protocol offers the
short ways (``server/websocket.py``), a client's messages are handed over as they are read and
frames are written as they are made, without going through either task; the receiver then only
waits for the connection to end, and the sender only for a client that cannot keep up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..session import Phase, Table, TableError, TableSettings
from ..session.table import AgentFactory, normalize_code
from . import throttle
from .errors import Health, error_responses
from .hub import Clock, Hub, Subscriber
from .protocol import (
    PROTOCOL_VERSION,
    ActionMessage,
    CreateTableRequest,
    HostMessage,
    JoinRequest,
    PingMessage,
    ProtocolError,
    ack_message,
    error_message,
    message_id_of,
    parse_client_message,
    request_error_message,
)
from .store import SYNCHRONOUS, Store
from .throttle import Limits, RateLimited, Throttle, address_of, refuse_socket
from .websocket import DIRECT_EXTENSION

__all__ = ["create_app"]

log = logging.getLogger("royal_revenge.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
_SEND_QUEUE = 256
_RATE_PER_SECOND = 20.0
_RATE_BURST = 40.0

_HTTP_STATUS = {"no_table": 404, "bad_token": 403, "not_host": 403, "table_full": 409, "wrong_phase": 409,
                "seats_open": 409, "too_many_tables": 409, "storage": 503, "name_taken": 409, "already_seated": 409}


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


def create_app(db_url: str, *, clock: Clock | None = None, agent_factory: AgentFactory | None = None,
               store: Store | None = None, limits: Limits | None = None,
               synchronous: str = SYNCHRONOUS[0]) -> FastAPI:
    """Build the app. ``db_url`` is a SQLAlchemy async URL and ``synchronous`` an SQLite database's durability
    (:class:`Store`); ``limits`` the per-address limits (by default ``throttle.DEFAULT_LIMITS``); ``clock`` and
    ``agent_factory`` are for tests."""
    chosen = limits or throttle.DEFAULT_LIMITS
    guard = Throttle(chosen)
    idle_seconds = {Phase.LOBBY: chosen.lobby_idle_seconds, Phase.PLAYING: chosen.playing_idle_seconds,
                    Phase.FINISHED: chosen.finished_idle_seconds}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own_store = store or await Store.connect(db_url, synchronous=synchronous)
        hub = Hub(own_store, clock, agent_factory, idle_seconds=idle_seconds,
                  tables_per_address=chosen.tables_per_address)
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
        return JSONResponse({"detail": {"code": error.code, "message": str(error)}},
                            status_code=_HTTP_STATUS.get(error.code, 400))

    @app.get("/healthz", response_model=Health, responses={503: {"model": Health,
                                                                 "description": "The database does not answer."}})
    async def healthz(request: Request) -> JSONResponse:
        hub = hub_of(request)
        db_ok = await hub.store.ping()
        return JSONResponse({"status": "ok" if db_ok else "degraded", "database": db_ok, "tables": hub.table_count,
                             "protocol": PROTOCOL_VERSION}, status_code=200 if db_ok else 503)

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
        for level in body.bots[: settings.players - 1]:
            await hub.change(table.code, _adder(token, level))
        return {"code": table.code, "seat": seat, "token": token, "url": f"/t/{table.code}"}

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
        return JSONResponse({"detail": detail}, status_code=error.status_code, headers=error.headers)

    @app.exception_handler(ValidationError)
    async def _on_validation(request: Request, error: ValidationError) -> JSONResponse:
        return JSONResponse({"detail": {"code": "bad_request", "message": str(error)}}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _on_request_validation(request: Request, error: RequestValidationError) -> JSONResponse:
        # FastAPI's own answer echoes the input, and fails (a 500) when the input holds NaN or Infinity.
        return JSONResponse({"detail": {"code": "bad_request", "message": request_error_message(error.errors())}},
                            status_code=422)

    app.add_middleware(SocketRoute)  # (WebSockets to /ws/{code}: see SocketRoute)
    return app


class _Outbox:
    """A connection's outgoing frames. A table never waits for a client: a frame is sent at once when the
    connection can take it, and otherwise queued for the connection's sender task; more than ``_SEND_QUEUE``
    queued frames mark the client as too slow (it is dropped, and resyncs when it reconnects).

    Sending at once: the server's ``send`` waits only while the client's socket buffer is full, so
    most frames are written from within the broadcast, with no hand-over to the sender task (one turn
    of the event loop and a task switch fewer per frame). A send that has to wait is finished by the
    sender task, and the frames queued meanwhile follow it in order.
    """

    __slots__ = ("_frames", "_send", "_started", "_waiter", "_write", "failed", "overflowed")

    def __init__(self, send: Any, write: Callable[[str], bool] | None = None) -> None:
        self._send = send
        self._write = write
        """The protocol's short way out (``DIRECT_EXTENSION``): writes a frame at once if it can."""
        self._frames: deque[str] = deque()
        self._started: tuple[Any, Any] | None = None
        """A send begun at once that had to wait: its coroutine and what it waits for (the sender finishes it)."""
        self._waiter: asyncio.Future[None] | None = None
        self.failed: BaseException | None = None
        self.overflowed = False

    def put(self, text: str) -> None:
        if self._started is None and not self._frames and self.failed is None and not self.overflowed:
            write = self._write
            if write is not None and write(text):
                return
            sending = self._send({"type": "websocket.send", "text": text})
            try:
                awaited = sending.send(None)
            except StopIteration:
                return  # sent
            except Exception as error:  # (the client is gone: the sender task ends the connection)
                self.failed = error
            else:
                self._started = (sending, awaited)
            self._wake()
            return
        if len(self._frames) >= _SEND_QUEUE:
            self.overflowed = True
        else:
            self._frames.append(text)
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def run(self) -> None:
        """The sender task: finishes a send that had to wait, then sends what was queued meanwhile."""
        loop = asyncio.get_running_loop()
        while True:
            if self.failed is not None:
                raise self.failed
            if self._started is not None:
                await _finish(*self._started)
                self._started = None
                continue
            if self.overflowed:
                await self._send({"type": "websocket.close", "code": 4008})
                return
            if self._frames:
                # The frame leaves the queue only once it is sent: while its send waits, put() must see the
                # queue non-empty and queue behind it, or a frame put in the meantime would overtake it.
                await self._send({"type": "websocket.send", "text": self._frames[0]})
                self._frames.popleft()
                continue
            self._waiter = loop.create_future()
            await self._waiter


async def _finish(coroutine: Any, awaited: Any) -> None:
    """Run a coroutine that was begun by hand (``coroutine.send(None)`` gave ``awaited``) to its end, as a task
    would: wait for what it waits for, then resume it (an exception is raised inside it, by its own ``await``)."""
    while True:
        try:
            if awaited is None:
                await asyncio.sleep(0)  # (a bare yield: the coroutine only gives the loop a turn)
            else:
                await asyncio.wait([awaited])
        except asyncio.CancelledError:
            with contextlib.suppress(BaseException):
                coroutine.throw(asyncio.CancelledError())  # (let the send clean up; it ends here either way)
            raise
        try:
            awaited = coroutine.send(None)
        except StopIteration:
            return


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
                await serve_socket(scope, receive, send, code, scope["app"].state.hub)
                return
        await self.app(scope, receive, send)


async def serve_socket(scope: dict[str, Any], receive: Any, send: Any, code: str, hub: Hub) -> None:
    """One connection (raw ASGI): validate the seat, then run a receiver and a sender until either ends."""
    if await refuse_socket(scope, receive, send, code):  # (per-address limits: server/throttle.py)
        return
    opening = await receive()
    if opening["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    token = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [None])[0]
    try:
        live = await hub.get(code)
        seat = live.table.seat_of(token) if token else None
    except TableError as error:
        await send({"type": "websocket.send", "text": error_message(error.code, str(error))})
        await send({"type": "websocket.close", "code": 4403 if error.code == "bad_token" else 4404})
        return
    direct: dict[str, Any] | None = scope.get("extensions", {}).get(DIRECT_EXTENSION)
    outbox = _Outbox(send, direct["write"] if direct else None)
    subscriber = Subscriber(seat, outbox.put, token=token if seat is not None else None)
    table_code = live.table.code
    await hub.subscribe(table_code, subscriber)
    log.info("connected", extra={"table": table_code, "seat": seat})
    messages = _Messages(hub, table_code, token, seat, outbox.put, subscriber)
    if direct:
        direct["listen"](messages)

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
        if direct:
            direct["listen"](None)
        await hub.unsubscribe(table_code, subscriber)
        log.info("disconnected", extra={"table": table_code, "seat": seat})


class _Messages:
    """A connection's messages, each carried out as it arrives: rate-limited, then :func:`handle_message`.

    Called by the receiver task, or by the WebSocket protocol itself as the frame is read (the short way in).
    """

    __slots__ = ("allowance", "code", "hub", "put", "seat", "stamp", "subscriber", "token")

    def __init__(self, hub: Hub, code: str, token: str | None, seat: int | None, put: Callable[[str], None],
                 subscriber: Subscriber) -> None:
        self.hub, self.code, self.token, self.seat = hub, code, token, seat
        self.put, self.subscriber = put, subscriber
        self.allowance, self.stamp = _RATE_BURST, time.monotonic()

    def __call__(self, raw: str | bytes) -> None:
        now = time.monotonic()
        allowance = min(_RATE_BURST, self.allowance + (now - self.stamp) * _RATE_PER_SECOND)
        self.stamp = now
        if allowance < 1:
            self.allowance = allowance
            self.put(error_message("rate_limited", "too many messages; slow down", message_id_of(raw)))
            return
        self.allowance = allowance - 1
        try:
            handle_message(self.hub, self.code, self.token, self.seat, raw, self.put, self.subscriber)
        except Exception:  # a bug: logged, and the client hears of it (the connection and the table go on)
            log.exception("message_failed", extra={"table": self.code, "seat": self.seat})
            self.put(error_message("server_error", "the server failed to carry out this message",
                                   message_id_of(raw)))


def handle_message(hub: Hub, code: str, token: str | None, seat: int | None, raw: str | bytes,
                   send: Callable[[str], None], subscriber: Subscriber) -> None:
    """Validate and carry out one client message; every failure is answered with an error message.

    An accepted action or host command is answered once it is committed: its id rides in the state it caused
    (``"ack"``), or, if it changed nothing (a repeated id), in an ``ack`` of its own.
    """
    try:
        message = parse_client_message(raw)
    except ProtocolError as error:
        send(error_message(error.code, str(error), error.message_id))
        return
    if isinstance(message, PingMessage):
        send(json.dumps({"type": "pong", "id": message.id}))
        return
    if not isinstance(message, (ActionMessage, HostMessage)):  # sync
        hub.resend(code, subscriber)
        return
    if seat is None:
        send(error_message("spectator", "spectators cannot act", message.id))
        return
    message_id = message.id

    def reply(version: Any, acked: bool, error: TableError | None) -> None:
        if error is not None:
            send(error_message(error.code, str(error), message_id))
        elif not acked:  # nothing changed (a repeated id): no state went out to carry the acknowledgement
            send(ack_message(message_id, version))

    if isinstance(message, ActionMessage):
        action = message.action
        hub.submit(code, lambda t, now: t.act(token, action, now, client_id=message_id), subscriber, message_id,
                   reply)
    else:
        hub.submit(code, lambda t, now: _host_command(t, token, message, now), subscriber, message_id, reply)


def _adder(token: str, level: str) -> Any:
    def add(table: Table, now: float) -> int:
        return table.add_bot(token, level, now)

    return add


def _host_command(table: Table, token: str | None, message: HostMessage, now: float) -> int:
    if message.command == "add_bot":
        table.add_bot(token, message.level or "normal", now)
    elif message.command == "remove":
        if message.seat is None:
            raise TableError("bad_request", "remove needs a seat")
        table.remove(token, message.seat, now)
    elif message.command == "start":
        table.start(token, now)
    else:
        table.rematch(token, now)
    return table.version
