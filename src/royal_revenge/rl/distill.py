"""``royal-revenge distill``: the expert network taught by the strongest search (one round of expert iteration).

The search on compiled rollouts (:class:`~royal_revenge.bots.search.SearchAgent` with ``rollouts="compiled"``,
6,400 rollouts to the end of the round) wins about 35% of 4-player rounds against three heuristic bots, the
network trained by self-play about 28%. Here the search plays one seat of 4-player single rounds, against three
heuristic bots in even games and three search bots of 200 rollouts (25 steps, as the ``search`` bot) in odd ones,
its seat rotating; each of its decisions with more than one legal action is kept (the observation as the
environments encode it, the legal mask, the action it chose). The network then learns to choose as it did
(cross-entropy on the masked logits), starting from the given weights, and is exported for the expert bot.

The gathered decisions are kept in ``--data`` (a ``.npz`` file): a later run adds its games to them (with
another ``--seed``), so the data grows across runs and the training can be run again on all of it. Needs
PyTorch (the ``train`` extra) and Numba (the ``numba`` extra).
"""

from __future__ import annotations

import multiprocessing
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..bots import HeuristicAgent, SearchAgent
from ..bots.base import Agent
from ..bots.expert import WEIGHTS, ExpertPolicy, features
from ..engine import AnyAction, GameOptions, GameState, Observation
from ..sim import play_game
from .encoding import NUM_ACTIONS, OBS_SIZE, action_index, encode_observation, legal_action_ints, role_of
from .train import Network, win_rate

__all__ = ["DistillConfig", "distill"]

SHARDS = 8
"""The games of a run are played in this many shards, shard ``s`` seeded by ``seed + s``."""


@dataclass(frozen=True)
class DistillConfig:
    """What ``royal-revenge distill`` runs (docs/rl.md, "The expert taught by the search")."""

    games: int = 1600  # teacher games to add to the data (0: train on the data as it is)
    rollouts: int = 6400  # the teacher's rollouts per decision
    seed: int = 1000  # the games' seed: a later run that adds games needs another
    workers: int = 2  # processes playing the games
    data: Path = Path("distill.npz")
    start: Path = WEIGHTS  # the weights the training starts from
    out: Path = Path("expert.npz")
    epochs: int = 25
    learning_rate: float = 3e-4
    minibatch: int = 512
    threads: int = 2
    eval_rounds: int = 400  # 4-player rounds against three heuristic bots, before and after (0: none)


class _Teacher:
    """The compiled search, keeping each decision it makes with more than one legal action."""

    name = "teacher"

    def __init__(self, seed: int, rollouts: int) -> None:
        self.search = SearchAgent(seed, iterations=rollouts, rollouts="compiled")
        self.observations: list[np.ndarray[Any, Any]] = []
        self.masks: list[np.ndarray[Any, Any]] = []
        self.labels: list[int] = []

    def act(self, observation: Observation, legal: Sequence[AnyAction]) -> AnyAction | None:
        action = self.search.act(observation, legal)
        seat = observation.seat
        if seat is not None and observation.pending.seat == seat and action is not None and len(legal) > 1:
            mask = np.zeros(NUM_ACTIONS, dtype=bool)
            mask[legal_action_ints(legal, seat, observation.players)] = True
            encoded = encode_observation(observation, role_of(observation.pending.kind))
            self.observations.append(np.minimum(encoded, 255).astype(np.uint8))
            self.masks.append(mask)
            self.labels.append(action_index(action, seat, observation.players))
        return action


