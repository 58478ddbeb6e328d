"""The expert bot: the trained policy, played with NumPy from the shipped weights."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from royal_revenge.bots import BotConfigError, make_agent
from royal_revenge.bots.expert import WEIGHTS, ExpertAgent, ExpertPolicy, features
from royal_revenge.engine import GameOptions, GameState, Observation
from royal_revenge.rl.encoding import NUM_ACTIONS, OBS_SIZE, PASS, Layout, Role, encode_observation, legal_action_ints
from royal_revenge.sim import play_game


def _tiny_policy(seed: int = 0, hidden: int = 16) -> ExpertPolicy:
    rng = np.random.default_rng(seed)
    return ExpertPolicy([(rng.normal(size=(OBS_SIZE, hidden)).astype(np.float32),
                          rng.normal(size=hidden).astype(np.float32)),
                         (rng.normal(size=(hidden, NUM_ACTIONS)).astype(np.float32),
                          rng.normal(size=NUM_ACTIONS).astype(np.float32))])


def test_the_shipped_weights_load_and_say_how_they_were_trained() -> None:
    policy = ExpertPolicy.load(WEIGHTS)
    assert policy.layers[0][0].shape[0] == OBS_SIZE
    assert policy.layers[-1][0].shape[1] == NUM_ACTIONS
    assert policy.info["decisions"] > 0 and policy.info["evaluations"]
    assert WEIGHTS.stat().st_size < 4 * 1024 * 1024  # small enough to ship


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_experts_play_whole_games_legally_at_every_table_size(players: int) -> None:
    # play_game refuses an illegal action or a pass where a decision is due, naming the bot.
    rng = random.Random(players)
    agents = [make_agent("expert", seed=s) if s % 2 == 0 else make_agent("heuristic", seed=s) for s in range(players)]
    for _ in range(3):
        log = play_game(GameState.new(GameOptions(players=players, single_round=True), seed=rng.getrandbits(32)),
                        agents)
        assert log.rounds and log.decisions[0] > 0


def test_a_full_game_to_500_points_where_the_scores_do_not_disturb_it() -> None:
    agents = [make_agent("expert", seed=s) for s in range(3)]
    log = play_game(GameState.new(GameOptions(players=3), seed=5), agents)
    assert max(log.state.scores) >= 500


def _decisions(seed: int, count: int) -> list[tuple[Observation, list[object], int]]:
    """Observations of seats that must decide or have an optional chance, from heuristic games."""
    found: list[tuple[Observation, list[object], int]] = []
    heuristic = [make_agent("easy", seed=s) for s in range(4)]  # (they forget UNO: catch windows open)

    def look(seat: int | None, action: object, state: GameState) -> None:
        if len(found) < count and state.decider is not None:
            decider = state.decider
            found.append((state.observe(decider), list(state.legal_actions(decider)), decider))
            for other in state.out_of_turn() if state.uno_seat is not None else ():
                found.append((state.observe(other), list(state.legal_actions(other)), other))

    rng = random.Random(seed)
    while len(found) < count:
        play_game(GameState.new(GameOptions(players=4, single_round=True), seed=rng.getrandbits(32)), heuristic,
                  on_step=look)
    return found


def test_the_bot_takes_the_legal_action_its_network_scores_best() -> None:
    policy = _tiny_policy()
    bot = ExpertAgent(weights=policy)
    chances = 0
    for observation, legal, seat in _decisions(seed=3, count=300):
        chance = observation.pending.seat != seat
        chances += chance
        role = Role.CHANCE if chance else None
        encoded = encode_observation(observation, role) if role is not None else encode_observation(
            observation, _role(observation))
        indices = legal_action_ints(legal, seat, observation.players, chance=chance)  # type: ignore[arg-type]
        scores = policy.logits(encoded[None, :])[0]
        best = max(indices, key=lambda index: scores[index])
        chosen = bot.act(observation, legal)  # type: ignore[arg-type]
        if best == PASS:
            assert chosen is None
        else:
            assert chosen == legal[indices.index(best)]
    assert chances > 0  # optional UNO chances were among them


def _role(observation: Observation) -> Role:
    from royal_revenge.rl.encoding import role_of

    return role_of(observation.pending.kind)


def test_features_leave_out_the_scores_and_agree_on_compact_and_exact_observations() -> None:
    observation = np.zeros((1, OBS_SIZE), dtype=np.float32)
    observation[0, Layout.SCORES:Layout.KING] = 480.0
    observation[0, Layout.TURNS_SINCE_SCEPTER] = 1000.0  # the exact counter; the compact one saturates
    compact = observation.clip(0, 255).astype(np.uint8)
    assert not features(observation)[0, Layout.SCORES:Layout.KING].any()
    assert np.array_equal(features(observation), features(compact))


def test_temperature_draws_reproducibly_and_only_legal_actions() -> None:
    observations = _decisions(seed=4, count=40)
    runs = []
    for _ in range(2):
        bot = ExpertAgent(seed=9, weights=_tiny_policy(1), temperature=5.0)
        runs.append([bot.act(o, legal) for o, legal, _ in observations])  # type: ignore[arg-type]
    assert runs[0] == runs[1]
    for (observation, legal, seat), chosen in zip(observations, runs[0], strict=True):
        assert chosen in legal or (chosen is None and observation.pending.seat != seat)


def test_weights_round_trip_through_a_file(tmp_path: Path) -> None:
    policy = _tiny_policy(2)
    policy.info = {"decisions": 7}
    policy.save(tmp_path / "w.npz")
    again = ExpertPolicy.load(tmp_path / "w.npz")
    assert again.info == {"decisions": 7}
    inputs = np.random.default_rng(0).integers(0, 9, size=(5, OBS_SIZE)).astype(np.uint8)
    assert np.array_equal(policy.logits(inputs), again.logits(inputs))
    agent = make_agent("expert", seed=1, weights=str(tmp_path / "w.npz"))
    assert isinstance(agent, ExpertAgent) and agent.policy.info == {"decisions": 7}


def test_bad_settings_are_refused_in_plain_words(tmp_path: Path) -> None:
    with pytest.raises(BotConfigError, match="no weights file at"):
        make_agent("expert", weights=str(tmp_path / "missing.npz"))
    with pytest.raises(BotConfigError, match="temperature must be a number from 0 up"):
        make_agent("expert", temperature=-1)
    with pytest.raises(BotConfigError, match="takes no parameter 'iterations'"):
        make_agent("expert", iterations=3)
    wrong = np.zeros((OBS_SIZE, 4), dtype=np.float32)
    with pytest.raises(ValueError, match="not one per action"):
        ExpertPolicy([(wrong, np.zeros(4, dtype=np.float32))])
    with pytest.raises(ValueError, match="do not chain"):
        ExpertPolicy([(wrong, np.zeros(5, dtype=np.float32))])
