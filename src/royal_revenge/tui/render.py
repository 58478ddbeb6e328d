"""Views to Textual markup: pure functions of the view dict the table sends (no rules here).

Every card shows its code and its name in words (``R7 red 7``, ``BJ blue Jester``, ``W Wild``),
so the hand reads the same without colour; colour only adds to it.
"""

from __future__ import annotations

from typing import Any, Final

from textual.markup import escape

__all__ = [
    "COLOURS",
    "KIND_TEXT",
    "card_markup",
    "card_name",
    "centre_markup",
    "hand_markup",
    "legal_of",
    "log_lines",
    "pending_text",
    "players_markup",
    "results_markup",
    "result_key",
    "seat_name",
]

COLOURS: Final = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
_WORDS: Final = {"R": "Reverse", "S": "Skip", "K": "King's Choice", "J": "Jester"}
_STYLE: Final = {
    "R": "bold #ffffff on #b71c1c",
    "Y": "bold #000000 on #fdd835",
    "G": "bold #ffffff on #1b5e20",
    "B": "bold #ffffff on #0d47a1",
    None: "bold #ffffff on #4a148c",
}
KIND_TEXT: Final = {
    "turn": "play a card or draw",
    "drawn": "play the drawn card or keep it",
    "colour": "choose the Wild's colour",
    "victim": "choose who draws for the King's Choice",
    "jester": "choose the Jester",
    "round_over": "the round is over",
    "game_over": "the game is over",
}


def card_name(text: str) -> str:
    """``red 7``, ``blue Jester``, ``Wild``."""
    if text == "W":
        return "Wild"
    colour = COLOURS.get(text[:1], "?")
    rest = text[1:]
    return f"{colour} {_WORDS.get(rest, rest)}"


def card_markup(text: str, *, extra: str = "") -> str:
    """A card as a coloured chip with its code and name."""
    colour = None if text == "W" else text[:1]
    style = _STYLE.get(colour, _STYLE[None])
    return f"[{style}{extra}] {escape(text)} {escape(card_name(text))} [/]"


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


def players_markup(view: dict[str, Any]) -> str:
    """One line per seat: name, cards, score, Crown, Jester Hat, whose move."""
    game = view.get("game")
    lines = []
    for seat, info in enumerate(view.get("seats") or []):
        name = info.get("name") or ("open seat" if info.get("kind") == "open" else f"Seat {seat + 1}")
        marker = "  "
        if game:
            pending = game["pending"]
            if pending.get("seat") == seat:
                marker = "▶ "
        you = " (you)" if seat == view.get("you") else ""
        badges = []
        if game and game.get("king") == seat:
            badges.append("[bold #ffd54f]♔ King[/]")
        if game and game.get("jester") == seat:
            badges.append("[bold #ce93d8]☺ Jester[/]")
        notes = []
        if info.get("kind") == "bot":
            notes.append(f"bot · {info.get('level')}")
        if info.get("autopilot"):
            notes.append("bot playing")
        if info.get("kind") == "human" and info.get("connected") is False:
            notes.append("offline")
        count = game["hand_sizes"][seat] if game else "-"
        score = game["scores"][seat] if game else 0
        label = f"{marker}{seat + 1}. {name}{you}"
        note = f" [dim]({escape(', '.join(notes))})[/]" if notes else ""
        cards = "1 card" if count == 1 else f"{count} cards"
        lines.append(f"[b]{escape(label)}[/b]{note}\n     {cards} · {score} pts  {' '.join(badges)}")
    return "\n".join(lines)


def centre_markup(view: dict[str, Any]) -> str:
    game = view["game"]
    colour = COLOURS.get(game.get("active_colour") or "", None)
    colour_text = (f"[{_STYLE[game['active_colour']]}] {colour.upper()} [/]" if colour else "being chosen")
    direction = "left ↻ (to the next seat number)" if game["direction"] == 1 else "right ↺ (to the previous seat)"
    lines = [
        f"Top card: {card_markup(game['top'])}",
        f"Active colour: {colour_text}",
        f"Play goes {direction}",
        f"Draw pile: {game['draw_pile_size']} cards · round {game['round_no']} · "
        f"to {game['options']['target_score']} points",
    ]
    return "\n".join(lines)


def pending_text(view: dict[str, Any]) -> str:
    game = view["game"]
    pending = game["pending"]
    seat = pending.get("seat")
    kind = pending.get("kind", "")
    if seat is None:
        text = str(KIND_TEXT.get(kind, kind))
        text = text[:1].upper() + text[1:]
    elif seat == view.get("you"):
        text = f"Your move: {KIND_TEXT.get(kind, kind)}"
    else:
        who = f"King {seat_name(view, seat)}" if kind in ("colour", "victim", "jester") else seat_name(view, seat)
        text = f"{who} must {KIND_TEXT.get(kind, kind)}"
    if game.get("fanfare_queued"):
        text += " · the fanfare has sounded!"
    return text


def hand_markup(view: dict[str, Any], selected: int) -> str:
    """The hand as clickable chips: number, code, name; ``*`` marks a playable card, ``>`` the selected one."""
    game = view["game"]
    hand = game.get("hand") or []
    if view.get("you") is None:
        return "[dim]Spectators see no hand.[/]"
    if not hand:
        return "[dim]No cards in hand.[/]"
    playable = {action["card"] for action in legal_of(view, "play")}
    chips = []
    for index, card in enumerate(hand):
        mark = "*" if card in playable else " "
        pointer = ">" if index == selected else " "
        number = str(index + 1) if index < 9 else ("0" if index == 9 else "·")
        chip = card_markup(card, extra=" reverse" if index == selected else "")
        chips.append(f"[@click=screen.pick({index})]{pointer}{number}{mark}{chip}[/]")
    return "  ".join(chips) + "\n[dim]* playable   > selected   ←/→ choose, Enter play, 1-9 play that card[/]"


def log_lines(view: dict[str, Any], count: int = 8) -> list[str]:
    return [entry["text"] for entry in (view.get("log") or [])[-count:]]


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
            f"[b]{'Player':<{width}}{'Left in hand':>14}{'Score':>8}[/b]  (to {game['options']['target_score']})"]
    for seat in range(len(view["seats"])):
        name = seat_name(view, seat) + (" (you)" if seat == view.get("you") else "")
        rows.append(f"{escape(f'{name:<{width}}')}{result['hand_points'][seat]:>14}{game['scores'][seat]:>8}")
    if not finished:
        rows += ["", "[dim]The next round is dealt in a few seconds.[/]"]
    return title, "\n".join(rows)
