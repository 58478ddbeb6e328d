"""What a person must see is on the screen, at 80x24 and at 120x40: the top card and the colour, whose move with
its clock, the whole hand, the King's choices, and the newest log lines; after plays, royal decisions, a
fanfare, a catch, a time-out and a resize. Checked on the widgets' places on the screen and their text."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from royal_revenge.client import LocalClient
from royal_revenge.client.clock import FakeClock
from royal_revenge.engine import Decision
from royal_revenge.session import Table
from royal_revenge.tui import RoyalRevengeApp
from royal_revenge.tui.dialogs import HelpScreen, ResultsDialog
from royal_revenge.tui.render import card_name
from royal_revenge.tui.table_screen import TableScreen

from .helpers import catch_moment, fast_settings, local_app, settle, situation, step

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

SMALL = (80, 24)
LARGE = (120, 40)
SIZES = pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def words(text: str) -> str:
    return " ".join(text.split())


def on_screen(screen: TableScreen, selector: str) -> str:
    """The text of a part of the screen, once it is checked to be shown whole inside the terminal."""
    widget = screen.query_one(selector)
    assert widget.display, f"{selector} is hidden"
    region = widget.region
    assert region.height > 0 and screen.region.contains_region(region), (
        f"{selector} at {region} is not all on the {screen.size} screen")
    return str(widget.render())


def assert_in_view(screen: TableScreen) -> None:
    """Everything a person acts on is visible now."""
    view = screen.view
    assert view is not None and view.get("game") is not None
    game = view["game"]
    assert screen.scroll_offset.y == 0, "the screen is scrolled"
    table = on_screen(screen, "#table-info")
    assert card_name(screen.view, game["top"]) in table
    if game.get("active_colour"):
        assert {"R": "RED", "Y": "YELLOW", "G": "GREEN", "B": "BLUE"}[game["active_colour"]] in table
    prompt = on_screen(screen, "#prompt")
    assert words(str(view["prompt"])) in words(prompt), (view["prompt"], prompt)
    if view.get("decision_deadline") is not None:
        clock = on_screen(screen, "#clock")
        assert clock.rstrip().endswith(" s"), clock  # the clock of the decision
    players = on_screen(screen, "#players").splitlines()
    assert len(players) == len(view["seats"])
    for seat, line in enumerate(players):
        assert f" {seat + 1} " in line
    hand = on_screen(screen, "#hand")
    box = screen.query_one("#hand").content_region
    assert len(hand.splitlines()) <= box.height
    assert all(len(line) <= box.width for line in hand.splitlines()), hand  # so no chip breaks across lines
    for card in game["hand"]:
        assert card_name(screen.view, card) in hand, (card, hand)
    on_screen(screen, "#notice")
    if screen.royal_kind() is not None:
        choices = on_screen(screen, "#royal")
        for action in view["legal"]:
            label = f"{action['colour']}: " if action["type"] == "colour" else f"{action['seat'] + 1}: "
            assert label in choices
        assert screen.query_one("#royal").region.bottom <= screen.query_one("#hand").region.y  # above the hand
    log = on_screen(screen, "#log")
    box = screen.query_one("#log").content_region
    assert len(log.splitlines()) <= box.height
    entries = [entry["text"] for entry in view["log"]]
    if entries:
        assert words(log).endswith(words(entries[-1])), (entries[-1], log)  # the newest line is the last shown
        for text in entries[-3:]:
            assert words(text) in words(log), (text, log)


async def shown(pilot: Any, app: RoyalRevengeApp, client: LocalClient) -> TableScreen:
    screen = await settle(pilot, app, client)
    # The log is fitted to its box when the box's size changes (the King's choices appearing shrink it), which
    # Textual reports after the layout that follows the new view: a frame later.
    await pilot.pause()
    await pilot.pause()
    return screen


@SIZES
async def test_a_six_player_round_by_keys_stays_in_view(size: tuple[int, int]) -> None:
    """Plays, draws, the King's choices and fanfares at the largest table, checked after every key."""
    settings = fast_settings(players=6, single_round=True, scepter_min_seconds=5, scepter_max_seconds=6,
                             bot_delay_seconds=1.0)
    app, client, clock = local_app(settings, bots=("easy", "normal", "hard", "easy", "normal"), seed=4)
    rng = random.Random(3)
    royal: set[str] = set()
    fanfares = 0
    async with app.run_test(size=size) as pilot:
        for _ in range(160):
            screen = await shown(pilot, app, client)
            if isinstance(app.screen, ResultsDialog):
                break
            assert_in_view(screen)
            kind = screen.royal_kind()
            if kind is not None:
                royal.add(kind)
            fanfares = sum(1 for entry in screen.view["log"] if entry["kind"] == "FanfareSounded") if (
                screen.view) else fanfares
            await step(pilot, app, client, clock, rng)
    assert "jester" in royal  # Ann, the youngest, is the first King
    assert fanfares >= 1


