"""The OpenSpiel game (royal_revenge.rl.openspiel): OpenSpiel's own checks, its ISMCTS bot, and the adapter's seams."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

from royal_revenge.bots.registry import make_agent
from royal_revenge.engine import Card, Decision
from royal_revenge.rl import raw_env
from royal_revenge.rl.core import IllegalRLActionError, round_rewards
from royal_revenge.rl.encoding import NUM_ACTIONS, OBS_SIZE, PASS, encode_observation, legal_action_ints
from royal_revenge.rl.openspiel import (
    GAME_NAME,
    INFO_STATE_SIZE,
    AgentBot,
    RandomRolloutEvaluator,
    RoyalRevengeState,
    agent_action,
)


def load(players: int, **params: Any) -> Any:
    return pyspiel.load_game(GAME_NAME, {"players": players, **params})


def dealt(game: Any) -> RoyalRevengeState:
    state: RoyalRevengeState = game.new_initial_state()
    state.apply_action(0)
    return state


def random_play(state: Any, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if state.is_terminal():
            return
        state.apply_action(rng.choice(state.legal_actions()))


# ---------------------------------------------------------------------------- the game type and OpenSpiel's own test


def test_game_type_and_sizes() -> None:
    game = load(4)
    kind = game.get_type()
    assert kind.short_name == GAME_NAME
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.REWARDS
    assert (kind.min_num_players, kind.max_num_players) == (2, 6)
    assert game.num_players() == 4
    assert game.num_distinct_actions() == NUM_ACTIONS == 124
    assert game.max_chance_outcomes() == 1
    assert game.observation_tensor_size() == OBS_SIZE == 292
    assert game.information_state_tensor_size() == INFO_STATE_SIZE == 292 + 6 * 49
    assert game.utility_sum() == 0.0
    assert game.max_game_length() == 10_000
    assert load(2, episode="game").max_game_length() == 100_000
    assert (load(4, reward="win").min_utility(), load(4, reward="win").max_utility()) == (-3.0, 1.0)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_openspiel_random_sim_test(players: int) -> None:
    # OpenSpiel's own checks, at every state of random games: legal actions sorted, unique action strings, masks,
    # clones equal, rewards summing to the returns, returns zero-sum and within the utility bounds, both tensors of
    # the declared sizes and finite and both strings for every player (terminal states included), the game length.
    # (serialize=True needs the game's generator state, which a Python game cannot give OpenSpiel: see docs/rl.md.)
    pyspiel.random_sim_test(load(players, rng_seed=players), num_sims=3, serialize=False, verbose=False)


def test_openspiel_random_sim_test_whole_games_and_win_rewards() -> None:
    # Whole-game episodes pay every round's points as it ends (rewards), and "win" pays once at the end.
    pyspiel.random_sim_test(load(3, episode="game", target_score=60), num_sims=2, serialize=False, verbose=False)
    pyspiel.random_sim_test(load(3, reward="win", scepter=False), num_sims=2, serialize=False, verbose=False)
    pyspiel.random_sim_test(load(2, max_steps=50), num_sims=2, serialize=False, verbose=False)  # truncated


# ---------------------------------------------------------------------------- the same game as the other environments


@pytest.mark.parametrize("players", [2, 4, 6])
def test_same_episode_as_the_pettingzoo_environment(players: int) -> None:
    """Dealt with the same seed and given the same actions, the OpenSpiel game *is* ``raw_env``'s episode."""
    game = load(players, rng_seed=11)
    state = dealt(game)
    env = raw_env(players=players)
    env.reset(seed=random.Random(11).getrandbits(63))  # (the game's first deal: DEFAULT_PARAMETERS, rng_seed)
    rng = random.Random(players)
    returns = np.zeros(players)
    while not state.is_terminal():
        player = state.current_player()
        assert env.agent_selection == f"player_{player}"
        legal = state.legal_actions()
        for seat in range(players):
            observation = env.observe(f"player_{seat}")
            assert np.array_equal(state.observation_tensor(seat), observation["observation"])
            info = np.asarray(state.information_state_tensor(seat))
            assert np.array_equal(info[:OBS_SIZE], observation["observation"])
        assert legal == np.flatnonzero(env.observe(f"player_{player}")["action_mask"]).tolist()
        action = rng.choice(legal)
        state.apply_action(action)
        env.step(action)
        returns += [env.rewards[agent] for agent in env.possible_agents]
        assert state.rewards() == [env.rewards[agent] for agent in env.possible_agents]
    assert all(env.terminations.values())
    assert state.returns() == returns.tolist()
    assert state.returns() == round_rewards(state.table.state)


