"""Versioned JSON of states and game records: round trips, replay, and clear refusals of bad documents."""

from __future__ import annotations

import copy
import doctest
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import royal_revenge.engine
from royal_revenge.engine import (
    Game,
    GameOptions,
    GameRecord,
    GameState,
    Move,
    RecordError,
    RoyalRevengeError,
    Scoring,
    state_digest,
    state_from_json,
    state_to_json,
)
from royal_revenge.engine import observation as observation_module
from royal_revenge.engine import position as position_module
from royal_revenge.engine import records as records_module
from royal_revenge.engine.records import FORMAT_VERSION, RECORD_FORMAT, STATE_FORMAT

from .randomplay import GameSpec, choose, drive, game_specs

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_game(seed: int, players: int = 3, **options: Any) -> Game:
    spec = GameSpec(GameOptions(players=players, **options), seed, "eager", 0.05, 0.5)
    game = Game.new(spec.options, spec.seed)
    for _ in drive(game.state, random.Random(seed), spec, game.apply):
        pass
    return game


@pytest.fixture(scope="module")
def finished() -> Game:
    return play_game(3, players=4, target_score=150, scepter_turns=(1, 4))


# ---------------------------------------------------------------- states


@settings(SETTINGS, max_examples=25)
@given(spec=game_specs())
def test_state_json_round_trips_and_plays_on_identically(spec: GameSpec) -> None:
    state = spec.new_state()
    rng = random.Random(spec.seed)
    for index, _move in enumerate(drive(state, rng, spec)):
        if index % 7:
            continue
        data = state_to_json(state)
        text = json.dumps(data)
        loaded = state_from_json(json.loads(text))
        assert loaded == state and state_to_json(loaded) == data and state_digest(loaded) == state_digest(state)
        assert json.dumps(state_to_json(loaded)) == text
        # A loaded state plays on exactly as the original: same choices, same draws, same generator.
        original = state.copy()
        choices = random.Random(index)
        for _ in range(10):
            if original.decision >= original.decision.ROUND_OVER:
                break
            seat = original.decider
            action = choose(choices, original.legal_actions(seat), spec.policy)
            assert original.apply(seat, action) == loaded.apply(seat, action)
            assert loaded == original


def test_state_json_document_shape() -> None:
    data = state_to_json(GameState.new(GameOptions(players=2), seed=0))
    assert data["format"] == STATE_FORMAT == "royal-revenge/state"
    assert data["version"] == FORMAT_VERSION == 1
    assert json.loads(json.dumps(data)) == data
    assert len(data["rng"]) == 16 and int(data["rng"], 16) >= 0
    assert sum(len(hand) for hand in data["hands"]) + len(data["draw_pile"]) + len(data["discard"]) == 56


def test_state_digest_tells_states_apart() -> None:
    a = GameState.new(GameOptions(players=3), seed=1)
    b = GameState.new(GameOptions(players=3), seed=2)
    assert state_digest(a) == state_digest(a.copy()) and len(state_digest(a)) == 64
    assert state_digest(a) != state_digest(b)


# ---------------------------------------------------------------- records


def test_record_round_trips_and_replays(finished: Game) -> None:
    record = finished.record()
    assert finished.state.is_over() and record.final_digest == state_digest(finished.state)
    data = record.to_json()
    assert data["format"] == RECORD_FORMAT and data["version"] == FORMAT_VERSION
    assert json.loads(record.dumps()) == data
    for again in (GameRecord.from_json(data), GameRecord.loads(record.dumps()), GameRecord.loads(json.dumps(data))):
        assert again == record and again.to_json() == data and again.dumps() == record.dumps()
        assert again.replay() == finished.state
    resumed = Game.from_record(record)
    assert resumed.state == finished.state and resumed.record() == record


def test_replay_reports_every_move(finished: Game) -> None:
    seen: list[tuple[int, Move]] = []
    finished.record().replay(on_move=lambda index, move, events: seen.append((index, move)))
    assert [move for _, move in seen] == finished.record().moves
    assert [index for index, _ in seen] == list(range(len(seen)))


def test_a_resumed_game_goes_on_recording() -> None:
    game = Game.new(GameOptions(players=3, scepter_turns=None), seed=8)
    rng = random.Random(8)
    for _ in range(30):
        game.apply(game.state.decider, rng.choice(game.state.legal_actions(game.state.decider)))
    resumed = Game.from_record(GameRecord.loads(game.record().dumps()))
    for _ in range(30):
        seat = game.state.decider
        action = rng.choice(game.state.legal_actions(seat))
        game.apply(seat, action)
        resumed.apply(seat, action)
    assert resumed.state == game.state and resumed.record() == game.record()
    assert resumed.record().replay() == game.state


