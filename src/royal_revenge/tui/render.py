"""Views to Textual markup: pure functions of the view dict the table sends (no rules here).

Every card reads in words (``red 7``, ``blue Jester``, ``Wild``), so the hand reads the same without
colour; colour only adds to it. Every word about the game is the table's own, the same the browser game
shows: the cards', the colours' and the buttons' (the view's ``glossary``), each legal action's
(``legal_labels``), whose decision it is and the hints (``prompt``, ``hint``), the log's ``text`` and the
refusals. This module only lays them out for a terminal of a given size.
"""

from __future__ import annotations

import textwrap
from typing import Any, Final

from textual.markup import escape

__all__ = [
    "WATCHING_TEXT",
    "button_word",
    "card_markup",
    "card_name",
    "clock_markup",
    "colour_name",
    "decider_of",
    "hand_lines",
    "label_of",
    "legal_of",
    "log_tail",
    "play_choice",
    "players_markup",
    "results_markup",
    "result_key",
    "royal_markup",
    "seat_name",
    "sorted_hand",
    "table_markup",
    "target_words",
]

_STYLE: Final = {
    "R": "bold #ffffff on #b71c1c",
    "Y": "bold #1a1a1a on #fdd835",
    "G": "bold #ffffff on #1b5e20",
    "B": "bold #ffffff on #0d47a1",
    None: "bold #ffffff on #4a148c",
}
_ORDER: Final = "RYGBW"
_RANK: Final = {**{str(number): number for number in range(1, 9)}, "R": 9, "S": 10, "K": 11, "J": 12}
ROYAL_KINDS: Final = ("colour", "victim", "jester")
WATCHING_TEXT: Final = "You are watching this table: you hold no cards and make no moves."
"""Where a spectator's hand would be."""


def _glossary(view: dict[str, Any] | None, part: str) -> dict[str, str]:
    words: dict[str, str] = ((view or {}).get("glossary") or {}).get(part) or {}
    return words


def card_name(view: dict[str, Any] | None, text: str) -> str:
    """A card's words from the table's glossary: ``red 7``, ``blue Jester``, ``Wild``."""
    return _glossary(view, "cards").get(text, text)


def colour_name(view: dict[str, Any] | None, letter: str) -> str:
    """A colour's words from the table's glossary: ``red``."""
    return _glossary(view, "colours").get(letter, letter)


def button_word(view: dict[str, Any] | None, kind: str) -> str:
    """The word of the button for an action type (``draw``, ``keep``, ``uno``, ``catch``) when it cannot be done
    now, from the table's glossary (a legal action has its own words: :func:`label_of`)."""
    return _glossary(view, "actions").get(kind, kind)


def label_of(view: dict[str, Any] | None, action: dict[str, Any]) -> str:
    """The words of one of the view's legal actions (``Play red 7``, ``Catch Bob!``, ``Ann (you)``): the table's
    ``legal_labels`` entry beside it in ``legal``."""
    legal = (view or {}).get("legal") or []
    labels = (view or {}).get("legal_labels") or []
    for index, entry in enumerate(legal):
        if entry == action and index < len(labels):
            return str(labels[index])
    return button_word(view, str(action.get("type")))


def play_choice(view: dict[str, Any] | None, card: str, call_uno: bool) -> dict[str, Any] | None:
    """The legal play of ``card`` to send: with the UNO call when ``call_uno`` and the table offers the play with
    it (it does exactly when the card is the next-to-last: the rule is the table's), else without; ``None``
    when ``card`` cannot be played now."""
    options = [action for action in legal_of(view, "play") if action.get("card") == card]
    wanted = [action for action in options if bool(action.get("uno")) == call_uno]
    plain = [action for action in options if not action.get("uno")]
    found = wanted or plain or options
    return found[0] if found else None


_PALE: Final = {"R": "#ef5350", "Y": "#fdd835", "G": "#66bb6a", "B": "#64b5f6", None: "#ce93d8"}
"""A card that cannot be played now: its name in its colour, with no chip behind it."""


def card_markup(view: dict[str, Any] | None, text: str, *, extra: str = "", pale: bool = False) -> str:
    """A card as a coloured chip with its name (``pale``: the name in its colour only, for a card that cannot
    be played now)."""
    colour = None if text == "W" else text[:1]
    style = _PALE.get(colour, _PALE[None]) if pale else _STYLE.get(colour, _STYLE[None])
    return f"[{style}{extra}] {escape(card_name(view, text))} [/]"


def sorted_hand(hand: list[str]) -> list[str]:
    """The hand as it is shown: by colour (red, yellow, green, blue, Wilds), then number, then symbol, as the
    browser game sorts it by default. The number keys play the cards in this order."""
    return sorted(hand, key=lambda card: (_ORDER.index(card[0]), _RANK.get(card[1:], 0)))


