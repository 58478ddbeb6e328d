"""The PettingZoo AEC environment and the Gymnasium environment (royal_revenge.rl)."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from royal_revenge.bots import RandomAgent
from royal_revenge.bots.registry import BOTS, LEVELS
from royal_revenge.engine import Decision, GameOptions, Scoring
from royal_revenge.engine.actions import PLAYS_UNO
from royal_revenge.rl import IllegalRLActionError, aec_env, gym_env, raw_env
from royal_revenge.rl.encoding import (
    CALL_UNO_ACTION,
    CATCH,
    NUM_ACTIONS,
    PASS,
    PLAY,
    PLAY_UNO,
    Layout,
    Role,
    int_to_action,
    legal_action_ints,
)


def quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ---------------------------------------------------------------------------- the standard checkers


@pytest.mark.parametrize("players", [2, 4, 6])
def test_pettingzoo_api_test(players: int) -> None:
    quiet(api_test, aec_env(players=players), num_cycles=150)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_pettingzoo_seed_test(players: int) -> None:
    quiet(seed_test, lambda: aec_env(players=players), num_cycles=100)


def test_pettingzoo_api_test_whole_game_win_rewards_and_illegal_wrapper() -> None:
    options = GameOptions(players=3, target_score=100, scepter_turns=None)
    quiet(api_test, aec_env(options=options, episode="game", reward="win"), num_cycles=150)
    quiet(api_test, aec_env(players=3, illegal_action="terminate"), num_cycles=100)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_gymnasium_check_env(players: int) -> None:
    # check_env steps with unmasked random actions, so it runs with the illegal-move option.
    quiet(check_env, gym_env(players=players, illegal_action="terminate"))
    quiet(check_env, gym_env(players=players, illegal_action="terminate", learner_seat=None, render_mode="ansi"))


# ---------------------------------------------------------------------------- helpers


def pick(mask: Any, rng: random.Random) -> int:
    """A random legal action, playing a card when one can be played (keeps random rounds short)."""
    legal = np.flatnonzero(mask).tolist()
    plays = [i for i in legal if i < PLAY_UNO + 49]
    return int(rng.choice(plays if plays and rng.random() < 0.9 else legal))


def random_aec_episode(env: Any, rng: random.Random, check: Any = None, max_steps: int = 20000) -> dict[str, float]:
    """Play random legal actions (see :func:`pick`); return each agent's total reward."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(max_steps):
        agent = env.agent_selection
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                return totals
            continue
        if check is not None:
            check(env, agent, obs)
        env.step(pick(obs["action_mask"], rng))
    raise AssertionError("episode did not end")


# ---------------------------------------------------------------------------- masks and legality


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_mask_is_exactly_the_engines_legal_actions(players: int) -> None:
    env = raw_env(players=players, episode="game", options=GameOptions(players=players, target_score=120))
    rng = random.Random(players)
    kinds: set[Role] = set()

    def check(env: Any, agent: str, obs: dict[str, Any]) -> None:
        table = env.table
        seat = env.possible_agents.index(agent)
        assert seat == table.selected
        legal = table.state.legal_actions(seat)
        expected = legal_action_ints(legal, seat, players, chance=table.chance)
        assert sorted(np.flatnonzero(obs["action_mask"]).tolist()) == sorted(expected)
        decoded = {int_to_action(i, seat, players) for i in expected}
        assert decoded == set(legal) | ({None} if table.chance else set())
        role = Role(int(np.argmax(obs["observation"][Layout.ROLE : Layout.ROLE + 7])))
        kinds.add(role)
        if table.chance:
            assert role is Role.CHANCE and PASS in expected and seat != table.state.decider
        else:
            assert seat == table.state.decider and PASS not in expected
        # every other agent sees an empty mask
        other = env.possible_agents[(seat + 1) % players]
        assert not env.observe(other)["action_mask"].any()

    for episode in range(2):
        env.reset(seed=episode)
        random_aec_episode(env, rng, check)
    assert {Role.TURN, Role.DRAWN, Role.JESTER} <= kinds


