"""The new browser game played as people play it, in Debian's Chromium against a real server (issue 16).

Each scripted person reads only what the page shows (the playable cards, the King's sheet, the Catch button on
an avatar, the prompt) and clicks; the view on `window.rr` is read only to check what the page showed.
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import run_axe as run_axe_now
from tests.web.test_next_page import PAGE, api, fill_start, view

pytestmark = pytest.mark.timeout(420)

DEVELOPER_WORDS = re.compile(r"R-[A-Z]|D-\d|_seconds|_score|\bseat \d\b|String should|Traceback|undefined|null")
"""What no player may read: rule ids, field names, 0-based seats, validation or JavaScript leftovers."""


def visible(page: Any, selector: str) -> bool:
    locator = page.locator(selector)
    return bool(locator.count() > 0 and locator.first.is_visible())


def shown_text(page: Any, selector: str) -> str:
    """The text of ``selector`` if it is on the page and visible, else "": in one look (an element seen and then
    read in two could be gone in between, and reading it would wait for it)."""
    return str(page.evaluate("""selector => {
      const element = document.querySelector(selector);
      return element && element.checkVisibility() ? element.innerText : "";
    }""", selector))


def take_turn(page: Any, *, call_uno: bool) -> str | None:
    """One decision, if the page offers this person one: the King's choice, a playable card (pressing UNO first
    when it is the next-to-last card and ``call_uno``: then the answer is ``"play-uno"``), keeping a drawn card,
    or drawing. Whatever changed under a click (a fanfare, the clock) is left for the next look."""
    for chooser in ("#royal button[data-colour]", "#royal button[data-victim]", "#royal button[data-jester]"):
        if visible(page, chooser):
            try:
                page.locator(chooser).first.click(timeout=2_000)
            except Exception:  # (decided meanwhile, by a fanfare or the clock: the next look sees what is new)
                return None
            return chooser.split("data-")[1].rstrip("]")
    playable = page.locator('#hand button.card[data-playable="true"]')
    if playable.count():
        uno = page.locator("#btn-uno")
        called = False
        if call_uno and page.locator("#hand button.card").count() == 2:
            # (the press arms the call for the next play; a second press would disarm it)
            if uno.get_attribute("aria-pressed") != "true" and uno.is_enabled():
                try:
                    uno.click(timeout=2_000)
                except Exception:  # (the turn moved on between the look and the press)
                    return None
            called = uno.get_attribute("aria-pressed") == "true"
        try:
            playable.first.click(timeout=2_000)
        except Exception:  # (the hand changed under the click: the next look sees the new one)
            return None
        return "play-uno" if called else "play"
    for button, move in (("#btn-keep", "keep"), ("#btn-draw", "draw")):
        if visible(page, button) and page.locator(button).is_enabled():
            try:
                page.click(button, timeout=2_000)
            except Exception:  # (decided meanwhile: the clock ran out, or a fanfare took the turn)
                return None
            return move
    return None


def settle(page: Any) -> None:
    """Waits for the motions that end (a sheet fading in, a card in flight) to end."""
    page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running' || "
                           "a.effect.getTiming().iterations === Infinity)")


def shoot(page: Any, path: Path) -> None:
    """A screenshot once the motion has settled (what a person sees when they look)."""
    with contextlib.suppress(Exception):  # (the table moved on meanwhile: the picture is still worth having)
        settle(page)
    page.screenshot(path=str(path))


def run_axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations, once the entrance motions have ended (a sheet fading in has
    the contrast of its last frame, not of its first)."""
    settle(page)
    return run_axe_now(page)


def log_texts(page: Any) -> list[str]:
    return [entry["text"] for entry in (view(page) or {}).get("log", [])]


def where(page: Any) -> str:
    """Where the table stood as this page saw it, for a failure's message: the prompt, the decision pending, the
    hand and the last events of the log."""
    shown = view(page) or {}
    game = shown.get("game") or {}
    return (f"prompt {shown_text(page, '#prompt')!r}; phase {shown.get('phase')}; pending {game.get('pending')}; "
            f"hand {[b.get_attribute('data-card') for b in page.locator('#hand button.card').all()]}; "
            f"last events {log_texts(page)[-8:]}")


