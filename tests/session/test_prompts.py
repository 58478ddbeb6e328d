"""Who must decide what, in the table's words (``prompt``, ``hint``), and every refusal a player can get in plain
words: scenarios in card notation (``engine.position``), the narration's and a live table's."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

import pytest

from royal_revenge.bots import RandomAgent
from royal_revenge.engine import (
    CALL_UNO,
    DRAW,
    KEEP,
    AnyAction,
    Card,
    Catch,
    ChooseColour,
    ChooseJester,
    ChooseVictim,
    Colour,
    Decision,
    GameOptions,
    GameState,
    Play,
)
from royal_revenge.engine.position import position
from royal_revenge.narration import card_words, describe_hint, describe_pending, explain_refusal
from royal_revenge.session import Phase, SeatKind, Table, TableError, TableSettings

NAMES = ["Ann", "Bob", "Cy"]
name: Callable[[int], str] = NAMES.__getitem__
ANN, BOB, CY = 0, 1, 2


def _prompt(state: GameState, seat: int | None) -> str:
    return describe_pending(state.observe(seat), name)


def _hint(state: GameState, seat: int | None) -> str | None:
    return describe_hint(state.observe(seat), name)


def _refusal(state: GameState, seat: int, action: AnyAction) -> str:
    assert action not in state.legal_actions(seat)  # (the engine refuses it: only the words are tested here)
    return explain_refusal(state.observe(seat), action, state.legal_actions(seat), name)


def play(text: str, uno: bool = False) -> Play:
    return Play(Card.parse(text), uno)


def _turn(**changes: Any) -> GameState:
    """Bob's turn on a red 7, Cy is King, Ann the Jester."""
    return position(**{"hands": ["R1 G3", "R3 R4 Y4", "B2 B5"], "discard": "R2 R7", "draw": "Y5 G8", "king": CY,
                       "jester": ANN, "current": BOB, **changes})


def _colour() -> GameState:
    """Bob played a Wild: King Cy chooses the colour."""
    return position(hands=["R1 G3", "R3 R4", "B2 B5"], discard="R2 W", king=CY, jester=ANN, current=BOB,
                    decision=Decision.COLOUR, decider=CY, resolving=BOB)


def _victim() -> GameState:
    """Ann played a King's Choice: King Cy chooses who draws."""
    return position(hands=["R1 G3", "R3 R4", "B2 B5"], discard="R2 RK", king=CY, jester=ANN, current=ANN,
                    decision=Decision.VICTIM, decider=CY, resolving=ANN)


def _new_round_jester() -> GameState:
    """A new round: the Crown passed to Cy, who wore last round's Jester Hat and keeps it until choosing (D-12)."""
    return position(hands=["R1 G3", "R3 R4", "B2 B5"], discard="R2", king=CY, jester=CY, round_no=2,
                    decision=Decision.JESTER, decider=CY)


def _drawn(card: str = "R5") -> GameState:
    """Bob drew ``card`` on a red 7 and decides whether to play it."""
    return position(hands=["R1 G3", f"R3 R4 {card}", "B2 B5"], discard="R2 R7", draw="G8", king=CY, jester=ANN,
                    current=BOB, decision=Decision.DRAWN, decider=BOB, drawn=card)


def _ended(single_round: bool) -> GameState:
    state = position(hands=["R1", "R3 R4", "B2 B5"], discard="R2", king=CY, jester=BOB,
                     options=GameOptions(players=3, single_round=single_round, scepter_turns=None))
    state.apply(ANN, play("R1"))
    return state


# ---------------------------------------------------------------- prompts


def test_the_prompt_says_whose_turn_it_is() -> None:
    state = _turn()
    assert _prompt(state, BOB) == "Your turn: play a card or draw"
    assert _prompt(state, ANN) == _prompt(state, None) == "Bob's turn"


def test_the_prompt_names_the_card_just_drawn_only_to_its_drawer() -> None:
    state = _drawn()
    assert _prompt(state, BOB) == "Play the red 5 you drew, or keep it"
    assert _prompt(state, ANN) == _prompt(state, None) == "Bob may play the card they drew, or keep it"
    unplayable = _drawn("Y5")  # (the digital game keeps a drawn card that does not match: it is offered no play)
    assert _prompt(unplayable, BOB) == "You drew the yellow 5: it does not match, so keep it"