def test_an_illegal_action_raises_a_clear_error_and_changes_nothing() -> None:
    env = aec_env(players=4)
    env.reset(seed=11)
    table = env.unwrapped.table
    before = table.state.copy()
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalRLActionError, match=r"is not legal for seat \d now .*legal actions: "):
        env.step(illegal)
    with pytest.raises(IllegalRLActionError, match="integer"):
        env.step("draw")
    with pytest.raises(IllegalRLActionError, match="integer"):
        env.step(1.5)
    assert table.state == before
    # numpy integers are fine
    env.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))


def test_the_illegal_move_wrapper_option_ends_the_episode() -> None:
    env = aec_env(players=3, illegal_action="terminate")
    env.reset(seed=2)
    agent = env.agent_selection
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    quiet(env.step, illegal)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1
    assert all(reward == 0 for other, reward in env.rewards.items() if other != agent)
    gym = gym_env(players=3, illegal_action="terminate")
    obs, _ = gym.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = gym.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    strict = gym_env(players=3)
    strict.reset(seed=1)
    with pytest.raises(IllegalRLActionError):
        strict.step(illegal)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="episode"):
        raw_env(players=2, episode="match")
    with pytest.raises(ValueError, match="reward"):
        raw_env(players=2, reward="score")
    with pytest.raises(ValueError, match="illegal_action"):
        aec_env(players=2, illegal_action="ignore")
    with pytest.raises(ValueError, match="opponents"):
        gym_env(players=4, opponents=["random"])
    with pytest.raises(ValueError, match=r"unknown bot|not"):
        gym_env(players=2, opponents="no-such-bot")


def test_a_subclass_override_is_called_and_human_rendering_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """last/observe/step are bound to the compiled core only when no subclass overrides them."""
    from royal_revenge.rl.aec import RoyalRevengeAEC

    calls: list[str] = []

    class Counting(RoyalRevengeAEC):
        def last(self, observe: bool = True) -> Any:
            calls.append("last")
            return super().last(observe)

        def step(self, action: Any) -> None:
            calls.append("step")
            super().step(action)

    env = Counting(players=2)
    env.reset(seed=3)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert calls == ["last", "step"]
    human = raw_env(players=2, render_mode="human")
    human.reset(seed=3)
    capsys.readouterr()
    obs, *_ = human.last()
    human.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "to decide: player_" in capsys.readouterr().out
    human.render_mode = None
    obs, *_ = human.last()
    human.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert capsys.readouterr().out == ""


# ---------------------------------------------------------------------------- who decides


def test_uno_chances_go_to_the_owner_then_the_others_in_order_of_play() -> None:
    """After a play that opens an UNO window, every seat but the decider is asked once, owner first."""
    players = 4
    env = raw_env(players=players, options=GameOptions(players=players, scepter_turns=None))
    rng = random.Random(5)
    windows = 0
    for seed in range(40):
        if windows >= 10:
            break
        env.reset(seed=seed)
        table = env.table
        while not table.done:
            seat = table.selected
            legal = table.legal()
            if table.chance:
                env.step(PASS)  # let every chance go by
                continue
            # prefer forgetting UNO with the next-to-last card
            plain_plays = [i for i in legal if PLAY <= i < PLAY_UNO]
            forgetful = len(table.state.hands[seat]) == 2 and plain_plays
            mask = table.mask(seat)
            mask[CALL_UNO_ACTION] = 0
            choice = rng.choice(plain_plays) if forgetful else pick(mask, rng)
            env.step(choice)
            state = table.state
            if state.uno_seat is None or table.done or state.decision >= Decision.ROUND_OVER:
                continue
            owner, decider, direction = state.uno_seat, state.decider, state.direction
            expected = [(owner + k * direction) % players for k in range(players)]
            expected = [s for s in expected if s != decider and len(state.hands[owner]) == 1]
            asked = []
            while table.chance:
                asked.append(table.selected)
                mask = env.observe(env.agent_selection)["action_mask"]
                legal_now = set(np.flatnonzero(mask).tolist())
                rel = (owner - table.selected) % players
                assert legal_now == ({CALL_UNO_ACTION, PASS} if table.selected == owner else {CATCH + rel, PASS})
                env.step(PASS)
            assert asked == expected
            assert table.selected == state.decider
            windows += 1
    assert windows >= 10