def test_record_with_ages_and_first_king() -> None:
    for kwargs in ({"ages": [30, None, 12]}, {"first_king": 2}, {"ages": [None, None, None]}):
        game = Game.new(GameOptions(players=3), seed=4, **kwargs)
        game.apply(game.state.decider, game.state.legal_actions(game.state.decider)[0])
        record = GameRecord.loads(game.record().dumps())
        assert record.replay() == game.state
    assert Game.new(GameOptions(players=3), seed=4, ages=[30, None, 12]).state.king == 2


def test_a_record_with_a_negative_seed() -> None:
    game = Game.new(GameOptions(players=2), seed=-5)
    game.apply(game.state.decider, game.state.legal_actions(game.state.decider)[0])
    assert GameRecord.loads(game.record().dumps()).replay() == game.state


def test_the_doc_examples() -> None:
    for module in (records_module, observation_module, position_module, royal_revenge.engine):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__
    # The module's example, spelled out.
    game = Game.new(GameOptions(players=2), seed=1)
    game.apply(game.state.decider, game.state.legal_actions(game.state.decider)[0])
    assert GameRecord.from_json(game.record().to_json()).replay() == game.state


# ---------------------------------------------------------------- refusals: records


def refuse_record(data: object, *words: str) -> str:
    with pytest.raises(RecordError) as info:
        GameRecord.from_json(data).replay()
    message = str(info.value)
    for word in words:
        assert word in message, message
    return message


def refuse_state(data: object, *words: str) -> str:
    with pytest.raises(RecordError) as info:
        state_from_json(data)
    message = str(info.value)
    for word in words:
        assert word in message, message
    return message


@pytest.fixture(scope="module")
def record_json(finished: Game) -> dict[str, Any]:
    return finished.record().to_json()


@pytest.fixture(scope="module")
def state_json(finished: Game) -> dict[str, Any]:
    # A finished single round in which seat 0 still holds cards (the tests below edit its first card).
    seed = 5
    while not (game := play_game(seed, players=3, target_score=500, single_round=True)).state.hands[0]:
        seed += 1
    return state_to_json(game.state)


def edited(data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    out.update(changes)
    return out


def test_record_of_another_format(record_json: dict[str, Any], state_json: dict[str, Any]) -> None:
    refuse_record(edited(record_json, format="royal-revenge/state"), "not a royal-revenge/record document")
    refuse_record(edited(record_json, format="chess/pgn"), "not a royal-revenge/record", "chess/pgn")
    refuse_record({k: v for k, v in record_json.items() if k != "format"}, "not a royal-revenge/record", "None")
    refuse_record(state_json, "not a royal-revenge/record", "royal-revenge/state")
    refuse_state(record_json, "not a royal-revenge/state", "royal-revenge/record")


@pytest.mark.parametrize("version", [2, 0, "1", None, 1.5, True, 1.0, [1]], ids=repr)
def test_record_of_another_version(record_json: dict[str, Any], state_json: dict[str, Any], version: Any) -> None:
    message = refuse_record(edited(record_json, version=version), "version", "not supported")
    assert repr(version) in message
    refuse_state(edited(state_json, version=version), "version", "not supported")


def test_version_2_is_refused_clearly(record_json: dict[str, Any]) -> None:
    message = refuse_record(edited(record_json, version=2))
    assert message == "royal-revenge/record version 2 is not supported (this program reads version 1)"


@pytest.mark.parametrize("key", ["options", "seed", "ages", "first_king", "moves", "final_state_sha256"])
def test_record_missing_a_field(record_json: dict[str, Any], key: str) -> None:
    data = {k: v for k, v in record_json.items() if k != key}
    refuse_record(data, f"no field {key!r}")


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("options", None, ("options",)),
        ("options", {"players": 9}, ("options", "players")),
        ("options", {"wombats": 1}, ("unknown options", "wombats")),
        ("options", {"players": "3"}, ("players",)),
        ("options", {"scoring": "golf"}, ("scoring",)),
        ("options", {"scoring": []}, ("scoring",)),
        ("options", {"scepter_turns": [5, 1]}, ("scepter_turns",)),
        ("options", {"scepter_turns": "9-15"}, ("scepter_turns",)),
        ("seed", "7", ("seed",)),
        ("seed", -1, ("seed",)),
        ("seed", 2**64, ("seed",)),
        ("seed", 1.0, ("seed",)),
        ("seed", True, ("seed",)),
        ("ages", "young", ("ages",)),
        ("ages", [1, 2], ("ages",)),
        ("ages", ["ten", 3, 4, 5], ("age",)),
        ("first_king", 4, ("first_king",)),
        ("first_king", "0", ("first_king",)),
        ("moves", "0:R7", ("moves",)),
        ("moves", None, ("moves",)),
        ("moves", [3], ("move 1",)),
        ("moves", ["0:R9"], ("move 1", "not a card")),
        ("moves", ["fanfare", "banana"], ("move 2", "banana")),
        ("final_state_sha256", 5, ("final_state_sha256",)),
    ],
)
def test_record_with_a_wrong_field(record_json: dict[str, Any], key: str, value: Any, words: tuple[str, ...]) -> None:
    data = copy.deepcopy(record_json)
    if key == "options" and isinstance(value, dict):
        data["options"].update(value)
    else:
        data[key] = value
    refuse_record(data, *words)


