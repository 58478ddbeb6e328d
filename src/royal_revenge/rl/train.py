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
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
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

__all__ = ["TABLES", "TrainConfig", "Network", "train", "win_rate"]

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


def train(config: TrainConfig, log: Callable[[str], None] = print) -> ExpertPolicy:
    """Train (or, with ``config.resume``, go on training) and return the exported policy."""
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

    # A resumed run deals new games (seeded by the updates done), so it goes on rather than repeating.
    envs = [BatchEnv(games, players, reward="win", episode="round", backend=config.backend,
                     seed=config.seed * 1_000_003 + progress["updates"] * 7 + players)
            for players, games in config.tables]
    outs = [env.reset() for env in envs]
    # Games against the heuristic bot, one at a time on the engine (the learner's seat drawn every round).
    duels = [RoyalRevengeEnv(4, opponents="heuristic", learner_seat=None, reward="win")
             for _ in range(config.heuristic_games)]
    duel_seed = config.seed * 1_000_003 + progress["updates"] * 100_003
    duel_obs = [duel.reset(seed=duel_seed + i)[0] for i, duel in enumerate(duels)]
    duel_results: list[float] = []
    selfplay = sum(env.num_games for env in envs)
    batch = selfplay + len(duels)
    steps = config.steps
    obs_buffer = np.zeros((steps, batch, OBS_SIZE), dtype=np.uint8)
    mask_buffer = np.zeros((steps, batch, NUM_ACTIONS), dtype=bool)
    action_buffer = np.zeros((steps, batch), dtype=np.int64)
    logp_buffer = np.zeros((steps, batch), dtype=np.float32)
    value_buffer = np.zeros((steps, batch), dtype=np.float32)
    agent_buffer = np.zeros((steps, batch), dtype=np.int64)
    reward_buffer = np.zeros((steps, batch, MAX_SEATS), dtype=np.float32)
    done_buffer = np.zeros((steps, batch), dtype=bool)
    bounds = np.cumsum([0] + [env.num_games for env in envs])

    def info() -> dict[str, Any]:
        return {**{k: progress[k] for k in ("updates", "decisions", "rounds")},
                "minutes": round(progress["seconds"] / 60, 1),
                "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(config).items()
                           if k not in ("checkpoint", "export", "resume")},
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
        rounds = 0
        for t in range(steps):
            obs = np.concatenate([out.observation for out in outs]
                                 + [_compact(seen["observation"]) for seen in duel_obs])
            mask = np.concatenate([out.action_mask for out in outs]
                                  + [seen["action_mask"][None, :] for seen in duel_obs]).astype(bool)
            with torch.no_grad():
                logits, value = net(torch.from_numpy(features(obs)), torch.from_numpy(mask))
                logp = torch.log_softmax(logits, dim=-1)
                action = torch.multinomial(logp.exp(), 1).squeeze(-1)
            obs_buffer[t], mask_buffer[t] = obs, mask
            action_buffer[t] = action.numpy()
            logp_buffer[t] = logp.gather(1, action[:, None]).squeeze(-1).numpy()
            value_buffer[t] = value.numpy()
            if outs:
                agent_buffer[t, :selfplay] = np.concatenate([out.agent for out in outs])
            agent_buffer[t, selfplay:] = 0  # (a duel's rewards are the learner's: its column 0)
            chosen = action_buffer[t]
            outs = [env.step(chosen[bounds[i]:bounds[i + 1]]) for i, env in enumerate(envs)]
            for i, out in enumerate(outs):
                reward_buffer[t, bounds[i]:bounds[i + 1], :out.rewards.shape[1]] = out.rewards
                done_buffer[t, bounds[i]:bounds[i + 1]] = out.terminated | out.truncated
            for i, duel in enumerate(duels):
                seen, reward, terminated, truncated, _ = duel.step(int(chosen[selfplay + i]))
                reward_buffer[t, selfplay + i, 0] = float(reward)
                done_buffer[t, selfplay + i] = over = terminated or truncated
                if over:
                    duel_results.append(float(reward) > 0)
                    seen, _ = duel.reset()
                duel_obs[i] = seen
            rounds += int(done_buffer[t].sum())
        # Every seat's value where the rollout stops, for the decisions whose round goes on.
        bootstrap = np.zeros((batch, MAX_SEATS), dtype=np.float32)
        with torch.no_grad():
            for i, env in enumerate(envs):
                games = env.num_games
                for seat in range(env.players):
                    observe: Any = env.functions.observe  # (it takes the seats to observe for)
                    seen = observe(env.state, seat=np.full(games, seat, dtype=np.int32))
                    # (the mask does not change the value)
                    _, v = net(torch.from_numpy(features(seen)), torch.ones((games, NUM_ACTIONS), dtype=torch.bool))
                    bootstrap[bounds[i]:bounds[i + 1], seat] = v.numpy()
            if duels:
                duel_mask = torch.from_numpy(np.stack([seen["action_mask"] for seen in duel_obs]).astype(bool))
                _, v = net(torch.from_numpy(features(np.stack([seen["observation"] for seen in duel_obs]))),
                           duel_mask)
                bootstrap[selfplay:, 0] = v.numpy()
        advantages = _advantages(value_buffer, agent_buffer, reward_buffer, done_buffer, bootstrap, config.lam)
        returns = advantages + value_buffer
        n = steps * batch
        b_inputs = torch.from_numpy(features(obs_buffer.reshape(n, OBS_SIZE)))
        b_mask = torch.from_numpy(mask_buffer.reshape(n, NUM_ACTIONS))
        b_action = torch.from_numpy(action_buffer.reshape(n))
        b_logp = torch.from_numpy(logp_buffer.reshape(n))
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
        progress["rounds"] += rounds
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
