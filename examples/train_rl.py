#!/usr/bin/env python3
"""Train a small policy against Random bots with plain policy gradient (numpy only, CPU, minutes).

    .venv/bin/python examples/train_rl.py --players 2 --episodes 1000 --eval-games 1000 --seed 0

The learner plays UNO Royal Revenge through the Gymnasium environment
(``royal_revenge.rl.gym_env``), one round per episode, against Random bots, with the win/loss
reward (+1 for winning the round; at two players -1 for losing). The policy is a one-hidden-layer
network (tanh) over the observation vector, with a softmax over the *legal* actions only (the
action mask); it learns with REINFORCE (a running-mean baseline, Adam) from batches of episodes.

Finally the trained policy (greedy: the most probable legal action) plays ``--eval-games`` fresh
rounds against Random bots, with seeds that training never used, and the script prints its win
rate with a 95% Wilson interval next to a Random learner's in the same seats and deals.

This is an example, not part of the library: it needs only numpy and the ``rl`` extra.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

try:
    from royal_revenge.rl import gym_env
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from royal_revenge.rl import gym_env

from royal_revenge.rl.encoding import NUM_ACTIONS, OBS_SIZE, observation_high

Array = npt.NDArray[np.float64]


class Policy:
    """logits = W2 . tanh(W1 . x + b1) + b2, softmax over the legal actions."""

    def __init__(self, hidden: int, rng: np.random.Generator, scale: Array) -> None:
        self.params: dict[str, Array] = {
            "W1": rng.normal(0.0, 1.0 / math.sqrt(OBS_SIZE), (OBS_SIZE, hidden)),
            "b1": np.zeros(hidden),
            "W2": rng.normal(0.0, 0.01, (hidden, NUM_ACTIONS)),
            "b2": np.zeros(NUM_ACTIONS),
        }
        self.scale = scale
        self.m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.t = 0

    def features(self, observation: npt.NDArray[np.float32]) -> Array:
        return observation.astype(np.float64) / self.scale

    def forward(self, x: Array, mask: npt.NDArray[np.int8]) -> tuple[Array, Array]:
        p = self.params
        h = np.tanh(x @ p["W1"] + p["b1"])
        logits = h @ p["W2"] + p["b2"]
        logits = np.where(mask > 0, logits, -np.inf)
        logits -= logits.max()
        probs = np.exp(logits)
        probs /= probs.sum()
        return h, probs

    def update(self, xs: Array, hs: Array, gs: Array, lr: float) -> None:
        """Gradient *ascent* on sum(g . logits), by Adam; gs holds advantage * (onehot - probs)."""
        p = self.params
        grads = {
            "W2": hs.T @ gs,
            "b2": gs.sum(axis=0),
        }
        dh = (gs @ p["W2"].T) * (1.0 - hs * hs)
        grads["W1"] = xs.T @ dh
        grads["b1"] = dh.sum(axis=0)
        self.t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        for key, grad in grads.items():
            grad = grad / len(xs)
            self.m[key] = b1 * self.m[key] + (1 - b1) * grad
            self.v[key] = b2 * self.v[key] + (1 - b2) * grad * grad
            m_hat = self.m[key] / (1 - b1**self.t)
            v_hat = self.v[key] / (1 - b2**self.t)
            p[key] += lr * m_hat / (np.sqrt(v_hat) + eps)

    def save(self, path: Path) -> None:
        np.savez(path, scale=self.scale, **self.params)


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if games == 0:
        return (0.0, 1.0)
    phat = wins / games
    denom = 1 + z * z / games
    centre = (phat + z * z / (2 * games)) / denom
    half = z * math.sqrt(phat * (1 - phat) / games + z * z / (4 * games * games)) / denom
    return (centre - half, centre + half)


def make_env(players: int) -> Any:
    return gym_env(players=players, opponents="random", learner_seat=None, reward="win")


def train(args: argparse.Namespace) -> Policy:
    rng = np.random.default_rng(args.seed)
    env = make_env(args.players)
    policy = Policy(args.hidden, rng, np.maximum(observation_high(500).astype(np.float64), 1.0))
    baseline = 0.0
    started = time.perf_counter()
    recent: list[float] = []
    batch_x: list[Array] = []
    batch_h: list[Array] = []
    batch_g: list[Array] = []
    for episode in range(args.episodes):
        obs, _ = env.reset(seed=args.seed * 1_000_003 + episode)
        xs, hs, gs = [], [], []
        done = False
        ret = 0.0
        while not done:
            x = policy.features(obs["observation"])
            h, probs = policy.forward(x, obs["action_mask"])
            action = int(rng.choice(NUM_ACTIONS, p=probs))
            g = -probs
            g[action] += 1.0
            xs.append(x)
            hs.append(h)
            gs.append(g)
            obs, reward, terminated, truncated, _ = env.step(action)
            ret += float(reward)
            done = terminated or truncated
        advantage = ret - baseline
        baseline += 0.02 * (ret - baseline)
        recent.append(ret)
        if xs:
            batch_x.append(np.array(xs))
            batch_h.append(np.array(hs))
            batch_g.append(np.array(gs) * advantage)
        if (episode + 1) % args.batch == 0 and batch_x:
            policy.update(np.concatenate(batch_x), np.concatenate(batch_h), np.concatenate(batch_g), args.lr)
            batch_x, batch_h, batch_g = [], [], []
        if (episode + 1) % args.report == 0:
            win = np.mean([r > 0 for r in recent])
            print(
                f"episode {episode + 1:>6}: training win rate {win:.3f} over the last {len(recent)} "
                f"({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
            recent = []
    return policy


def evaluate(
    players: int, games: int, first_seed: int, choose: Callable[[dict[str, Any]], int]
) -> tuple[int, int]:
    env = make_env(players)
    wins = 0
    for game in range(games):
        obs, _ = env.reset(seed=first_seed + game)
        done = False
        total = 0.0
        while not done:
            obs, reward, terminated, truncated, _ = env.step(choose(obs))
            total += float(reward)
            done = terminated or truncated
        wins += total > 0
    return wins, games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2, help="table size, 2-6 (default 2)")
    parser.add_argument("--episodes", type=int, default=1000, help="training rounds (default 1000)")
    parser.add_argument("--eval-games", type=int, default=1000, help="evaluation rounds (default 1000)")
    parser.add_argument("--hidden", type=int, default=64, help="hidden units (default 64)")
    parser.add_argument("--batch", type=int, default=16, help="episodes per update (default 16)")
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam step size (default 3e-3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of everything (default 0)")
    parser.add_argument("--report", type=int, default=250, help="print progress every N episodes")
    parser.add_argument("--save", type=Path, help="write the trained weights to this .npz file")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    policy = train(args)
    trained_in = time.perf_counter() - started
    if args.save is not None:
        policy.save(args.save)

    def greedy(obs: dict[str, Any]) -> int:
        _, probs = policy.forward(policy.features(obs["observation"]), obs["action_mask"])
        return int(np.argmax(probs))

    eval_rng = np.random.default_rng(args.seed + 1)

    def uniform(obs: dict[str, Any]) -> int:
        return int(eval_rng.choice(np.flatnonzero(obs["action_mask"])))

    eval_seed = 10**12 + args.seed * 1_000_003  # never used in training
    wins, games = evaluate(args.players, args.eval_games, eval_seed, greedy)
    base_wins, _ = evaluate(args.players, args.eval_games, eval_seed, uniform)
    low, high = wilson(wins, games)
    base_low, base_high = wilson(base_wins, games)
    fair = 1 / args.players
    print()
    print(f"trained {args.episodes} rounds in {trained_in:.0f} s ({args.players} players, learner vs Random bots)")
    print(
        f"trained policy: won {wins}/{games} rounds = {wins / games:.1%} "
        f"(95% CI {low:.1%} - {high:.1%}); an equal share is {fair:.1%}"
    )
    print(
        f"random learner: won {base_wins}/{games} rounds = {base_wins / games:.1%} "
        f"(95% CI {base_low:.1%} - {base_high:.1%})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
