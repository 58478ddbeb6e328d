"""No frame shows a seat a card it may not see (R-DIGITAL-2), checked against the true hidden hands.

Many complete games with people (scripted, random) and bots; every frame every client receives is
compared with the table's real state at the moment that frame was made, taken from the server's
own Hub in this process.
"""

from __future__ import annotations

import asyncio
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest

from royal_revenge.engine import ALL_CARDS, Card, Decision
from royal_revenge.narration import GLOSSARY, card_words
from royal_revenge.session import Phase, Table

from .conftest import CARD_RE, Client, Driver, Server, open_game, running_server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(170)]

CARD_WORDS = re.compile("|".join(sorted({re.escape(card_words(card)) for card in ALL_CARDS}, key=len, reverse=True)))
QUOTED_CARD = re.compile(r'"((?:[RYGB][1-8RSKJ])|W)"')
"""A JSON string that is exactly a card's notation (log lines are sentences, never exactly a card)."""
GLOSSARY_JSON = '"glossary":' + msgspec.json.encode(GLOSSARY).decode()
"""The words of every card by its notation, the same in every connection's first frame: it names every card and
shows none (checked to be exactly the narration's, then left out of the search for cards)."""
HIDDEN_DRAW = r" draws (?:a card|no card|\d+ cards)(?: for the \+1| as the UNO penalty)?"


@dataclass(frozen=True)
class Truth:
    """The real state when a view was made."""

    hands: tuple[tuple[str, ...], ...]
    discard: tuple[str, ...]
    drawn: str | None
    decider: int | None
    names: tuple[str, ...]


def instrument(server: Server) -> dict[tuple[str, int], Truth]:
    """Record the true state of the table each time the hub makes a view for a connection."""
    truths: dict[tuple[str, int], Truth] = {}

    def record(table: Table, subscriber: Any) -> None:
        if table.game is not None and (table.code, table.version) not in truths:
            state = table.game.state
            truths[(table.code, table.version)] = Truth(
                tuple(tuple(str(card) for card in hand) for hand in state.hands),
                tuple(str(card) for card in state.discard),
                str(state.drawn) if state.decision is Decision.DRAWN and state.drawn is not None else None,
                state.decider,
                tuple(seat.name for seat in table.seats),
            )

    server.hub.view_listeners.append(record)
    return truths


def cards_in(value: Any, skip_log: bool = True) -> list[str]:
    """Every string in a JSON value that is a card's notation (log lines are checked on their own)."""
    found: list[str] = []
    if isinstance(value, str):
        if CARD_RE.match(value):
            found.append(value)
    elif isinstance(value, list):
        for item in value:
            found += cards_in(item, skip_log)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not (skip_log and key == "log"):
                found += cards_in(item, skip_log)
    return found


def check_frames(client: Client, code: str, truths: dict[tuple[str, int], Truth]) -> int:
    """Check every frame this client received; returns how many state frames were checked."""
    checked = 0
    assert len(client.raw) == len(client.frames)
    for raw, frame in zip(client.raw, client.frames, strict=True):
        if frame["type"] == "state" and "glossary" in frame["view"]:
            assert frame["view"]["glossary"] == GLOSSARY
            raw = raw.replace(GLOSSARY_JSON, "", 1)
        shown = QUOTED_CARD.findall(raw)
        if frame["type"] != "state":
            assert not shown, frame
            continue
        view = frame["view"]
        truth = truths.get((code, frame["version"]))
        if "game" not in view:
            assert not shown, view
            continue
        assert truth is not None, frame["version"]
        seat = view["you"]
        game = view["game"]
        assert game["discard_pile"] == list(truth.discard)
        assert game["hand_sizes"] == [len(hand) for hand in truth.hands]
        if seat is None:
            assert game["hand"] == [] and view["legal"] == [] and game["drawn"] is None
            allowed = set(truth.discard)
        else:
            assert sorted(game["hand"]) == sorted(truth.hands[seat])
            allowed = set(truth.hands[seat]) | set(truth.discard)
            if truth.decider == seat and truth.drawn is not None:
                assert game["drawn"] == truth.drawn
                allowed.add(truth.drawn)
            else:
                assert game["drawn"] is None
        # A played card is public for good: its log entry names it (``card``) as its sentence does.
        played = {entry["card"] for entry in view["log"] if entry["kind"] == "Played"}
        assert set(shown) <= allowed | played, (seat, set(shown) - allowed - played, truth.hands)
        for entry in view["log"]:
            text = entry["text"]
            if entry["kind"] == "Played":
                assert card_words(Card.parse(entry["card"])) in text, entry
            else:
                assert "card" not in entry, entry
            if entry["kind"] != "Drew":
                continue
            drawer = max((i for i, name in enumerate(truth.names) if text.startswith(f"{name} draws")),
                         key=lambda i: len(truth.names[i]))
            if drawer != seat:
                assert re.fullmatch(re.escape(truth.names[drawer]) + HIDDEN_DRAW, text), (seat, text)
                assert not CARD_WORDS.search(text[len(truth.names[drawer]):]), (seat, text)
        checked += 1
    return checked


async def spectator_http_check(server: Server, code: str) -> None:
    async with server.http() as http:
        view = (await http.get(f"/api/tables/{code}")).json()
    if "game" in view:
        assert view["you"] is None and view["game"]["hand"] == [] and view["legal"] == []
        assert set(cards_in(view)) <= set(view["game"]["discard_pile"])


async def play_games(tmp_path: Path, index: int, games: int) -> tuple[int, int, int]:
    """One server, ``games`` complete games of 3-4 seats; returns (games, frames checked, actions by people)."""
    rng = random.Random(1000 + index)
    frames = actions = 0
    async with running_server(tmp_path / f"leaks{index}.db") as server:
        truths = instrument(server)
        for game_no in range(games):
            players = rng.choice([3, 4])
            humans = rng.randint(1, players - 1)
            bots = [rng.choice(["easy", "normal", "hard"]) for _ in range(players - humans)]
            settings: dict[str, Any] = {"scepter_min_seconds": 5, "scepter_max_seconds": 20}
            if game_no % 4 == 3:  # now and then a game of several rounds
                settings |= {"single_round": False, "target_score": 60, "next_round_seconds": 3}
            code, clients, _, observers = await open_game(
                server, humans=humans, bots=bots, settings=settings, spectators=1,
                ages=[rng.choice([None, 8, 30]) for _ in range(humans)])

            async def sometimes_look(table: Table, code: str = code) -> None:
                if rng.random() < 0.05:
                    await spectator_http_check(server, code)

            driver = Driver(server, code, clients, rng, observers=observers, think=0.3, think_seconds=15.0,
                            on_step=sometimes_look)
            table = await driver.run()
            assert table.phase is Phase.FINISHED
            actions += driver.actions
            for client in [*clients.values(), *observers]:
                frames += check_frames(client, code, truths)
                await client.close()
    return games, frames, actions


async def test_no_frame_leaks_a_hidden_card_over_many_games(tmp_path: Path) -> None:
    results = await asyncio.gather(*(play_games(tmp_path, index, 8) for index in range(4)))
    games = sum(result[0] for result in results)
    frames = sum(result[1] for result in results)
    actions = sum(result[2] for result in results)
    assert games >= 32 and frames > 1000 and actions > 300, (games, frames, actions)