@pytest.mark.parametrize(("scenario", "what"), [
    (_colour, "the colour"), (_victim, "who draws one card"), (_new_round_jester, "who wears the Jester Hat"),
], ids=["colour", "victim", "jester"])
def test_the_prompt_says_what_the_king_chooses(scenario: Callable[[], GameState], what: str) -> None:
    state = scenario()
    assert _prompt(state, CY) == f"You are the King: choose {what}"
    assert _prompt(state, ANN) == _prompt(state, BOB) == _prompt(state, None) == f"King Cy is choosing {what}"


def test_the_prompt_at_the_end_of_a_round_and_of_the_game() -> None:
    state = _ended(single_round=False)
    assert state.pending.kind is Decision.ROUND_OVER
    assert _prompt(state, ANN) == "Round over: you win the round; the next round is dealt soon"
    assert _prompt(state, BOB) == _prompt(state, None) == "Round over: Ann wins the round; the next round is dealt soon"
    state = _ended(single_round=True)
    assert state.pending.kind is Decision.GAME_OVER
    assert _prompt(state, ANN) == "Game over: you won the game!"
    assert _prompt(state, CY) == _prompt(state, None) == "Game over: Ann won the game"


# ---------------------------------------------------------------- hints


def test_the_hint_teaches_the_kings_choice_to_the_king_only() -> None:
    state = _victim()
    assert _hint(state, CY) == "Anyone can be chosen: even you, or whoever played the King's Choice"
    assert _hint(state, ANN) is None and _hint(state, None) is None


def test_the_hint_says_the_king_not_the_player_of_the_wild_chooses_the_colour() -> None:
    state = _colour()
    assert _hint(state, CY) == "The King, not the player of the Wild, chooses the colour"
    assert _hint(state, BOB) is None


def test_the_hint_explains_a_king_still_wearing_last_rounds_jester_hat() -> None:
    state = _new_round_jester()
    assert (_hint(state, ANN) == _hint(state, None)
            == "King Cy still wears the Jester Hat until choosing who wears it")
    assert _hint(state, CY) == "You still wear the Jester Hat until you choose who wears it"


def test_the_hint_reminds_a_player_holding_one_card_without_a_call() -> None:
    state = _turn(hands=["R1 G3", "R3 R4 Y4", "B5"], uno_seat=CY, current=ANN)
    assert _hint(state, CY) == "Call UNO before the next player starts, or you can be caught"
    assert _hint(state, ANN) == _hint(state, BOB) == "Cy did not call UNO: catch them before the next player starts"
    assert _hint(state, None) is None
    state.apply(CY, CALL_UNO)
    assert _hint(state, CY) is None and _hint(state, ANN) is None


def test_no_hint_on_an_ordinary_turn() -> None:
    state = _turn()
    assert [_hint(state, seat) for seat in (ANN, BOB, CY, None)] == [None] * 4


# ---------------------------------------------------------------- refusals, as the narration words them


