#!/usr/bin/env python3
"""The floor under the online tables server: the same web stack and traffic, with no game at all.

``server_load.py`` measures the real server. This script measures what the stack it is built
on costs by itself, so that its figures can be read against a floor: a bare Starlette app on
uvicorn (the same WebSocket implementation, ``websockets-sansio``, and the same shape: one
receiver and one sender task per connection, a per-table lock) where a "move" is only a
counter. For every action it does the real server's I/O: one frame in, the move written to
SQLite before anything is sent (grouped: one commit per turn of the event loop, on the loop,
as the server's store does), and a state frame of ``--frame-bytes`` to each of the table's 4
connections, the actor's carrying the acknowledgement (protocol 3); each connection begins with a
hello (protocol 4). The clients are the load script's closed loop: the connection whose turn
it is acts as soon as it sees the state.

Run it with::

    .venv/bin/python benchmarks/server_floor.py --tables 250 --seconds 15

``--no-db`` leaves out the database write.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------- the floor server (an ASGI app)


def make_app() -> Any:
    """The Starlette app, configured by environment variables (uvicorn imports it by name)."""
    import msgspec
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket

    encode = msgspec.json.Encoder().encode
    pad = "x" * int(os.environ.get("FLOOR_FRAME_BYTES", "500"))
    use_db = os.environ.get("FLOOR_DB", "1") == "1"
    database = sqlite3.connect(os.environ.get("FLOOR_DB_FILE", ":memory:"), check_same_thread=False,
                               isolation_level=None)
    database.execute("PRAGMA journal_mode=WAL")
    database.execute("PRAGMA synchronous=NORMAL")
    database.execute("CREATE TABLE IF NOT EXISTS moves (code TEXT, seq INTEGER, move TEXT)")
    tables: dict[str, dict[str, Any]] = {}
    pending: list[tuple[tuple[str, int, str], asyncio.Future[None]]] = []

    def commit() -> None:  # as the server's store: every write of this turn of the loop in one commit, on the loop
        batch = pending[:]
        pending.clear()
        database.execute("BEGIN IMMEDIATE")
        database.executemany("INSERT INTO moves VALUES (?, ?, ?)", [row for row, _ in batch])
        database.execute("COMMIT")
        for _, done in batch:
            done.set_result(None)

    async def save(row: tuple[str, int, str]) -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        if not pending:
            loop.call_soon(commit)
        pending.append((row, done))
        await done

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        hello = json.loads(await ws.receive_text())  # (protocol 4: the first message says who this is)
        code, seat = ws.path_params["code"], int(hello["token"])
        table = tables.setdefault(code, {"sends": {}, "turn": 0, "version": 0, "lock": asyncio.Lock()})
        outgoing: asyncio.Queue[str] = asyncio.Queue()
        table["sends"][seat] = outgoing.put_nowait

        def broadcast(acting: int | None = None, ack: str | None = None) -> None:
            for other, send in table["sends"].items():
                message = {"type": "state", "version": table["version"], "turn": table["turn"], "pad": pad}
                if other == acting:
                    message["ack"] = ack  # (protocol 3: the acknowledgement rides in the actor's state)
                send(encode(message).decode())

        async def sender() -> None:
            while True:
                await ws.send_text(await outgoing.get())

        async def receiver() -> None:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                data = json.loads(message["text"])
                if data["type"] == "start":
                    broadcast()
                    continue
                async with table["lock"]:
                    table["version"] += 1
                    table["turn"] = (table["turn"] + 1) % 4
                    if use_db:
                        await save((code, table["version"], "0:draw"))
                    broadcast(seat, data["id"])

        tasks = [asyncio.ensure_future(receiver()), asyncio.ensure_future(sender())]
        try:
            await tasks[0]
        finally:
            tasks[1].cancel()

    return Starlette(routes=[WebSocketRoute("/ws/{code}", endpoint)])


# ---------------------------------------------------------------------------- the clients


def _client_main(port: int, first: int, tables: int, warmup: float, seconds: float, results: Any) -> None:
    import uvloop
    import websockets

    latencies: list[float] = []
    state = {"measuring": False}

    async def player(code: str, seat: int, ready: list[int], go: asyncio.Event) -> None:
        ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/{code}", compression=None,
                                      ping_interval=None, max_size=1 << 20)
        await ws.send(json.dumps({"type": "hello", "token": str(seat)}))
        ready.append(1)
        await go.wait()
        if seat == 0:
            await ws.send(json.dumps({"type": "start"}))
        pending: dict[str, float] = {}
        count = 0
        async for raw in ws:
            message = json.loads(raw)
            if message.get("ack") is not None:
                sent = pending.pop(message["ack"])
                if state["measuring"]:
                    latencies.append(time.perf_counter() - sent)
            if message["type"] == "state" and message["turn"] == seat:
                count += 1
                message_id = f"{seat}-{count}"
                pending[message_id] = time.perf_counter()
                await ws.send(json.dumps({"type": "action", "id": message_id, "action": {"type": "draw"}}))

    async def run() -> None:
        ready: list[int] = []
        go = asyncio.Event()
        players = [asyncio.ensure_future(player(f"T{first + t}", seat, ready, go))
                   for t in range(tables) for seat in range(4)]
        while len(ready) < len(players):
            await asyncio.sleep(0.05)
        go.set()
        await asyncio.sleep(warmup)
        state["measuring"] = True
        cpu = time.process_time()
        await asyncio.sleep(seconds)
        state["measuring"] = False
        results.put({"latencies": latencies, "cpu": time.process_time() - cpu})
        for task in players:
            task.cancel()

    uvloop.run(run())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--frame-bytes", type=int, default=500, help="padding in each state frame (default 500)")
    parser.add_argument("--no-db", dest="db", action="store_false", help="leave out the SQLite write")
    parser.add_argument("--workers", type=int, default=2, help="client processes (default 2)")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0:
        parser.error("--tables must be positive and --seconds above 0")

    from server_load import _cpu_seconds, _free_port  # (this folder is on the path of a script run from it)

    port = _free_port()
    work = Path(tempfile.mkdtemp(prefix="rr-floor-"))
    env = {**os.environ, "FLOOR_FRAME_BYTES": str(args.frame_bytes), "FLOOR_DB": "1" if args.db else "0",
           "FLOOR_DB_FILE": str(work / "floor.db"),
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parent), os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen([sys.executable, "-m", "uvicorn", "server_floor:make_app", "--factory", "--port",
                               str(port), "--log-level", "warning", "--ws", "websockets-sansio"], env=env)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the floor server did not start") from None
                time.sleep(0.1)
        context = mp.get_context("spawn")
        results = context.Queue()
        shares = [args.tables // args.workers + (1 if i < args.tables % args.workers else 0)
                  for i in range(args.workers)]
        firsts = [sum(shares[:i]) for i in range(args.workers)]
        procs = [context.Process(target=_client_main, daemon=True,
                                 args=(port, firsts[i], shares[i], args.warmup, args.seconds, results))
                 for i in range(args.workers)]
        for proc in procs:
            proc.start()
        time.sleep(args.warmup + 1.0)  # connections and warm-up (the clients time their own window)
        cpu_before = _cpu_seconds(server.pid) or 0.0
        time.sleep(args.seconds - 1.0)
        cpu_after = _cpu_seconds(server.pid) or 0.0
        outcomes = [results.get(timeout=120) for _ in procs]
        for proc in procs:
            proc.join(timeout=10)
    finally:
        server.terminate()
        server.wait(timeout=15)
    latencies = sorted(value for outcome in outcomes for value in outcome["latencies"])
    rate = len(latencies) / args.seconds
    server_cpu = (cpu_after - cpu_before) / (args.seconds - 1.0)

    def percentile(fraction: float) -> float:
        return latencies[min(len(latencies) - 1, int(fraction * len(latencies)))] * 1000 if latencies else float("nan")

    print(f"floor: tables {args.tables}, clients {4 * args.tables}, state frames of {args.frame_bytes} bytes, "
          f"database {'on' if args.db else 'off'}, {args.seconds:g} s measured")
    print(f"actions {len(latencies)} = {rate:.1f}/s; ack latency ms: p50 {percentile(0.5):.1f}  "
          f"p99 {percentile(0.99):.1f}")
    print(f"server CPU {server_cpu * 100:.1f}% of one core = {server_cpu / rate * 1000:.3f} ms per action; "
          f"clients CPU {sum(o['cpu'] for o in outcomes) / args.seconds * 100:.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
