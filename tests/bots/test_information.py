"""Bots never see what their player could not see.

For positions along real games, a second world is built that agrees with the deciding
player's observation but deals every hidden card differently (the other hands, the draw
pile, the scepter's schedule and the engine's generator). A bot with the same seed must
make the same decision in both worlds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from royal_revenge.bots import Agent, HeuristicAgent, RandomAgent, SearchAgent, make_agent
from royal_revenge.engine import AnyAction, GameOptions, GameState, Observation
from royal_revenge.sim import play_game

Factory = Callable[[], Agent]

FACTORIES: dict[str, Factory] = {
    "random": lambda: RandomAgent(seed=5),
    "heuristic": lambda: HeuristicAgent(seed=5),
    "easy": lambda: make_agent("easy", seed=5),
    "search": lambda: SearchAgent(seed=5, iterations=12),
}


def other_world(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A state with the same observation for ``seat`` but different hidden cards."""
    observation = state.observe(seat)
    for _ in range(20):
        world = observation.sample_state(rng)
        hidden_differs = any(world.hands[s] != state.hands[s] for s in range(state.players) if s != seat)
        if hidden_differs or world.draw_pile != state.draw_pile:
            break
    assert world.observe(seat) == observation
    return world


def positions(games: int, players: int) -> list[tuple[GameState, int]]:
    """(state, seat) for every decision asked of any seat in a few heuristic games."""
    found: list[tuple[GameState, int]] = []

    class Recorder:
        name = "recorder"

        def __init__(self, seat: int, state: list[GameState]) -> None:
            self.seat = seat
            self.state = state
            self.inner = HeuristicAgent(seed=seat)

        def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
            found.append((self.state[0].copy(), self.seat))
            return self.inner.act(observation, legal_actions)

    for game in range(games):
        state = GameState.new(GameOptions(players=players, single_round=True), seed=game)
        holder = [state]
        play_game(state, [Recorder(seat, holder) for seat in range(players)])
    return found


def test_decisions_do_not_depend_on_hidden_cards() -> None:
    rng = random.Random(99)
    checked = {name: 0 for name in FACTORIES}
    for index, (state, seat) in enumerate(positions(games=3, players=4)):
        world = other_world(state, seat, rng)
        legal = state.legal_actions(seat)
        assert world.legal_actions(seat) == legal
        for name, factory in FACTORIES.items():
            if name == "search" and index % 6:
                continue  # search is slower: every sixth position
            first = factory().act(state.observe(seat), legal)
            second = factory().act(world.observe(seat), legal)
            assert first == second, (name, seat, state)
            checked[name] += 1
    assert all(count >= 20 for count in checked.values()), checked


def test_the_agent_interface_receives_an_observation_not_the_state() -> None:
    seen: list[object] = []

    class Spy:
        name = "spy"

        def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
            seen.append(observation)
            return HeuristicAgent(seed=1).act(observation, legal_actions)

    play_game(GameState.new(GameOptions(players=2, single_round=True), seed=3), [Spy(), HeuristicAgent(2)])
    assert seen and all(isinstance(item, Observation) for item in seen)
    assert not any(isinstance(item, GameState) for item in seen)