def test_a_catch_by_a_chance_seat_gives_two_cards_and_closes_the_window() -> None:
    players = 3
    env = raw_env(players=players)
    rng = random.Random(1)
    caught = 0
    for seed in range(60):
        if caught >= 5:
            break
        env.reset(seed=seed)
        table = env.table
        while not table.done and caught < 5:  # (everyone forgets UNO and gets caught: stop in time)
            legal = table.legal()
            if table.chance:
                catches = [i for i in legal if CATCH <= i < CATCH + 6]
                if catches:
                    owner = table.state.uno_seat
                    assert owner is not None
                    env.step(catches[0])
                    assert len(table.state.hands[owner]) == 3
                    assert table.state.uno_seat is None and not table.chance
                    caught += 1
                else:
                    env.step(PASS)
                continue
            seat = table.selected
            plain = [i for i in legal if PLAY <= i < PLAY_UNO]
            if len(table.state.hands[seat]) == 2 and plain:
                env.step(rng.choice(plain))
            else:
                mask = table.mask(seat)
                mask[CATCH : CATCH + 6] = 0
                env.step(pick(mask, rng))
    assert caught >= 5


# ---------------------------------------------------------------------------- rewards


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_round_points_are_zero_sum_and_pay_the_right_players(players: int) -> None:
    env = raw_env(players=players)
    rng = random.Random(players)
    for seed in range(4):
        env.reset(seed=seed)
        totals = random_aec_episode(env, rng)
        result = env.table.state.last_round
        assert result is not None
        assert sum(totals.values()) == pytest.approx(0)
        for seat, agent in enumerate(env.possible_agents):
            expected = result.points if seat == result.winner else -result.hand_points[seat]
            assert totals[agent] == pytest.approx(expected)


@pytest.mark.parametrize("players", [3, 5])
def test_win_rewards_over_a_whole_game(players: int) -> None:
    options = GameOptions(players=players, target_score=60)
    env = raw_env(options=options, episode="game", reward="win")
    rng = random.Random(players)
    for seed in range(3):
        env.reset(seed=seed)
        totals = random_aec_episode(env, rng)
        outcome = env.table.state.outcome()
        assert outcome is not None and len(outcome.winners) == 1
        assert sum(totals.values()) == pytest.approx(0)
        for seat, agent in enumerate(env.possible_agents):
            expected = 1.0 if seat in outcome.winners else -1.0 / (players - 1)
            assert totals[agent] == pytest.approx(expected)


def test_whole_game_points_add_up_to_the_scores() -> None:
    """Standard scoring: each round pays the winner the round's points, so a winner's total is their score
    minus what they paid in the rounds they lost; all totals still sum to zero."""
    options = GameOptions(players=4, target_score=150)
    env = raw_env(options=options, episode="game")
    env.reset(seed=9)
    rounds: list[Any] = []
    table = env.table
    rng = random.Random(9)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        agent = env.agent_selection
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        round_before = table.state.round_no
        env.step(pick(obs["action_mask"], rng))
        if table.state.round_no != round_before or table.done:
            rounds.append(table.state.last_round)
    assert len(rounds) >= 2
    expected = [0.0] * 4
    for result in rounds:
        for seat in range(4):
            expected[seat] += result.points if seat == result.winner else -result.hand_points[seat]
    assert [totals[a] for a in env.possible_agents] == pytest.approx(expected)
    assert sum(totals.values()) == pytest.approx(0)
    assert list(table.state.scores) == [
        sum(r.points for r in rounds if r.winner == seat) for seat in range(4)
    ]


