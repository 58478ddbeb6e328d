"""Whole local games played by key presses through Textual's pilot, with an injected clock."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from textual.content import Content
from textual.widgets import Input, Select

from royal_revenge.client import LocalClient, LocalGame, load_save
from royal_revenge.client.clock import FakeClock
from royal_revenge.engine import Catch, Decision, Play
from royal_revenge.session import Table
from royal_revenge.tui import RoyalRevengeApp
from royal_revenge.tui.dialogs import ConfirmDialog, HelpScreen, ResultsDialog, SaveDialog
from royal_revenge.tui.render import hand_lines
from royal_revenge.tui.settings_screen import SettingsScreen

from .helpers import (
    SIZE,
    fast_settings,
    forgetful_agents,
    local_app,
    settle,
    situation,
    step,
    table_screen,
)

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def log_texts(client: LocalClient) -> list[str]:
    table = client.table
    assert table is not None
    return [entry["text"] for entry in table.view(0)["log"]]


async def test_whole_game_by_keys_with_royal_decisions_and_a_rematch() -> None:
    app, client, clock = local_app(fast_settings(single_round=True), seed=0)
    rng = random.Random(0)
    pressed: list[str] = []
    seen: set[str] = set()
    async with app.run_test(size=SIZE) as pilot:
        screen = await settle(pilot, app, client)
        assert screen.royal_kind() == "jester"  # Ann is the youngest: King
        assert "You are the King: choose who wears the Jester Hat" in str(screen.query_one("#prompt").render())
        assert "2: Easy bot 2" in str(screen.query_one("#royal").render())  # the choices, above the hand
        await pilot.press("2")
        screen = await settle(pilot, app, client)
        assert screen.view is not None and screen.view["game"]["jester"] == 1
        assert "King Ann makes Easy bot 2 the Jester" in log_texts(client)
        for _ in range(400):
            table = client.table
            assert table is not None
            if table.phase.value == "finished":
                break
            key = await step(pilot, app, client, clock, rng)
            if key is not None:
                pressed.append(key)
            seen.update(log_texts(client))
        else:
            raise AssertionError("the game did not finish")
        screen = await settle(pilot, app, client)
        assert isinstance(app.screen, ResultsDialog) and app.screen.finished
        assert "won the game!" in str(app.screen.query_one("#results-title").render())
        assert {"d", "k", "p"} & set(pressed) and any(key.isdigit() for key in pressed)
        # every other royal decision that came Ann's way was answered by a key too
        colours = sum(1 for text in seen if text.startswith("King Ann chooses"))
        victims = sum(1 for text in seen if text.startswith("King Ann sends"))
        assert len([key for key in pressed if key in "rygb"]) >= colours and victims >= 0
        # the game-over screen offers the host a rematch
        await pilot.press("r")
        screen = await settle(pilot, app, client)
        table = client.table
        assert table is not None and table.game_no == 2 and table.phase.value == "playing"
        assert not isinstance(app.screen, ResultsDialog)


def _two_cards_to_call(table: Table) -> bool:
    assert table.game is not None
    state = table.game.state
    return state.decider == 0 and state.decision is Decision.TURN and any(
        isinstance(action, Play) and action.uno for action in state.legal_actions(0))


async def test_an_uno_call_by_key() -> None:
    # Ann holds two cards, one of them playable: she presses u (which only calls), then plays the card. The bots
    # wait before they act (and the fake clock stands still), so she still holds her last card afterwards.
    settings = fast_settings(players=3, bot_delay_seconds=5.0)
    game, record = situation(settings, ("easy", "normal"), _two_cards_to_call)
    clock = FakeClock()
    client = LocalClient(game, clock=clock, record=record)
    app = RoyalRevengeApp(client, clock=clock, bell=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settle(pilot, app, client)
        assert screen.view is not None and len(screen.view["game"]["hand"]) == 2
        assert "UNO" in str(screen.query_one("#actions").render())
        version = screen.view["version"]
        await pilot.press("u")
        screen = await settle(pilot, app, client)
        assert screen.view is not None and screen.view["version"] == version  # u played nothing
        assert screen.uno_armed and "called with your next card" in str(screen.query_one("#actions").render())
        playable = next(action["card"] for action in screen.view["legal"] if action["type"] == "play")
        await pilot.press(str(screen.shown_hand.index(playable) + 1))
        await settle(pilot, app, client)
        texts = log_texts(client)
        plays = [index for index, text in enumerate(texts) if text.startswith("Ann plays")]
        assert plays and texts[plays[-1] + 1] == "Ann calls UNO!", texts  # the call is said once, after the play
        table = client.table
        assert table is not None and table.game is not None
        # the move went to the table as a play with the UNO call ("0:<card>!"), whatever the bots did next
        made = [logged.move for logged in table.moves[len(record.moves):]]
        assert made and made[0].startswith("0:") and made[0].endswith("!"), made
        screen = await settle(pilot, app, client)
        assert screen.view is not None and len(screen.view["game"]["hand"]) == 1
        assert screen.view["uno_called"] == [0]  # one card, called: everyone sees her UNO marker
        assert " UNO " in str(screen.query_one("#players").render()).splitlines()[0]


async def test_no_uno_is_called_for_you_unless_the_assist_is_on() -> None:
    # The same moment: playing the card without u plays it without the call; with the assist on, it calls.
    settings = fast_settings(players=3)
    game, record = situation(settings, ("easy", "normal"), _two_cards_to_call)
    for assist in (False, True):
        clock = FakeClock()
        client = LocalClient(game, clock=clock, record=record)
        app = RoyalRevengeApp(client, clock=clock, bell=False, uno_assist=assist)
        async with app.run_test(size=SIZE) as pilot:
            screen = await settle(pilot, app, client)
            assert screen.view is not None
            playable = next(action["card"] for action in screen.view["legal"] if action["type"] == "play")
            unplayable = [card for card in screen.shown_hand if card != playable]
            if unplayable:  # u with the unplayable card selected plays nothing (it only arms the call)
                screen.selected = screen.shown_hand.index(unplayable[0])
            await pilot.press(str(screen.shown_hand.index(playable) + 1))
            await settle(pilot, app, client)
            table = client.table
            assert table is not None
            made = [logged.move for logged in table.moves[len(record.moves):]]
            assert made and made[0].startswith("0:") and made[0].endswith("!") is assist, (assist, made)


async def test_a_catch_of_a_bot_that_forgets_uno_by_key() -> None:
    # The bot played its next-to-last card without calling UNO; Ann, next to play, presses c.
    settings = fast_settings(players=2)

    def catchable(table: Table) -> bool:
        assert table.game is not None
        return any(isinstance(action, Catch) for action in table.game.state.legal_actions(0))

    game, record = situation(settings, ("easy",), catchable, agent_factory=forgetful_agents, human="draw")
    clock = FakeClock()
    client = LocalClient(game, clock=clock, record=record, agent_factory=forgetful_agents)
    app = RoyalRevengeApp(client, clock=clock, bell=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settle(pilot, app, client)
        assert screen.view is not None and screen.view["game"]["hand_sizes"][1] == 1
        assert "Catch Easy bot 2!" in str(screen.query_one("#actions").render())
        await pilot.press("c")
        screen = await settle(pilot, app, client)
        assert "Ann catches Easy bot 2 without UNO" in log_texts(client)
        assert "Ann catches Easy bot 2 without UNO" in screen.banner_text
        assert screen.view is not None and screen.view["game"]["hand_sizes"][1] == 3  # one card and two more


async def test_the_fanfare_shows_a_banner_and_rings_the_bell() -> None:
    app, client, clock = local_app(fast_settings(scepter_min_seconds=45, scepter_max_seconds=75), seed=5)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, client)
        await pilot.press("3")  # Ann, the King, makes seat 3 the Jester: the scepter starts
        screen = await settle(pilot, app, client)
        assert screen.view is not None and screen.view["game"]["king"] == 0
        assert app.bells == 0 and not screen.banner_text
        await clock.advance(76)  # the scepter sounds within 45 to 75 seconds
        screen = await settle(pilot, app, client)
        assert app.bells == 1
        assert "FANFARE" in screen.banner_text and "FANFARE" in str(screen.query_one("#notice").render())
        view = screen.view
        assert view is not None and view["game"]["king"] == 1  # the Crown passed to the left
        assert any(entry["kind"] == "FanfareSounded" for entry in view["log"])


async def test_save_and_resume_gives_the_same_hand(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    app, client, clock = local_app(fast_settings(), seed=9, save_path=save)
    rng = random.Random(2)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, client)
        await pilot.press("2")
        for _ in range(6):
            await step(pilot, app, client, clock, rng)
        screen = await settle(pilot, app, client)
        while isinstance(app.screen, ResultsDialog) or screen.royal_kind() is not None:
            await step(pilot, app, client, clock, rng)
            screen = await settle(pilot, app, client)
        before = screen.view
        assert before is not None
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SaveDialog)
        await pilot.press("enter")
        await pilot.pause()
        assert save.exists() and "Saved to" in screen.banner_text
    data = json.loads(save.read_text())
    assert data["format"] == "royal-revenge-terminal-save" and data["record"]["format"] == "royal-revenge/record"

    game, record = load_save(save)
    clock2 = FakeClock()
    resumed = LocalClient(game, clock=clock2, record=record)
    app2 = RoyalRevengeApp(resumed, clock=clock2, bell=False)
    async with app2.run_test(size=SIZE) as pilot:
        screen = await settle(pilot, app2, resumed)
        after = screen.view
        assert after is not None
        for key in ("hand", "top", "hand_sizes", "scores", "king", "jester", "pending", "active_colour"):
            assert after["game"][key] == before["game"][key], key
        assert after["legal"] == before["legal"]
        assert [entry["text"] for entry in after["log"]] == [entry["text"] for entry in before["log"]]


async def test_help_and_quit_keys() -> None:
    app, client, _ = local_app(fast_settings(), seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, client)
        await pilot.press("2")
        await settle(pilot, app, client)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "King's Choice" in str(app.screen.query_one("#help-text").render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is table_screen(app)
        # Mid-game, q asks first (the game is not saved); s opens the save dialog instead ...
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and not app._exit
        assert str(app.screen.query_one("#confirm-text").render()) == "The game is not saved; press s to save first."
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SaveDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is table_screen(app) and not app._exit
        # ... and y quits.
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await pilot.pause()
        assert app._exit and client._task is None  # quit, the table's clock stopped
    assert app.return_code == 0


async def test_ctrl_c_quits_even_in_a_dialog() -> None:
    app, client, _ = local_app(fast_settings(), seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, client)
        assert table_screen(app).royal_kind() == "jester"
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app._exit
    assert app.return_code == 0


async def test_mouse_plays_a_card_and_answers_the_king() -> None:
    app, client, _ = local_app(fast_settings(), seed=11)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settle(pilot, app, client)
        royal = screen.query_one("#royal")
        choices = str(royal.render())
        assert await pilot.click("#royal", offset=(choices.index("3: ") + 2, 0))  # the third seat's button
        screen = await settle(pilot, app, client)
        assert screen.view is not None and screen.view["game"]["jester"] == 2
        assert screen.view["game"]["pending"] == {"kind": "turn", "seat": 0}
        playable = [a["card"] for a in screen.view["legal"] if a["type"] == "play"]
        assert playable, "this deal (seed 11) gives Ann a card to play"
        index = screen.shown_hand.index(playable[0])
        # click the card's chip in the hand (after the border and the padding)
        hand = screen.query_one("#hand")
        shown = hand_lines(screen.view, screen.selected, hand.content_region.width)
        lines = Content.from_markup(shown).plain.split("\n")
        chip = f"{index + 1}* "
        row = next(number for number, line in enumerate(lines) if chip in line)
        assert await pilot.click("#hand", offset=(2 + lines[row].index(chip) + 3, 1 + row))
        screen = await settle(pilot, app, client)
        assert screen.view is not None
        assert any(entry["text"].startswith("Ann plays") for entry in screen.view["log"])
        # the action bar is clickable too: Quit
        actions = Content.from_markup(screen.actions_markup(screen.view)).plain
        assert await pilot.click("#actions", offset=(1 + actions.index("Quit"), 0))
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)  # (mid-game: the game is not saved)
        assert await pilot.click("#answer-yes")
        await pilot.pause()
        assert app._exit and client._task is None  # quit, the table's clock stopped


async def test_an_illegal_card_shows_a_reason_and_changes_nothing() -> None:
    app, client, _ = local_app(fast_settings(), seed=11)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, client)
        await pilot.press("2")
        screen = await settle(pilot, app, client)
        assert screen.view is not None
        version = screen.view["version"]
        await pilot.press("k")  # nothing was drawn: the table says why, and nothing changes
        screen = await settle(pilot, app, client)
        notice = str(screen.query_one("#notice").render())
        assert screen.refusal is not None and notice == screen.refusal[0], notice
        assert "_" not in notice and "seat" not in notice.lower(), notice
        assert client.version == version


async def test_the_settings_screen_starts_a_game_and_names_a_bad_field() -> None:
    game = LocalGame(fast_settings(players=3), "Ann", 9, ("easy", "hard"), seed=1)
    app = RoyalRevengeApp(game=game, clock=FakeClock(), bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#target", Input).value = "0"
        await pilot.press("ctrl+s")
        await pilot.pause()
        error = str(screen.query_one("#settings-error").render())
        assert "The target score must be a whole number of points, at least 1" in error
        screen.query_one("#target", Input).value = "200"
        screen.query_one("#player-count", Select).value = 2
        screen.query_one("#bot-0", Select).value = "normal"
        await pilot.press("ctrl+s")
        await pilot.pause()
        client = app.client
        assert isinstance(client, LocalClient)
        await settle(pilot, app, client)
        assert client.table is not None and client.table.settings.target_score == 200
        assert [seat.level for seat in client.table.seats] == [None, "normal"]
        assert table_screen(app).royal_kind() == "jester"  # Ann (9) is the King and chooses the Jester
