"""Searching bots think away from the event loop: one table's hard bot never holds up the others."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path
from typing import Any

import pytest

from royal_revenge.engine import AnyAction, Observation
from royal_revenge.session import Phase

from .conftest import Client, Driver, EagerAgent, open_game, running_server, settle, step_clock

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


class GatedAgent:
    """A "hard" bot that cannot finish a decision until the test opens the gate (from another thread)."""

    name = "gated"

    def __init__(self, seed: int, gate: threading.Event, thinking: threading.Event, threads: list[str]) -> None:
        self.inner = EagerAgent(seed)
        self.gate, self.thinking, self.threads = gate, thinking, threads

    def act(self, observation: Observation, legal: list[AnyAction]) -> AnyAction | None:
        self.threads.append(threading.current_thread().name)
        self.thinking.set()
        assert self.gate.wait(30), "the gate never opened"
        return self.inner.act(observation, legal)


async def test_a_thinking_hard_bot_does_not_hold_up_other_tables(tmp_path: Path) -> None:
    gate, thinking, threads = threading.Event(), threading.Event(), []

    def agents(level: str, seed: int) -> Any:
        return GatedAgent(seed, gate, thinking, threads) if level == "hard" else EagerAgent(seed)

    async with running_server(tmp_path / "tables.db", agent_factory=agents) as server:
        # Table A: one person and a hard bot; table B: two people.
        code_a, humans_a, _, _ = await open_game(server, humans=1, bots=["hard"], ages=[5])
        code_b, humans_b, _, _ = await open_game(server, humans=2, bots=[])
        driver_a = Driver(server, code_a, humans_a, random.Random(1), think=0)
        # Play table A until its hard bot is to move, then let its clock run out: the bot starts thinking.
        for _ in range(200):
            table_a = await settle(server, code_a, driver_a.clients)
            state = table_a.game.state  # type: ignore[union-attr]
            if table_a.phase is Phase.PLAYING and state.decider == 1:
                break
            assert await driver_a.step()
        else:
            raise AssertionError("the hard bot never had a decision")
        version_a = table_a.version
        await server.clock.advance(table_a.next_deadline() - server.clock.now() + 0.01)  # type: ignore[operator]
        assert await asyncio.to_thread(thinking.wait, 10), "the hard bot never started thinking"
        # While it thinks (blocked), table B is served: its players' actions are acknowledged.
        driver_b = Driver(server, code_b, humans_b, random.Random(2), think=0)
        table_b = await settle(server, code_b, driver_b.clients)
        moves_b = len(table_b.moves)
        for _ in range(5):
            assert await driver_b.step()
        table_b = await settle(server, code_b, driver_b.clients)
        assert len(table_b.moves) > moves_b
        assert server.table(code_a).version == version_a  # table A still waits for its bot
        # The bot finishes: its move is made, and table A plays on to the end.
        gate.set()
        await step_clock_until_moved(server, code_a, driver_a.clients, version_a)
        assert server.table(code_a).moves[-1].by == "bot"
        assert threads and all(name != threading.main_thread().name for name in threads)
        table_a = await driver_a.run()
        assert table_a.phase is Phase.FINISHED


async def step_clock_until_moved(server: Any, code: str, clients: list[Client], version: int) -> None:
    for _ in range(100):
        table = await settle(server, code, clients)
        if table.version > version:
            return
        await step_clock(server, code, clients)
    raise AssertionError("the hard bot's move never came")


async def test_real_hard_bots_play_a_game_through_the_worker_thread(tmp_path: Path) -> None:
    # The library's own hard bot (a search with a wall-clock budget) behind the server, end to end.
    async with running_server(tmp_path / "tables.db", agent_factory=None) as server:
        code, humans, _, _ = await open_game(server, humans=1, bots=["hard"], ages=[5])
        driver = Driver(server, code, humans, random.Random(3), think=0)
        table = await driver.run()
        assert table.phase is Phase.FINISHED
        assert any(move.by == "bot" for move in table.moves)


class BrokenAgent:
    """A "hard" bot whose search fails: the table must not stall."""

    name = "broken"

    def act(self, observation: Observation, legal: list[AnyAction]) -> AnyAction | None:
        raise RuntimeError("the search broke")


async def test_a_failing_hard_bot_plays_its_first_legal_action_and_the_game_goes_on(tmp_path: Path) -> None:
    def agents(level: str, seed: int) -> Any:
        return BrokenAgent() if level == "hard" else EagerAgent(seed)

    async with running_server(tmp_path / "tables.db", agent_factory=agents) as server:
        code, humans, _, _ = await open_game(server, humans=1, bots=["hard"], ages=[5])
        driver = Driver(server, code, humans, random.Random(4), think=0)
        table = await driver.run()
        assert table.phase is Phase.FINISHED
        assert any(move.by == "bot" for move in table.moves)


async def test_the_expert_bots_weights_are_loaded_at_startup_not_at_the_first_move(tmp_path: Path) -> None:
    """Loading NumPy and the weights takes a fraction of a second: a server does it before it serves, off its
    event loop, so the first expert bot to move holds no table up."""
    from royal_revenge.bots import expert

    expert._loaded.cache_clear()
    async with running_server(tmp_path / "tables.db", agent_factory=None):
        assert expert._loaded.cache_info().currsize == 1
