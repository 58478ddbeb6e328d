"""The words of the cards, the colours and every legal action come from narration, once, for both front ends.

Random games are played to the end; at every position each seat's legal actions must each have a label a person
reads (a card's words, a player's name, never a 0-based seat, a rule id or an internal name), and a live table's
view and state frames must carry them beside ``legal``, with the glossary sent once per connection.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, Final

from royal_revenge.client.base import merge_state
from royal_revenge.engine import (
    ALL_CARDS,
    AnyAction,
    CallUno,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Colour,
    Decision,
    Draw,
    GameOptions,
    GameState,
    Keep,
    Play,
)
from royal_revenge.engine.actions import FANFARE, NEXT_ROUND
from royal_revenge.narration import GLOSSARY, action_label, action_labels, card_words
from royal_revenge.server.frames import Frames, Sent
from royal_revenge.session import Table, TableSettings

NAMES: Final = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"]
NOT_FOR_PEOPLE: Final = re.compile(r"\b[RD]-[A-Z]+|_|\bseat\b|\bNone\b|[0-9]\b(?<![1-8])|\{|\}", re.IGNORECASE)
"""What a person must never read in a label: a rule id, an internal name, a seat number, a placeholder."""


def _positions(games: int) -> Any:
    """Every (state, seat) of ``games`` random games, 2 to 6 players, with the out-of-turn calls and catches."""
    rng = random.Random(20)
    for game in range(games):
        state = GameState.new(GameOptions(players=2 + game % 5, target_score=60), seed=rng.getrandbits(63))
        for _ in range(3000):
            if state.is_over():
                break
            yield state
            if state.decision is Decision.ROUND_OVER:
                state.step(None, NEXT_ROUND)
                continue
            if FANFARE in state.legal_actions(None) and rng.random() < 0.05:
                state.step(None, FANFARE)
                continue
            outside = [seat for seat in state.out_of_turn() if rng.random() < 0.5]
            if outside:
                seat = outside[0]
            else:
                assert state.decider is not None
                seat = state.decider
            legal = state.legal_actions(seat)
            if legal:
                state.step(seat, rng.choice(legal))


def _expected_words(action: AnyAction, viewer: int) -> str:
    """What a label must name: the card, the colour, the player (``you`` too)."""
    if isinstance(action, Play):
        return card_words(action.card)
    if isinstance(action, ChooseColour):
        return action.colour.name.lower()
    if isinstance(action, (ChooseVictim, ChooseJester, Catch)):
        return NAMES[action.seat] + (" (you)" if action.seat == viewer and not isinstance(action, Catch) else "")
    return ""


def test_every_legal_action_of_many_random_positions_has_its_own_label_in_plain_words() -> None:
    seen: set[type] = set()
    positions = 0
    for state in _positions(40):
        positions += 1
        for seat in range(state.players):
            legal = state.legal_actions(seat)
            labels = action_labels(legal, seat, NAMES.__getitem__)
            assert len(labels) == len(legal)
            # Two buttons never read alike: a person can tell every choice from the others by its words.
            assert len(set(labels)) == len(labels), (legal, labels)
            for action, label in zip(legal, labels, strict=True):
                seen.add(type(action))
                assert label and label == label.strip(), (action, label)
                assert not NOT_FOR_PEOPLE.search(label), (action, label)
                assert _expected_words(action, seat) in label, (action, label)
                if isinstance(action, Play):
                    assert ("call UNO" in label) is action.uno, label
    assert positions > 10_000
    assert seen >= {Play, Draw, Keep, ChooseColour, ChooseVictim, ChooseJester, CallUno, Catch}, seen


def test_the_glossary_words_every_card_colour_and_button() -> None:
    assert GLOSSARY["cards"] == {str(card): card_words(card) for card in ALL_CARDS}
    assert GLOSSARY["cards"]["R7"] == "red 7" and GLOSSARY["cards"]["BK"] == "blue King's Choice"
    assert GLOSSARY["cards"]["W"] == "Wild" and GLOSSARY["cards"]["GJ"] == "green Jester"
    assert GLOSSARY["colours"] == {colour.letter: colour.name.lower() for colour in Colour}
    assert set(GLOSSARY["actions"]) == {"play", "draw", "keep", "uno", "catch"}
    # A legal action reads as the glossary's button for it, or says more (the card, the player).
    name = NAMES.__getitem__
    assert action_label(Draw(), 0, name) == GLOSSARY["actions"]["draw"]
    assert action_label(Keep(), 0, name) == GLOSSARY["actions"]["keep"]
    assert action_label(CallUno(), 0, name) == GLOSSARY["actions"]["uno"]
    assert action_label(Catch(1), 0, name).startswith(GLOSSARY["actions"]["catch"])
    assert len(json.dumps(GLOSSARY, separators=(",", ":"))) < 1200, "sent once per connection: it stays small"


def _started_table() -> tuple[Table, list[str]]:
    """A table of three people (every seat's token), its game dealt."""
    table = Table.open(TableSettings(players=3), code="WORDS00001", seed=5)
    tokens = [table.join(name, None, 0.0)[1] for name in NAMES[:3]]
    table.start(tokens[0], 0.0)
    return table, tokens


def test_a_view_carries_each_legal_actions_label_beside_it_and_the_glossary() -> None:
    table, _ = _started_table()
    for seat in (0, 1, 2, None):
        view = table.view(seat)
        assert view["glossary"] == GLOSSARY
        assert view["legal_labels"] == action_labels(table.legal_actions(seat), seat, NAMES.__getitem__)
        assert len(view["legal_labels"]) == len(view["legal"])


def test_state_frames_send_the_glossary_once_per_connection_and_labels_with_legal() -> None:
    table, tokens = _started_table()
    assert table.game is not None
    decider = table.game.state.decider
    assert decider is not None
    sent = Sent()
    frames = Frames(table, 0.0)
    first = json.loads(frames.full(decider, table.own_game_view(decider), table.legal_actions(decider), None, sent))
    view = first["view"]
    assert view["glossary"] == GLOSSARY
    assert view["legal_labels"] == table.legal_labels(decider) and len(view["legal_labels"]) == len(view["legal"])
    # A later whole view (a new game, a new seat) leaves the glossary out: the client keeps the one it has.
    again = json.loads(frames.full(decider, table.own_game_view(decider), table.legal_actions(decider), None, sent))
    assert "glossary" not in again["view"]
    kept = merge_state(merge_state(None, first), again)
    assert kept["glossary"] == GLOSSARY and kept["legal_labels"] == view["legal_labels"]
    # The decider moves: its next partial frame says its legal actions changed, with their labels.
    table.act(tokens[decider], table.legal_actions(decider)[0], 1.0)
    partial = json.loads(Frames(table, 1.0).partial(decider, frames.shared, frames.log_after,
                                                    table.own_game_view(decider), table.legal_actions(decider),
                                                    None, sent))
    assert "glossary" not in partial["view"]
    assert partial["view"]["legal_labels"] == table.legal_labels(decider)
    assert len(partial["view"]["legal_labels"]) == len(partial["view"]["legal"])
    merged = merge_state(kept, partial)
    assert merged["glossary"] == GLOSSARY and len(merged["legal_labels"]) == len(merged["legal"])