def seat_name(view: dict[str, Any], seat: int | None) -> str:
    if seat is None:
        return "the table"
    seats = view.get("seats") or []
    info = seats[seat] if 0 <= seat < len(seats) else None
    return (info or {}).get("name") or f"Seat {seat + 1}"


def legal_of(view: dict[str, Any] | None, kind: str) -> list[dict[str, Any]]:
    if not view:
        return []
    return [action for action in view.get("legal") or [] if action.get("type") == kind]


def target_words(view: dict[str, Any]) -> str:
    """``to 500 points``, or ``one round`` when the game is a single round."""
    settings = view.get("settings") or {}
    if settings.get("single_round"):
        return "one round"
    return f"to {settings.get('target_score', 500)} points"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def players_markup(view: dict[str, Any], width: int) -> str:
    """One line per seat: whose decision it is, the number and name, the cards and points, the Crown, the
    Jester Hat, a called UNO, and a Catch when this seat can be caught now. ``width`` is the panel's."""
    game = view.get("game")
    seats = view.get("seats") or []
    catchable = {action["seat"] for action in legal_of(view, "catch")}
    called = set(view.get("uno_called") or [])
    pending = (game or {}).get("pending") or {}
    hat_waits = game is not None and pending.get("kind") == "jester" and game.get("jester") == game.get("king")
    names = [(info.get("name") or "open seat") + (" (you)" if seat == view.get("you") else "")
             for seat, info in enumerate(seats)]
    numbers_width = 16 if game else 0
    name_width = max(8, min(max((len(name) for name in names), default=8), 20, width - 5 - numbers_width - 8))
    lines = []
    for seat, info in enumerate(seats):
        name = info.get("name") or ("open seat" if info.get("kind") == "open" else f"Seat {seat + 1}")
        if seat == view.get("you"):
            name += " (you)"
        notes = []
        if info.get("autopilot"):
            notes.append("a bot plays")
        elif info.get("kind") == "human" and info.get("connected") is False and game:
            notes.append("away")
        marker = "▶" if game and pending.get("seat") == seat else " "
        badges = []
        if game and game.get("king") == seat:
            badges.append("[bold #ffd54f]♔ King[/]")
        if game and game.get("jester") == seat:
            badges.append("[bold #ce93d8]☺ Hat waits[/]" if hat_waits else "[bold #ce93d8]☺ Jester[/]")
        if seat in called:
            badges.append("[bold reverse #ff7043] UNO [/]")
        if seat in catchable:
            badges.append(f"[@click=screen.catch({seat})][bold reverse #ffee58]c catch![/][/]")
        if game:
            count = game["hand_sizes"][seat]
            cards = f"{count:>2} card " if count == 1 else f"{count:>2} cards"
            numbers = f"{cards} {game['scores'][seat]:>3} pts"
        else:
            numbers = ""
        label = _fit(name, name_width)
        note = f" [dim]({escape(', '.join(notes))})[/]" if notes else ""
        line = f"{marker} {seat + 1} [b]{escape(f'{label:<{name_width}}')}[/b] {numbers} {' '.join(badges)}{note}"
        lines.append(line.rstrip())
    return "\n".join(lines)


def table_markup(view: dict[str, Any]) -> str:
    """The top card, the active colour, the draw pile and where play goes next."""
    game = view["game"]
    letter = game.get("active_colour")
    colour = escape(colour_name(view, letter).upper()) if letter else ""
    colour_text = f"[{_STYLE[letter]}] {colour} [/]" if letter else "[i]being chosen[/]"
    direction = "left ↻" if game["direction"] == 1 else "right ↺"
    lines = [f"Top    {card_markup(view, game['top'])}",
             f"Colour {colour_text} · pile {game['draw_pile_size']}"]
    current = game.get("current")
    if current is not None:
        following = (current + game["direction"]) % len(view.get("seats") or [1])
        lines.append(f"Next   {escape(seat_name(view, following))} · {direction}")
    else:
        lines.append(f"Play goes {direction}")
    return "\n".join(lines)


def clock_markup(left: float, total: float, width: int = 10) -> str:
    """The decision's countdown: a bar and the seconds left (red in the last five)."""
    filled = round(width * min(1.0, left / total)) if total > 0 else 0
    colour = "red" if left < 5 else "green"
    return f"[{colour}]{'█' * filled}{'░' * (width - filled)}[/] {int(left + 0.999):>3} s"


