#!/usr/bin/env python3
"""Self-play with RLlib's PPO on the PettingZoo environment, with action masking (Ray's ``rllib``).

    pip install 'royal-revenge[rl,rllib]'
    .venv/bin/python examples/rllib_selfplay.py --players 4 --iterations 50 --env-runners 1

Every seat of the table is played by one shared policy (``policy_mapping_fn``), so the policy
learns against itself. RLlib takes the game as it comes from the library: the AEC environment
(``royal_revenge.rl.aec_env``, one round per episode, +1 to the winner, the others share -1) in
RLlib's own ``PettingZooEnv`` adapter, and the network is RLlib's action-masking PPO module
(``ActionMaskingTorchRLModule``, shipped with RLlib): an illegal action's logit is pushed to the
floor, so it is never sampled. The one thing added here is a PettingZoo wrapper that gives the
observation the keys that module reads (``observations``, scaled to 0..1, and ``action_mask``).

Each iteration prints the steps sampled, the mean episode return of the shared policy and the
losses. At the end the policy (greedy: its best legal action) plays ``--eval-rounds`` 4-player
rounds against three heuristic bots on the Gymnasium environment, and the win rate is printed with a
95% interval (an equal seat wins 25%). ``--ray ADDRESS`` trains on a running Ray cluster
(``auto``: the one on this machine); without it a local Ray is started for the run.

This is an example, not part of the library. For the project's own trainer (faster: thousands of
games per call on the batched core), see ``royal-revenge train`` and docs/rl.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

try:
    from royal_revenge.rl import aec_env
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from royal_revenge.rl import aec_env

try:
    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env
except ImportError:
    sys.exit("this example needs RLlib and PyTorch: pip install 'royal-revenge[rl,rllib]'")

from royal_revenge.rl.encoding import NUM_ACTIONS
from royal_revenge.rl.gym_env import RoyalRevengeEnv
from royal_revenge.sim.tournament import wilson_interval

POLICY = "shared"


class MaskedObservations(BaseWrapper):  # type: ignore[misc]
    """The environment's observation under the keys RLlib's action-masking module reads.

    ``observations``: the 292 values divided by their upper bounds (0..1, float32);
    ``action_mask``: the legal actions as 1.0 (float32: the module takes its logarithm).
    """

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])["observation"]
        self._scale = np.maximum(inner.high, 1.0).astype(np.float32)
        self._space = spaces.Dict({
            "observations": spaces.Box(0.0, 1.0, inner.shape, np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        })

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        return self.convert(self.env.observe(agent))

    def convert(self, seen: dict[str, np.ndarray[Any, Any]]) -> dict[str, np.ndarray[Any, Any]]:
        """One of the environment's observations as this wrapper gives it."""
        return {"observations": (seen["observation"] / self._scale).astype(np.float32),
                "action_mask": seen["action_mask"].astype(np.float32)}


def make_env(config: dict[str, Any]) -> PettingZooEnv:
    return PettingZooEnv(MaskedObservations(aec_env(config.get("players", 4), reward="win")))


def greedy_win_rate(module: Any, rounds: int, seed: int) -> tuple[int, int]:
    """(wins, rounds) of the module's best legal actions in 4-player rounds against three heuristic bots."""
    env = RoyalRevengeEnv(4, opponents="heuristic", learner_seat=None, reward="win")
    adapter = MaskedObservations(aec_env(4))
    wins = 0
    for index in range(rounds):
        seen, _ = env.reset(seed=seed + index)
        over = False
        reward = 0.0
        while not over:
            obs = adapter.convert(seen)
            batch = {Columns.OBS: {key: torch.from_numpy(value[None]) for key, value in obs.items()}}
            with torch.no_grad():
                logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
            action = int(torch.argmax(logits))  # (the masked logits put every illegal action far below)
            seen, reward, terminated, truncated, _ = env.step(action)
            over = terminated or truncated
        wins += reward > 0
    return wins, rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 7), metavar="2..6")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--batch", type=int, default=4000, help="environment steps per iteration")
    parser.add_argument("--minibatch", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--env-runners", type=int, default=1, help="Ray actors that play (0: in this process)")
    parser.add_argument("--eval-rounds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ray", metavar="ADDRESS", default=None,
                        help="a running Ray cluster (auto: the one on this machine); default: a local Ray")
    args = parser.parse_args(argv)

    if args.ray is None:
        ray.init(num_cpus=max(2, args.env_runners + 1), include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=args.ray, log_to_driver=False)
    register_env("royal_revenge", make_env)
    config = (
        PPOConfig()
        # (RLlib's environment check steps with random actions, blind to the mask: illegal ones raise here)
        .environment("royal_revenge", env_config={"players": args.players}, disable_env_checking=True)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": [args.hidden, args.hidden], "fcnet_activation": "relu",
                          "vf_share_layers": False})}))
        .env_runners(num_env_runners=args.env_runners, num_cpus_per_env_runner=1)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch,
                  num_epochs=args.epochs, lr=3e-4, entropy_coeff=0.01, gamma=1.0, lambda_=0.95)
        .debugging(seed=args.seed)
        # (an env runner whose environment raised, on an illegal action say, stops the run rather than restart)
        .fault_tolerance(restart_failed_env_runners=False)
    )
    algo = config.build_algo()
    started = time.monotonic()
    try:
        for iteration in range(1, args.iterations + 1):
            result = algo.train()
            runners, learner = result["env_runners"], result["learners"][POLICY]
            rounds = int(runners.get("num_episodes_lifetime", 0))  # (absent until a round has ended)
            print(f"iteration {iteration}: {int(runners['num_env_steps_sampled_lifetime']):,} steps, "
                  f"{rounds:,} rounds, {time.monotonic() - started:.0f} s; "
                  f"mean episode length {runners.get('episode_len_mean', float('nan')):.0f}, "
                  f"policy loss {learner['policy_loss']:+.4f}, value loss {learner['vf_loss']:.4f}, "
                  f"entropy {learner['entropy']:.3f}", flush=True)
        if args.eval_rounds:
            wins, rounds = greedy_win_rate(algo.get_module(POLICY), args.eval_rounds, seed=1_000_000 + args.seed)
            low, high = wilson_interval(wins, rounds)
            print(f"against 3 heuristic bots: won {wins} of {rounds} 4-player rounds, {wins / rounds:.1%} "
                  f"(95%: {low:.1%}-{high:.1%}; an equal seat wins 25%)")
    finally:
        algo.stop()
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