def test_record_with_an_illegal_move(record_json: dict[str, Any]) -> None:
    moves = list(record_json["moves"])
    # The first move is the King's Jester choice: make it the King choosing themselves.
    first = Move.parse(moves[0])
    assert first.seat is not None
    moves[0] = f"{first.seat}:jester {first.seat}"
    refuse_record(edited(record_json, moves=moves), "move 1", "refused", "R-SETUP-5")
    # A later move by the wrong seat.
    index = next(i for i, text in enumerate(record_json["moves"]) if text.split(":")[-1] == "draw")
    seat = Move.parse(record_json["moves"][index]).seat
    assert seat is not None
    wrong = list(record_json["moves"])
    wrong[index] = f"{(seat + 1) % 4}:draw"
    refuse_record(edited(record_json, moves=wrong), f"move {index + 1}", "refused", "R-DIGITAL-1")
    # A move after the end of the game.
    refuse_record(edited(record_json, moves=[*record_json["moves"], "deal"]), "refused", "R-SCORE-3")


def test_record_with_a_tampered_digest(record_json: dict[str, Any], finished: Game) -> None:
    digest = record_json["final_state_sha256"]
    tampered = ("0" if digest[0] != "0" else "1") + digest[1:]
    refuse_record(edited(record_json, final_state_sha256=tampered), "does not reach the recorded final state")
    # Without the check (or without a digest), the replay goes through.
    assert GameRecord.from_json(edited(record_json, final_state_sha256=tampered)).replay(verify=False) == finished.state
    assert GameRecord.from_json(edited(record_json, final_state_sha256=None)).replay() == finished.state
    # A truncated move list reaches another state.
    refuse_record(edited(record_json, moves=record_json["moves"][:-1]), "does not reach the recorded final state")


@pytest.mark.parametrize("text", ["", "{", "[1,", "not json", '{"format": }', "\x00", "NaN garbage", "{'a': 1}"])
def test_invalid_json_text(text: str) -> None:
    with pytest.raises(RecordError) as info:
        GameRecord.loads(text)
    assert "not valid JSON" in str(info.value)


@pytest.mark.parametrize("text", ["null", "[]", "3", '"record"'])
def test_json_text_that_is_not_an_object(text: str) -> None:
    with pytest.raises(RecordError) as info:
        GameRecord.loads(text)
    assert "must be a JSON object" in str(info.value)


# ---------------------------------------------------------------- refusals: states


STATE_KEYS = [
    "options", "hands", "draw_pile", "discard", "active_colour", "direction", "king", "jester", "dealer", "current",
    "decision", "decider", "drawn", "resolving", "jester_for_setup", "uno_seat", "fanfare_queued",
    "scepter_running", "scepter_left", "turns_since_scepter", "passes", "scores", "round_no", "last_round",
    "outcome", "history", "rng",
]


def test_state_keys_are_all_listed(state_json: dict[str, Any]) -> None:
    assert set(state_json) == {"format", "version", *STATE_KEYS}


@pytest.mark.parametrize("key", STATE_KEYS)
def test_state_missing_a_field(state_json: dict[str, Any], key: str) -> None:
    refuse_state({k: v for k, v in state_json.items() if k != key}, f"no field {key!r}")


def test_state_cards_that_do_not_make_the_deck(state_json: dict[str, Any]) -> None:
    deck_words = ("56 cards",)
    short = copy.deepcopy(state_json)
    short["draw_pile"] = short["draw_pile"][1:] if short["draw_pile"] else short["draw_pile"]
    if short["draw_pile"] == state_json["draw_pile"]:
        short["discard"] = short["discard"][1:]
    refuse_state(short, *deck_words)
    extra = copy.deepcopy(state_json)
    extra["draw_pile"].append("R7")
    refuse_state(extra, *deck_words)
    swapped = copy.deepcopy(state_json)  # 56 cards, but two of one face and none of another
    every = [card for hand in swapped["hands"] for card in hand] + swapped["draw_pile"] + swapped["discard"]
    missing = "R7" if every.count("R7") else "R8"
    where = next(hand for hand in [*swapped["hands"], swapped["draw_pile"], swapped["discard"]] if missing in hand)
    where[where.index(missing)] = "G3"
    refuse_state(swapped, *deck_words)
    empty_discard = copy.deepcopy(state_json)
    empty_discard["draw_pile"] += empty_discard["discard"]
    empty_discard["discard"] = []
    refuse_state(empty_discard, "discard")


