"""The browser game, played in headless Chromium against a real server (issue: the browser game).

A scripted "person" reads only what the page shows (open dialogs, playable cards, buttons)
and clicks, as a player would.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from royal_revenge.engine import GameRecord

pytestmark = pytest.mark.timeout(300)

AXE = Path(__import__("axe_playwright_python").__file__).with_name("axe.min.js")


def new_page(browser: Any, **context: Any) -> tuple[Any, list[str]]:
    page = browser.new_context(**context).new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(20_000)
    return page, errors


def open_table(page: Any, url: str, *, name: str = "Ann", age: int | None = 5, seats: int = 3,
               bots: list[str] | None = None, single_round: bool = True, target: int | None = None) -> str:
    """Fill the start page's form and open a table; returns its code."""
    page.goto(url + "/")
    page.fill("#c-name", name)
    if age is not None:
        page.fill("#c-age", str(age))
    page.select_option("#c-players", str(seats))
    for seat, level in enumerate(bots if bots is not None else ["normal"] * (seats - 1), start=2):
        page.select_option(f"#c-bot-{seat}", level)
    page.click("summary")
    if single_round:
        page.check("#c-single")
    if target is not None:
        page.fill("#c-target", str(target))
    page.fill("#c-botdelay", "0")
    page.fill("#c-turn", "120")
    page.click("#create-btn")
    page.wait_for_selector("#lobby:not([hidden])")
    return str(page.evaluate("window.rr.code"))


def version(page: Any) -> int:
    return int(page.evaluate("window.rr.view ? window.rr.view.version : -1"))


def wait_change(page: Any, before: int) -> None:
    page.wait_for_function("v => window.rr.view && window.rr.view.version > v", arg=before, timeout=15_000)


def human_move(page: Any) -> str | None:
    """Make one move if the page asks this player for one; returns what was done."""
    before = version(page)
    if page.locator("#dlg-colour[open]").count():
        page.locator("#colour-choices button").first.click()
        wait_change(page, before)
        return "colour"
    if page.locator("#dlg-seat[open]").count():
        page.locator("#seat-choices button").last.click()
        wait_change(page, before)
        return "seat"
    if not page.locator("#pending.mine").count() or page.locator("#dlg-result[open]").count():
        return None
    playable = page.locator("#hand .card.playable")
    if playable.count():
        playable.first.click()
        what = "play"
    elif page.locator("#btn-keep:not([hidden])").count():
        page.click("#btn-keep")
        what = "keep"
    elif page.locator("#btn-draw:not([disabled])").count():
        page.click("#btn-draw")
        what = "draw"
    else:
        return None
    wait_change(page, before)
    return what


def play_until(page: Any, done: str, *, others: list[Any] = (), limit: int = 3000,  # type: ignore[assignment]
               on_move: Any = None) -> None:
    moves = 0
    deadline = time.monotonic() + 180
    for _ in range(limit):
        if page.locator(done).count():
            return
        if time.monotonic() > deadline:
            view = page.evaluate("JSON.stringify(window.rr.view)")
            raise AssertionError(f"{done} did not appear in time; the page shows {view[:3000]}")
        acted = False
        for player in [page, *others]:
            what = human_move(player)
            if what:
                acted = True
                moves += 1
                if on_move is not None:
                    on_move(moves, what)
        if not acted:
            page.wait_for_timeout(60)
    raise AssertionError(f"{done} did not appear after {limit} rounds of moves")


def run_axe(page: Any) -> list[dict[str, Any]]:
    page.evaluate(AXE.read_text())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']}).then(r => r.violations)")
    return [v for v in result if v["impact"] in ("serious", "critical")]