REFUSALS: list[tuple[str, Callable[[], GameState], int, AnyAction, str]] = [
    ("out of turn", _turn, ANN, play("R1"), "It's Bob's turn"),
    ("draw out of turn", _turn, CY, DRAW, "It's Bob's turn"),
    ("a card not held", _turn, BOB, play("G3"), "You don't hold that card"),
    ("a card that does not match", _turn, BOB, play("Y4"), "Yellow 4 doesn't match the red 7 on the pile"),
    ("a card that does not match a Wild's colour", lambda: _turn(discard="R2 W", active_colour="R"), BOB,
     play("Y4"), "Yellow 4 doesn't match the Wild on the pile (the colour is red)"),
    ("UNO with a card that is not the next-to-last", _turn, BOB, play("R3", uno=True),
     "UNO is called with your next-to-last card; you would still hold 2 cards"),
    ("keep without drawing", _turn, BOB, KEEP, "You keep a card only after drawing one: play a card or draw"),
    ("a King's choice on a turn", _turn, BOB, ChooseColour(Colour.RED), "It's your turn: play a card or draw"),
    ("another card after drawing", _drawn, BOB, play("R3"), "You already drew: play the card you drew or keep it"),
    ("a second draw", _drawn, BOB, DRAW, "You already drew: play the card you drew or keep it"),
    ("the drawn card that does not match", lambda: _drawn("Y5"), BOB, play("Y5"),
     "The yellow 5 you drew doesn't match the red 7 on the pile: keep it"),
    ("while another decides about a drawn card", _drawn, ANN, play("R1"),
     "It's Bob's turn: they are deciding about the card they drew"),
    ("a play while the King chooses the colour", _colour, BOB, play("R3"), "King Cy is choosing the colour"),
    ("the colour by someone not King", _colour, BOB, ChooseColour(Colour.RED), "King Cy is choosing the colour"),
    ("the King plays before choosing", _colour, CY, play("B2"), "You are the King: choose the colour first"),
    ("the King chooses the wrong thing", _colour, CY, ChooseVictim(ANN), "You are the King: choose the colour"),
    ("a victim by someone not King", _victim, ANN, ChooseVictim(BOB), "King Cy is choosing who draws one card"),
    ("a Jester by someone not King", _new_round_jester, BOB, ChooseJester(ANN),
     "King Cy is choosing who wears the Jester Hat"),
    ("the King as their own Jester", _new_round_jester, CY, ChooseJester(CY),
     "You cannot be your own Jester: choose another player"),
    ("UNO with two cards", _turn, ANN, CALL_UNO,
     "You hold 2 cards: UNO is called when you play your next-to-last card"),
    ("UNO already called", lambda: _turn(hands=["R1 G3", "R3 R4 Y4", "B5"]), CY, CALL_UNO,
     "You have no UNO to call now: you called it already, or the next player has started"),
    ("catching oneself", lambda: _turn(hands=["R1 G3", "R3 R4 Y4", "B5"], uno_seat=CY), CY, Catch(CY),
     "You cannot catch yourself"),
    ("catching a full hand", _turn, ANN, Catch(BOB), "Bob holds 3 cards, not one: there is no UNO to catch"),
    ("catching a called UNO", lambda: _turn(hands=["R1 G3", "R3 R4 Y4", "B5"]), ANN, Catch(CY),
     "Cy cannot be caught now: they called UNO, or the next player has started"),
    ("after the round", lambda: _ended(single_round=False), BOB, play("R3"),
     "The round is over; the next round is dealt soon"),
    ("after the game", lambda: _ended(single_round=True), BOB, DRAW, "The game is over"),
]


@pytest.mark.parametrize(("scenario", "seat", "action", "words"), [case[1:] for case in REFUSALS],
                         ids=[case[0] for case in REFUSALS])
def test_a_refused_action_is_explained_in_plain_words(scenario: Callable[[], GameState], seat: int,
                                                      action: AnyAction, words: str) -> None:
    assert _refusal(scenario(), seat, action) == words


# ---------------------------------------------------------------- at a live table


def _table(players: int = 3, **settings: Any) -> Table:
    return Table.open(TableSettings(players=players, **settings), seed=11,
                      agent_factory=lambda level, seed: RandomAgent(seed))


def _seated(players: int = 3, **settings: Any) -> tuple[Table, list[str]]:
    """Ann, Bob and Cy seated (and open seats beyond them)."""
    table = _table(players, **settings)
    tokens = [table.join(NAMES[seat], None, 0.0)[1] for seat in range(3)]
    return table, tokens


def _decide(table: Table, tokens: list[str], now: float, prefer: Callable[[AnyAction], int]) -> None:
    """The deciding person's most preferred legal action (the table's own act, as a player's would be)."""
    assert table.game is not None
    seat = table.game.state.decider
    if seat is None:
        table.tick(table.next_deadline() or now)
        return
    table.act(tokens[seat], max(table.legal_actions(seat), key=prefer), now)