def royal_markup(view: dict[str, Any]) -> str:
    """The King's choices as keys to press or click, in one line: the colours, or the seats with their cards
    (each choice in the table's words for it)."""
    game = view["game"]
    kind = game["pending"]["kind"]
    parts = []
    if kind == "colour":
        for action in legal_of(view, "colour"):
            letter = action["colour"]
            parts.append(f"[@click=screen.choose_colour('{letter}')][{_STYLE[letter]}] {letter}: "
                         f"{escape(label_of(view, action))} [/][/]")
        return "  ".join(parts)
    for action in legal_of(view, kind):
        seat = action["seat"]
        count = game["hand_sizes"][seat]
        label = f"{seat + 1}: {_fit(label_of(view, action), 20)} ({count})"
        parts.append(f"[@click=screen.choose_seat({seat})][bold reverse] {escape(label)} [/][/]")
    return " ".join(parts)


def decider_of(entry: dict[str, Any]) -> int | None:
    """The seat whose decision a log entry records (the King's for a royal choice, the catcher's for a catch)."""
    field = "from" if entry.get("kind") in ("VictimChosen", "JesterChosen", "Caught") else "seat"
    seat = entry.get(field)
    return seat if isinstance(seat, int) else None


def hand_lines(view: dict[str, Any], selected: int, width: int) -> str:
    """The hand (sorted, :func:`sorted_hand`) as clickable chips packed into lines of ``width`` cells: a chip
    never breaks. ``*`` marks a playable card and ``▸`` the selected one; on your turn the cards you cannot
    play show as their coloured names only, without a chip."""
    game = view["game"]
    if view.get("you") is None:
        return f"[dim]{WATCHING_TEXT}[/]"
    hand = sorted_hand(game.get("hand") or [])
    if not hand:
        return "[dim]No cards in hand.[/]"
    playable = {action["card"] for action in legal_of(view, "play")}
    mine = game["pending"].get("seat") == view.get("you") and game["pending"].get("kind") in ("turn", "drawn")
    lines: list[str] = []
    line: list[str] = []
    used = 0
    for index, card in enumerate(hand):
        number = str(index + 1) if index < 9 else ("0" if index == 9 else " ")
        pointer = "▸" if index == selected else " "
        mark = "*" if card in playable else " "
        pale = mine and card not in playable and index != selected
        extra = " reverse" if index == selected else ""
        face = card_markup(view, card, extra=extra, pale=pale)
        chip = f"[@click=screen.pick({index})]{pointer}{number}{mark}{face}[/]"
        cells = 3 + len(card_name(view, card)) + 2
        if line and used + 1 + cells > width:
            lines.append(" ".join(line))
            line, used = [], 0
        used += cells + (1 if line else 0)
        line.append(chip)
    lines.append(" ".join(line))
    return "\n".join(lines)


def log_tail(view: dict[str, Any], width: int, height: int) -> str:
    """The newest log lines that fit ``height`` lines of ``width`` cells, wrapped between words: the last line
    shown is always the newest event."""
    width = max(10, width)
    wrapped: list[str] = []
    for entry in (view.get("log") or [])[-max(1, height):]:
        wrapped.extend(textwrap.wrap(entry["text"], width, subsequent_indent="  ") or [""])
    return "\n".join(escape(line) for line in wrapped[-max(1, height):])


def result_key(view: dict[str, Any]) -> str | None:
    """Which round's results to show now (``None``: none), as the browser decides."""
    game = view.get("game")
    if not game:
        return None
    over = view.get("phase") == "finished" or game["pending"]["kind"] in ("round_over", "game_over")
    if not over or not game.get("last_round"):
        return None
    return f"{view.get('game_no')}/{game['last_round']['round_no']}/{view.get('phase')}"


def results_markup(view: dict[str, Any]) -> tuple[str, str]:
    """The title and body of the round results (or the final results)."""
    game = view["game"]
    result = game["last_round"]
    finished = view.get("phase") == "finished"
    outcome = game.get("outcome")
    if finished and outcome:
        winners = " and ".join(seat_name(view, seat) for seat in outcome["winners"])
        title = f"{winners} won the game!"
    else:
        title = (f"{seat_name(view, result['winner'])} wins round {result['round_no']}"
                 + (" (blocked)" if result.get("blocked") else ""))
    width = max(len(seat_name(view, seat)) for seat in range(len(view["seats"]))) + len(" (you)") + 2
    rows = [f"The round is worth {result['points']} points.", "",
            f"[b]{'Player':<{width}}{'Left in hand':>14}{'Score':>8}[/b]  ({target_words(view)})"]
    for seat in range(len(view["seats"])):
        name = seat_name(view, seat) + (" (you)" if seat == view.get("you") else "")
        rows.append(f"{escape(f'{name:<{width}}')}{result['hand_points'][seat]:>14}{game['scores'][seat]:>8}")
    if not finished:
        rows += ["", "[dim]The next round is dealt in a few seconds.[/]"]
    return title, "\n".join(rows)