def test_tensors_and_legal_actions_come_from_the_engine() -> None:
    """The observation tensor is the reference encoding of the engine's ``Observation``; legality is the engine's."""
    state = dealt(load(4, rng_seed=3))
    rng = random.Random(3)
    chances = 0
    while not state.is_terminal():
        table = state.table
        player = state.current_player()
        chances += table.chance
        assert state.legal_actions() == sorted(
            legal_action_ints(table.state.legal_actions(player), player, 4, chance=table.chance)
        )
        for seat in range(4):
            reference = encode_observation(table.state.observe(seat), table.role(seat))
            assert np.array_equal(state.observation_tensor(seat), reference)
        state.apply_action(rng.choice(state.legal_actions()))
    assert chances > 0  # (the optional UNO chances were offered, with PASS)


def test_information_state_played_faces_and_history() -> None:
    state = dealt(load(3, rng_seed=5))
    rng = random.Random(5)
    random_play(state, rng, 60)
    for seat in range(3):
        played = np.asarray(state.information_state_tensor(seat))[OBS_SIZE:].reshape(6, 49)
        assert played[3:].sum() == 0  # (no seats +3 to +5 at three players)
        text = state.information_state_string(seat)
        assert text.startswith(state.observation_string(seat))
        assert f"seat {seat} of 3" in text and "your hand:" in text
        # Each relative seat's plays this round, as the public lines of the history say (engine notation).
        expected = np.zeros((6, 49))
        for k in range(3):
            other = (seat + k) % 3
            moves = [line.split(": ")[1] for line in text.splitlines() if line.startswith(f"seat {other}: ")]
            for move in moves:
                if move not in ("draw", "keep", "pass", "uno") and " " not in move:
                    expected[k, Card.parse(move.rstrip("!"))] += 1
        assert np.array_equal(played, expected) and expected.sum() > 0

    # Two seats' histories differ only by their private lines (their own hand, the cards they received).
    def public(seat: int) -> list[str]:
        history = state.information_state_string(seat).split("\nhistory:\n")[1].splitlines()
        return [line for line in history if not line.startswith(("your hand:", "you receive"))]

    assert public(0) == public(1) == public(2)
    assert any(line.startswith("you receive") for line in state.information_state_string(0).splitlines())


# ---------------------------------------------------------------------------- copies, serialization, deals, errors


def test_resample_from_infostate_keeps_what_the_player_knows() -> None:
    game = load(4, rng_seed=8)
    state = dealt(game)
    rng = random.Random(8)
    differed = samples = 0
    for _ in range(12):
        random_play(state, rng, 15)
        if state.is_terminal():
            break
        player = state.current_player()
        before = str(state)
        sample = state.resample_from_infostate(player, rng.random)
        assert str(state) == before  # (the original is untouched)
        assert sample.current_player() == player
        assert sample.legal_actions() == state.legal_actions()
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.information_state_tensor(player) == state.information_state_tensor(player)
        assert sample.observation_string(player) == state.observation_string(player)
        assert sample.observation_tensor(player) == state.observation_tensor(player)
        assert sample.table.state.is_valid(), sample.table.state.problems()
        samples += 1
        differed += sample.table.state.hands != state.table.state.hands
        random_play(sample, rng, 10_000)  # the sampled world plays on to the end
        assert sample.is_terminal() and abs(sum(sample.returns())) < 1e-9
    assert samples >= 6 and differed > 0


def test_clone_and_serialize() -> None:
    game = load(3, episode="game", target_score=100)
    state = dealt(game)
    rng = random.Random(1)
    random_play(state, rng, 40)
    clone = state.clone()
    copy = game.deserialize_state(state.serialize())
    for other in (clone, copy):
        assert str(other) == str(state) and other.history() == state.history()
        assert other.information_state_string(1) == state.information_state_string(1)
    actions = []
    while not state.is_terminal():
        actions.append(rng.choice(state.legal_actions()))
        state.apply_action(actions[-1])
    assert str(clone) != str(state)  # (the copies are independent)
    for other in (clone, copy):
        for action in actions:
            other.apply_action(action)
        assert str(other) == str(state) and other.returns() == state.returns()


def test_deals_come_from_the_games_generator() -> None:
    game = load(3, rng_seed=4)
    first, second = game.new_initial_state(), game.new_initial_state()
    assert first.is_chance_node() and first.chance_outcomes() == [(0, 1.0)]
    assert first.legal_actions() == [0] and first.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "deal"
    twin = first.clone()
    for state in (first, second, twin):
        state.apply_action(0)
    assert len({str(first), str(second), str(twin)}) == 3  # every deal draws anew, copies included
    again = dealt(load(3, rng_seed=4))
    assert str(again) == str(first)  # the same seed, the same deals