# ---------------------------------------------------------------- a whole game: forgetting UNO and being caught


@pytest.mark.timeout(600)  # (it ends as soon as both moments have happened; a loaded machine plays slowly)
def test_a_whole_game_where_one_forgets_uno_and_the_other_catches(pages: Any, server_url: str, shots: Path) -> None:
    """Ann opens a table from the start page with a seat kept for Bob and one for a bot; Bob joins on a phone.
    Ann never calls UNO; Bob calls it, and catches Ann whenever the Catch target shows on her avatar."""
    ann = pages()
    fill_start(ann, server_url, "Ann", pace="1.5")
    ann.select_option("#players", "3")
    ann.locator("select.seat-choice").nth(0).select_option("friend")
    ann.locator("select.seat-choice").nth(1).select_option("easy")
    ann.click("#btn-create")
    ann.wait_for_selector("#lobby")
    code = ann.inner_text("#share-code").replace("-", "")
    assert [seat["kind"] for seat in view(ann)["seats"]] == ["human", "open", "bot"]

    bob = pages(390, 844)
    bob.goto(server_url + PAGE)
    bob.fill("#name", "Bob")
    bob.fill("#join-code", code)
    bob.click("#btn-join")
    bob.wait_for_selector("#waiting-host")
    assert "Waiting for Ann" in bob.inner_text("#waiting-host")
    ann.click("#btn-start")
    for page in (ann, bob):
        page.wait_for_selector("#table .seat.current")
        assert not visible(page, "#btn-start")
    shoot(ann, shots / "next-table-desktop.png")
    shoot(bob, shots / "next-table-phone.png")

    caught = bob_called = False
    games = missed = 0
    deadline = time.monotonic() + 480
    while time.monotonic() < deadline and not (caught and bob_called):
        if visible(bob, 'button.catch[data-seat="0"]'):
            if missed:  # (a picture only once a window was missed: taking it costs time the window may not have)
                bob.screenshot(path=str(shots / "next-catch.png"))
            try:
                bob.click('button.catch[data-seat="0"]', timeout=3_000)
                ann.wait_for_function("window.rr.view.log.some(e => e.kind === 'Caught' && e.seat === 0)",
                                      timeout=5_000)
                caught = True
            except Exception:  # (the window closed first: a bot caught her, or the next player began)
                missed += 1
            continue
        two = ann.locator("#hand button.card").count() == 2
        moved = take_turn(ann, call_uno=False)
        if moved == "play" and two:
            # Ann's next-to-last card without UNO: Bob looks for the Catch before his own move (as a person would)
            with contextlib.suppress(Exception):
                bob.wait_for_selector('button.catch[data-seat="0"]', timeout=1_500)
            continue
        if not moved:
            moved = take_turn(bob, call_uno=True)
            if moved == "play-uno" and not bob_called:
                # Bob pressed UNO and played his next-to-last card: Ann sees his marker while he holds one card
                # (unless his next turn came at once, by a Skip or a fanfare, and he played or drew again).
                # (or the play was refused: the hand changed under the click; the final check says if he never did)
                with contextlib.suppress(Exception):
                    ann.wait_for_function(
                        "document.querySelector('.seat[data-seat=\"1\"] .uno-mark') !== null || "
                        "(window.rr.view.log.some(e => e.kind === 'UnoCalled' && e.seat === 1) && "
                        " window.rr.view.game.pending.seat === 1)", timeout=5_000)
                bob_called = ann.locator('.seat[data-seat="1"] .uno-mark').count() > 0
        if visible(ann, "#results") and view(ann)["phase"] == "finished":
            games += 1
            shoot(ann, shots / "next-results.png")
            assert visible(ann, "#btn-rematch") and visible(bob, "#btn-rematch")
            bob.click("#btn-rematch")
            ann.wait_for_selector(".rematch-request")
            assert "Bob asks for a rematch" in ann.inner_text("#results")
            ann.click("#btn-rematch")
            ann.wait_for_function("window.rr.view.phase === 'playing'")
            continue
        if not moved:
            ann.wait_for_timeout(80)
    assert caught, f"Ann was never caught in {games + 1} game(s); Ann's page: {where(ann)}; Bob's: {where(bob)}"
    # Nobody's UNO is called for them: every call in Ann's games is someone's own press (she never pressed).
    assert not any(entry.get("kind") == "UnoCalled" and entry.get("seat") == 0 for entry in view(ann)["log"])
    assert bob_called, f"Bob's UNO marker was never seen in {games + 1} game(s)"
    for page in (ann, bob):
        assert not DEVELOPER_WORDS.search(page.inner_text("body")), page.inner_text("body")