def test_lowest_tally_points_are_relative_to_the_table_average() -> None:
    options = GameOptions(players=3, scoring=Scoring.LOWEST_TALLY)
    env = raw_env(options=options)
    env.reset(seed=4)
    totals = random_aec_episode(env, random.Random(4))
    hands = env.table.state.last_round.hand_points
    mean = sum(hands) / 3
    assert [totals[a] for a in env.possible_agents] == pytest.approx([mean - h for h in hands])


# ---------------------------------------------------------------------------- seeding and options


def test_reset_with_a_seed_reproduces_the_episode_and_the_scepter_can_be_off() -> None:
    def trajectory(seed: int, options: GameOptions) -> list[int]:
        env = raw_env(options=options)
        env.reset(seed=seed)
        rng = random.Random(0)
        out = []
        while not env.table.done:
            obs = env.observe(env.agent_selection)
            action = pick(obs["action_mask"], rng)
            out.append(action)
            env.step(action)
        return out

    on = GameOptions(players=4)
    assert trajectory(3, on) == trajectory(3, on)
    assert trajectory(3, on) != trajectory(4, on)
    off = GameOptions(players=4, scepter_turns=None)
    env = raw_env(options=off)
    env.reset(seed=1)
    rng = random.Random(1)
    jester_choices = 0
    while not env.table.done:
        jester_choices += env.table.state.decision is Decision.JESTER and not env.table.chance
        env.step(pick(env.table.mask(env.table.selected), rng))
    assert jester_choices == 1  # no fanfare: only the round's first Jester


def test_resets_without_a_seed_follow_the_last_seed() -> None:
    """reset() after reset(seed=s) deals from numpy's default_rng(s), however many seeded resets came first."""
    first, second = raw_env(players=3), raw_env(players=3)
    first.reset(seed=9)
    second.reset(seed=1)
    second.reset(seed=9)
    deals = []
    for env in (first, second):
        env.reset()
        deals.append(env.table.state.hands)
        env.reset()
        deals.append(env.table.state.hands)
    assert deals[0] == deals[2] and deals[1] == deals[3] and deals[0] != deals[1]
    expected = int(np.random.default_rng(9).integers(0, 2**63))
    third = raw_env(players=3)
    third.reset(seed=expected)
    assert third.table.state.hands == deals[0]


def test_max_steps_truncates() -> None:
    env = raw_env(players=2, max_steps=5)
    env.reset(seed=0)
    for _ in range(5):
        env.step(env.table.legal()[0])
    assert all(env.truncations.values()) and not any(env.terminations.values())


def test_gym_env_plays_bots_and_is_reproducible() -> None:
    def run(seed: int) -> tuple[list[int], float]:
        env = gym_env(players=4, opponents="random", learner_seat=None)
        obs, info = env.reset(seed=seed)
        rng = random.Random(seed)
        actions, total = [], 0.0
        done = False
        while not done:
            assert info["seat"] == env.learner
            assert obs["action_mask"].any()
            assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
            assert env.table.selected == env.learner
            action = pick(obs["action_mask"], rng)
            actions.append(action)
            obs, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            done = terminated or truncated
        result = env.table.state.last_round
        assert result is not None
        expected = result.points if env.learner == result.winner else -result.hand_points[env.learner]
        assert total == pytest.approx(expected)
        return actions, total

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_gym_env_accepts_agent_objects() -> None:
    bots = [RandomAgent(1), RandomAgent(2)]
    env = gym_env(players=3, opponents=bots, reward="win")
    obs, _ = env.reset(seed=0)
    done = False
    total = 0.0
    while not done:
        action = int(np.flatnonzero(obs["action_mask"])[0])
        obs, reward, terminated, truncated, _ = env.step(action)
        total += float(reward)
        done = terminated or truncated
    assert total in (1.0, -0.5)
    with pytest.raises(IllegalRLActionError, match="over"):
        env.step(0)


