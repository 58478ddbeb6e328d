#!/usr/bin/env python3
"""What the server's own code costs per move, without the network: the hub, the table, the store.

This is a measurement script, not a test. It runs the real :class:`~royal_revenge.server.hub.Hub`
with a real SQLite file in one process, with ``--tables`` tables of 4 seated people whose
connections are stand-ins (a frame "sent" is appended to a list), and plays every table as fast
as the rules allow through ``Hub.submit``, exactly the call a WebSocket message makes: the
move is applied, committed (grouped with the other tables' moves of the same turn of the loop),
and every seat's state frame is built and queued; the table's next move is made when the reply
comes. Hosts rematch finished games. What this leaves
out is the web stack (uvicorn, the WebSocket framing, the socket writes), which
``server_floor.py`` measures on its own.

It prints CPU microseconds per move (``time.process_time``) and frames per move. The move
sequence depends only on ``--seed``, so under valgrind the instruction count per move is a
steady measure on a noisy machine::

    .venv/bin/python benchmarks/hub_cost.py --tables 50 --moves 20000
    valgrind --tool=callgrind --callgrind-out-file=/tmp/hub.cg .venv/bin/python benchmarks/hub_cost.py \\
        --tables 50 --moves 4000 --warmup 1000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

try:
    from royal_revenge.server.hub import Hub, Subscriber
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from royal_revenge.server.hub import Hub, Subscriber
from royal_revenge.clock import FakeClock
from royal_revenge.server.store import Store, database_url
from royal_revenge.session import Phase, TableSettings

_PLAY_FIRST = ("play", "colour", "victim", "jester", "uno")  # as the load script's clients choose


class _Seat:
    def __init__(self, code: str, seat: int, token: str) -> None:
        self.code, self.seat, self.token = code, seat, token
        self.frames: list[str] = []
        self.subscriber = Subscriber(seat, self.frames.append, token=token)


class _Player:
    """Plays one table as fast as the rules allow, the way a WebSocket message does: ``Hub.submit``, and the next
    move once the reply comes (after the commit and the frames)."""

    def __init__(self, hub: Hub, seats: list[_Seat], rng: random.Random, counter: dict[str, int], moves: int) -> None:
        self.hub, self.seats, self.rng, self.counter, self.moves = hub, seats, rng, counter, moves
        self.code = seats[0].code
        self.sent = 0
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def next(self) -> None:
        counter = self.counter
        if counter["moves"] >= self.moves:
            if not self.done.done():
                self.done.set_result(None)
            return
        table = self.hub._live[self.code].table
        host = self.seats[0]
        if table.phase is Phase.FINISHED:
            self.hub.submit(self.code, lambda t, now: t.rematch(host.token, now), host.subscriber, None, self.replied)
            return
        state = table.game.state if table.game is not None else None
        assert state is not None
        decider = state.decider
        assert decider is not None
        legal = table.legal_view(decider)
        plays = [action for action in legal if action.get("type") in _PLAY_FIRST]
        action = self.rng.choice(plays or legal)
        player = self.seats[decider]
        self.sent += 1
        message_id = f"a{self.code}-{decider}-{self.sent}"
        counter["moves"] += 1
        self.hub.submit(self.code, lambda t, now: t.act(player.token, action, now, client_id=message_id),
                        player.subscriber, message_id, self.replied)

    def replied(self, result: Any, acked: bool, error: Any) -> None:
        if error is not None:
            self.done.set_exception(RuntimeError(f"refused: {error}"))
            return
        counter = self.counter
        for seat in self.seats:  # (the frames are only counted: a real connection would write them out)
            counter["frames"] += len(seat.frames)
            counter["bytes"] += sum(map(len, seat.frames))
            seat.frames.clear()
        self.next()


async def _play_all(hub: Hub, tables: list[list[_Seat]], rng: random.Random, counter: dict[str, int],
                    moves: int) -> None:
    players = [_Player(hub, seats, rng, counter, moves) for seats in tables]
    for player in players:
        player.next()
    await asyncio.gather(*(player.done for player in players))


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="rr-hub-"))
    store = await Store.connect(database_url(str(folder / "hub.db")))
    clock = FakeClock(1_000_000.0)  # no deadline comes due: only the moves are measured
    hub = Hub(store, clock)
    await hub.start()
    rng = random.Random(args.seed)
    settings = TableSettings(players=4, single_round=True)
    tables: list[list[_Seat]] = []
    for number in range(args.tables):
        table, seat, token = await hub.create(settings, f"Host {number}", 30)
        seats = [_Seat(table.code, seat, token)]
        for other in range(1, 4):
            joined, joined_token = await hub.change(table.code, lambda t, now, o=other: t.join(f"P{o}", 30, now))
            seats.append(_Seat(table.code, joined, joined_token))
        for player in seats:
            await hub.subscribe(table.code, player.subscriber)
        await hub.change(table.code, lambda t, now, token=token: t.start(token, now))
        tables.append(seats)
    counter = {"moves": 0, "frames": 0, "bytes": 0}
    if args.warmup:
        await _play_all(hub, tables, rng, counter, args.warmup)
    counter = {"moves": 0, "frames": 0, "bytes": 0}
    started = time.process_time()
    await _play_all(hub, tables, rng, counter, args.moves)
    cpu = time.process_time() - started
    await hub.stop()
    await store.close()
    return {"moves": counter["moves"], "cpu_us_per_move": 1e6 * cpu / max(1, counter["moves"]),
            "frames_per_move": counter["frames"] / max(1, counter["moves"]),
            "bytes_per_frame": counter["bytes"] / max(1, counter["frames"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="tables played at once (default 50)")
    parser.add_argument("--moves", type=int, default=20_000, help="moves measured, over all tables (default 20,000)")
    parser.add_argument("--warmup", type=int, default=2_000, help="moves played before measuring (default 2,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--uvloop", action="store_true", help="run on uvloop, as serve does")
    args = parser.parse_args(argv)
    if args.uvloop:
        import uvloop

        uvloop.install()
    result = asyncio.run(_main(args))
    print(f"{result['moves']} moves: {result['cpu_us_per_move']:.1f} µs CPU per move, "
          f"{result['frames_per_move']:.2f} frames per move of {result['bytes_per_frame']:.0f} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