# ---------------------------------------------------------------- the King's three decisions and the fanfare


def _seated(pages: Any, server_url: str, settings: dict[str, Any], bots: list[str | None],
            script: str | None = None, **page_options: Any) -> tuple[Any, dict[str, Any]]:
    """A table opened through the API (settings the start page does not offer) and Ann's page at her seat
    (``script`` runs in the page before its own scripts)."""
    created = api(f"{server_url}/api/tables", "POST", {"name": "Ann", "settings": settings, "bots": bots})
    page = pages(**page_options)
    if script is not None:
        page.context.add_init_script(script)
    page.goto(server_url + PAGE)
    page.evaluate("([code, seat]) => localStorage.setItem('rr:' + code, JSON.stringify(seat))",
                  [created["code"], {"token": created["token"], "seat": created["seat"]}])
    page.goto(f"{server_url}{PAGE}?t={created['code']}")
    page.wait_for_selector("#lobby #btn-start")
    page.click("#btn-start")
    page.wait_for_selector("#table .seat")
    return page, created


def test_the_kings_three_decisions_and_the_fanfare(pages: Any, server_url: str, shots: Path) -> None:
    """With a scepter of 5-7 seconds the Crown goes round quickly: Ann, King in her turn, chooses a colour, a
    victim and a Jester on the sheet over the felt (her hand stays in view), and sees the Crown travel."""
    page, _ = _seated(pages, server_url, {"players": 3, "scepter_min_seconds": 5, "scepter_max_seconds": 7,
                                          "bot_delay_seconds": 0.4, "turn_seconds": 60}, ["easy", "easy"])
    seen: set[str] = set()
    crown_flew = fanfare_logged = False
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not ({"colour", "victim", "jester"} <= seen and crown_flew):
        crown_flew = crown_flew or page.locator("#fx .crown-flight").count() > 0
        # (read as it goes: the log keeps the last 60 events, and a long game pushes an early fanfare out)
        fanfare_logged = fanfare_logged or any(entry["kind"] == "FanfareSounded" for entry in view(page)["log"])
        if visible(page, "#royal"):
            # The sheet's kind and its title read at once: the fanfare may change the decision between two reads.
            kind, title = page.evaluate("""() => {
                const sheet = document.querySelector('#royal');
                if (sheet === null) return [null, ''];  // (gone since it was seen: the decision was made)
                const kind = ['colour', 'victim', 'jester'].find(k => sheet.querySelector(`button[data-${k}]`));
                return [kind ?? null, sheet.querySelector('h2')?.innerText ?? ''];
            }""")
            title = title.removeprefix("👑").strip()
            if kind is not None and kind not in seen:
                assert title == {"colour": "You are the King: choose the colour",
                                 "victim": "You are the King: choose who draws one card",
                                 "jester": "You are the King: choose who wears the Jester Hat"}[kind]
                sheet = page.locator("#royal").bounding_box()
                hand = page.locator("#hand").bounding_box()
                assert sheet and hand and sheet["y"] + sheet["height"] <= hand["y"] + 1, "the sheet covers the hand"
                shoot(page, shots / f"next-king-{kind}.png")
                seen.add(kind)
                if kind == "jester":  # (by the key shown on the sheet: the seat's number)
                    seat = int(page.locator("#royal button[data-jester]").first.get_attribute("data-jester") or "0")
                    assert page.locator("#royal button[data-jester] .key-hint").first.inner_text() == str(seat + 1)
                    page.keyboard.press(str(seat + 1))
                    page.wait_for_function(f"window.rr.view.game.jester === {seat} || "
                                           "window.rr.view.game.pending.kind !== 'jester'", timeout=5_000)
                    continue
        if visible(page, "#results"):
            if view(page)["phase"] == "finished":
                page.click("#btn-rematch")
            page.wait_for_function("window.rr.view.phase === 'playing' && "
                                   "window.rr.view.game.pending.kind !== 'round_over'", timeout=30_000)
            continue
        if not take_turn(page, call_uno=True):
            page.wait_for_timeout(60)
    assert {"colour", "victim", "jester"} <= seen, f"only saw {seen}"
    assert crown_flew
    assert fanfare_logged or view(page)["game_no"] > 1