def _calls_uno(action: AnyAction) -> int:
    return 2 if isinstance(action, Play) and action.uno else 1 if isinstance(action, Play) else 0


def test_a_view_carries_the_prompt_and_hint_of_its_own_seat() -> None:
    table, tokens = _seated()
    table.start(tokens[0], 0.0)
    assert table.game is not None
    king = table.game.state.king
    views = {seat: table.view(seat) for seat in (0, 1, 2, None)}
    assert views[king]["prompt"] == "You are the King: choose who wears the Jester Hat"
    for seat in {0, 1, 2, None} - {king}:
        assert views[seat]["prompt"] == f"King {NAMES[king]} is choosing who wears the Jester Hat"
    assert all(view["hint"] is None or isinstance(view["hint"], str) for view in views.values())
    assert views[None]["uno_called"] == [] and views[None]["next_round_deadline"] is None
    lobby = _table().view(None)
    assert lobby["prompt"] is None and lobby["hint"] is None


def test_uno_called_lists_the_seats_that_called_and_survives_a_restore() -> None:
    table, tokens = _seated()
    table.start(tokens[0], 0.0)
    now = 0.0
    while not table.uno_called():
        now += 1.0
        _decide(table, tokens, now, _calls_uno)
        assert table.phase is Phase.PLAYING
    called = table.uno_called()
    assert table.game is not None
    assert [len(table.game.state.hands[seat]) for seat in called] == [1] * len(called)
    assert table.view(None)["uno_called"] == called
    restored = Table.from_json(table.to_json(), list(table.moves), now)
    assert restored.view(None)["uno_called"] == called
    # Once the seat holds more than one card (it drew), it is off the list, even with one card again later.
    seat = called[0]
    while table.phase is Phase.PLAYING and len(table.game.state.hands[seat]) == 1:
        now += 1.0
        _decide(table, tokens, now, lambda action: 1 if action == DRAW else 0)
    if table.phase is Phase.PLAYING:
        assert seat not in table.uno_called()


def test_next_round_deadline_is_when_the_pause_between_rounds_ends() -> None:
    table, tokens = _seated(next_round_seconds=12.0)
    table.start(tokens[0], 0.0)
    assert table.game is not None
    now = 0.0
    while table.game.state.decision is not Decision.ROUND_OVER:
        now += 1.0
        _decide(table, tokens, now, _calls_uno)
        assert table.view(None)["next_round_deadline"] is None or table.game.state.decision is Decision.ROUND_OVER
    view = table.view(1)
    assert view["next_round_deadline"] == now + 12.0
    assert view["prompt"].startswith("Round over: ")
    table.tick(now + 12.0)
    assert table.view(None)["next_round_deadline"] is None


def test_a_play_sent_twice_is_refused_in_plain_words_the_second_time() -> None:
    table, tokens = _seated()
    table.start(tokens[0], 0.0)
    assert table.game is not None
    now = 0.0
    while table.game.state.decision is not Decision.TURN:
        now += 1.0
        _decide(table, tokens, now, _calls_uno)
    state = table.game.state
    seat = state.decider
    assert seat is not None
    plays = [action for action in table.legal_actions(seat) if isinstance(action, Play) and not action.uno]
    while not plays:  # (draw until a card can be played)
        now += 1.0
        _decide(table, tokens, now, lambda action: 1 if action == DRAW else 0)
        seat = state.decider
        assert seat is not None
        plays = [action for action in table.legal_actions(seat)
                 if isinstance(action, Play) and not action.uno and state.decision is Decision.TURN]
    table.act(tokens[seat], plays[0].to_json(), now, client_id="c-1")
    version = table.version
    with pytest.raises(TableError) as refused:
        table.act(tokens[seat], plays[0].to_json(), now, client_id="c-2")  # a double click: a new id
    assert refused.value.code == "illegal"
    message = str(refused.value)
    assert table.version == version
    assert message in {f"It's {NAMES[state.decider]}'s turn" if state.decider is not None else "",
                       "You don't hold that card", f"King {NAMES[state.king]} is choosing the colour",
                       f"King {NAMES[state.king]} is choosing who draws one card",
                       f"King {NAMES[state.king]} is choosing who wears the Jester Hat"}, message
    _assert_plain(message)