def test_full_game_against_bots_from_start_page_to_winner(browser: Any, server_url: str, shots: Path) -> None:
    """A person opens a table, is King (youngest), makes royal decisions, plays to the winner screen."""
    page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
    page.goto(server_url + "/")
    assert run_axe(page) == [], "start page accessibility"
    page.screenshot(path=str(shots / "start.png"))
    code = open_table(page, server_url, seats=3, bots=["normal", "easy"], target=60, single_round=False)
    page.screenshot(path=str(shots / "lobby.png"))
    assert run_axe(page) == [], "lobby accessibility"
    page.click("#start-game")
    # The youngest (5, the only age given) is the first King: the first royal decision is ours.
    page.wait_for_selector("#dlg-seat[open]")
    assert "Jester" in page.inner_text("#dlg-seat-title")
    page.screenshot(path=str(shots / "royal-decision.png"))
    taken: dict[str, bool] = {}

    def snapshot(moves: int, what: str) -> None:
        if moves >= 6 and "table" not in taken and not page.locator("dialog[open]").count():
            taken["table"] = True
            page.screenshot(path=str(shots / "table.png"))
            assert run_axe(page) == [], "table accessibility"
        if page.locator("#dlg-result[open]").count() and "round" not in taken:
            taken["round"] = True
            page.screenshot(path=str(shots / "round-results.png"))
            if page.evaluate("window.rr.view.phase") != "finished":
                page.click("#result-close")

    play_until(page, "#dlg-result[open] #rematch:not([hidden])", on_move=snapshot)
    assert "won the game" in page.inner_text("#dlg-result-title")
    page.screenshot(path=str(shots / "winner.png"))
    assert errors == []

    # The record downloads and replays identically; the replay view steps through it.
    record = page.request.get(f"{server_url}/api/tables/{code}/record")
    assert record.ok
    state = GameRecord.loads(record.text()).replay()
    assert state.is_over()
    replay, replay_errors = new_page(browser)
    replay.goto(f"{server_url}/t/{code}?replay=1")
    replay.wait_for_selector("#r-view .replay-row")
    assert replay.locator("#r-view .replay-row").count() == 3
    replay.click("#r-last")
    assert "move" in replay.inner_text("#r-pos")
    assert replay_errors == []


def test_two_browsers_play_each_other(browser: Any, server_url: str) -> None:
    host, host_errors = new_page(browser)
    guest, guest_errors = new_page(browser)
    code = open_table(host, server_url, name="Host", age=30, seats=2, bots=[""])
    guest.goto(server_url + "/")
    grouped = f"{code[:5]}-{code[5:]}"  # as the host reads it out
    assert len(code) == 10 and host.inner_text("#lobby-code") == grouped
    guest.fill("#j-code", grouped.lower())
    guest.fill("#j-name", "Guest")
    guest.fill("#j-age", "8")
    guest.click("#join-btn")
    guest.wait_for_selector("#lobby:not([hidden])")
    assert guest.evaluate("window.rr.code") == code and guest.inner_text("#t-code") == grouped
    host.wait_for_function("window.rr.view.seats[1].kind === 'human'")
    host.click("#start-game")
    # The guest is younger, so the guest is King and chooses the Jester.
    guest.wait_for_selector("#dlg-seat[open]")
    play_until(host, "#dlg-result[open]", others=[guest])
    guest.wait_for_selector("#dlg-result[open]")
    assert host.inner_text("#dlg-result-title") == guest.inner_text("#dlg-result-title")
    assert host_errors == [] and guest_errors == []


def test_reload_keeps_the_seat_and_the_hand(browser: Any, server_url: str) -> None:
    page, errors = new_page(browser)
    open_table(page, server_url, seats=2, bots=["normal"])
    page.click("#start-game")
    page.wait_for_selector("#dlg-seat[open]")
    for _ in range(4):
        human_move(page)
    # Wait until the game waits for us: then nothing can change our hand until we act.
    page.wait_for_selector("#pending.mine")
    you = page.evaluate("window.rr.view.you")
    hand = page.evaluate("window.rr.view.game.hand")
    discard = page.evaluate("window.rr.view.game.discard_pile")
    page.reload()
    page.wait_for_function("window.rr.view && window.rr.view.game")
    assert page.evaluate("window.rr.view.you") == you
    now = page.evaluate("window.rr.view.game.hand")
    assert now == hand
    assert page.evaluate("window.rr.view.game.discard_pile") == discard
    assert page.locator("#pending.mine").count() == 1
    assert page.locator("#hand .card").count() == len(now)
    assert errors == []


def test_phone_sized_screen_is_playable(browser: Any, server_url: str, shots: Path) -> None:
    page, errors = new_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    open_table(page, server_url, seats=4)
    page.click("#start-game")
    moves = 0
    for _ in range(400):
        if human_move(page):
            moves += 1
        else:
            page.wait_for_timeout(50)
        if moves >= 5:
            break
    assert moves >= 5
    box = page.locator("#hand").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390 + 1
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 392, "no sideways scrolling on a phone"
    page.screenshot(path=str(shots / "phone.png"), full_page=True)
    assert errors == []


def test_spectator_sees_no_hand(browser: Any, server_url: str) -> None:
    page, _ = new_page(browser)
    code = open_table(page, server_url, seats=2, bots=["easy"])
    page.click("#start-game")
    page.wait_for_selector("#dlg-seat[open]")
    watcher, errors = new_page(browser)
    frames: list[str] = []
    watcher.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    watcher.goto(f"{server_url}/t/{code}?watch=1")
    watcher.wait_for_function("window.rr.view && window.rr.view.game")
    assert "Spectators see no hand" in watcher.inner_text("#hand")
    assert frames and all(json.loads(f).get("view", {}).get("game", {}).get("hand", []) == [] for f in frames)
    assert errors == []