# ---------------------------------------------------------------- chat, spectators, refusals, motion, a11y


def test_chat_and_reactions_between_two_people_and_a_spectator(pages: Any, server_url: str) -> None:
    created = api(f"{server_url}/api/tables", "POST", {"name": "Ann", "settings": {"players": 3},
                                                       "bots": [None, "easy"]})
    code = created["code"]
    ann = pages()
    ann.goto(server_url + PAGE)
    ann.evaluate("([code, seat]) => localStorage.setItem('rr:' + code, JSON.stringify(seat))",
                 [code, {"token": created["token"], "seat": 0}])
    ann.goto(f"{server_url}{PAGE}?t={code}")
    bob = pages(390, 844)
    bob.goto(server_url + PAGE)
    bob.fill("#name", "Bob")
    bob.fill("#join-code", code)
    bob.click("#btn-join")
    bob.wait_for_selector("#waiting-host")
    ann.fill("#chat-input", "<b>hi</b> Bob")
    ann.press("#chat-input", "Enter")
    bob.wait_for_selector("#chat-log >> text=<b>hi</b> Bob")  # (markup is shown as text)
    bob.click('button.reaction[data-emoji="👑"]')
    ann.wait_for_selector("#chat-log .emoji >> text=👑")
    ann.click("#btn-start")
    watcher = pages()
    watcher.goto(f"{server_url}{PAGE}?t={code}&watch=1")
    watcher.wait_for_selector("#table .seat")
    assert watcher.locator("#hand").count() == 0 and watcher.locator("#btn-draw").count() == 0
    assert "You are watching" in watcher.inner_text("#table")
    bob.wait_for_selector("#table")
    bob.click('[role="tab"] >> text=Chat')
    bob.fill("#chat-input", "good luck")
    bob.click("#chat-send")
    watcher.wait_for_selector("#chat-log >> text=good luck")
    ann.wait_for_selector('.seat[data-seat="1"] .bubble >> text=good luck')
    assert DEVELOPER_WORDS.search(watcher.inner_text("body")) is None


def test_refusals_are_in_plain_words_and_a_double_click_is_harmless(pages: Any, server_url: str) -> None:
    page = pages()
    page.goto(server_url + PAGE)
    page.click("#btn-play-bots")
    page.wait_for_selector("#start-error")
    assert page.inner_text("#start-error") == "Please enter your name"
    fill_start(page, server_url, "Ann")
    page.fill("#opt-turn", "1")
    page.click("#btn-create")  # (the browser holds the form back and says what the field takes)
    assert page.evaluate("document.getElementById('opt-turn').validity.rangeUnderflow")
    assert page.locator("#lobby").count() == 0
    created = api(f"{server_url}/api/tables", "POST", {"name": "Ann", "settings": {"players": 3}})
    page.fill("#name", "ann")
    page.fill("#join-code", created["code"])
    page.click("#btn-join")
    page.wait_for_selector("#start-error")
    assert page.inner_text("#start-error") == "Ann is already at this table; choose another name"
    page, _ = _seated(pages, server_url, {"players": 2, "bot_delay_seconds": 3, "turn_seconds": 60}, ["easy"])
    notices: list[str] = []
    deadline = time.monotonic() + 90
    double_clicked = out_of_turn = False
    while time.monotonic() < deadline and not (double_clicked and out_of_turn):
        prompt = shown_text(page, "#prompt")  # (the King's sheet replaces it)
        cards = page.locator("#hand button.card")
        if prompt.startswith("Your turn") and page.locator('#hand button.card[data-playable="true"]').count():
            try:
                page.locator('#hand button.card[data-playable="true"]').first.dblclick(timeout=2_000)
            except Exception:  # (the turn moved on between the look and the click: a fanfare, or the clock)
                continue
            page.wait_for_timeout(400)
            double_clicked = True
        elif prompt.endswith("'s turn") and cards.count():
            cards.first.click()
            page.wait_for_selector("#notice")
            notices.append(page.inner_text("#notice"))
            out_of_turn = True
        elif not take_turn(page, call_uno=True):
            page.wait_for_timeout(80)
        if visible(page, "#notice"):
            notices.append(page.inner_text("#notice"))
    assert double_clicked and out_of_turn
    assert any(re.fullmatch(r"It's [\w ]+'s turn", notice) for notice in notices), notices
    for notice in notices:
        assert not DEVELOPER_WORDS.search(notice), notice
        assert "may not" not in notice and "cannot be played now" not in notice, notice


