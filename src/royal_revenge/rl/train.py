"""Self-play training of the expert bot's policy (``royal-revenge train``; PyTorch on the CPU).

One network plays every seat of thousands of games at once on the batched core
(:class:`~royal_revenge.rl.batch.BatchEnv`, every decision of the game: plays with and without UNO,
draws, keeps, the King's choices, late calls, catches and passes), at every table size from 2 to 6
players, one round per episode, the win/loss reward (the winner +1, the others share -1). It learns
by PPO with action masking: a clipped surrogate, a value baseline and advantages estimated per seat
(GAE over each seat's own decisions in its game, undiscounted: only the round's result counts).

Progress is logged every few updates. Every ``eval_every`` updates the policy is exported and plays
single 4-player rounds against three heuristic bots on the engine (the bot under test rotating through
the seats), with a 95% interval. A checkpoint (network, optimiser, counters, the random streams' place)
is written after every evaluation, so ``resume`` goes on where training stopped; the weights for the
``expert`` bot (NumPy, :class:`~royal_revenge.bots.expert.ExpertPolicy`) are exported beside it.

The network: the 292 inputs of :func:`~royal_revenge.bots.expert.features`, ``layers`` hidden layers of
``hidden`` ReLU units, a head of 124 logits (illegal ones masked) and a value head (training only).
"""

from __future__ import annotations

import itertools
import random
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import numpy as np

try:
    import torch
    from torch import nn
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError("training needs PyTorch: pip install 'royal-revenge[rl,train]'") from error

from ..bots.expert import ExpertAgent, ExpertPolicy, features
from ..bots.heuristic import HeuristicAgent
from ..engine import GameOptions, GameState
from ..sim import play_game
from ..sim.tournament import wilson_interval
from .batch import BatchEnv
from .encoding import NUM_ACTIONS, OBS_SIZE
from .gym_env import RoyalRevengeEnv

__all__ = ["TABLES", "TrainConfig", "TrainingError", "Network", "Rollout", "RolloutShard", "train", "win_rate"]

TABLES: Final = ((2, 128), (3, 128), (4, 512), (5, 128), (6, 128))
"""(players, games) trained at once: every table size, four-player tables the most."""
MAX_SEATS: Final = 6


@dataclass
class TrainConfig:
    """What ``royal-revenge train`` runs (docs/rl.md, "The expert bot")."""

    minutes: float = 30.0  # training time (evaluations not counted)
    updates: int = 0  # or stop after this many updates (0: by time)
    steps: int = 32  # decisions per game per rollout
    epochs: int = 4
    minibatch: int = 4096
    learning_rate: float = 1e-3
    lam: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    hidden: int = 256
    layers: int = 2
    seed: int = 0
    threads: int = 1
    eval_every: int = 25  # updates (0: only at the end)
    eval_rounds: int = 400
    backend: str = "numba"
    checkpoint: Path = Path("expert.pt")
    export: Path = Path("expert.npz")
    resume: bool = False
    tables: tuple[tuple[int, int], ...] = field(default=TABLES)
    heuristic_games: int = 512  # 4-player games against three heuristic bots, beside the self-play
    shards: int = 1  # the games are split into this many shares, each played by a RolloutShard (0: one per CPU
    # of the Ray cluster, or 1 without Ray)
    ray_address: str | None = None  # play the shards on this Ray cluster (None: in this process)