def test_play_with_uno_is_in_the_space() -> None:
    """The engine's ``R7!`` (play the next-to-last card and call UNO) has its own indices."""
    env = raw_env(players=2)
    rng = random.Random(0)
    for seed in range(30):
        env.reset(seed=seed)
        table = env.table
        while not table.done:
            legal = table.legal()
            with_uno = [i for i in legal if PLAY_UNO <= i < PLAY_UNO + 49]
            if with_uno:
                seat = table.selected
                assert len(table.state.hands[seat]) == 2
                assert with_uno[0] - PLAY_UNO + PLAY in legal  # the same card without the call
                action = int_to_action(with_uno[0], seat, 2)
                assert action == PLAYS_UNO[with_uno[0] - PLAY_UNO] and str(action).endswith("!")
                env.step(with_uno[0])
                assert table.state.uno_seat is None  # called: nobody can catch
                return
            env.step(pick(table.mask(table.selected), rng))
    raise AssertionError("no next-to-last card was played in 30 rounds")


def test_action_space_size() -> None:
    env = raw_env(players=5)
    assert env.action_space("player_0").n == NUM_ACTIONS


def test_registered_with_gymnasium() -> None:
    import gymnasium

    env = gymnasium.make("RoyalRevenge-v0", players=3, illegal_action="terminate", disable_env_checker=True)
    obs, _ = env.reset(seed=1)
    assert obs["action_mask"].any()
    quiet(check_env, env.unwrapped)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_fast_observation_equals_the_observation_path_step_by_step(players: int) -> None:
    """The environments' incremental encoder (discard counts kept across steps, reshuffles, new rounds,
    score changes) gives exactly the encoding of a freshly built ``Observation`` for every agent."""
    options = GameOptions(players=players, target_score=150)
    fast = raw_env(options=options, episode="game")
    slow = raw_env(options=options, episode="game", fast_observation=False)
    fast.reset(seed=players)
    slow.reset(seed=players)
    rng = random.Random(players)
    reshuffles = steps = 0
    while fast.agents and steps < 4000:
        agent = fast.agent_selection
        assert agent == slow.agent_selection
        for other in fast.possible_agents:
            a, b = fast.observe(other), slow.observe(other)
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
        obs, _, terminated, truncated, _ = fast.last()
        if terminated or truncated:
            fast.step(None)
            slow.step(None)
            continue
        pile = len(fast.table.state.draw_pile)
        action = pick(obs["action_mask"], rng) if rng.random() < 0.7 else int(np.flatnonzero(obs["action_mask"])[-1])
        fast.step(action)
        slow.step(action)
        reshuffles += len(fast.table.state.draw_pile) > pile
        steps += 1
    assert reshuffles >= 1


def test_gym_env_against_bots_from_the_library() -> None:
    """Opponents named as the library names its bots and levels (a registry that cannot import fails here)."""
    assert "heuristic" in BOTS and "easy" in LEVELS

    def run(seed: int) -> tuple[list[int], float]:
        env = gym_env(players=3, opponents=["heuristic", "easy"], learner_seat=None)
        obs, _ = env.reset(seed=seed)
        actions, total, done = [], 0.0, False
        while not done:
            action = int(np.flatnonzero(obs["action_mask"])[0])
            actions.append(action)
            obs, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            done = terminated or truncated
        return actions, total

    assert run(3) == run(3)


def test_the_order_is_enforced() -> None:
    env = aec_env(players=2)
    with pytest.raises(AssertionError, match="reset"):
        env.last()
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    assert env.last()[0]["action_mask"].any()