def test_reduced_motion_draws_no_motion(pages: Any, server_url: str) -> None:
    page, _ = _seated(pages, server_url, {"players": 3, "bot_delay_seconds": 0.3}, ["easy", "easy"],
                      reduced_motion="reduce")
    assert page.evaluate("document.documentElement.dataset.reducedMotion") == "true"
    start = len(view(page)["log"])
    flights = moving = 0
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(view(page)["log"]) < start + 12:
        flights = max(flights, page.locator("#fx .flying").count())
        # (words such as "Skipped" or the fanfare may fade in and out where they are, but nothing moves)
        moving = max(moving, page.evaluate("document.getAnimations().filter(a => a.effect && a.effect.getKeyframes()"
                                           ".some(k => k.transform !== undefined)).length"))
        if not take_turn(page, call_uno=True):
            page.wait_for_timeout(50)
    assert len(view(page)["log"]) >= start + 12
    assert flights == 0 and moving == 0


def test_motion_is_drawn_over_the_table_without_holding_the_state(pages: Any, server_url: str) -> None:
    """A play flies to the pile and draws fly to the seats, but the state is on the page at once."""
    page, _ = _seated(pages, server_url, {"players": 3, "bot_delay_seconds": 0.5}, ["easy", "easy"])
    seen = 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and seen < 3:
        if page.locator("#fx .flying").count():
            seen += 1
            # (the card still flies, yet the pile already shows the state's top card: within a frame or two)
            page.wait_for_function("document.querySelector('#pile .card').dataset.card === window.rr.view.game.top"
                                   " && document.querySelector('#fx .flying') !== null", timeout=300)
            page.wait_for_timeout(450)
        elif not take_turn(page, call_uno=True):
            page.wait_for_timeout(30)
    assert seen >= 3
    assert page.evaluate("getComputedStyle(document.getElementById('fx')).pointerEvents") == "none"


def test_the_table_has_no_serious_accessibility_violations(pages: Any, server_url: str) -> None:
    page, _ = _seated(pages, server_url, {"players": 4, "bot_delay_seconds": 2}, ["easy", "easy", "easy"])
    page.wait_for_selector("#hand button.card")
    assert [(v["id"], [n["html"][:120] for n in v["nodes"]]) for v in run_axe(page)] == []
    phone, _ = _seated(pages, server_url, {"players": 3, "bot_delay_seconds": 2}, ["easy", "easy"],
                       width=390, height=844)
    assert [(v["id"], [n["html"][:120] for n in v["nodes"]]) for v in run_axe(phone)] == []
    box = phone.locator("#hand").bounding_box()
    assert box and box["y"] + box["height"] <= 844, "the hand is below the fold on a phone"
    for seat in phone.locator(".seat").all():
        seat_box = seat.bounding_box()
        assert seat_box and seat_box["x"] >= 0 and seat_box["x"] + seat_box["width"] <= 390


