"""The browser's standalone modules and the help page, in Debian's Chromium (issue 16).

The help page is served by a real server (`/help`). The modules (sound, settings, chat, tour, cues) are
mounted by a small test-only page, tests/web/modules_page.js, bundled here with the project's esbuild and
served to the browser by Playwright itself (a made-up origin), so they are tested as a player's browser
runs them: localStorage, reloads, focus and all.
"""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "src" / "royal_revenge" / "web"
AXE = Path(str(__import__("axe_playwright_python").__file__)).with_name("axe.min.js")
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
ORIGIN = "http://modules.test"
CARD_KINDS = {"number": ["R3", "Y5", "G7", "B8"], "reverse": ["YR"], "skip": ["BS"], "kings-choice": ["GK"],
              "jester": ["BJ", "RJ"], "wild": ["W"]}
RULE_ID = re.compile(r"\b(?:R-[A-Z]+(?:-\w+)?|D-\d+)\b")
HARNESS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>UNO Royal Revenge</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/dist/main.css">
<style>body { background: #14233a; color: #f4f6fb; }</style>
<script type="module" src="/modules.js"></script></head><body></body></html>"""


def new_page(context: Any) -> tuple[Any, list[str]]:
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(10_000)
    return page, errors


def serious_axe_violations(page: Any) -> list[dict[str, Any]]:
    page.evaluate(AXE.read_text())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']}).then(r => r.violations)")
    return [violation for violation in result if violation["impact"] in ("serious", "critical")]


@pytest.fixture(scope="session")
def modules_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not ESBUILD.exists():
        pytest.fail("the browser modules are bundled with the project's esbuild: run `npm ci` (make test does)")
    out = tmp_path_factory.mktemp("modules") / "modules.js"
    subprocess.run([str(ESBUILD), str(Path(__file__).with_name("modules_page.js")), "--bundle", "--format=esm",
                    "--target=es2020", f"--outfile={out}", "--log-level=warning"], cwd=ROOT, check=True)
    return out


@pytest.fixture
def harness(browser: Any, modules_bundle: Path) -> Iterator[Any]:
    """A fresh browser context whose `http://modules.test/` is the test page of the modules."""
    context = browser.new_context(viewport={"width": 900, "height": 900})

    def fulfil(route: Any) -> None:
        path = route.request.url[len(ORIGIN):].split("?")[0]
        if path == "/":
            route.fulfill(status=200, content_type="text/html", body=HARNESS_HTML)
        elif path == "/static/dist/main.css":
            route.fulfill(status=200, content_type="text/css", body=(WEB / "dist" / "main.css").read_text())
        elif path == "/modules.js":
            route.fulfill(status=200, content_type="text/javascript", body=modules_bundle.read_text())
        else:
            route.fulfill(status=404, body="")

    context.route(f"{ORIGIN}/**", fulfil)
    yield context
    context.close()


def open_harness(context: Any, *, toured: bool = True) -> tuple[Any, list[str]]:
    page, errors = new_page(context)
    if toured:
        context.add_init_script("try { localStorage.setItem('rr.toured', 'true') } catch (e) {}")
    page.goto(ORIGIN + "/")
    page.wait_for_selector("#settings")
    return page, errors


# --- the help page -----------------------------------------------------------------------------------------


def test_the_help_page_and_its_files_are_served(server_url: str) -> None:
    files = [("/help", "text/html"), ("/static/dist/help.js", "javascript"), ("/static/help.css", "text/css")]
    for path, kind in files:
        with urllib.request.urlopen(server_url + path, timeout=5) as response:
            assert response.status == 200, path
            assert kind in response.headers["content-type"], (path, response.headers["content-type"])
    with urllib.request.urlopen(server_url + "/help", timeout=5) as response:
        body = response.read().decode()
    assert "How to play UNO Royal Revenge" in body and "/static/dist/help.js" in body


def test_the_help_page_shows_every_card_kind_and_every_rule_in_plain_words(browser: Any, server_url: str,
                                                                           shots: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, errors = new_page(context)
    page.goto(server_url + "/help")
    slots = page.locator(".card-slot[data-card]")
    page.wait_for_function("() => [...document.querySelectorAll('.card-slot[data-card]')]"
                           ".every(slot => slot.children.length)")
    assert slots.count() >= 14
    for kind, cards in CARD_KINDS.items():
        figure = page.locator(f"figure.card-kind[data-kind='{kind}']")
        assert figure.count() == 1, kind
        assert [figure.locator(".card-slot").nth(i).get_attribute("data-card")
                for i in range(figure.locator(".card-slot").count())] == cards
        for index in range(len(cards)):
            box = figure.locator(".card-slot").nth(index).locator(":scope > *").first.bounding_box()
            assert box and box["width"] > 20 and box["height"] > 40, (kind, box)
    text = page.inner_text("main")
    assert not RULE_ID.findall(text), RULE_ID.findall(text)
    for words in ["56 cards", "King's Choice", "Jester Hat", "the King names the colour", "fanfare",
                  "the new King plays next", "catch", "draws two cards", "500 points", "Lowest tally",
                  "the deal passes to the left", "youngest", "costs no turn", "Wild", "50"]:
        assert words.lower() in text.lower(), words
    assert page.locator("a.back-to-game[href='/']").count() == 2
    page.screenshot(path=str(shots / "help.png"), full_page=False)
    assert serious_axe_violations(page) == []
    # The tour can be taken from the help page, and Esc closes it.
    page.click("#btn-tour")
    page.wait_for_selector("#tour")
    assert page.evaluate("document.activeElement.id") == "tour-next"
    page.keyboard.press("Escape")
    page.wait_for_selector("#tour", state="detached")
    assert page.evaluate("document.activeElement.id") == "btn-tour"
    assert errors == []
    # At phone size nothing scrolls sideways.
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    context.close()


def test_the_help_page_links_back_to_the_table_the_player_came_from(browser: Any, server_url: str) -> None:
    context = browser.new_context()
    page, errors = new_page(context)
    page.goto(server_url + "/help", referer=server_url + "/t/ABCDE-FGHJK")
    page.wait_for_selector(".card-slot[data-card] > *")
    assert page.locator("a.back-to-game[href='/t/ABCDE-FGHJK']").count() == 2
    assert "Back to your table" in page.inner_text(".help-top")
    assert errors == []
    context.close()


# --- settings ------------------------------------------------------------------------------------------------


def test_settings_are_kept_across_a_reload(harness: Any) -> None:
    page, errors = open_harness(harness)
    assert page.is_checked("#opt-uno-assist") is False, "the UNO assist is off by default"
    assert page.is_checked("#opt-colour-blind") is False
    assert page.input_value("#opt-sort") == "colour"
    assert page.is_checked("#opt-notify") is False
    page.check("#opt-uno-assist")
    page.check("#opt-colour-blind")
    page.select_option("#opt-sort", "number")
    page.select_option("#opt-motion", "on")
    page.fill("#opt-volume", "30")
    page.check("#opt-mute")
    assert page.evaluate("rrTest.prefs.unoAssist") is True
    assert page.evaluate("document.documentElement.dataset.colourBlind") == "true"
    assert page.evaluate("document.documentElement.dataset.reducedMotion") == "true"
    page.reload()
    page.wait_for_selector("#settings")
    assert page.is_checked("#opt-uno-assist") and page.is_checked("#opt-colour-blind") and page.is_checked("#opt-mute")
    assert page.input_value("#opt-sort") == "number"
    assert page.input_value("#opt-motion") == "on"
    assert page.input_value("#opt-volume") == "30"
    stored = json.loads(page.evaluate("localStorage.getItem('rr.prefs')"))
    assert stored == {"unoAssist": True, "colourBlind": True, "sort": "number", "reducedMotion": "on",
                      "notifications": False}
    assert page.evaluate("rrTest.prefs.value.sort") == "number"
    # A value kept by an older or tampered page is ignored, not trusted.
    page.evaluate("localStorage.setItem('rr.prefs', JSON.stringify({sort: '<b>', unoAssist: 'yes'}))")
    page.reload()
    page.wait_for_selector("#settings")
    assert page.input_value("#opt-sort") == "colour" and not page.is_checked("#opt-uno-assist")
    assert errors == []


def test_notifications_are_refused_in_plain_words_when_the_browser_blocks_them(harness: Any) -> None:
    harness.add_init_script("Object.defineProperty(Notification, 'permission', {get: () => 'denied'})")
    page, errors = open_harness(harness)
    page.click("#opt-notify")
    page.wait_for_selector("#settings .opt-note")
    assert "blocked" in page.inner_text("#settings .opt-note")
    assert page.is_checked("#opt-notify") is False and page.evaluate("rrTest.prefs.notifications") is False
    assert errors == []


# --- sound ---------------------------------------------------------------------------------------------------


def test_sound_volume_and_mute_are_kept_and_every_cue_plays(harness: Any) -> None:
    page, errors = open_harness(harness)
    assert page.evaluate("[rrTest.sound.volume, rrTest.sound.muted]") == [0.7, False]
    page.click("h1")  # a user gesture: browsers only start audio after one
    names = page.evaluate("rrTest.SOUND_NAMES")
    assert sorted(names) == sorted(["turn", "play", "draw", "uno", "catch", "win", "fanfare", "deal", "chat", "tick"])
    assert page.evaluate("rrTest.SOUND_NAMES.map(name => rrTest.sound.play(name))") == [True] * len(names)
    assert page.evaluate("rrTest.sound.play('no-such-sound')") is False
    page.evaluate("rrTest.sound.setVolume(0.25); rrTest.sound.setMuted(true)")
    assert page.evaluate("rrTest.sound.play('turn')") is False, "a muted sound plays nothing"
    page.reload()
    page.wait_for_selector("#settings")
    assert page.evaluate("[rrTest.sound.volume, rrTest.sound.muted]") == [0.25, True]
    assert page.is_checked("#opt-mute") and page.input_value("#opt-volume") == "25"
    page.uncheck("#opt-mute")
    assert json.loads(page.evaluate("localStorage.getItem('rr.sound')")) == {"volume": 0.25, "muted": False}
    page.evaluate("rrTest.sound.setVolume(7); rrTest.sound.setVolume(NaN)")
    assert page.evaluate("rrTest.sound.volume") == 0.7
    page.wait_for_timeout(300)
    assert errors == []


RENDER_JS = """async () => {
  const s = rrTest.sound, out = {};
  for (const name of rrTest.SOUND_NAMES) {
    const off = new OfflineAudioContext(1, 44100 * 3, 44100);
    const master = off.createGain();
    master.connect(off.destination);
    const saved = [s._ctx, s._master, s._noise];
    [s._ctx, s._master, s._noise] = [off, master, null];
    const started = s.play(name);
    [s._ctx, s._master, s._noise] = saved;
    const data = (await off.startRendering()).getChannelData(0);
    let peak = 0, last = 0;
    for (let i = 0; i < data.length; i++) {
      const level = Math.abs(data[i]);
      if (level > peak) peak = level;
      if (level > 0.002) last = i;
    }
    out[name] = {started, peak, seconds: last / 44100};
  }
  return out;
}"""


def test_every_cue_is_a_short_clear_sound_and_the_fanfare_the_longest(harness: Any) -> None:
    """Each cue rendered offline (the master level at 1): audible, never clipping, short; the fanfare longest."""
    page, errors = open_harness(harness)
    rendered = page.evaluate(RENDER_JS)
    for name, cue in rendered.items():
        assert cue["started"], name
        assert 0.05 < cue["peak"] < 1.0, (name, cue)
        assert cue["seconds"] < (2.5 if name == "fanfare" else 1.3), (name, cue)
    assert rendered["tick"]["seconds"] < 0.1 and rendered["play"]["seconds"] < 0.25
    assert max(rendered, key=lambda name: rendered[name]["seconds"]) == "fanfare"
    assert errors == []


@pytest.mark.parametrize("blocked", [
    "window.AudioContext = function () { throw new DOMException('blocked', 'NotAllowedError') };",
    "window.AudioContext = undefined; window.webkitAudioContext = undefined;",
    """window.AudioContext = class extends AudioContext {
         constructor() { super(); Object.defineProperty(this, 'state', {get: () => 'suspended'}); }
         resume() { return Promise.reject(new DOMException('blocked', 'NotAllowedError')); } };""",
], ids=["the-audio-context-is-refused", "no-web-audio", "resuming-is-refused"])
def test_sound_never_throws_when_audio_is_blocked(harness: Any, blocked: str) -> None:
    harness.add_init_script(blocked)
    harness.add_init_script("localStorage.setItem('rr.sound', '{\"volume\": \"loud\", \"muted\": 3}')")
    page, errors = open_harness(harness)
    page.evaluate("rrTest.SOUND_NAMES.forEach(name => rrTest.sound.play(name))")  # before any gesture
    page.click("h1")
    page.evaluate("rrTest.SOUND_NAMES.forEach(name => rrTest.sound.play(name))")
    page.fill("#opt-volume", "40")
    page.wait_for_timeout(200)
    assert page.evaluate("rrTest.sound.volume") == 0.4
    assert errors == []


# --- chat ----------------------------------------------------------------------------------------------------


def chat_line(n: int, text: str, *, seat: int | None = 1, name: str = "Bob", kind: str = "chat") -> dict[str, Any]:
    return {"n": n, "seat": seat, "name": name, "text": text, "at": 1764700000 + n, "kind": kind}


def test_the_chat_panel_renders_markup_as_text(harness: Any) -> None:
    page, errors = open_harness(harness)
    markup = "<img src=x onerror=\"window.pwned=1\"><b>bold</b> & <script>window.pwned=2</script>"
    page.evaluate("lines => rrTest.setProps({chat: lines})", [
        chat_line(1, markup, name="<i>Eve</i>"), chat_line(2, "👏", kind="reaction", name="Ann", seat=0)])
    page.wait_for_selector("#chat-log li.reaction")
    first = page.locator("#chat-log li").first
    assert markup in first.inner_text() and "<i>Eve</i>" in first.inner_text()
    assert page.locator("#chat-log img, #chat-log b, #chat-log i, #chat-log script").count() == 0
    assert page.evaluate("window.pwned") is None
    assert "👏" in page.inner_text("#chat-log li.reaction")
    assert serious_axe_violations(page) == []
    assert errors == []


def test_the_chat_panel_sends_reacts_counts_scrolls_and_mutes(harness: Any) -> None:
    page, errors = open_harness(harness)
    assert page.is_disabled("#chat-send"), "nothing to send yet"
    page.fill("#chat-input", "  hello there  ")
    assert page.inner_text("#chat-counter") == "11/200"
    page.press("#chat-input", "Enter")
    assert page.evaluate("rrTest.sent") == ["hello there"]
    assert page.input_value("#chat-input") == ""
    page.fill("#chat-input", "x" * 250)
    assert len(page.input_value("#chat-input")) == 200, "no more than 200 characters"
    assert page.inner_text("#chat-counter") == "200/200"
    assert [page.locator("button.reaction").nth(i).get_attribute("data-emoji")
            for i in range(page.locator("button.reaction").count())] == page.evaluate("rrTest.REACTIONS")
    page.click("button.reaction[data-emoji='🎉']")
    assert page.evaluate("rrTest.reacted") == ["🎉"]
    # The newest line stays in view, and a new line from someone else makes the chat sound.
    page.click("h1")
    played = page.evaluate("rrTest.sound.played")
    page.evaluate("lines => rrTest.setProps({chat: lines})", [chat_line(n, f"line {n}") for n in range(1, 51)])
    page.wait_for_function("() => document.querySelectorAll('#chat-log li').length === 50")
    assert page.evaluate("(() => { const l = document.getElementById('chat-log');"
                         " return l.scrollHeight - l.scrollTop - l.clientHeight; })()") < 2
    assert page.evaluate("document.getElementById('chat-log').scrollHeight > "
                         "document.getElementById('chat-log').clientHeight")
    page.wait_for_function("n => rrTest.sound.played === n + 1", arg=played)
    page.evaluate("lines => rrTest.setProps({chat: lines})",
                  [chat_line(n, f"line {n}") for n in range(1, 51)] + [chat_line(51, "mine", seat=0, name="Ann")])
    page.wait_for_function("() => document.querySelectorAll('#chat-log li').length === 51")
    page.wait_for_timeout(100)
    assert page.evaluate("rrTest.sound.played") == played + 1, "no sound for your own line"
    # The host mutes a person (never a bot, never themselves).
    assert page.locator("button.mute").count() == 1
    assert page.get_attribute("button.mute", "data-seat") == "1"
    page.click("button.mute[data-seat='1']")
    assert page.evaluate("rrTest.mutes") == [[1, True]]
    page.evaluate("rrTest.setProps({muted: [1]})")
    page.wait_for_selector("button.mute[data-seat='1'][aria-pressed='true']")
    assert "Unmute" in page.inner_text("button.mute[data-seat='1']")
    # A muted person reads but cannot write; a guest sees no mute buttons.
    page.evaluate("rrTest.setProps({muted: [0], isHost: false})")
    page.wait_for_selector(".chat .muted-note")
    assert "The host has muted you" in page.inner_text(".chat .muted-note")
    assert page.locator("#chat-input").count() == 0 and page.locator("button.mute").count() == 0
    assert errors == []


# --- tour and cues -------------------------------------------------------------------------------------------


def test_the_tour_shows_once_on_a_first_visit_and_keeps_the_keyboard_inside(harness: Any) -> None:
    page, errors = open_harness(harness, toured=False)
    page.wait_for_selector("#tour")
    assert page.evaluate("document.activeElement.id") == "tour-next"
    titles = [page.inner_text("#tour-title")]
    for _ in range(4):
        page.click("#tour-next")
        titles.append(page.inner_text("#tour-title"))
    assert titles == ["The King decides", "The Jester", "The fanfare", "Call UNO yourself", "First to 500"]
    for _ in range(6):  # the focus goes round the dialog's buttons, never out of it
        page.keyboard.press("Tab")
        assert page.evaluate("!!document.activeElement.closest('#tour')")
    assert serious_axe_violations(page) == []
    page.click("#tour-next")  # "Let's play" on the last step
    page.wait_for_selector("#tour", state="detached")
    page.reload()
    page.wait_for_selector("#settings")
    page.wait_for_timeout(200)
    assert page.locator("#tour").count() == 0, "shown once"
    page.click("#btn-how")
    page.wait_for_selector("#tour")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#tour-title") == "The Jester"
    page.keyboard.press("Escape")
    page.wait_for_selector("#tour", state="detached")
    assert errors == []


def test_the_first_step_of_the_tour_names_all_the_kings_decisions(harness: Any) -> None:
    page, _ = open_harness(harness, toured=False)
    text = page.inner_text("#tour")
    assert "Wild" in text and "King's Choice" in text and "Jester Hat" in text
    page.click("#tour-skip")
    page.wait_for_selector("#tour", state="detached")
    assert page.evaluate("localStorage.getItem('rr.toured')") == "true"


def test_cues_change_the_tab_title_and_icon_when_you_must_decide(harness: Any) -> None:
    harness.add_init_script("navigator.vibrate = (pattern) => { window.vibrated = pattern; return true; }")
    page, errors = open_harness(harness)
    before = page.title()
    page.evaluate("rrTest.updateCues({mustDecide: true, text: 'Your turn: play a card or draw'})")
    assert page.title() == "(!) Your turn - UNO Royal Revenge"
    assert "circle" in page.get_attribute("link[rel~='icon']", "href")
    assert page.evaluate("window.vibrated") == [120, 60, 120]
    page.evaluate("rrTest.updateCues({mustDecide: false, text: 'Bob\\'s turn'})")
    assert page.title() == before
    assert page.get_attribute("link[rel~='icon']", "href") == "data:,", "the page's own icon is back"
    assert errors == []


NOTIFICATIONS_JS = """
window.notes = [];
window.Notification = class {
  static permission = 'granted';
  static requestPermission() { return Promise.resolve('granted'); }
  constructor(title, options) { window.notes.push(options.body); }
  close() {}
};
Object.defineProperty(document, 'hidden', {get: () => Boolean(window.away)});
"""


def test_a_hidden_tab_gets_a_notification_when_a_decision_waits_if_the_player_asked(harness: Any) -> None:
    harness.add_init_script(NOTIFICATIONS_JS)
    page, errors = open_harness(harness)
    page.evaluate("window.away = true; rrTest.updateCues({mustDecide: true, text: 'Your turn: play a card or draw'})")
    assert page.evaluate("window.notes") == [], "off unless the player turned it on"
    page.evaluate("rrTest.updateCues({mustDecide: false, text: ''}); window.away = false")
    page.click("#opt-notify")
    page.wait_for_function("rrTest.prefs.notifications")
    page.evaluate("window.away = true;"
                  "rrTest.updateCues({mustDecide: true, text: 'You are the King: choose the colour'})")
    assert page.evaluate("window.notes") == ["You are the King: choose the colour"]
    page.evaluate("rrTest.updateCues({mustDecide: true, text: 'You are the King: choose the colour'})")
    assert len(page.evaluate("window.notes")) == 1, "once per change"
    # A decision that starts while the player looks, then the player leaves the tab: one notification.
    page.evaluate("window.away = false; rrTest.updateCues({mustDecide: false, text: ''});"
                  "rrTest.updateCues({mustDecide: true, text: 'Your turn: play a card or draw'})")
    assert len(page.evaluate("window.notes")) == 1
    page.evaluate("window.away = true; document.dispatchEvent(new Event('visibilitychange'));"
                  "document.dispatchEvent(new Event('visibilitychange'))")
    assert page.evaluate("window.notes")[1:] == ["Your turn: play a card or draw"]
    assert errors == []


def test_the_modules_fit_a_360_pixel_phone(harness: Any) -> None:
    page, errors = open_harness(harness, toured=False)
    page.set_viewport_size({"width": 360, "height": 740})
    page.wait_for_selector("#tour")
    box = page.locator("#tour .tour-card").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360
    page.keyboard.press("Escape")
    page.evaluate("lines => rrTest.setProps({chat: lines})",
                  [chat_line(1, "a-very-long-word-without-any-space-" * 6), chat_line(2, "🎉", kind="reaction")])
    page.fill("#chat-input", "hello")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for selector in ["#chat-send", "button.reaction", "#opt-volume", "#opt-sort"]:
        box = page.locator(selector).first.bounding_box()
        assert box and box["x"] + box["width"] <= 360 and box["height"] >= 32, (selector, box)
    assert errors == []