@SIZES
async def test_a_catch_is_offered_on_the_player_and_the_action_bar(size: tuple[int, int]) -> None:
    app, client = catch_moment()
    async with app.run_test(size=size) as pilot:
        screen = await shown(pilot, app, client)
        assert_in_view(screen)
        assert screen.view is not None
        target = next(action["seat"] for action in screen.view["legal"] if action["type"] == "catch")
        line = on_screen(screen, "#players").splitlines()[target]
        assert "c catch!" in line, line
        assert f"Catch {screen.view['seats'][target]['name']}!" in on_screen(screen, "#actions")
        await pilot.press("c")
        screen = await shown(pilot, app, client)
        assert "without UNO" in on_screen(screen, "#notice")
        assert_in_view(screen)


@SIZES
async def test_a_timed_out_decision_and_the_bot_on_autopilot_are_said_and_the_seat_taken_back(
        size: tuple[int, int]) -> None:
    settings = fast_settings(players=3, turn_seconds=5.0, max_timeouts=1, bot_delay_seconds=1.0)
    app, client, clock = local_app(settings, seed=2)
    async with app.run_test(size=size) as pilot:
        screen = await shown(pilot, app, client)
        assert screen.mine()
        await clock.advance(5.5)  # Ann does not choose the Jester in time
        screen = await shown(pilot, app, client)
        notice = on_screen(screen, "#notice")
        assert "A bot is playing your seat" in notice and "press b" in notice, notice
        assert "Take my seat back" in on_screen(screen, "#actions")
        assert any(entry.get("by") == "timeout" for entry in screen.view["log"])
        assert "Time ran out: the table made" in on_screen(screen, "#log")
        await pilot.press("b")
        screen = await shown(pilot, app, client)
        assert screen.view is not None and screen.view["seats"][0]["autopilot"] is False
        assert "A bot is playing your seat" not in on_screen(screen, "#notice")


async def test_a_resize_keeps_everything_in_view() -> None:
    app, client, clock = local_app(fast_settings(players=5), bots=("easy", "normal", "hard", "easy"), seed=6)
    rng = random.Random(1)
    async with app.run_test(size=LARGE) as pilot:
        for _ in range(12):
            await step(pilot, app, client, clock, rng)
        screen = await shown(pilot, app, client)
        assert_in_view(screen)
        for size in (SMALL, (100, 30), SMALL, LARGE):
            await pilot.resize_terminal(*size)
            screen = await shown(pilot, app, client)
            assert screen.size == size
            if isinstance(app.screen, ResultsDialog):
                break
            assert_in_view(screen)


async def test_a_decision_that_becomes_yours_closes_help() -> None:
    """A fanfare or the bots' moves make it Ann's decision while she reads the help: the help closes."""
    settings = fast_settings(players=3, bot_delay_seconds=1.0)
    app, client, clock = local_app(settings, seed=1)
    async with app.run_test(size=SMALL) as pilot:
        screen = await shown(pilot, app, client)
        await pilot.press("2")  # the Jester
        for _ in range(20):
            screen = await shown(pilot, app, client)
            if screen.mine() and screen.view and screen.view["game"]["pending"]["kind"] == "turn":
                break
            await clock.advance(1.1)
        await pilot.press("d")  # Ann draws (and keeps, if she may)
        screen = await shown(pilot, app, client)
        if screen.mine():
            await pilot.press("k")
            screen = await shown(pilot, app, client)
        assert not screen.mine()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        for _ in range(30):
            await clock.advance(1.1)
            screen = await shown(pilot, app, client)
            if screen.mine():
                break
        assert screen.mine() and app.screen is screen, "the help still covers Ann's decision"
        assert "help closed" in on_screen(screen, "#notice")
        assert_in_view(screen)


