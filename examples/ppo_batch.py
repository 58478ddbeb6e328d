#!/usr/bin/env python3
"""PPO with action masking on the batched core (PyTorch, CPU): one learner against Random bots.

    pip install -e '.[rl,train]'      # PyTorch (CPU); the dev install has it
    .venv/bin/python examples/ppo_batch.py --players 4 --minutes 10 --out ppo.pt
    .venv/bin/python examples/ppo_batch.py --players 4 --minutes 10 --out ppo.pt --resume    # goes on from ppo.pt

The learner plays through :class:`royal_revenge.rl.batch.RoyalRevengeVectorEnv`: ``--envs`` games at once
(1,024 by default), its seat drawn per game at every new round, Random bots on the batch in the other
seats, one round per episode and the win/loss reward (+1 for the winner; the losers share -1). The policy
and the value are one small network (two hidden layers of 256) over the 292 observation values; the
policy's logits are masked to the legal actions (an illegal action gets probability 0, so the learner
never chooses one). PPO (clipped surrogate, GAE) learns from rollouts of ``--steps`` learner decisions per
game.

Progress is logged every update (learner decisions, episodes, the rolling win rate against the Random
bots, the losses). Every ``--eval-every`` updates and at the end, the greedy policy (the most probable
legal action) plays ``--eval-games`` fresh rounds against Random bots (on the batch) and against the
Heuristic bot (the library's, through the single-game ``gym_env``), and the win rates are printed with
95% Wilson intervals next to what an equal seat wins (1 in ``players``). The network, the optimiser and
the counters are saved in ``--out`` after every evaluation; ``--resume`` goes on from there.

This is an example, not part of the library.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - depends on the installation
    raise SystemExit("this example needs PyTorch: pip install -e '.[rl,train]' (or pip install torch)") from None

try:
    from royal_revenge.rl.batch import RoyalRevengeVectorEnv
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from royal_revenge.rl.batch import RoyalRevengeVectorEnv

from royal_revenge.rl import gym_env
from royal_revenge.rl.encoding import NUM_ACTIONS, OBS_SIZE

# The observation's counts are small (a hand holds at most a few of a face; the pile up to 56): a fixed
# scale keeps every input near [0, 1] without learning a normaliser.
_SCALE = 1.0 / 8.0


class Policy(nn.Module):
    """Masked policy logits and a value from the observation."""

    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.logits = nn.Linear(hidden, NUM_ACTIONS)
        self.value = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.logits.weight, 0.01)
        nn.init.zeros_(self.logits.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(obs.float().clamp(max=255.0) * _SCALE)
        logits = self.logits(h).masked_fill(~mask, -1e9)  # illegal actions: probability 0
        return logits, self.value(h).squeeze(-1)

    @torch.no_grad()
    def greedy(self, obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        logits, _ = self(torch.as_tensor(obs), torch.as_tensor(mask, dtype=torch.bool))
        return logits.argmax(dim=-1).numpy()


def wilson(wins: float, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    z, p = 1.96, wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def win_rate_against_random(net: Policy, players: int, games: int, seed: int) -> tuple[int, int]:
    """(wins, rounds) of the greedy policy against Random bots on the batch (a win: the round's +1)."""
    envs = min(games, 512)
    env = RoyalRevengeVectorEnv(envs, players=players, learner_seat=None, reward="win", seed=seed)
    obs, _ = env.reset(seed=seed)
    wins = rounds = 0
    counted = np.zeros(envs, dtype=bool)  # (each game's first round only, so that long rounds count fully)
    while not counted.all():
        obs, reward, terminated, truncated, _ = env.step(net.greedy(obs["observation"], obs["action_mask"]))
        ended = (terminated | truncated) & ~counted
        wins += int((reward[ended] > 0).sum())
        rounds += int(ended.sum())
        counted |= ended
    return wins, rounds


def win_rate_against(net: Policy, bots: str, players: int, games: int, seed: int) -> tuple[int, int]:
    """(wins, rounds) of the greedy policy against the library's bots, one game at a time (``gym_env``)."""
    env = gym_env(players=players, opponents=bots, learner_seat=None, reward="win")
    wins = 0
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        reward, done = 0.0, False
        while not done:
            action = net.greedy(obs["observation"][None, :], obs["action_mask"][None, :].astype(bool))[0]
            obs, reward, terminated, truncated, _ = env.step(int(action))
            done = terminated or truncated
        wins += float(reward) > 0
    return wins, games


def evaluate(net: Policy, args: argparse.Namespace, seed: int) -> dict[str, tuple[int, int]]:
    return {
        "random": win_rate_against_random(net, args.players, args.eval_games, seed),
        "heuristic": win_rate_against(net, "heuristic", args.players, args.eval_heuristic_games, seed),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--envs", type=int, default=1024, help="games played at once (default 1024)")
    parser.add_argument("--steps", type=int, default=32, help="learner decisions per game per rollout (32)")
    parser.add_argument("--minutes", type=float, default=10.0, help="training time (default 10)")
    parser.add_argument("--updates", type=int, default=0, help="stop after this many updates (0: by time)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--minibatch", type=int, default=8192)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--gamma", type=float, default=0.995)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--eval-every", type=int, default=25, help="evaluate every this many updates")
    parser.add_argument("--eval-games", type=int, default=2000, help="rounds against Random (default 2000)")
    parser.add_argument("--eval-heuristic-games", type=int, default=400, help="rounds against Heuristic (400)")
    parser.add_argument("--threads", type=int, default=2, help="PyTorch's threads (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("ppo_batch.pt"), help="checkpoint (default ppo_batch.pt)")
    parser.add_argument("--resume", action="store_true", help="go on from --out")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    net = Policy()
    optimiser = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    done_updates, done_decisions, trained_seconds = 0, 0, 0.0
    if args.resume:
        saved = torch.load(args.out, weights_only=False)
        net.load_state_dict(saved["net"])
        optimiser.load_state_dict(saved["optimiser"])
        done_updates, done_decisions, trained_seconds = saved["updates"], saved["decisions"], saved["seconds"]
        print(f"resumed from {args.out}: {done_updates} updates, {done_decisions:,} learner decisions, "
              f"{trained_seconds / 60:.1f} min of training")

    env = RoyalRevengeVectorEnv(args.envs, players=args.players, learner_seat=None, reward="win",
                                seed=args.seed + done_updates)
    obs, _ = env.reset(seed=args.seed + 1_000_003 * done_updates)
    n, t_steps = args.envs, args.steps
    buf_obs = torch.zeros((t_steps, n, OBS_SIZE), dtype=torch.uint8)
    buf_mask = torch.zeros((t_steps, n, NUM_ACTIONS), dtype=torch.bool)
    buf_action = torch.zeros((t_steps, n), dtype=torch.long)
    buf_logp = torch.zeros((t_steps, n))
    buf_value = torch.zeros((t_steps, n))
    buf_reward = torch.zeros((t_steps, n))
    buf_done = torch.zeros((t_steps, n))
    # In next-step autoreset, the step after an episode's end only deals again: it is not a decision.
    buf_valid = torch.zeros((t_steps, n), dtype=torch.bool)
    recent_wins: list[float] = []
    over = np.zeros(n, dtype=bool)

    def log_evaluation(update: int) -> None:
        results = evaluate(net, args, seed=10_000_000 + args.seed)
        parts = []
        for name, (wins, rounds) in results.items():
            low, high = wilson(wins, rounds)
            parts.append(f"{wins / rounds:.1%} of {rounds} rounds against {name} (95%: {low:.1%}-{high:.1%})")
        print(f"  evaluation after {update} updates, {trained_seconds / 60:.1f} min: " + "; ".join(parts)
              + f"; an equal seat wins {1 / args.players:.1%}", flush=True)
        torch.save({"net": net.state_dict(), "optimiser": optimiser.state_dict(), "updates": update,
                    "decisions": done_decisions, "seconds": trained_seconds, "players": args.players}, args.out)

    if args.resume is False and args.eval_every:
        log_evaluation(0)
    deadline = time.perf_counter() + args.minutes * 60
    update = done_updates
    while (args.updates and update < done_updates + args.updates) or (
            not args.updates and time.perf_counter() < deadline):
        started = time.perf_counter()
        for t in range(t_steps):
            o = torch.as_tensor(obs["observation"])
            m = torch.as_tensor(obs["action_mask"], dtype=torch.bool)
            with torch.no_grad():
                logits, value = net(o, m)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
            buf_obs[t], buf_mask[t], buf_action[t] = o, m, action
            buf_logp[t], buf_value[t] = dist.log_prob(action), value
            buf_valid[t] = torch.as_tensor(~over)
            obs, reward, terminated, truncated, _ = env.step(action.numpy())
            over = terminated | truncated
            buf_reward[t] = torch.as_tensor(reward, dtype=torch.float32)
            buf_done[t] = torch.as_tensor(over, dtype=torch.float32)
            recent_wins.extend((reward[over] > 0).astype(float).tolist())
        with torch.no_grad():
            _, next_value = net(torch.as_tensor(obs["observation"]),
                                torch.as_tensor(obs["action_mask"], dtype=torch.bool))
        # GAE over the learner's decisions; a step that only dealt again (not valid) passes nothing on.
        advantages = torch.zeros((t_steps, n))
        last = torch.zeros(n)
        for t in reversed(range(t_steps)):
            following = next_value if t == t_steps - 1 else buf_value[t + 1]
            alive = 1.0 - buf_done[t]
            delta = buf_reward[t] + args.gamma * following * alive - buf_value[t]
            last = delta + args.gamma * args.lam * alive * last
            last = torch.where(buf_valid[t], last, torch.zeros_like(last))
            advantages[t] = last
        returns = advantages + buf_value
        valid = buf_valid.reshape(-1)
        b_obs, b_mask = buf_obs.reshape(-1, OBS_SIZE)[valid], buf_mask.reshape(-1, NUM_ACTIONS)[valid]
        b_action, b_logp = buf_action.reshape(-1)[valid], buf_logp.reshape(-1)[valid]
        b_adv, b_ret = advantages.reshape(-1)[valid], returns.reshape(-1)[valid]
        b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
        for _ in range(args.epochs):
            order = torch.randperm(b_obs.shape[0])
            for start in range(0, b_obs.shape[0], args.minibatch):
                idx = order[start:start + args.minibatch]
                logits, value = net(b_obs[idx], b_mask[idx])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(b_action[idx]) - b_logp[idx]).exp()
                surrogate = torch.min(ratio * b_adv[idx], ratio.clamp(1 - args.clip, 1 + args.clip) * b_adv[idx])
                value_loss = (value - b_ret[idx]).pow(2).mean()
                loss = -surrogate.mean() + 0.5 * value_loss - args.entropy * dist.entropy().mean()
                optimiser.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                optimiser.step()
        update += 1
        done_decisions += int(valid.sum())
        trained_seconds += time.perf_counter() - started
        recent_wins = recent_wins[-4000:]
        if update % 5 == 0:
            print(f"update {update}: {done_decisions:,} learner decisions, {trained_seconds / 60:.1f} min, "
                  f"win rate in training (last {len(recent_wins)} rounds) {np.mean(recent_wins or [0]):.1%}, "
                  f"loss {loss.item():.3f}", flush=True)
        if args.eval_every and update % args.eval_every == 0:
            log_evaluation(update)
    if not args.eval_every or update % args.eval_every:
        log_evaluation(update)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
