"""The engine as the batched core's reference: one engine table per game of a batch, stepped beside it.

Before every step each game's engine table (:class:`royal_revenge.rl.core.Table`) is set to the
batch's state of that game; both take the same action; then everything is compared: the whole
game state, who is selected and whether it is a chance, the rewards, the legal mask and the
observation. Only the randomness differs between the two (the batch draws from its own stream),
so the engine is made to draw the batch's cards: its draw pile is ordered so that it pops them,
and when it must reshuffle, its generator and the order of its discards are chosen so that its
own Fisher-Yates shuffle puts them on top (the engine's shuffle is :func:`royal_revenge.engine.rng.shuffle`).
A new scepter delay is copied from the batch after the comparison. A deal (a new round or game)
is compared by its scores and rewards; the next step starts from the batch's deal anyway.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from royal_revenge.engine import ALL_CARDS, Colour, Decision, GameState
from royal_revenge.engine import rng as engine_rng
from royal_revenge.rl.batch.arrays import Arrays
from royal_revenge.rl.batch.rules import NONE, Config, State, observe_float
from royal_revenge.rl.core import Table
from royal_revenge.rl.encoding import CALL_UNO_ACTION, DRAW_ACTION, JESTER, PASS, Role, encode_observation

FIELDS_COMPARED = (
    "active_colour", "direction", "king", "jester", "dealer", "current", "decision", "decider", "drawn",
    "resolving", "jester_for_setup", "uno_seat", "fanfare_queued", "scepter_running", "turns_since_scepter",
    "passes", "scores", "round_no",
)


def _opt(value: int) -> int | None:
    return None if value == NONE else int(value)


def engine_state(s: dict[str, Any], config: Config, rng: int = 1) -> GameState:
    """The engine's GameState for one game of the batch (``s``: that game's fields as NumPy values)."""
    n = config.players
    hands = [[ALL_CARDS[face] for face in range(49) for _ in range(int(s["hands"][seat][face]))] for seat in range(n)]
    colour = int(s["colour"])
    drawn = int(s["drawn"])
    return GameState.from_fields({
        "options": config.options,
        "players": n,
        "hands": hands,
        "draw_pile": [ALL_CARDS[int(c)] for c in s["pile"][: int(s["pile_size"])]],
        "discard": [ALL_CARDS[int(c)] for c in s["discard"][: int(s["discard_size"])]],
        "active_colour": None if colour == NONE else Colour(colour),
        "direction": int(s["direction"]),
        "king": int(s["king"]),
        "jester": _opt(s["jester"]),
        "dealer": int(s["dealer"]),
        "current": int(s["current"]),
        "decision": Decision(int(s["decision"])),
        "decider": _opt(s["decider"]),
        "drawn": None if drawn == NONE else ALL_CARDS[drawn],
        "resolving": int(s["resolving"]),
        "jester_for_setup": bool(s["jester_for_setup"]),
        "uno_seat": _opt(s["uno_seat"]),
        "fanfare_queued": bool(s["fanfare_queued"]),
        "scepter_running": bool(s["scepter_running"]),
        "scepter_left": _opt(s["scepter_left"]),
        "turns_since_scepter": int(s["turns_since_scepter"]),
        "passes": int(s["passes"]),
        "scores": [int(x) for x in s["scores"]],
        "round_no": int(s["round_no"]),
        "last_round": None,
        "result": None,
        "history": [],
        "rng": rng,
    })


def engine_table(s: dict[str, Any], config: Config) -> Table:
    """The RL table (selection, chances, rewards) for one game of the batch."""
    table = Table(config.options, episode=config.episode, reward=config.reward)  # type: ignore[arg-type]
    table.state = engine_state(s, config)
    table.selected = int(s["selected"])
    table.chance = bool(s["chance"])
    n = config.players
    if table.chance:
        owner, direction, decider = int(s["uno_seat"]), int(s["direction"]), int(s["decider"])
        table._queue = [seat for seat in ((owner + k * direction) % n for k in range(int(s["chance_next"]), n))
                        if seat != decider]
    table.steps = int(s["steps"])
    return table


def game(state: State, a: Arrays, g: int) -> dict[str, Any]:
    return {name: a.to_numpy(value)[g] for name, value in state._asdict().items()}


def arrange_draws(table: Table, before: dict[str, Any], action: int, drew: list[int]) -> None:
    """Order the engine's piles (and choose its generator) so that it draws ``drew`` in this step."""
    if not drew:
        return
    state = table.state
    from_pile = min(len(state.draw_pile), len(drew))
    pile = Counter(int(c) for c in state.draw_pile)
    pile.subtract(drew[:from_pile])
    assert min(pile.values(), default=0) >= 0, "the batch drew a card its pile did not hold"
    kept = [ALL_CARDS[c] for c in sorted(pile.elements())]
    state.draw_pile = kept + [ALL_CARDS[c] for c in reversed(drew[:from_pile])]
    wanted = drew[from_pile:]
    if not wanted:
        return
    # The engine reshuffles the discards but the top at the moment of the draw: after a play (a Jester
    # card) that is the whole pile as it was before the step, whose last card stays where it is.
    played = action < DRAW_ACTION
    reshuffled = list(state.discard) if played else list(state.discard[:-1])
    fixed = len(reshuffled) - 1 if played else None
    fixed_card = int(reshuffled[fixed]) if fixed is not None else None
    for seed in range(1, 10_000):  # a generator whose shuffle can bring the batch's cards on top
        order = list(range(len(reshuffled)))
        engine_rng.shuffle(seed, order)
        places = [order[-1 - i] for i in range(len(wanted))]  # where the cards drawn must be before the shuffle
        arranged: list[int | None] = [None] * len(reshuffled)
        if fixed is not None:
            arranged[fixed] = fixed_card
        if any(place == fixed and card != fixed_card for place, card in zip(places, wanted, strict=True)):
            continue
        for place, card in zip(places, wanted, strict=True):
            arranged[place] = card
        rest = Counter(int(c) for c in reshuffled)
        rest.subtract(c for c in arranged if c is not None)
        if min(rest.values(), default=0) >= 0:
            break
    else:  # pragma: no cover
        raise AssertionError(f"the batch drew cards the discards did not hold: {wanted}")
    others = iter(sorted(rest.elements()))
    cards = [ALL_CARDS[c if c is not None else next(others)] for c in arranged]
    state.discard = cards if played else [*cards, state.discard[-1]]
    state.rng = seed