@SIZES
async def test_a_refusal_names_the_reason_and_goes_once_the_decision_is_over(size: tuple[int, int]) -> None:
    settings = fast_settings(players=3, bot_delay_seconds=1.0)
    app, client, clock = local_app(settings, seed=1)
    async with app.run_test(size=size) as pilot:
        screen = await shown(pilot, app, client)
        await pilot.press("2")
        screen = await shown(pilot, app, client)
        while screen.mine():  # Ann's turn after the Jester: draw and keep, so that a bot plays next
            await pilot.press("d" if screen.view and screen.view["game"]["pending"]["kind"] == "turn" else "k")
            screen = await shown(pilot, app, client)
        assert screen.view is not None and not screen.mine()
        version = screen.view["version"]
        await pilot.press("1")  # out of turn
        screen = await shown(pilot, app, client)
        notice = on_screen(screen, "#notice")
        whose = screen.view["game"]["pending"]["seat"]
        assert screen.view["seats"][whose]["name"] in notice, notice  # "It's Easy bot 2's turn"
        assert screen.view["version"] == version
        for _ in range(10):
            await clock.advance(1.1)
            screen = await shown(pilot, app, client)
            if screen.view and screen.view["game"]["pending"]["seat"] != whose:
                break
        assert on_screen(screen, "#notice") != notice  # (stale once the table waits for another decision)


@SIZES
async def test_single_round_games_say_so(size: tuple[int, int]) -> None:
    app, client, _ = local_app(fast_settings(single_round=True), seed=1)
    async with app.run_test(size=size) as pilot:
        screen = await shown(pilot, app, client)
        bar = on_screen(screen, "#bar")
        assert "one round" in bar and "500" not in bar


async def test_a_drawn_card_that_does_not_match_is_not_offered_as_a_play() -> None:
    settings = fast_settings(players=3)

    def drew_a_misfit(table: Table) -> bool:
        assert table.game is not None
        state = table.game.state
        return state.decider == 0 and state.decision is Decision.DRAWN and len(state.legal_actions(0)) == 1

    game, record = situation(settings, ("easy", "easy"), drew_a_misfit, human="draw")
    clock = FakeClock()
    client = LocalClient(game, clock=clock, record=record)
    app = RoyalRevengeApp(client, clock=clock, bell=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await shown(pilot, app, client)
        actions = on_screen(screen, "#actions")
        assert "Play" not in actions, actions
        assert "keep it" in on_screen(screen, "#prompt")
        await pilot.press("p")
        screen = await shown(pilot, app, client)
        notice = on_screen(screen, "#notice")  # (the table's own words: the card, the pile, what to do)
        assert "doesn't match" in notice and "on the pile: keep it" in notice, notice
        assert_in_view(screen)


async def test_a_bad_setting_is_explained_in_view_at_80x24() -> None:
    from textual.widgets import Input

    from royal_revenge.client import LocalGame
    from royal_revenge.tui.settings_screen import SettingsScreen

    app = RoyalRevengeApp(game=LocalGame(fast_settings(players=3), "Ann", 9, ("easy", "hard"), seed=1),
                          clock=FakeClock(), bell=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#target", Input).value = "0"
        await pilot.press("ctrl+s")
        await pilot.pause()
        error = screen.query_one("#settings-error")
        assert error.display and screen.region.contains_region(error.region), error.region
        text = str(error.render())
        assert text == "The target score must be a whole number of points, at least 1", text


async def test_the_terminal_shows_the_tables_words_for_the_cards_and_the_actions() -> None:
    """The cards, the colour and every button read as the view's ``glossary`` and ``legal_labels`` say: with
    other words in the view, the screen shows those (the terminal keeps no copy of them)."""
    app, client = catch_moment()
    async with app.run_test(size=LARGE) as pilot:
        screen = await shown(pilot, app, client)
        view = screen.view
        assert view is not None
        legal, labels = view["legal"], view["legal_labels"]
        catch = next(index for index, action in enumerate(legal) if action["type"] == "catch")
        assert labels[catch] in on_screen(screen, "#actions")
        changed = copy.deepcopy(view)
        changed["glossary"]["cards"] = {card: f"card {card}!" for card in view["glossary"]["cards"]}
        changed["glossary"]["colours"] = {letter: f"hue {letter}" for letter in view["glossary"]["colours"]}
        changed["glossary"]["actions"] = {kind: f"{kind.upper()}-word" for kind in view["glossary"]["actions"]}
        changed["legal_labels"] = [f"label {index}" for index in range(len(legal))]
        screen.view = changed
        await pilot.pause()
        actions = on_screen(screen, "#actions")
        assert f"label {catch}" in actions, actions
        for kind in ("draw", "keep", "uno"):
            found = [index for index, action in enumerate(legal) if action["type"] == kind]
            assert (f"label {found[0]}" if found else f"{kind.upper()}-word") in actions, (kind, actions)
        hand = on_screen(screen, "#hand")
        for card in changed["game"]["hand"]:
            assert f"card {card}!" in hand, (card, hand)
        table = on_screen(screen, "#table-info")
        assert f"card {changed['game']['top']}!" in table, table
        if changed["game"].get("active_colour"):
            assert f"HUE {changed['game']['active_colour']}" in table, table
