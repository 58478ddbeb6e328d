"""The browser game (web/index.html, the Preact bundle of web/src) in Debian's Chromium against a real server.

A scripted "person" reads only what the page shows (the royal chooser, the playable cards, the buttons) and
clicks, as a player would.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[2]
PAGE = "/"


def api(url: str, method: str = "GET", body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def view(page: Any) -> Any:
    return page.evaluate("window.rr.view")


def version(page: Any) -> int:
    return int(page.evaluate("window.rr.view ? window.rr.view.version : -1"))


def fill_start(page: Any, url: str, name: str = "Ann", *, pace: str = "0", single: bool = True) -> None:
    page.goto(url + PAGE)
    page.fill("#name", name)
    page.fill("#age", "7")
    page.click("summary")
    page.fill("#opt-bot-delay", pace)
    page.fill("#opt-turn", "120")
    if single:
        page.check("#opt-single-round")


def test_the_first_visits_tour_comes_before_any_clock_runs(pages: Any, server_url: str) -> None:
    """The tour shows on the start page of a first visit, not over a game whose clock would run meanwhile."""
    page = pages(toured=False)
    page.goto(server_url + PAGE)
    page.wait_for_selector("#tour")
    page.click("#tour-skip")
    page.wait_for_selector("#tour", state="detached")
    page.fill("#name", "Ann")
    page.click("#btn-play-bots")
    page.wait_for_selector("#table .seat")
    page.wait_for_timeout(500)
    assert page.locator("#tour").count() == 0
    # A newcomer who follows an invitation link sees it before joining, on the join form.
    other = pages(toured=False)
    other.goto(f"{server_url}/t/{view(page)['code']}")
    other.wait_for_selector("#tour")
    assert other.locator("#table").count() == 0


def test_play_bots_opens_a_started_table_in_one_click(pages: Any, server_url: str) -> None:
    page = pages()
    fill_start(page, server_url, pace="1")
    page.click("#btn-play-bots")
    page.wait_for_selector("#table")
    current = view(page)
    assert current["phase"] == "playing"
    assert [s["kind"] for s in current["seats"]] == ["human", "bot", "bot", "bot"]
    assert re.search(r"/t/[A-Z0-9]+$", page.url)


def test_lobby_with_a_friend_seat_join_and_start(pages: Any, server_url: str) -> None:
    host = pages()
    fill_start(host, server_url)
    host.select_option("#players", "3")
    selects = host.locator("select.seat-choice")
    assert selects.count() == 2
    selects.nth(0).select_option("easy")
    selects.nth(1).select_option("friend")
    host.click("#btn-create")
    host.wait_for_selector("#lobby")
    code = host.inner_text("#share-code").replace("-", "")
    seats = view(host)["seats"]
    assert [s["kind"] for s in seats] == ["human", "bot", "open"]
    assert host.locator("#btn-start").is_disabled()

    guest = pages(390, 844)
    guest.goto(server_url + PAGE)
    guest.fill("#name", "Bob")
    guest.fill("#join-code", code.lower())
    guest.click("#btn-join")
    guest.wait_for_selector("#lobby #waiting-host")
    assert guest.locator("#btn-start").count() == 0
    # A refusal in the lobby is shown there too (a forged chat line with a control character: nothing is said).
    guest.evaluate("window.rr.conn.send({type: 'chat', text: 'hi\\u0007'})")
    guest.wait_for_selector("#notice")
    assert "_" not in guest.inner_text("#notice") and "text" not in guest.inner_text("#notice").split()
    assert view(guest)["chat"] == []
    host.wait_for_selector("#btn-start:not([disabled])")
    host.click("#btn-start")
    host.wait_for_selector("#table")
    guest.wait_for_selector("#table")


def test_unknown_code_shows_not_found(pages: Any, server_url: str) -> None:
    page = pages()
    page.goto(server_url + PAGE + "?t=ZZZZZZZZZZ&watch=1")
    page.wait_for_selector("#not-found")
    page.click("#btn-home")
    page.wait_for_selector("#btn-play-bots")
    page.fill("#name", "Cy")
    page.fill("#join-code", "YYYYYYYYYY")
    page.click("#btn-join")
    page.wait_for_selector("#not-found")


def test_a_table_link_and_a_reload_keep_the_seat_and_the_hand(pages: Any, server_url: str) -> None:
    page = pages()
    fill_start(page, server_url, pace="3")
    page.select_option("#players", "2")
    page.click("#btn-create")
    page.wait_for_selector("#lobby")
    assert re.search(r"/t/[A-Z0-9]+$", page.url)
    page.wait_for_selector("#btn-start:not([disabled])")
    page.click("#btn-start")
    page.wait_for_selector("#hand button.card")
    before = view(page)
    page.reload()
    page.wait_for_selector("#hand button.card")
    after = view(page)
    assert after["you"] == before["you"]
    assert sorted(after["game"]["hand"]) == sorted(before["game"]["hand"]) or after["version"] > before["version"]
    assert page.locator("#hand button.card").count() == len(after["game"]["hand"])


def test_joining_a_started_game_offers_to_watch_it_beside_the_join_button(pages: Any, server_url: str) -> None:
    host = pages()
    fill_start(host, server_url, "Ann", pace="2")
    host.click("#btn-play-bots")
    host.wait_for_selector("#table .seat")
    code = view(host)["code"]
    late = pages()
    late.goto(server_url + PAGE)
    late.fill("#name", "Bob")
    late.fill("#join-code", code)
    late.click("#btn-join")
    late.wait_for_selector("#start-error")
    error = late.locator("#start-error")
    join_form = late.locator("form", has=late.locator("#btn-join"))
    assert join_form.locator("#start-error").count() == 1  # (beside the button that was pressed)
    assert "started" in error.inner_text()
    late.click("#btn-watch-instead")
    late.wait_for_selector("#table .seat")
    assert view(late)["you"] is None


def test_the_start_page_leads_back_to_a_table_being_played(pages: Any, server_url: str) -> None:
    page = pages()
    fill_start(page, server_url, "Ann", pace="2")
    page.click("#btn-play-bots")
    page.wait_for_selector("#table .seat")
    code = view(page)["code"]
    page.goto(server_url + PAGE)
    page.wait_for_selector("#your-tables")
    assert "your seat: Ann" in page.inner_text("#your-tables")
    page.click(f"#your-tables a[href='/t/{code}']")
    page.wait_for_selector("#table .seat")
    assert view(page)["you"] == 0 and view(page)["code"] == code


def test_the_settings_close_with_escape_or_a_click_outside(pages: Any, server_url: str) -> None:
    page = pages()
    page.goto(server_url + PAGE)
    page.click("#btn-settings")
    page.wait_for_selector(".settings-pop")
    page.keyboard.press("Escape")
    page.wait_for_selector(".settings-pop", state="detached")
    page.click("#btn-settings")
    page.wait_for_selector(".settings-pop")
    page.click(".settings-pop #opt-uno-assist")  # (a click inside keeps them open)
    assert page.locator(".settings-pop").count() == 1
    page.mouse.click(5, 400)
    page.wait_for_selector(".settings-pop", state="detached")