def _shard(task: tuple[int, int, int]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The teacher's decisions in ``games`` rounds (a process of the pool)."""
    seed, games, rollouts = task
    rng = random.Random(seed)
    teacher = _Teacher(rng.getrandbits(32), rollouts)
    for game in range(games):
        seat = game % 4
        others: list[Agent]
        if game % 2 == 0:
            others = [HeuristicAgent(rng.getrandbits(32)) for _ in range(3)]
        else:
            others = [SearchAgent(rng.getrandbits(32), iterations=200, rollouts="compiled", rollout_steps=25)
                      for _ in range(3)]
        agents: list[Agent] = [*others[:seat], teacher, *others[seat:]]
        play_game(GameState.new(GameOptions(players=4, single_round=True), seed=rng.getrandbits(63)), agents)
    return (np.array(teacher.observations, dtype=np.uint8).reshape(-1, OBS_SIZE),
            np.array(teacher.masks, dtype=bool).reshape(-1, NUM_ACTIONS), np.array(teacher.labels, dtype=np.int64))


def gather(config: DistillConfig, log: Callable[[str], None]) -> dict[str, np.ndarray[Any, Any]]:
    """Play ``config.games`` teacher games and add their decisions to ``config.data`` (kept on disk)."""
    data = _load(config.data)
    if config.games:
        shares = [config.games // SHARDS + (1 if s < config.games % SHARDS else 0) for s in range(SHARDS)]
        tasks = [(config.seed + s, shares[s], config.rollouts) for s in range(SHARDS) if shares[s]]
        started = time.monotonic()
        log(f"playing {config.games} games of the search ({config.rollouts} compiled rollouts a decision) "
            f"on {config.workers} processes")
        with multiprocessing.get_context("spawn").Pool(config.workers) as pool:
            parts = pool.map(_shard, tasks, chunksize=1)
        for name, index in (("obs", 0), ("masks", 1), ("labels", 2)):
            data[name] = np.concatenate([data[name], *(part[index] for part in parts)])
        with open(config.data, "wb") as out:
            np.savez_compressed(out, obs=data["obs"], masks=data["masks"], labels=data["labels"])
        log(f"{sum(len(part[2]) for part in parts)} decisions in {time.monotonic() - started:.0f} s; "
            f"{len(data['labels'])} in {config.data}")
    return data


def _load(path: Path) -> dict[str, np.ndarray[Any, Any]]:
    if not path.is_file():
        return {"obs": np.zeros((0, OBS_SIZE), dtype=np.uint8),
                "masks": np.zeros((0, NUM_ACTIONS), dtype=bool), "labels": np.zeros(0, dtype=np.int64)}
    with np.load(path) as saved:
        if set(saved.files) != {"obs", "masks", "labels"}:
            raise ValueError(f"{path} is not a file of decisions written by royal-revenge distill")
        return {name: saved[name] for name in ("obs", "masks", "labels")}


def fit(config: DistillConfig, data: dict[str, np.ndarray[Any, Any]], log: Callable[[str], None]) -> ExpertPolicy:
    """The network of ``config.start``, trained to choose as the teacher did (a tenth of the decisions held out)."""
    if len(data["labels"]) < 100:
        raise ValueError(f"only {len(data['labels'])} decisions to learn from: play more games (--games)")
    torch.manual_seed(0)
    torch.set_num_threads(config.threads)
    start = ExpertPolicy.load(config.start)
    hidden = start.layers[0][0].shape[1]
    network = Network(hidden, len(start.layers) - 1)
    linears = [m for m in network.body if isinstance(m, torch.nn.Linear)] + [network.logits]
    if [tuple(m.weight.shape) for m in linears] != [tuple(w.T.shape) for w, _ in start.layers]:
        raise ValueError(f"{config.start} is not a network of the expert bot's shape")
    with torch.no_grad():
        for module, (weights, biases) in zip(linears, start.layers, strict=True):
            module.weight.copy_(torch.from_numpy(weights.T.copy()))
            module.bias.copy_(torch.from_numpy(biases.copy()))
    inputs = torch.from_numpy(features(data["obs"]))
    masks = torch.from_numpy(data["masks"])
    labels = torch.from_numpy(data["labels"].astype(np.int64))
    order = torch.randperm(len(labels))
    held_out, training = order[: len(labels) // 10], order[len(labels) // 10:]
    optimiser = torch.optim.Adam(network.parameters(), lr=config.learning_rate)

    def agreement(rows: torch.Tensor) -> tuple[float, float]:
        with torch.no_grad():
            logits, _ = network(inputs[rows], masks[rows])
            loss = torch.nn.functional.cross_entropy(logits, labels[rows]).item()
            return float((logits.argmax(1) == labels[rows]).float().mean().item()), loss

    log(f"{len(labels)} decisions; the start agrees with the search on {agreement(held_out)[0]:.1%} of those held out")
    for epoch in range(config.epochs):
        shuffled = training[torch.randperm(len(training))]
        for first in range(0, len(shuffled), config.minibatch):
            rows = shuffled[first:first + config.minibatch]
            logits, _ = network(inputs[rows], masks[rows])
            loss = torch.nn.functional.cross_entropy(logits, labels[rows])
            optimiser.zero_grad()
            torch.autograd.backward(loss)
            optimiser.step()
        agree, held_loss = agreement(held_out)
        log(f"epoch {epoch + 1}/{config.epochs}: agrees with the search on {agree:.1%} of the decisions held out "
            f"(loss {held_loss:.3f})")
    info = {**start.info, "distilled": {"decisions": len(labels), "teacher_rollouts": config.rollouts,
                                        "epochs": config.epochs, "learning_rate": config.learning_rate,
                                        "from": str(config.start.name)}}
    return network.export(info)


def distill(config: DistillConfig, log: Callable[[str], None] = print) -> ExpertPolicy:
    """Gather the search's decisions, teach them to the network, evaluate and write ``config.out``."""
    data = gather(config, log)
    policy = fit(config, data, log)
    if config.eval_rounds:
        for name, weights in (("the start", ExpertPolicy.load(config.start)), ("the taught network", policy)):
            wins, rounds = win_rate(weights, config.eval_rounds, seed=config.seed)
            log(f"{name} won {wins} of {rounds} rounds ({wins / rounds:.1%}) against three heuristic bots")
    policy.save(config.out)
    log(f"weights written to {config.out}")
    return policy