def compare(table: Table, after: dict[str, Any], obs: np.ndarray, rewards: list[float] | None, config: Config,
            where: str) -> None:
    """The engine table after its step against the batch's game after its step."""
    n = config.players
    batch_rewards = [float(x) for x in after["rewards"]]
    expected = [0.0] * n if rewards is None else list(rewards)
    assert np.allclose(batch_rewards, expected, atol=1e-4), f"{where}: rewards {batch_rewards} != engine {expected}"
    if bool(after["dealt"]):
        state = table.state
        if not bool(after["terminated"]):  # the next round of a whole-game episode: the scores carry on
            assert [int(x) for x in after["scores"]] == state.scores, f"{where}: scores after the round"
            assert int(after["round_no"]) == state.round_no and int(after["king"]) == state.king, where
        return
    expected_state = engine_state(after, config)
    state = table.state
    for name in FIELDS_COMPARED:
        mine, theirs = getattr(expected_state, name), getattr(state, name)
        assert mine == theirs, f"{where}: {name} is {mine!r} in the batch, {theirs!r} in the engine ({state!r})"
    for seat in range(n):
        assert Counter(expected_state.hands[seat]) == Counter(state.hands[seat]), f"{where}: hand of seat {seat}"
    assert Counter(expected_state.draw_pile) == Counter(state.draw_pile), f"{where}: draw pile"
    assert expected_state.discard == state.discard, f"{where}: discard pile"
    if not (state.scepter_running and state.turns_since_scepter == 0):  # a new delay is the batch's own draw
        assert expected_state.scepter_left == state.scepter_left, f"{where}: scepter_left"
    assert int(after["selected"]) == table.selected, f"{where}: selected {int(after['selected'])} != {table.selected}"
    assert bool(after["chance"]) == table.chance, f"{where}: chance"
    mask = np.zeros(PASS + 1, dtype=bool)
    mask[table.legal()] = True
    assert (after["legal"] == mask).all(), (
        f"{where}: legal {np.flatnonzero(after['legal']).tolist()} != engine {sorted(table.legal())}")
    role = Role.CHANCE if table.chance else None
    expected_obs = encode_observation(table.state.observe(table.selected), role)
    wrong = np.flatnonzero(expected_obs != obs)
    assert wrong.size == 0, (
        f"{where}: observation differs at {wrong.tolist()}: {obs[wrong]} != engine {expected_obs[wrong]}")


def check_batch(step_fn: Any, state: State, config: Config, a: Arrays, actions: Any, steps: int) -> dict[str, int]:
    """Step the batch ``steps`` times with ``actions(state) -> (B,)`` and check every game at every step."""
    seen: Counter[str] = Counter()
    batch = a.to_numpy(state.decision).shape[0]
    for t in range(steps):
        before = {name: a.to_numpy(value).copy() for name, value in state._asdict().items()}
        action = np.asarray(actions(state))
        state = step_fn(state, action)
        after_all = {name: a.to_numpy(value) for name, value in state._asdict().items()}
        obs_all = a.to_numpy(observe_float(state, config, a))
        assert not after_all["illegal"].any()
        for g in range(batch):
            b = {name: value[g] for name, value in before.items()}
            after = {name: value[g] for name, value in after_all.items()}
            table = engine_table(b, config)
            act = int(action[g])
            drew = [int(c) for c in after["drew"] if c != NONE]
            arrange_draws(table, b, act, drew)
            index = table.check(act)
            rewards = table.step(index)
            if drew and int(b["pile_size"]) < len(drew):
                seen["reshuffles"] += 1
            if table.chance or bool(b["chance"]):
                seen["chances"] += 1
            if CALL_UNO_ACTION < act < PASS:
                seen["catches"] += 1
            if JESTER <= act < CALL_UNO_ACTION and not bool(b["jester_for_setup"]):
                seen["fanfare jesters"] += 1
            if bool(after["dealt"]):
                seen["deals"] += 1
            seen["terminated"] += int(bool(after["terminated"]))
            compare(table, after, obs_all[g], rewards, config, f"step {t}, game {g}, action {act}")
            seen["steps"] += 1
    return dict(seen)