def test_a_seat_the_bot_plays_after_a_time_out_is_taken_back(pages: Any, server_url: str) -> None:
    """Ann lets her decision time out: the page says a bot plays her seat, and one click gives it back."""
    page, _ = _seated(pages, server_url, {"players": 3, "turn_seconds": 3, "max_timeouts": 1,
                                          "bot_delay_seconds": 0.6, "scepter_min_seconds": 3000,
                                          "scepter_max_seconds": 3600}, ["easy", "easy"])
    page.wait_for_selector("#btn-back", timeout=30_000)
    assert "A bot is playing your seat" in page.inner_text("#autopilot")
    assert view(page)["seats"][view(page)["you"]]["autopilot"] is True
    page.click("#btn-back")
    page.wait_for_function("!window.rr.view.seats[window.rr.view.you].autopilot", timeout=10_000)
    assert not visible(page, "#btn-back")
    assert not DEVELOPER_WORDS.search(page.inner_text("body"))


CUE_RECORDER = """
window.__notes = []; window.__vibrations = []; window.__hidden = false;
window.Notification = class { static permission = "granted";
  constructor(title, options) { window.__notes.push({title, body: options.body}); } close() {} };
navigator.vibrate = (pattern) => { window.__vibrations.push(pattern); return true; };
Object.defineProperty(document, "hidden", {get: () => window.__hidden});
localStorage.setItem("rr.prefs", JSON.stringify({notifications: true}));
"""
"""The browser's Notification and vibrate, replaced by recorders (a headless browser shows neither)."""


def test_a_decision_while_the_tab_is_hidden_notifies_and_vibrates(pages: Any, server_url: str) -> None:
    """With notifications on, a decision that waits while Ann looks at another tab sends one notification with
    the server's prompt; her phone vibrates when the decision starts (once she has touched the page)."""
    page, _ = _seated(pages, server_url, {"players": 3, "bot_delay_seconds": 0.5, "turn_seconds": 60,
                                          "scepter_min_seconds": 3000, "scepter_max_seconds": 3600},
                      ["easy", "easy"], script=CUE_RECORDER, has_touch=True)
    page.mouse.click(5, 5)  # (a gesture: browsers vibrate only after one)
    for _ in range(200):  # until it is not Ann's decision
        if not view(page)["game"] or view(page)["game"]["pending"]["seat"] != view(page)["you"]:
            break
        take_turn(page, call_uno=True)
        page.wait_for_timeout(100)
    page.evaluate("window.__notes = []; window.__vibrations = []; window.__hidden = true; "
                  "document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_function("window.rr.view.game.pending.seat === window.rr.view.you", timeout=30_000)
    page.wait_for_function("window.__notes.length > 0", timeout=5_000)
    notes = page.evaluate("window.__notes")
    assert notes[0]["title"] == "UNO Royal Revenge" and notes[0]["body"] == view(page)["prompt"], notes
    assert page.title().startswith("(!) Your turn")
    assert page.evaluate("window.__vibrations.length") >= 1
    page.evaluate("window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))")
    take_turn(page, call_uno=True)
    page.wait_for_function("window.rr.view.game.pending.seat !== window.rr.view.you || "
                           "window.rr.view.game.pending.kind !== 'turn'", timeout=10_000)


def test_the_results_can_be_closed_to_see_the_table_and_leave(pages: Any, server_url: str) -> None:
    """At the end of a game the results cover the table; closing them shows it (its chat and Leave) again."""
    page, _ = _seated(pages, server_url, {"players": 2, "single_round": True, "bot_delay_seconds": 0.1,
                                          "turn_seconds": 60}, ["easy"])
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not (visible(page, "#results") and view(page)["phase"] == "finished"):
        if not take_turn(page, call_uno=True):
            page.wait_for_timeout(50)
    assert visible(page, "#results") and view(page)["phase"] == "finished"
    page.click("#btn-results-close")
    assert not visible(page, "#results") and visible(page, "#btn-show-results")
    page.click("#btn-show-results")
    page.wait_for_selector("#results")
    page.click("#btn-results-leave")  # (a game that is over: no question asked)
    page.wait_for_selector("#btn-create")
    assert page.url.rstrip("/") == server_url