@pytest.mark.parametrize("bad", ["R9", "X1", "", 7, None, ["R1"], "W!"], ids=repr)
def test_state_with_a_bad_card(state_json: dict[str, Any], bad: Any) -> None:
    data = copy.deepcopy(state_json)
    data["hands"][0][0] = bad
    message = refuse_state(data, "hands[0]")
    assert "card" in message
    data = copy.deepcopy(state_json)
    data["discard"][-1] = bad
    refuse_state(data, "discard")


BAD_VALUES: list[Any] = [None, True, False, 1.0, 1.5, "x", "1", [], {}, [0], -1, 2, 10**30]


@pytest.mark.parametrize("key", STATE_KEYS)
def test_state_with_wrong_types_fails_cleanly(state_json: dict[str, Any], key: str) -> None:
    """Every field, every wrong value: a RecordError, or a state that is whole and usable."""
    for value in BAD_VALUES:
        data = edited(state_json, **{key: value})
        try:
            state = state_from_json(data)
        except RecordError as error:
            assert str(error)
            continue
        assert state_from_json(state_to_json(state)) == state
        for seat in (None, *range(state.players)):
            state.legal_actions(seat)
            state.observe(seat).to_json()


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("direction", 1.0, ("direction",)),
        ("direction", 0, ("direction",)),
        ("decision", [], ("decision",)),
        ("decision", "TURN", ("decision",)),
        ("active_colour", 0, ("active_colour",)),
        ("active_colour", "purple", ("active_colour",)),
        ("king", 3, ("king",)),
        ("passes", 8, ("passes",)),
        ("scores", [0, 0], ("scores",)),
        ("scores", [0, 0, -5], ("scores",)),
        ("rng", "xyz", ("rng",)),
        ("rng", 5, ("rng",)),
        ("rng", "-000000000000001", ("rng",)),
        ("rng", "0x00000000000001", ("rng",)),
        ("rng", "12345678901234567", ("rng",)),
        ("options", {"players": 4}, ("hands",)),
        ("last_round", {"round_no": 1}, ("last_round",)),
        ("outcome", {"winners": [], "scores": [0, 0, 0]}, ("outcome",)),
    ],
)
def test_state_with_a_wrong_field(state_json: dict[str, Any], key: str, value: Any, words: tuple[str, ...]) -> None:
    data = copy.deepcopy(state_json)
    if key == "options":
        data["options"].update(value)
    else:
        data[key] = value
    refuse_state(data, *words)


def test_states_the_rules_never_reach(state_json: dict[str, Any]) -> None:
    game = Game.new(GameOptions(players=3, scoring=Scoring.LOWEST_TALLY), seed=6)
    state = game.state
    state.apply(state.decider, state.legal_actions(state.decider)[0])
    while state.decision.name not in ("TURN",):
        state.apply(state.decider, state.legal_actions(state.decider)[0])
    data = state_to_json(state)
    refuse_state(edited(data, decider=None), "decider")
    refuse_state(edited(data, drawn=data["hands"][data["decider"]][0]), "drawn")
    refuse_state(edited(data, decision="drawn", drawn=None), "drawn")
    refuse_state(edited(data, decision="game_over", decider=None), "outcome")
    refuse_state(edited(data, jester=None), "Jester")
    not_king = (data["king"] + 1) % 3
    refuse_state(edited(data, decision="colour", decider=not_king), "King")


def test_every_error_is_a_value_error() -> None:
    assert issubclass(RecordError, RoyalRevengeError) and issubclass(RecordError, ValueError)


@pytest.mark.parametrize(
    "options",
    [
        GameOptions(),
        GameOptions(players=6, target_score=200, scoring=Scoring.LOWEST_TALLY, single_round=True),
        GameOptions(players=2, two_player_reverse_skips=True, scepter_turns=None),
    ],
)
def test_options_json_names_every_field_and_round_trips(options: GameOptions) -> None:
    data = options.to_json()
    assert set(data) == set(GameOptions.__dataclass_fields__)
    assert GameOptions.from_json(json.loads(json.dumps(data))) == options