class Network(nn.Module):
    """Masked policy logits and a value from the features of an observation."""

    def __init__(self, hidden: int = 256, layers: int = 2) -> None:
        super().__init__()
        sizes = [OBS_SIZE] + [hidden] * layers
        self.body = nn.Sequential(*(module for a, b in itertools.pairwise(sizes)
                                    for module in (nn.Linear(a, b), nn.ReLU())))
        self.logits = nn.Linear(hidden, NUM_ACTIONS)
        self.value = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.logits.weight, 0.01)
        nn.init.zeros_(self.logits.bias)

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(inputs)
        logits = self.logits(h).masked_fill(~mask, -1e9)  # an illegal action gets probability 0
        return logits, self.value(h).squeeze(-1)

    def export(self, info: dict[str, Any]) -> ExpertPolicy:
        """The policy part as NumPy weights (the value head is for training only)."""
        linears = [m for m in self.body if isinstance(m, nn.Linear)] + [self.logits]
        return ExpertPolicy([(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
                             for m in linears], info)


def win_rate(policy: ExpertPolicy, rounds: int, seed: int) -> tuple[int, int]:
    """(wins, rounds) of the policy in single 4-player rounds against three heuristic bots, rotating seats."""
    rng = random.Random(seed)
    wins = 0
    for index in range(rounds):
        seat = index % 4
        agents = [ExpertAgent(weights=policy) if s == seat else HeuristicAgent(rng.getrandbits(32))
                  for s in range(4)]
        state = GameState.new(GameOptions(players=4, single_round=True), seed=rng.getrandbits(63))
        log = play_game(state, agents)
        wins += log.rounds[-1].winner == seat
    return wins, rounds


def _compact(observation: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """An engine observation (292,) float32 as the batched core's compact row (1, 292) uint8."""
    row: np.ndarray[Any, Any] = np.minimum(observation, 255).astype(np.uint8)[None, :]
    return row


def _advantages(values: np.ndarray[Any, Any], agents: np.ndarray[Any, Any], rewards: np.ndarray[Any, Any],
                done: np.ndarray[Any, Any], bootstrap: np.ndarray[Any, Any], lam: float) -> np.ndarray[Any, Any]:
    """GAE (undiscounted) over each seat's own decisions in its game.

    ``values``, ``agents``, ``done``: (T, B); ``rewards``: (T, B, seats), what every seat earned in each
    step; ``bootstrap``: (B, seats), every seat's value after the last step. A seat's next decision may
    be several steps later; the rewards of the steps between (a round's result comes in another seat's
    step) are its reward; an episode's end cuts the chain.
    """
    steps, batch = values.shape
    rows = np.arange(batch)
    next_value = bootstrap.astype(np.float32).copy()
    next_advantage = np.zeros_like(next_value)
    pending = np.zeros_like(next_value)
    advantages = np.zeros((steps, batch), dtype=np.float32)
    for t in reversed(range(steps)):
        ended = done[t]
        next_value[ended] = 0.0
        next_advantage[ended] = 0.0
        pending[ended] = 0.0
        pending += rewards[t]
        seat = agents[t]
        delta = pending[rows, seat] + next_value[rows, seat] - values[t]
        advantage = delta + lam * next_advantage[rows, seat]
        advantages[t] = advantage
        next_value[rows, seat] = values[t]
        next_advantage[rows, seat] = advantage
        pending[rows, seat] = 0.0
    return advantages


def _share(total: int, shards: int, shard: int) -> range:
    """The indices of ``total`` games that shard ``shard`` of ``shards`` plays (near-equal shares, in order)."""
    per, extra = divmod(total, shards)
    first = shard * per + min(shard, extra)
    return range(first, first + per + (shard < extra))


def _seed(seed: int, *key: int) -> int:
    """A seed for one use within a training of seed ``seed``: NumPy's SeedSequence of the training's seed and a
    key naming the use (a tag, then the updates done, the shard, ...): different keys give unrelated seeds."""
    return int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1)[0])


class TrainingError(RuntimeError):
    """The training cannot go on (a shard failed on the Ray cluster); the message says why in plain words."""


