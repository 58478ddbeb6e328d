"""The action space and the observation encoding (royal_revenge.rl.encoding)."""

from __future__ import annotations

import copy
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from royal_revenge.engine import ALL_CARDS, Action, Colour, Decision, GameOptions, GameState, Observation, Scoring
from royal_revenge.engine.actions import CATCHES, COLOURS, JESTERS, MAX_SEATS, PLAYS, PLAYS_UNO, VICTIMS
from royal_revenge.rl import raw_env
from royal_revenge.rl.encoding import (
    CALL_UNO_ACTION,
    CATCH,
    DRAW_ACTION,
    JESTER,
    KEEP_ACTION,
    NUM_ACTIONS,
    OBS_SIZE,
    PARTS,
    PASS,
    PLAY_UNO,
    VICTIM,
    Layout,
    PublicEncoder,
    Role,
    action_to_int,
    describe_action,
    encode_observation,
    int_to_action,
    legal_indices,
    observation_high,
    player_actions,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def all_player_actions(players: int) -> list[object]:
    from royal_revenge.engine import CALL_UNO, DRAW, KEEP

    return [
        *PLAYS,
        *PLAYS_UNO,
        DRAW,
        KEEP,
        *COLOURS,
        *VICTIMS[:players],
        *JESTERS[:players],
        CALL_UNO,
        *CATCHES[:players],
    ]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_action_round_trips_for_every_seat(players: int) -> None:
    for seat in range(players):
        seen: set[int] = set()
        for action in all_player_actions(players):
            index = action_to_int(action, seat, players)  # type: ignore[arg-type]
            assert 0 <= index < NUM_ACTIONS
            assert int_to_action(index, seat, players) == action
            # a value-equal copy (not the engine's shared instance) maps the same way
            assert action_to_int(Action.parse(str(action)), seat, players) == index
            seen.add(index)
        # one index per action, and the unused indices are exactly the missing seats' slots and PASS
        assert len(seen) == 2 * 49 + 2 + 4 + 3 * players + 1
        missing = set(range(NUM_ACTIONS)) - seen
        assert PASS in missing
        for index in missing - {PASS}:
            with pytest.raises(ValueError, match="missing"):
                int_to_action(index, seat, players)
        assert int_to_action(PASS, seat, players) is None
        assert action_to_int(None, seat, players) == PASS


def test_layout_of_the_action_space() -> None:
    assert NUM_ACTIONS == 124
    r7 = ALL_CARDS[7 - 1]
    assert action_to_int(PLAYS[r7], 0, 4) == 6
    assert action_to_int(PLAYS_UNO[r7], 0, 4) == PLAY_UNO + 6 == 55
    assert describe_action(55) == "play R7!"
    assert action_to_int(Action.parse("draw"), 3, 4) == DRAW_ACTION == 98
    assert action_to_int(Action.parse("keep"), 3, 4) == KEEP_ACTION == 99
    assert action_to_int(COLOURS[Colour.BLUE], 2, 5) == 103
    assert action_to_int(Action.parse("uno"), 1, 3) == CALL_UNO_ACTION == 116
    # seats are relative to the actor: +1 is the left-hand neighbour
    assert action_to_int(Action.parse("victim 2"), 2, 3) == VICTIM + 0
    assert action_to_int(Action.parse("jester 0"), 2, 3) == JESTER + 1
    assert action_to_int(Action.parse("catch 1"), 2, 3) == CATCH + 2
    assert int_to_action(CATCH + 2, 2, 3) == Action.parse("catch 1")
    with pytest.raises(ValueError, match="outside"):
        int_to_action(NUM_ACTIONS, 0, 2)
    with pytest.raises(ValueError, match="table action"):
        action_to_int(Action.parse("deal"), 0, 2)


def _random_states(players: int, games: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    out = []
    for game in range(games):
        state = GameState.new(GameOptions(players=players, target_score=150), seed=seed + game)
        for _ in range(400):
            if state.is_over():
                break
            if state.decision is Decision.ROUND_OVER:
                state.step(None, Action.parse("deal"))
                continue
            seat = state.decider
            assert seat is not None
            state.step(seat, rng.choice(state.legal_actions(seat)))
            out.append(state.copy())
    return out


@pytest.mark.parametrize("players", [2, 4, 6])
def test_fast_encoder_equals_the_observation_encoding(players: int) -> None:
    encoder = PublicEncoder()
    for state in _random_states(players, 3, 100 * players):
        for seat in range(players):
            role = Role.TURN if seat == state.decider else Role.NONE
            fast = encoder.encode(state, seat, role)
            slow = encode_observation(Observation.of(state, seat), role)
            assert fast.dtype == slow.dtype == np.float32
            assert np.array_equal(fast, slow), (state, seat)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_the_encoding_depends_on_public_information_only(players: int) -> None:
    """Dealing the hidden cards differently (other hands, draw pile, scepter, generator) changes nothing."""
    rng = random.Random(players)
    checked = 0
    for state in _random_states(players, 2, 7 * players)[::5]:
        for seat in range(players):
            view = Observation.of(state, seat)
            other = view.sample_state(rng)
            assert other.hands[seat] == state.hands[seat]
            for role in (Role.NONE, Role.CHANCE):
                a = PublicEncoder().encode(state, seat, role)
                b = PublicEncoder().encode(other, seat, role)
                assert np.array_equal(a, b)
                assert np.array_equal(encode_observation(view, role), encode_observation(other.observe(seat), role))
            if seat == state.decider:
                assert state.legal_actions(seat) == other.legal_actions(seat)
            checked += 1
    assert checked > 50


def test_the_encoding_of_a_known_position() -> None:
    game = GameState.new(GameOptions(players=3), seed=7, first_king=2)
    vector = encode_observation(game.observe(2))
    hand = game.hands[2]
    assert vector.shape == (OBS_SIZE,)
    assert vector[Layout.HAND : Layout.HAND + 49].sum() == len(hand)
    for card in hand:
        assert vector[Layout.HAND + card] >= 1
    assert vector[Layout.TOP + game.top] == 1
    assert list(vector[Layout.SEATS : Layout.SEATS + 6]) == [1, 1, 1, 0, 0, 0]
    assert list(vector[Layout.HAND_SIZES : Layout.HAND_SIZES + 6]) == [7, 7, 7, 0, 0, 0]
    assert vector[Layout.KING + 0] == 1  # the observer (seat 2) is King: relative seat 0
    assert vector[Layout.ROLE + Role.JESTER] == 1
    assert vector[Layout.PENDING + Decision.JESTER] == 1
    assert vector[Layout.PLAYERS + 1] == 1  # three players
    assert vector[Layout.DIRECTION] == 1
    assert vector[Layout.DRAW_PILE] == 56 - 21 - 1
    # seen from seat 0, the King (seat 2) is two places to the left
    assert encode_observation(game.observe(0))[Layout.KING + 2] == 1
    assert encode_observation(game.observe(0))[Layout.ROLE + Role.NONE] == 1
    assert np.all(vector <= observation_high(500))


def test_aec_observations_stay_inside_the_space_over_long_games() -> None:
    env = raw_env(players=5, episode="game", options=GameOptions(players=5, target_score=200))
    env.reset(seed=3)
    rng = random.Random(3)
    space = env.observation_space("player_0")
    for _ in range(3000):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        assert space.contains(obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize(
    ("players", "scoring", "target"), [(2, "standard", 120), (4, "lowest-tally", 400), (6, "standard", 400)]
)
def test_the_incremental_encoder_follows_one_live_game(players: int, scoring: str, target: int) -> None:
    """One encoder and one live state, as in the environments: each seat is encoded only now and then
    (many steps, reshuffles, new rounds and score changes in between), and every encoding equals a fresh
    ``Observation``'s. Arrays handed out earlier are never changed afterwards."""
    options = GameOptions(players=players, target_score=target, scoring=Scoring(scoring))
    state = GameState.new(options, seed=players)
    encoder = PublicEncoder()
    rng = random.Random(players)
    handed_out: list[tuple[np.ndarray, np.ndarray]] = []
    rounds = reshuffles = 0
    for _ in range(6000):
        if state.is_over():
            break
        if state.decision is Decision.ROUND_OVER:
            state.step(None, Action.parse("deal"))
            rounds += 1
            continue
        seat = state.decider
        assert seat is not None
        legal = state.legal_actions(seat)
        for observer in range(players):
            if observer == seat or rng.random() < 0.15:
                role = Role.TURN if observer == seat else Role.NONE
                indices = [action_to_int(action, observer, players) for action in legal] if observer == seat else []
                vector, mask = encoder.encode_with_mask(state, observer, role, indices)
                assert np.array_equal(vector, encode_observation(Observation.of(state, observer), role))
                assert sorted(np.flatnonzero(mask)) == sorted(indices)
                if rng.random() < 0.01:
                    handed_out.append((vector, vector.copy()))
        pile = len(state.draw_pile)
        state.step(seat, rng.choice(legal))
        reshuffles += len(state.draw_pile) > pile
    assert rounds >= 1 and reshuffles >= 1
    assert all(np.array_equal(kept, copy) for kept, copy in handed_out)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_legal_indices_map_shared_and_other_instances(players: int) -> None:
    """The environments' fast mapping (engine instances found by address) agrees with action_to_int,
    for the engine's shared instances and for value-equal copies (which take the fallback)."""
    actions = all_player_actions(players)
    copies = [copy.copy(action) for action in actions]
    assert all(other is not action and other == action for other, action in zip(copies, actions, strict=True))
    for seat in range(players):
        expected = [action_to_int(action, seat, players) for action in actions]  # type: ignore[arg-type]
        assert legal_indices(actions, seat, players) == expected  # type: ignore[arg-type]
        assert legal_indices(copies, seat, players) == expected  # type: ignore[arg-type]
        if players < MAX_SEATS:  # a shared instance naming a seat this table lacks: refused, as by action_to_int
            with pytest.raises(ValueError, match="no seat"):
                legal_indices([VICTIMS[MAX_SEATS - 1]], seat, players)


# The mapping as one process sees it: every player action at every table size and seat, and its index.
_MAPPING_SCRIPT = """
import json
from royal_revenge.rl.encoding import action_to_int, player_actions
print(json.dumps({
    f"{players}/{seat}/{action}": action_to_int(action, seat, players)
    for players in range(2, 7) for seat in range(players) for action in player_actions(players)
}))
"""


def _mapping_in_a_fresh_process(hash_seed: str) -> dict[str, int]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", _MAPPING_SCRIPT], env=env, check=True, capture_output=True, text=True)
    mapping: dict[str, int] = json.loads(out.stdout)
    return mapping


def test_the_action_mapping_is_a_bijection_and_the_same_in_every_process() -> None:
    """Every action the engine can produce has its own index, ``int_to_action`` gives it back, and the
    mapping does not depend on the process (object addresses, hash seeds): two fresh interpreters agree
    with each other and with this one."""
    produced: dict[int, set[object]] = {players: set() for players in range(2, MAX_SEATS + 1)}
    for players in range(2, MAX_SEATS + 1):
        for state in _random_states(players, 2, 31 * players):
            for seat in range(players):
                produced[players].update(state.legal_actions(seat))
    for players in range(2, MAX_SEATS + 1):
        actions = player_actions(players)
        assert produced[players] <= set(actions), "the engine produced an action outside player_actions"
        for seat in range(players):
            indices = [action_to_int(action, seat, players) for action in actions]
            assert len(set(indices)) == len(actions)  # one to one
            assert [int_to_action(index, seat, players) for index in indices] == list(actions)  # and back
            assert set(indices) == set(range(NUM_ACTIONS)) - {PASS} - {
                base + rel for base in (VICTIM, JESTER, CATCH) for rel in range(players, MAX_SEATS)
            }  # onto every index but PASS and the missing seats' slots
    here = {
        f"{players}/{seat}/{action}": action_to_int(action, seat, players)
        for players in range(2, MAX_SEATS + 1)
        for seat in range(players)
        for action in player_actions(players)
    }
    first, second = _mapping_in_a_fresh_process("1"), _mapping_in_a_fresh_process("2")
    assert first == second == here


def _documented_layout() -> list[tuple[int, int]]:
    """The (offset, size) rows of docs/rl.md's observation table."""
    text = DOCS.read_text(encoding="utf-8")
    table = text[text.index("| offset | size | field | values |") :]
    rows = []
    for line in table.splitlines()[2:]:
        match = re.match(r"\| (\d+) \| (\d+) \|", line)
        if match is None:
            break
        rows.append((int(match.group(1)), int(match.group(2))))
    return rows


def test_the_parts_cover_the_documented_layout_exactly_once() -> None:
    starts = [part.start for part in PARTS]
    # one after the other, from 0 to the end, each part where docs/rl.md says it is
    assert starts[0] == 0
    assert all(part.size > 0 for part in PARTS)
    assert [part.start + part.size for part in PARTS] == [*starts[1:], OBS_SIZE]
    assert [(part.start, part.size) for part in PARTS] == _documented_layout()
    # every offset of Layout starts exactly one part
    offsets = [value for name, value in vars(Layout).items() if name.isupper() and name not in ("SIZE", "TURNS_CAP")]
    assert sorted(offsets) == starts
    # and each part writes inside itself only (alone, on a zero vector), and together they are the encoding
    for state in _random_states(3, 4, 5)[::4]:
        for seat in range(state.players):
            observation = Observation.of(state, seat)
            for role in (Role.NONE, Role.TURN, Role.CHANCE):
                together = np.zeros(OBS_SIZE, dtype=np.float32)
                for part in PARTS:
                    values = np.zeros(OBS_SIZE, dtype=np.float32)
                    part.fill(values, part.start, observation, role)
                    outside = np.delete(values, range(part.start, part.start + part.size))
                    assert not outside.any(), f"the part at {part.start} writes outside itself"
                    together += values
                assert np.array_equal(together, encode_observation(observation, role))
