"""Play the terminal game by key presses: read the screen's view, press the key a person would.

The chooser holds no rules either: it looks at ``view["legal"]`` (as a person looks at the
highlighted cards) and presses the matching key.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Any

from textual.pilot import Pilot
from textual.worker import WorkerState

from royal_revenge.bots import RandomAgent
from royal_revenge.bots.heuristic import HeuristicAgent
from royal_revenge.client import LocalClient, LocalGame
from royal_revenge.client.clock import FakeClock
from royal_revenge.engine import AnyAction, Catch, Draw, GameRecord, Keep, Observation, Play
from royal_revenge.session import Phase, Table, TableSettings
from royal_revenge.tui import RoyalRevengeApp
from royal_revenge.tui.dialogs import HelpScreen, ResultsDialog, SaveDialog
from royal_revenge.tui.table_screen import TableScreen

SIZE = (110, 36)


def fast_settings(**changes: Any) -> TableSettings:
    """Bots without delay, a long decision clock (the fake clock only moves when a test moves it)."""
    values: dict[str, Any] = {"players": 3, "bot_delay_seconds": 0.0, "turn_seconds": 600.0,
                              "next_round_seconds": 5.0, "target_score": 500}
    values.update(changes)
    return TableSettings(**values)


def local_app(settings: TableSettings, *, bots: Sequence[str] = ("easy", "normal"), seed: int = 1,
              age: int | None = 7, agent_factory: Any = None, save_path: Any = None,
              clock: FakeClock | None = None) -> tuple[RoyalRevengeApp, LocalClient, FakeClock]:
    clock = clock or FakeClock()
    client = LocalClient(LocalGame(settings, "Ann", age, tuple(bots), seed), clock=clock, agent_factory=agent_factory)
    kwargs: dict[str, Any] = {"save_path": save_path} if save_path is not None else {}
    app = RoyalRevengeApp(client, clock=clock, bell=False, **kwargs)
    return app, client, clock


class ForgetfulAgent:
    """A heuristic bot that never calls UNO (and so can be caught)."""

    name = "forgetful"

    def __init__(self, seed: int) -> None:
        self.inner = HeuristicAgent(seed=seed, forget_uno=1.0)

    def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
        return self.inner.act(observation, legal_actions)


def forgetful_agents(level: str, seed: int) -> Any:
    return ForgetfulAgent(seed)


def random_agents(level: str, seed: int) -> Any:
    return RandomAgent(seed)


def table_screen(app: RoyalRevengeApp) -> TableScreen:
    screen = app.table_screen
    assert screen is not None, "the table is not shown"
    return screen


def busy(app: RoyalRevengeApp) -> bool:
    return any(worker.state in (WorkerState.PENDING, WorkerState.RUNNING) and worker.group != "connect"
               for worker in app.workers)


async def settle(pilot: Pilot[Any], app: RoyalRevengeApp, client: Any, rounds: int = 4000) -> TableScreen:
    """Wait until the table has nothing due now, no action is in flight and the screen shows the newest view.

    It polls every few milliseconds (Textual's ``pilot.pause`` waits for the whole process to idle, which
    costs more than a move); what it checks is the state the screen shows, not the pixels.
    """
    for _ in range(rounds):
        screen = app.table_screen
        if screen is not None and screen.view is not None and not busy(app):
            idle = client.idle() if isinstance(client, LocalClient) else True
            if idle and screen.view.get("version") == client.version:
                return screen
        await asyncio.sleep(0.002)
    raise AssertionError("the terminal game did not settle")


def key_for(app: RoyalRevengeApp, rng: random.Random, *, uno_key: bool = True, rematch: bool = False) -> str | None:
    """The key a person presses now, or ``None`` when nothing is theirs to do (a bot or the clock is due)."""
    top = app.screen
    screen = table_screen(app)
    view = screen.view
    assert view is not None
    if isinstance(top, (HelpScreen, SaveDialog)):
        return "escape"
    if isinstance(top, ResultsDialog):
        return "r" if rematch and top.can_rematch else "enter"
    legal = view.get("legal") or []
    royal = screen.royal_kind()
    choices = [action for action in legal if action["type"] == royal]  # (a late UNO or a catch may be legal too)
    if royal == "colour":  # the King's choices sit above the hand, on the table screen
        return str(rng.choice(choices)["colour"]).lower()
    if royal in ("victim", "jester"):
        return str(rng.choice(choices)["seat"] + 1)
    kinds = {action["type"] for action in legal}
    if "catch" in kinds:
        return "c"
    if "uno" in kinds:
        return "u"
    game = view.get("game") or {}
    pending = game.get("pending") or {}
    if pending.get("seat") != view.get("you"):
        return None
    if pending.get("kind") == "drawn":
        return "p" if "play" in kinds else "k"
    if pending.get("kind") == "turn":
        hand = screen.shown_hand  # (the order on screen, which the number keys follow)
        plays = [action for action in legal if action["type"] == "play"]
        if plays and rng.random() < 0.9:
            action = rng.choice(plays)
            index = hand.index(action["card"])
            if action.get("uno") and uno_key and not screen.uno_armed:
                return "u"  # the call first (the next key plays the card with it)
            if index < 9:
                return str(index + 1)
            screen.selected = index
            return "enter"
        return "d"
    return None


async def step(pilot: Pilot[Any], app: RoyalRevengeApp, client: LocalClient, clock: FakeClock,
               rng: random.Random, policy: Any = None, **kwargs: Any) -> str | None:
    """One key press, or (when nothing is the person's to do) the fake clock moved to the next deadline."""
    await settle(pilot, app, client)
    key = (policy or key_for)(app, rng, **kwargs)
    if key is None:
        table = client.table
        assert table is not None
        deadline = table.next_deadline()
        assert deadline is not None, "nothing is due and the person has nothing to do: the table would stall"
        await clock.advance(max(deadline - clock.now(), 0.0) + 0.001)
        return None
    await pilot.press(key)
    return key


def situation(settings: TableSettings, bots: Sequence[str], want: Any, *, agent_factory: Any = None,
              human: str = "play", seed: int = 1) -> tuple[LocalGame, GameRecord]:
    """A game played (without the screen) until ``want(table)`` holds, as a saved game to resume.

    Ann (seat 0, the youngest) plays the first card she can without calling UNO (``human="play"``) or
    only draws and keeps (``"draw"``); bots play on a clock moved to each deadline. Games are dealt
    from ``seed`` on until the situation comes up, so that no test depends on one deal.
    """
    for attempt in range(seed, seed + 200):
        table = Table.open(settings, code="LOCAL", seed=attempt, agent_factory=agent_factory)
        now = 1_000.0
        _, token = table.join("Ann", 7, now)
        for level in bots:
            table.add_bot(token, level, now)
        table.set_connected(0, True, now)
        table.start(token, now)
        for _ in range(3000):
            if table.phase is not Phase.PLAYING or table.game is None:
                break
            if want(table):
                return LocalGame(settings, "Ann", 7, tuple(bots), attempt), table.record()
            state = table.game.state
            if state.decider == 0:
                legal = state.legal_actions(0)
                plain = [action for action in legal if isinstance(action, Play) and not action.uno]
                quiet = [action for action in legal if isinstance(action, (Draw, Keep))]
                choice = (plain or quiet or legal) if human == "play" else (quiet or legal)
                table.act(token, choice[0], now)
            else:
                deadline = table.next_deadline()
                assert deadline is not None
                now = max(now, deadline)
                table.tick(now)
    raise AssertionError("the situation never came up")


def catch_moment() -> tuple[RoyalRevengeApp, LocalClient]:
    """A 4-player table where a bot played its next-to-last card without calling UNO and Ann may catch it."""
    settings = fast_settings(players=4)

    def catchable(table: Table) -> bool:
        assert table.game is not None
        return any(isinstance(action, Catch) for action in table.game.state.legal_actions(0))

    game, record = situation(settings, ("easy", "easy", "easy"), catchable, agent_factory=forgetful_agents,
                             human="draw")
    clock = FakeClock()
    client = LocalClient(game, clock=clock, record=record, agent_factory=forgetful_agents)
    return RoyalRevengeApp(client, clock=clock, bell=False), client