# ---------------------------------------------------------------- every refusal a player can get


_LEAKS: Final = (
    (re.compile(r"\b[RD]-[A-Z0-9]"), "a rule id"),
    (re.compile(r"\b[Ss]eat \d|\bplayer \d|\bseat[s]? \d"), "a seat number"),
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "a field name"),
    (re.compile(r"\b(?:[RGBY][1-8RSKJ]|W)\b"), "a card code"),
    (re.compile(r"String should|Input should|Traceback|\{|\}|'[a-z_]+'"), "a developer's words"),
)


def _assert_plain(message: str) -> None:
    for pattern, what in _LEAKS:
        assert not pattern.search(message), f"{what} in {message!r}"
    assert message[:1].isupper(), message


def _refusals_of_a_table() -> list[tuple[str, str]]:
    """Every refusal a table gives people (code, message), each made to happen here."""
    found: list[tuple[str, str]] = []

    def refused(operation: Callable[[], object]) -> None:
        with pytest.raises(TableError) as error:
            operation()
        found.append((error.value.code, str(error.value)))

    # Settings.
    for bad in ({"players": 7}, {"players": 1}, {"target_score": 0}, {"scoring": "odd"}, {"single_round": 1},
                {"turn_seconds": 1}, {"scepter_min_seconds": 4}, {"scepter_max_seconds": 4000},
                {"scepter_min_seconds": 80, "scepter_max_seconds": 40}, {"bot_delay_seconds": -1},
                {"next_round_seconds": 601}, {"grace_seconds": -1}, {"max_timeouts": 0}, {"nonsense": 1}):
        refused(lambda bad=bad: TableSettings.from_json(bad))  # type: ignore[misc]
    refused(lambda: TableSettings.from_json([]))
    # Names and ages.
    table, tokens = _seated(players=4)
    for bad_name in ("", "  ", "x" * 25, "Bo\u200bb", "\u202eboB", "\u0301", "Easy bot 4", "ann"):
        refused(lambda bad_name=bad_name: table.join(bad_name, None, 0.0))  # type: ignore[misc]
    refused(lambda: table.join("Dee", -1, 0.0))
    # Host commands in the lobby.
    refused(lambda: table.start(tokens[1], 0.0))  # not the host
    refused(lambda: table.add_bot(tokens[1], "easy", 0.0))
    refused(lambda: table.start(tokens[0], 0.0))  # a seat is open
    refused(lambda: table.add_bot(tokens[0], "genius", 0.0))
    refused(lambda: table.remove(tokens[0], 0, 0.0))  # the host themselves
    refused(lambda: table.remove(tokens[0], 3, 0.0))  # an open seat
    refused(lambda: table.remove(tokens[0], 9, 0.0))  # no such seat
    refused(lambda: table.rematch(tokens[0], 0.0))
    refused(lambda: table.act(tokens[1], DRAW, 0.0))  # no game yet
    table.add_bot(tokens[0], "easy", 0.0)
    refused(lambda: table.join("Dee", None, 0.0))  # full
    table.start(tokens[0], 0.0)
    refused(lambda: table.start(tokens[0], 0.0))
    refused(lambda: table.add_bot(tokens[0], "easy", 0.0))
    refused(lambda: table.join("Dee", None, 0.0))  # the game has started
    refused(lambda: table.rematch(tokens[0], 0.0))
    table.set_connected(1, True, 0.0)
    refused(lambda: table.remove(tokens[0], 1, 0.0))  # still playing
    # Actions: whatever each person may not do now.
    assert table.game is not None
    state = table.game.state
    for seat in range(3):
        legal = table.legal_actions(seat)
        candidates: list[AnyAction] = [DRAW, KEEP, CALL_UNO, Catch(seat), Catch((seat + 1) % 4),
                                       ChooseColour(Colour.RED), ChooseVictim(seat), ChooseJester(seat),
                                       *(Play(card, uno) for card in state.hands[seat] for uno in (False, True)),
                                       Play(Card.parse("W"))]
        for action in candidates:
            if action not in legal:
                refused(lambda seat=seat, action=action: table.act(tokens[seat], action, 0.0))  # type: ignore[misc]
    return found


