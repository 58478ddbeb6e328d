"""Inference from the public history: sound against players who draw only when they must, and dealt from."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from royal_revenge.bots import HeuristicAgent, SearchAgent, make_agent
from royal_revenge.bots.inference import HandInference
from royal_revenge.bots.registry import BotConfigError
from royal_revenge.engine import (
    NEXT_ROUND,
    Card,
    Colour,
    Decision,
    GameOptions,
    GameState,
    Observation,
)
from royal_revenge.engine.cards import PLAYABLE, match_key
from royal_revenge.engine.position import position

C = Card.parse


def breaks(hand: list[Card], lacks: list[tuple[Card, Colour, int]]) -> list[str]:
    """The inferences a true hand breaks: its oldest ``held`` cards must not match ``top`` in ``colour``."""
    return [f"{card} matches {top} {colour.name}" for top, colour, held in lacks for card in hand[:held]
            if PLAYABLE[match_key(top, colour)][card]]


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_inference_holds_for_players_who_draw_only_when_they_must(players: int) -> None:
    """Heuristic bots never draw with a playable card and always play a playable drawn card: at every step of
    their games, every observer's inferences hold for the true hands."""
    for seed in range(4):
        state = GameState.new(GameOptions(players=players, target_score=300, scepter_turns=(3, 9)), seed=seed)
        agents = [HeuristicAgent(seed * 10 + seat) for seat in range(players)]
        checked = 0
        while not state.is_over():
            if state.decision is Decision.ROUND_OVER:
                state.apply(None, NEXT_ROUND)
                continue
            for observer in range(players):
                inference = HandInference(state.observe(observer))
                for seat in range(players):
                    assert not breaks(state.hands[seat], inference.lacks[seat]), (seed, state.history)
                    checked += bool(inference.lacks[seat])
            seat = state.decider
            assert seat is not None
            action = agents[seat].act(state.observe(seat), state.legal_actions(seat))
            assert action is not None
            state.apply(seat, action)
        assert checked > 100  # the games did give something to infer


def observed_after(moves: list[str], **kwargs: object) -> GameState:
    state = position(**kwargs)  # type: ignore[arg-type]
    for move in moves:
        state.apply_move(move)
    return state


def test_a_draw_and_a_keep_tell_what_the_hand_lacks() -> None:
    # Seat 1 draws on R1 and keeps the card: its four cards (three old, one kept) hold no red, no 1, no Wild.
    state = observed_after(["0:R1", "1:draw", "1:keep"], hands=["R1 G2 G5", "Y3 B4 Y5", "G6 Y7 B2"],
                           discard="R5", draw="B8", king=0, jester=2)
    inference = HandInference(state.observe(0))
    assert inference.lacks == [[], [(C("R1"), Colour.RED, 4)], []]
    assert inference.informative
    rng = random.Random(4)
    for _ in range(50):
        hands = inference.deal(rng)
        assert [len(hand) for hand in hands] == [0, 4, 3]
        assert not breaks(hands[1], inference.lacks[1])
        sample = state.observe(0).sample_state(rng, hands)
        assert sample.observe(0) == state.observe(0)


def test_cards_drawn_since_are_not_constrained() -> None:
    # Seat 1 draws on R1 with three cards and plays the card drawn (so the three are still old), then a King's
    # Choice makes it draw one more: three of its four cards must avoid red, 1 and Wild.
    state = observed_after(["0:R1", "1:draw", "1:R2", "2:RK", "0:victim 1"],
                           hands=["R1 G2 G5", "Y3 B4 Y5", "G6 Y7 RK"], discard="R5", draw="R2 B8", king=0,
                           jester=2)
    assert state.hands[1] == [C("Y3"), C("B4"), C("Y5"), C("B8")]
    inference = HandInference(state.observe(2))
    assert inference.lacks[1] == [(C("R1"), Colour.RED, 3)]


def test_an_inference_the_unseen_cards_cannot_meet_is_dropped() -> None:
    """A player who drew while holding playable cards (allowed, R-TURN-2): the deal still gives hands of the
    right sizes from the unseen cards, agreeing with what it can."""
    state = observed_after(["1:draw", "1:keep"], hands=["Y3 B4", "R1 R2 R3", "G6 Y7"], discard="R5", draw="R4",
                           rest="discard", king=1, jester=2, current=1)
    view = state.observe(0)
    inference = HandInference(view)
    assert inference.lacks[1] == [(C("R5"), Colour.RED, 4)]  # four cards without red among R1-R4, G6 and Y7?
    rng = random.Random(1)
    for _ in range(20):
        hands = inference.deal(rng)
        assert [len(hand) for hand in hands] == [0, 4, 2]
        assert Counter(hands[1] + hands[2]) == Counter(view.unseen_cards())


def test_sample_state_refuses_hands_that_do_not_agree() -> None:
    state = position(hands=["R1 G2", "Y3 B4", "G6 Y7"], discard="R5", king=0, jester=2)
    view: Observation = state.observe(0)
    rng = random.Random(1)
    with pytest.raises(ValueError, match="one hand per seat"):
        view.sample_state(rng, [[], [C("Y3"), C("B4")]])
    with pytest.raises(ValueError, match="seat 1 holds 2 cards, not 1"):
        view.sample_state(rng, [[], [C("Y3")], [C("G6"), C("Y7")]])
    with pytest.raises(ValueError, match="seen elsewhere"):
        view.sample_state(rng, [[], [C("R1"), C("B4")], [C("G6"), C("Y7")]])  # R1 is in the observer's hand
    sample = view.sample_state(rng, [[], [C("G6"), C("Y7")], [C("Y3"), C("B4")]])
    assert sample.hands == [[C("R1"), C("G2")], [C("G6"), C("Y7")], [C("Y3"), C("B4")]]
    assert sample.observe(0) == view


def test_the_search_infers_when_told_to() -> None:
    assert not SearchAgent(seed=1).inference
    assert make_agent("search", seed=1, inference=True).inference  # type: ignore[attr-defined]
    with pytest.raises(BotConfigError, match="inference must be true or false"):
        make_agent("search", seed=1, inference="yes")


def test_the_search_deals_its_worlds_as_the_history_says() -> None:
    """Every world the inferring search imagines agrees with the inference; the uniform search's often do not."""
    state = observed_after(["0:R1", "1:draw", "1:keep", "2:R7"], hands=["R1 G2 G5 R6", "Y3 B4 Y5", "R7 Y7 B2"],
                           discard="R5", draw="B8", king=0, jester=2)
    assert state.decider == 0
    lacks = HandInference(state.observe(0)).lacks
    assert lacks[1]

    class Watched:
        """The observation, recording the worlds sampled from it."""

        def __init__(self, view: Observation) -> None:
            self.view = view
            self.worlds: list[GameState] = []

        def __getattr__(self, name: str) -> object:
            return getattr(self.view, name)

        def sample_state(self, rng: random.Random, hands: list[list[Card]] | None = None) -> GameState:
            world = self.view.sample_state(rng, hands)
            self.worlds.append(world)
            return world

    def worlds(inference: bool) -> list[GameState]:
        watched = Watched(state.observe(0))
        SearchAgent(seed=5, iterations=60, inference=inference).act(watched, state.legal_actions(0))  # type: ignore[arg-type]
        return watched.worlds

    inferred, uniform = worlds(True), worlds(False)
    assert len(inferred) == len(uniform) == 30
    assert all(not breaks(world.hands[1], lacks[1]) for world in inferred)
    assert sum(bool(breaks(world.hands[1], lacks[1])) for world in uniform) >= 10
