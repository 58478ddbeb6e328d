#!/usr/bin/env python3
"""How fast does ``royal-revenge train`` learn in one process and with its rollouts on Ray? (A script, not a test.)

    .venv/bin/python benchmarks/train_speed.py --updates 6 --repeats 3

Side by side, interleaved (every repetition runs each way once, in an order that alternates), the
training of the default configuration (1,024 self-play games at every table size, 512 games
against heuristic bots, 32 decisions a game per update, the Numba core):

* ``process``: one shard, in this process (``royal-revenge train``);
* ``process, N shards``: the same games in N shards, still in this process (the cost of sharding);
* ``ray, N shards``: N shards as Ray actors on a local cluster of ``--cpus`` CPUs (``--ray auto``),
  the learning in this process.

A run's time is the wall clock of ``train`` for ``--updates`` updates, actors' start included (the
Numba kernels come from Numba's cache after the first run), the evaluation left out
(``eval_rounds=0``). Reported: the median decisions per second of each way and its ratio to the
one-process training. A Ray cluster pays off with machines: on one machine the shards can use only
its cores, and the learning (PPO on the gathered decisions) waits for them and they for it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import ray

from royal_revenge.rl.train import TrainConfig, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    ways = {"process": (1, None), f"process, {args.shards} shards": (args.shards, None),
            f"ray, {args.shards} shards": (args.shards, "auto")}
    rates: dict[str, list[float]] = {way: [] for way in ways}
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
             object_store_memory=512 * 1024 * 1024)
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(args.repeats):
            order = list(ways) if repeat % 2 == 0 else list(reversed(ways))
            for way in order:
                shards, address = ways[way]
                config = TrainConfig(updates=args.updates, eval_every=0, eval_rounds=0, shards=shards,
                                     ray_address=address, checkpoint=Path(folder, "t.pt"),
                                     export=Path(folder, "t.npz"))
                started = time.perf_counter()
                policy = train(config, log=lambda line: None)
                seconds = time.perf_counter() - started
                rates[way].append(policy.info["decisions"] / seconds)
                print(f"  {way}: {policy.info['decisions']:,} decisions in {seconds:.1f} s", flush=True)
    ray.shutdown()
    base = statistics.median(rates["process"])
    print(f"\n{args.updates} updates, {args.repeats} repeats, {args.cpus} CPU(s), "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  {'way':<24} {'decisions/s (median)':>22} {'vs process':>11}")
    for way, values in rates.items():
        median = statistics.median(values)
        print(f"  {way:<24} {median:>22,.0f} {median / base:>10.2f}x")


if __name__ == "__main__":
    main()