def test_every_refusal_a_player_can_get_is_in_plain_words() -> None:
    found = _refusals_of_a_table()
    codes = {code for code, _ in found}
    assert {"bad_settings", "bad_request", "not_host", "seats_open", "wrong_phase", "still_playing", "illegal",
            "table_full", "name_taken"} <= codes
    for _code, message in found:
        _assert_plain(message)
    messages = {message for _, message in found}
    assert "Please enter your name" in messages
    assert "The longest time before the fanfare must be at least the shortest" in messages
    assert "Only the host, Ann, can do that" in messages
    assert "Fill every seat with a player or a bot first" in messages


def test_a_refusal_at_a_live_table_uses_the_narrations_words() -> None:
    table, tokens = _seated()
    table.start(tokens[0], 0.0)
    assert table.game is not None
    king = table.game.state.king
    other = (king + 1) % 3
    with pytest.raises(TableError) as refused:
        table.act(tokens[other], DRAW, 0.0)
    assert (refused.value.code, str(refused.value)) == (
        "illegal", f"King {NAMES[king]} is choosing who wears the Jester Hat")
    assert table.seats[other].kind is SeatKind.HUMAN


def test_log_entries_name_the_seats_they_happen_to() -> None:
    """Each log entry about a seat carries it (``seat``, ``from``, a draw's ``count``), as the event has it, for
    everyone: a client animates the move from these, never from the sentence."""
    from royal_revenge.session.log import _LOG_SEATS

    table = Table.open(TableSettings(players=3, single_round=True), seed=11,
                       agent_factory=lambda level, seed: RandomAgent(seed))
    ann = table.join("Ann", None, 0.0)[1]
    for level in ("easy", "easy"):
        table.add_bot(ann, level, 0.0)
    table.start(ann, 0.0)
    now = 0.0
    while table.phase is Phase.PLAYING:
        deadline = table.next_deadline()
        assert deadline is not None
        now = deadline
        table.tick(now)
    by_name = {kind.__name__: fields for kind, fields in _LOG_SEATS.items()}
    seen: dict[str, int] = {}
    for viewer in (None, 0, 1):
        for entry in table.log_view(viewer):
            fields = by_name.get(entry["kind"])
            if fields is None:
                assert "seat" not in entry
                continue
            seen[entry["kind"]] = seen.get(entry["kind"], 0) + 1
            assert isinstance(entry["seat"], int) and 0 <= entry["seat"] < 3
            assert ("from" in entry) == (fields[1] is not None)
            assert ("count" in entry) == (entry["kind"] == "Drew")
            if entry["kind"] == "Played":
                assert table.seats[entry["seat"]].name in entry["text"]
                assert card_words(Card.parse(entry["card"])) in entry["text"]
    assert {"Played", "Drew"} <= set(seen)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_tables_prompts_for_every_seat_are_the_narrations_for_that_seat(players: int) -> None:
    """The table works each sentence out once for the seats that read the same (all but the decider, the seat
    that may call UNO late, and everyone at the end of a round): each must still be that seat's own."""
    table = Table.open(TableSettings(players=players, single_round=True, bot_delay_seconds=0.5, turn_seconds=3.0,
                                     scepter_min_seconds=5, scepter_max_seconds=8), code="LOCAL", seed=players)
    now = 1000.0
    _, token = table.join("Ann", 7, now)
    for _ in range(players - 1):
        table.add_bot(token, "easy", now)
    table.start(token, now)
    checked = 0
    for _ in range(3000):
        assert table.game is not None
        state = table.game.state
        for seat in [*range(players), None]:
            observation = state.observe(seat)
            want = (describe_pending(observation, table._name), describe_hint(observation, table._name))
            assert table.prompt_view(seat) == want, (seat, want)
            checked += 1
        if table.phase is not Phase.PLAYING:
            break
        now += 0.5  # (one bot move at a time; Ann times out too, and the table decides for her)
        table.tick(now)
    assert checked > 200