def test_refusals() -> None:
    with pytest.raises(ValueError, match="reward"):
        load(2, reward="money")
    with pytest.raises(ValueError, match="players"):
        load(7)
    with pytest.raises(ValueError, match="max_steps"):
        load(2, max_steps=0)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        load(2, colour=1)
    state = dealt(load(3, rng_seed=0))
    illegal = next(action for action in range(NUM_ACTIONS) if action not in state.legal_actions())
    before = str(state)
    with pytest.raises(IllegalRLActionError, match="not legal"):
        state.apply_action(illegal)
    assert str(state) == before and state.history() == [0]
    with pytest.raises(IllegalRLActionError, match="one outcome"):
        load(2).new_initial_state().apply_action(1)


# ---------------------------------------------------------------------------- OpenSpiel's algorithms on it


def play_ismcts_round(players: int, seat: int, seed: int, simulations: int) -> tuple[RoyalRevengeState, int]:
    """One round: OpenSpiel's ISMCTS at ``seat``, the heuristic bot at every other seat. Returns the end, and
    how many decisions ISMCTS made."""
    game = load(players, rng_seed=seed)
    state = dealt(game)
    resample = random.Random(seed)
    bot = ismcts.ISMCTSBot(
        game,
        RandomRolloutEvaluator(seed=seed),
        uct_c=2.0,
        max_simulations=simulations,
        random_state=np.random.RandomState(seed),
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    )
    # (Seeded worlds: the default resampler seeds itself from the clock.)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, resample.random))
    heuristic = [make_agent("heuristic", seed=seed * 10 + other) for other in range(players)]
    decisions = 0
    while not state.is_terminal():
        player = state.current_player()
        if player == seat:
            action = int(bot.step(state))
            decisions += 1
        else:
            action = agent_action(state, heuristic[player])
        assert action in state.legal_actions(), (player, action, state.legal_actions())
        state.apply_action(action)
    return state, decisions


@pytest.mark.parametrize(("players", "rounds"), [(2, 3), (4, 1)])
def test_ismcts_plays_against_the_heuristic_bot(players: int, rounds: int) -> None:
    """OpenSpiel's (Python) ISMCTS plays whole rounds against the heuristic bot: legal moves, sensible returns.

    Who wins is not asserted: at 20 simulations with random rollouts ISMCTS is the weaker (docs/rl.md).
    """
    for round_no in range(rounds):
        seat = round_no % players
        state, decisions = play_ismcts_round(players, seat, seed=round_no, simulations=20)
        table = state.table
        assert table.done and not table.truncated and table.state.decision is Decision.GAME_OVER
        assert decisions > 0
        returns = state.returns()
        result = table.state.last_round
        assert result is not None
        assert returns == round_rewards(table.state)  # the winner gets the round's points, each loser pays their own
        assert returns[result.winner] == result.points > 0
        assert abs(sum(returns)) < 1e-9
        game = state.get_game()
        assert all(game.min_utility() <= value <= game.max_utility() for value in returns)


def test_ismcts_with_openspiels_own_rollout_evaluator() -> None:
    """OpenSpiel's own ``mcts.RandomRolloutEvaluator`` works too (ten times slower: one decision here)."""
    game = load(2, rng_seed=2)
    state = dealt(game)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(random_state=np.random.RandomState(0)),
        uct_c=2.0,
        max_simulations=5,
        random_state=np.random.RandomState(0),
    )
    assert bot.step(state) in state.legal_actions()


def test_rollout_evaluator_leaves_the_state_alone() -> None:
    state = dealt(load(3, rng_seed=6))
    random_play(state, random.Random(6), 30)
    before = str(state)
    value = RandomRolloutEvaluator(n_rollouts=4, seed=0).evaluate(state)
    assert str(state) == before
    assert value.shape == (3,) and abs(value.sum()) < 1e-9
    prior = RandomRolloutEvaluator().prior(state)
    assert [action for action, _ in prior] == state.legal_actions()
    assert sum(probability for _, probability in prior) == pytest.approx(1.0)


def test_evaluate_bots_with_the_projects_bots() -> None:
    game = load(3, rng_seed=9)
    bots = [AgentBot(make_agent(name, seed=seat)) for seat, name in enumerate(["heuristic", "random", "heuristic"])]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert len(returns) == 3 and abs(sum(returns)) < 1e-9 and max(returns) > 0


def test_openspiel_rl_environment() -> None:
    env = rl_environment.Environment(load(3, rng_seed=7))
    step = env.reset()
    rng = np.random.RandomState(0)
    total = np.zeros(3)
    passes = 0
    while not step.last():
        player = step.observations["current_player"]
        assert len(step.observations["info_state"][player]) == INFO_STATE_SIZE
        legal = step.observations["legal_actions"][player]
        passes += PASS in legal
        step = env.step([rng.choice(legal)])
        total += step.rewards
    assert total.tolist() == env.get_state.returns() and abs(total.sum()) < 1e-9