@dataclass
class Rollout:
    """What a shard's games gave in one rollout: arrays (steps, games, ...), the shard's games as columns."""

    observations: np.ndarray[Any, Any]  # (T, B, 292) uint8: the compact observation of the seat to decide
    masks: np.ndarray[Any, Any]  # (T, B, 124) bool
    actions: np.ndarray[Any, Any]  # (T, B) int64
    log_probs: np.ndarray[Any, Any]  # (T, B) float32: of the action taken, when it was taken
    values: np.ndarray[Any, Any]  # (T, B) float32
    agents: np.ndarray[Any, Any]  # (T, B) int64: the seat that decided (a duel's learner is column 0)
    rewards: np.ndarray[Any, Any]  # (T, B, 6) float32: what every seat earned in the step
    done: np.ndarray[Any, Any]  # (T, B) bool: the step ended its round
    bootstrap: np.ndarray[Any, Any]  # (B, 6) float32: every seat's value where the rollout stops
    rounds: int
    duel_results: list[bool]  # the learner's wins and losses in the rounds against heuristic bots


class RolloutShard:
    """A share of the training games, played by the network it is sent: in the learner's process, or on a Ray
    cluster as an actor (``train --ray``).

    Shard ``shard`` of ``config.shards`` plays its share of every table size's self-play games and of the
    games against heuristic bots (the same deals wherever it runs: they are seeded by the training's seed,
    the updates done and the shard). A rollout's actions are drawn with the seed it is given, so the same
    weights and seed give the same rollout in any process.
    """

    def __init__(self, config: TrainConfig, shard: int, updates_done: int) -> None:
        with torch.random.fork_rng():  # (its weights come with every rollout: the learner's random stream is
            self.net = Network(config.hidden, config.layers)  # not touched, wherever the shard is made)
        # A resumed run deals new games (seeded by the updates done), so it goes on rather than repeating.
        self.envs = [BatchEnv(len(share), players, reward="win", episode="round", backend=config.backend,
                              seed=_seed(config.seed, 0, updates_done, shard, players))
                     for players, games in config.tables if (share := _share(games, config.shards, shard))]
        # Games against the heuristic bot, one at a time on the engine (the learner's seat drawn every round).
        duels = _share(config.heuristic_games, config.shards, shard)
        self.duels = [RoyalRevengeEnv(4, opponents="heuristic", learner_seat=None, reward="win") for _ in duels]
        first_seed = _seed(config.seed, 1, updates_done)
        self.duel_obs = [duel.reset(seed=first_seed + i)[0] for i, duel in zip(duels, self.duels, strict=True)]
        self.outs = [env.reset() for env in self.envs]
        self.bounds = np.cumsum([0] + [env.num_games for env in self.envs])
        self.selfplay = int(self.bounds[-1])
        self.games = self.selfplay + len(self.duels)

    def collect(self, weights: dict[str, torch.Tensor], steps: int, seed: int) -> Rollout:
        """Play ``steps`` decisions in every game with these network weights; the games go on next time."""
        net, envs, duels, selfplay, bounds = self.net, self.envs, self.duels, self.selfplay, self.bounds
        net.load_state_dict(weights)
        draw = torch.Generator().manual_seed(seed)
        games = self.games
        out = Rollout(observations=np.zeros((steps, games, OBS_SIZE), dtype=np.uint8),
                      masks=np.zeros((steps, games, NUM_ACTIONS), dtype=bool),
                      actions=np.zeros((steps, games), dtype=np.int64),
                      log_probs=np.zeros((steps, games), dtype=np.float32),
                      values=np.zeros((steps, games), dtype=np.float32),
                      agents=np.zeros((steps, games), dtype=np.int64),
                      rewards=np.zeros((steps, games, MAX_SEATS), dtype=np.float32),
                      done=np.zeros((steps, games), dtype=bool),
                      bootstrap=np.zeros((games, MAX_SEATS), dtype=np.float32), rounds=0, duel_results=[])
        for t in range(steps):
            obs = np.concatenate([seen.observation for seen in self.outs]
                                 + [_compact(seen["observation"]) for seen in self.duel_obs])
            mask = np.concatenate([seen.action_mask for seen in self.outs]
                                  + [seen["action_mask"][None, :] for seen in self.duel_obs]).astype(bool)
            with torch.no_grad():
                logits, value = net(torch.from_numpy(features(obs)), torch.from_numpy(mask))
                logp = torch.log_softmax(logits, dim=-1)
                action = torch.multinomial(logp.exp(), 1, generator=draw).squeeze(-1)
            out.observations[t], out.masks[t] = obs, mask
            out.actions[t] = action.numpy()
            out.log_probs[t] = logp.gather(1, action[:, None]).squeeze(-1).numpy()
            out.values[t] = value.numpy()
            if self.outs:
                out.agents[t, :selfplay] = np.concatenate([seen.agent for seen in self.outs])
            out.agents[t, selfplay:] = 0  # (a duel's rewards are the learner's: its column 0)
            chosen = out.actions[t]
            self.outs = [env.step(chosen[bounds[i]:bounds[i + 1]]) for i, env in enumerate(envs)]
            for i, seen in enumerate(self.outs):
                out.rewards[t, bounds[i]:bounds[i + 1], :seen.rewards.shape[1]] = seen.rewards
                out.done[t, bounds[i]:bounds[i + 1]] = seen.terminated | seen.truncated
            for i, duel in enumerate(duels):
                duel_seen, reward, terminated, truncated, _ = duel.step(int(chosen[selfplay + i]))
                out.rewards[t, selfplay + i, 0] = float(reward)
                out.done[t, selfplay + i] = over = terminated or truncated
                if over:
                    out.duel_results.append(float(reward) > 0)
                    duel_seen, _ = duel.reset()
                self.duel_obs[i] = duel_seen
            out.rounds += int(out.done[t].sum())
        # Every seat's value where the rollout stops, for the decisions whose round goes on.
        with torch.no_grad():
            for i, env in enumerate(envs):
                count = env.num_games
                for seat in range(env.players):
                    observe: Any = env.functions.observe  # (it takes the seats to observe for)
                    seen_by = observe(env.state, seat=np.full(count, seat, dtype=np.int32))
                    # (the mask does not change the value)
                    _, v = net(torch.from_numpy(features(seen_by)), torch.ones((count, NUM_ACTIONS), dtype=torch.bool))
                    out.bootstrap[bounds[i]:bounds[i + 1], seat] = v.numpy()
            if duels:
                duel_mask = torch.from_numpy(np.stack([seen["action_mask"] for seen in self.duel_obs]).astype(bool))
                _, v = net(torch.from_numpy(features(np.stack([seen["observation"] for seen in self.duel_obs]))),
                           duel_mask)
                out.bootstrap[selfplay:, 0] = v.numpy()
        return out


