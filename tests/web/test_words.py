"""The page shows the server's words (the view's `glossary`, `legal_labels` and `prompt`), never its own copies.

The words are read off the page and compared with the view; then the view's words are changed in the page and the
page must show the changed ones: a word the page kept a copy of would not change.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.web.test_next_game import DEVELOPER_WORDS, _seated, shown_text, take_turn, visible, where
from tests.web.test_next_page import version, view

pytestmark = pytest.mark.timeout(300)

LABELS_OF = """kind => rr.view.legal.map((action, i) => [action, rr.view.legal_labels[i]])
  .filter(([action]) => action.type === kind).map(([, label]) => label)"""


def _wait_for_own_turn(page: Any) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if shown_text(page, "#prompt").startswith("Your turn") and page.locator("#hand button.card").count():
            return
        if not visible(page, "#royal") or not take_turn(page, call_uno=True):
            page.wait_for_timeout(80)
    raise AssertionError(f"Ann's turn never came: {where(page)}")


def test_the_page_shows_the_servers_words_for_the_prompt_the_cards_and_the_buttons(pages: Any,
                                                                                    server_url: str) -> None:
    page, _ = _seated(pages, server_url, {"players": 3, "bot_delay_seconds": 3, "turn_seconds": 60},
                      ["easy", "easy"])
    for _ in range(10):  # (read while the view holds still: a bot's move or a fanfare may come between looks)
        _wait_for_own_turn(page)
        before = version(page)
        shown = view(page)
        prompt, draw, draw_labels = shown_text(page, "#prompt"), shown_text(page, "#btn-draw"), \
            page.evaluate(LABELS_OF, "draw")
        cards = [(b.get_attribute("data-card") or "", b.get_attribute("aria-label") or "")
                 for b in page.locator("#hand button.card").all()]
        pile = page.get_attribute("#pile", "aria-label") or ""
        if version(page) == before and draw_labels:
            break
    else:
        raise AssertionError("the view never held still on Ann's turn")
    words = shown["glossary"]["cards"]
    assert prompt == shown["prompt"]
    assert draw == draw_labels[0] == "Draw"
    for card, label in cards:
        assert label.startswith(words[card]), card
    assert words[shown["game"]["top"]] in pile
    for text in [prompt, draw, *[label for _, label in cards]]:
        assert not DEVELOPER_WORDS.search(text), text

    # Other words in the view: the page says those (it holds no card names, prompts or button words of its own).
    page.evaluate("""() => {
      const v = rr.view;
      const cards = Object.keys(v.glossary.cards).map(c => [c, `card ${c}!`]);
      v.glossary = {...v.glossary, cards: Object.fromEntries(cards)};
      v.legal_labels = v.legal.map((action, i) => action.type === "draw" ? "Take one" : v.legal_labels[i]);
      v.prompt = "Over to you, Ann";
      rr.changed();
    }""")
    page.wait_for_function("document.getElementById('prompt').innerText === 'Over to you, Ann'")
    assert page.inner_text("#btn-draw") == "Take one"
    for button in page.locator("#hand button.card").all():
        card = button.get_attribute("data-card") or ""
        assert (button.get_attribute("aria-label") or "").startswith(f"card {card}!"), card
    assert f"card {shown['game']['top']}!" in (page.get_attribute("#pile", "aria-label") or "")


def test_the_kings_sheet_shows_each_choice_in_the_servers_words(pages: Any, server_url: str) -> None:
    """The colours and the players on the King's sheet read as the view's `legal_labels` for them."""
    page, _ = _seated(pages, server_url, {"players": 3, "bot_delay_seconds": 0.4, "turn_seconds": 60},
                      ["easy", "easy"])
    deadline = time.monotonic() + 240
    seen: set[str] = set()
    while time.monotonic() < deadline and not ({"colour"} <= seen and seen & {"victim", "jester"}):
        if visible(page, "#royal"):
            kind = next((k for k in ("colour", "victim", "jester") if page.locator(f"#royal button[data-{k}]").count()),
                        None)
            if kind is not None:
                try:
                    labels = page.evaluate(LABELS_OF, kind)
                    if kind == "colour":
                        buttons = page.locator("#royal button[data-colour]").all()  # (as written, not as styled)
                        texts = [(button.text_content() or "").strip() for button in buttons]
                    else:
                        texts = [b.inner_text().split(" ", 1)[1].strip()  # (after the key to press)
                                 for b in page.locator(f"#royal button[data-{kind}] strong").all()]
                except Exception:  # (decided meanwhile, by a fanfare or the clock: the next look sees what is new)
                    continue
                if labels and len(texts) == len(labels):
                    assert texts == labels, (kind, texts, labels)
                    if kind == "victim":  # (anyone can be chosen, the King too: "you" on the sheet)
                        assert sum("(you)" in label for label in labels) == 1, labels
                    seen.add(kind)
        if visible(page, "#results"):
            if view(page)["phase"] == "finished":
                page.click("#btn-rematch")
            page.wait_for_function("window.rr.view.phase === 'playing' && "
                                   "window.rr.view.game.pending.kind !== 'round_over'", timeout=30_000)
            continue
        if not take_turn(page, call_uno=True):
            page.wait_for_timeout(60)
    assert "colour" in seen and seen & {"victim", "jester"}, f"only saw {seen}"