def _ray_failure(error: Exception) -> str:
    """What went wrong on the Ray cluster, in one line: the shard's own exception when Ray keeps it, else the
    last line of Ray's message (the remote traceback ends with it), without the terminal's colour codes."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {cause}"
    lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", str(error)).splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__


def _joined(rollouts: list[Rollout]) -> Rollout:
    """The shards' rollouts as one, the shards' games side by side in shard order (new arrays: a rollout that came
    from Ray is read-only)."""
    arrays = {name: np.concatenate([getattr(r, name) for r in rollouts], axis=0 if name == "bootstrap" else 1)
              for name in ("observations", "masks", "actions", "log_probs", "values", "agents", "rewards", "done",
                           "bootstrap")}
    return Rollout(**arrays, rounds=sum(r.rounds for r in rollouts),
                   duel_results=[won for r in rollouts for won in r.duel_results])


def train(config: TrainConfig, log: Callable[[str], None] = print) -> ExpertPolicy:
    """Train (or, with ``config.resume``, go on training) and return the exported policy.

    With ``config.ray_address`` the rollout shards play on that Ray cluster (the ``ray`` extra; ``"auto"``:
    the cluster on this machine, or else a local one), one actor each; the learner stays in this process.
    The same configuration (seed, shards) trains the same network there as here, at ``threads`` 1.
    """
    if config.ray_address is None:
        return _train(config, log, ray=None)
    from ..sim.tournament import ray_session

    with ray_session(config.ray_address) as ray:
        return _train(config, log, ray)


def _train(config: TrainConfig, log: Callable[[str], None], ray: Any) -> ExpertPolicy:
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    net = Network(config.hidden, config.layers)
    optimiser = torch.optim.Adam(net.parameters(), lr=config.learning_rate, eps=1e-5)
    progress: dict[str, Any] = {"updates": 0, "decisions": 0, "rounds": 0, "seconds": 0.0}
    evaluations: list[dict[str, Any]] = []
    if config.resume:
        if not config.checkpoint.is_file():
            raise FileNotFoundError(f"nothing to resume: no checkpoint at {config.checkpoint}")
        saved = torch.load(config.checkpoint, weights_only=False)
        if (saved["hidden"], saved["layers"]) != (config.hidden, config.layers):
            raise ValueError(f"the checkpoint's network has {saved['layers']} layers of {saved['hidden']}, "
                             f"not {config.layers} of {config.hidden}")
        net.load_state_dict(saved["net"])
        optimiser.load_state_dict(saved["optimiser"])
        for group in optimiser.param_groups:
            group["lr"] = config.learning_rate  # (a resumed run may go on at another rate)
        progress, evaluations = saved["progress"], saved["evaluations"]
        torch.set_rng_state(saved["torch_rng"])
        log(f"resumed from {config.checkpoint}: {progress['updates']} updates, {progress['decisions']:,} "
            f"decisions, {progress['seconds'] / 60:.1f} min of training")

    # A shard plays one game of a kind for each of its index below that kind's count: more shards than the
    # most games of one kind would leave some with none.
    most = max([games for _, games in config.tables] + [config.heuristic_games])
    if config.shards > most:
        raise ValueError(f"{config.shards} shards are more than there are games to share: at most {most}")
    if ray is None:
        config = replace(config, shards=config.shards or 1)
        shards: list[Any] = [RolloutShard(config, shard, progress["updates"]) for shard in range(config.shards)]
    else:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        config = replace(config, shards=config.shards or min(cpus, most))
        # One CPU a shard; more shards than CPUs share them (an actor holds its CPUs while it lives, so whole
        # CPUs for every shard would leave the ones beyond the cluster's waiting forever).
        remote_shard = ray.remote(num_cpus=min(1.0, cpus / config.shards))(RolloutShard)
        shards = [remote_shard.remote(config, shard, progress["updates"]) for shard in range(config.shards)]
        log(f"playing the games in {config.shards} shard(s) on a Ray cluster of {cpus} CPU(s)")
    duel_results: list[bool] = []

    def info() -> dict[str, Any]:
        return {**{k: progress[k] for k in ("updates", "decisions", "rounds")},
                "minutes": round(progress["seconds"] / 60, 1),
                "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(config).items()
                           if k not in ("checkpoint", "export", "resume", "ray_address")},
                "evaluations": evaluations}

    def evaluate_and_save() -> ExpertPolicy:
        policy = net.export(info())
        if config.eval_rounds:
            wins, rounds = win_rate(policy, config.eval_rounds, seed=10_007)
            low, high = wilson_interval(wins, rounds)
            evaluations.append({"updates": progress["updates"], "decisions": progress["decisions"],
                                "won": wins, "rounds": rounds})
            log(f"  evaluation after {progress['updates']} updates ({progress['seconds'] / 60:.1f} min): won "
                f"{wins / rounds:.1%} of {rounds} 4-player rounds against 3 heuristic bots (95%: {low:.1%}-"
                f"{high:.1%}; an equal seat wins 25%)")
            policy.info = info()  # (the description now holds this evaluation)
        torch.save({"net": net.state_dict(), "optimiser": optimiser.state_dict(), "progress": progress,
                    "evaluations": evaluations, "hidden": config.hidden, "layers": config.layers,
                    "torch_rng": torch.get_rng_state()}, config.checkpoint)
        policy.save(config.export)
        return policy

    first = progress["updates"]
    deadline = time.monotonic() + config.minutes * 60
    policy: ExpertPolicy | None = None
    while (config.updates and progress["updates"] < first + config.updates) or (
            not config.updates and time.monotonic() < deadline):
        started = time.perf_counter()
        weights = {name: tensor.detach().clone() for name, tensor in net.state_dict().items()}
        seeds = [_seed(config.seed, 2, progress["updates"], shard) for shard in range(config.shards)]
        if ray is None:
            rollouts = [shard.collect(weights, config.steps, seed) for shard, seed in zip(shards, seeds, strict=True)]
        else:
            shared = ray.put(weights)  # (sent to the cluster once for all the shards)
            try:
                rollouts = ray.get([shard.collect.remote(shared, config.steps, seed)
                                    for shard, seed in zip(shards, seeds, strict=True)])
            except ray.exceptions.RayError as error:
                raise TrainingError(f"a shard failed on the Ray cluster ({_ray_failure(error)}); the "
                                    f"last checkpoint is in {config.checkpoint}, and --resume goes on from it. "
                                    "Every machine of the cluster needs royal-revenge[rl,train] (and [numba] for "
                                    "the numba backend)") from None
        rollout = _joined(rollouts)
        duel_results.extend(rollout.duel_results)
        advantages = _advantages(rollout.values, rollout.agents, rollout.rewards, rollout.done, rollout.bootstrap,
                                 config.lam)
        returns = advantages + rollout.values
        n = advantages.size
        b_inputs = torch.from_numpy(features(rollout.observations.reshape(n, OBS_SIZE)))
        b_mask = torch.from_numpy(rollout.masks.reshape(n, NUM_ACTIONS))
        b_action = torch.from_numpy(rollout.actions.reshape(n))
        b_logp = torch.from_numpy(rollout.log_probs.reshape(n))
        b_return = torch.from_numpy(returns.reshape(n))
        b_adv = torch.from_numpy(advantages.reshape(n))
        b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
        stats = np.zeros(4)
        for _ in range(config.epochs):
            order = torch.randperm(n)
            for start in range(0, n, config.minibatch):
                idx = order[start:start + config.minibatch]
                logits, value = net(b_inputs[idx], b_mask[idx])
                logp = torch.log_softmax(logits, dim=-1)
                log_ratio = logp.gather(1, b_action[idx][:, None]).squeeze(-1) - b_logp[idx]
                ratio = log_ratio.exp()
                surrogate = torch.min(ratio * b_adv[idx], ratio.clamp(1 - config.clip, 1 + config.clip) * b_adv[idx])
                value_loss = (value - b_return[idx]).pow(2).mean()
                entropy = -(logp.exp() * logp).sum(-1).mean()  # (an illegal action's probability is 0)
                loss = -surrogate.mean() + 0.5 * value_loss - config.entropy * entropy
                optimiser.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                optimiser.step()
                with torch.no_grad():
                    stats += (1, value_loss.item(), entropy.item(), ((ratio - 1) - log_ratio).mean().item())
        progress["updates"] += 1
        progress["decisions"] += n
        progress["rounds"] += rollout.rounds
        progress["seconds"] += time.perf_counter() - started
        if progress["updates"] % 5 == 0:
            count = stats[0]
            log(f"update {progress['updates']}: {progress['decisions']:,} decisions, {progress['rounds']:,} rounds, "
                f"{progress['seconds'] / 60:.1f} min; value loss {stats[1] / count:.3f}, entropy "
                f"{stats[2] / count:.3f}, approx. KL {stats[3] / count:.4f}"
                + (f"; won {np.mean(duel_results[-2000:]):.1%} of the last {len(duel_results[-2000:])} training "
                   "rounds against heuristic bots" if duel_results else ""))
        if config.eval_every and progress["updates"] % config.eval_every == 0:
            policy = evaluate_and_save()
    if policy is None or (config.eval_every and progress["updates"] % config.eval_every):
        policy = evaluate_and_save()
    return policy
