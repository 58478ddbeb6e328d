#!/usr/bin/env python3
"""The batched core's speed, side by side with RLCard's UNO and the single-game environments, on one core.

Run it with::

    make bench-rl-batch   # PYTHONPATH=build/compiled .venv/bin/python benchmarks/rl_batch_speed.py
    .venv/bin/python benchmarks/rl_batch_speed.py --seconds 2 --repeats 3 --players 4 --batches 1 64 1024 8192

Every competitor plays uniformly random legal actions and produces, at every step, the observation and
the legal mask of the seat to act. A **step** is one decision of one game:

* ``rlcard``: RLCard's UNO ``env.step`` loop (the reference; benchmarks/rl_speed.py's loop);
* ``raw_env``: this project's single-game PettingZoo environment (``env.last()`` + ``env.step``);
* ``numpy B``: the batched core on NumPy, ``B`` games per call: ``step`` (rules.step), a random legal
  action per game from the mask (``random_policy``), the ``uint8`` observations (``observe``);
* ``numba B``: the same rules compiled per game with Numba (``backend="numba"``, rl/batch/kernel.py), the
  random actions compiled too (``kernel.random_actions``, from 32 bits per game of NumPy's PCG64);
* ``jax B``: the same on JAX (CPU here), one compiled call per step that returns the observations, and
  ``jax-scan B``: 32 steps per compiled call (``lax.scan``; the 32 observations come back stacked), the
  form a training loop on an accelerator uses;
* ``vector numpy B`` / ``vector jax B`` / ``vector numba B``: the Gymnasium vector environment (one learner
  against random bots on the batch), counting **only the learner's decisions**, as ``gym`` does (the bots'
  decisions in between are part of its cost);
* ``gym``: the single-game Gymnasium environment against random bots (learner decisions).

The process is pinned to one core (``--core``) and XLA to one thread, so that the figures are per core.
Competitors are interleaved in an order that alternates between repetitions; medians are reported with the
ratio to RLCard's steps per second. The script runs unchanged on a GPU (JAX then uses it; the pinning only
concerns the host thread): ``--no-pin`` leaves the affinity alone.

Also printed: the state's bytes per game (memory per game) and the bytes per step that come out (the
observation and the mask).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

# XLA on one thread (set before JAX starts), unless --no-pin.
os.environ.setdefault(
    "XLA_FLAGS", "" if "--no-pin" in sys.argv else "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rl_speed

from royal_revenge.rl import raw_env
from royal_revenge.rl.batch import RoyalRevengeVectorEnv, functional, random_policy
from royal_revenge.rl.batch.rules import _random_bits
from royal_revenge.rl.encoding import NUM_ACTIONS, OBS_SIZE

Measure = Callable[[float, int], tuple[int, float]]  # (seconds, seed) -> (steps, seconds taken)

SCAN_STEPS = 32


def _timed(call: Callable[[], int], seconds: float) -> tuple[int, float]:
    """Call ``call`` (which returns its steps) until ``seconds`` have passed: (steps, seconds taken)."""
    gc.collect()
    clock = time.perf_counter
    start = clock()
    steps = 0
    while clock() - start < seconds:
        steps += call()
    return steps, clock() - start


def numpy_batch(players: int, batch: int) -> Measure:
    game = functional(players=players, backend="numpy")

    def run(seconds: float, seed: int) -> tuple[int, float]:
        state = game.init(batch, seed)
        a = game.arrays
        counter = np.zeros(batch, dtype=np.uint32)
        key = np.arange(batch, dtype=np.uint32) ^ np.uint32(seed & 0xFFFF)

        def call() -> int:
            nonlocal state, counter
            action = random_policy(state, game.config, a, _random_bits(key, counter))
            counter += 1
            state = game.step(state, action)
            game.observe(state)
            return batch

        return _timed(call, seconds)

    return run


def numba_batch(players: int, batch: int) -> Measure:
    from royal_revenge.rl.batch import kernel

    game = functional(players=players, backend="numba")
    game.observe(game.step(game.init(batch, 0), np.zeros(batch, dtype=np.int32)))  # (compiles, or loads the cache)

    def run(seconds: float, seed: int) -> tuple[int, float]:
        state = game.init(batch, seed)
        random_raw = np.random.default_rng(seed).bit_generator.random_raw  # (a third of the cost of _random_bits)

        def call() -> int:
            nonlocal state
            action = kernel.random_actions(state, random_raw(batch))
            state = game.step(state, action)
            game.observe(state)
            return batch

        return _timed(call, seconds)

    return run


def jax_batch(players: int, batch: int, scan: bool) -> Measure:
    import jax
    import jax.numpy as jnp

    game = functional(players=players, backend="jax", jit=False)
    a, config = game.arrays, game.config
    key = jnp.arange(batch, dtype=jnp.uint32)

    def one(carry: tuple[Any, Any], _: Any = None) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
        state, counter = carry
        action = random_policy(state, config, a, _random_bits(key, counter))
        state = game.step(state, action)
        return (state, counter + 1), (game.observe(state), state.legal)

    if scan:
        compiled = jax.jit(lambda carry: jax.lax.scan(one, carry, None, length=SCAN_STEPS))
        per_call = SCAN_STEPS * batch
    else:
        compiled = jax.jit(one)
        per_call = batch

    def run(seconds: float, seed: int) -> tuple[int, float]:
        carry = (game.init(batch, seed), jnp.zeros(batch, dtype=jnp.uint32))
        carry, out = compiled(carry)  # (compiled on the first call: not timed)
        jax.block_until_ready(out)

        def call() -> int:
            nonlocal carry
            carry, out = compiled(carry)
            jax.block_until_ready(out)
            return per_call

        return _timed(call, seconds)

    return run


def vector(players: int, batch: int, backend: str) -> Measure:
    def run(seconds: float, seed: int) -> tuple[int, float]:
        env = RoyalRevengeVectorEnv(batch, players=players, backend=backend, learner_seat=None)
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        obs, *_ = env.step((rng.random((batch, NUM_ACTIONS)) * obs["action_mask"]).argmax(axis=1))  # (compiles)

        def call() -> int:
            nonlocal obs
            mask = obs["action_mask"]
            obs, *_ = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
            return batch

        return _timed(call, seconds)

    return run


def episodes(loop: Callable[[int, float, int], tuple[int, float]], players: int) -> Measure:
    return lambda seconds, seed: loop(players, seconds, seed)


def state_bytes_per_game(players: int) -> float:
    state = functional(players=players, backend="numpy").init(256, 0)
    return sum(np.asarray(field).nbytes for field in state) / 256


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    parser.add_argument("--players", type=int, nargs="+", default=[4], help="table sizes (default 4)")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 8192],
                        help="batch sizes of the core (default 1 64 1024 8192)")
    parser.add_argument("--vector-batch", type=int, default=1024, help="the vector environment's games (1024)")
    parser.add_argument("--backends", nargs="+", default=["numpy", "numba", "jax", "jax-scan"],
                        choices=["numpy", "numba", "jax", "jax-scan"], help="the core's forms to measure")
    parser.add_argument("--core", type=int, default=0, help="the CPU core to pin to (default 0)")
    parser.add_argument("--no-pin", action="store_true", help="leave the CPU affinity and XLA's threads alone")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1 or min(args.batches) < 1:
        parser.error("--seconds must be positive, --repeats and every batch at least 1")
    if not args.no_pin:
        os.sched_setaffinity(0, {args.core})

    try:
        import rlcard  # noqa: F401
        have_rlcard = True
    except ImportError:
        have_rlcard = False
        print("RLCard is not installed (pip install -e '.[bench]'): no reference.", file=sys.stderr)

    import jax

    print(f"Python {sys.version.split()[0]} on {platform.platform()}; JAX {jax.__version__} on "
          f"{jax.devices()[0].platform}; NumPy {np.__version__}")
    print(f"royal_revenge: {rl_speed.build_description()}")
    print("not pinned" if args.no_pin else f"pinned to core {args.core}, XLA on one thread")
    print(f"{args.repeats} interleaved repetitions of {args.seconds:g} s per measurement; medians shown\n")

    for players in args.players:
        competitors: dict[str, Measure] = {}
        if have_rlcard:
            competitors["rlcard"] = episodes(rl_speed.rlcard_loop, players)
        competitors["raw_env"] = episodes(rl_speed.aec_loop(raw_env), players)
        for batch in args.batches:
            if "numpy" in args.backends:
                competitors[f"numpy {batch}"] = numpy_batch(players, batch)
            if "numba" in args.backends:
                competitors[f"numba {batch}"] = numba_batch(players, batch)
            if "jax" in args.backends:
                competitors[f"jax {batch}"] = jax_batch(players, batch, scan=False)
            if "jax-scan" in args.backends:
                competitors[f"jax-scan {batch}"] = jax_batch(players, batch, scan=True)
        competitors["gym (learner)"] = episodes(rl_speed.gym_loop, players)
        competitors[f"vector numpy {args.vector_batch} (learner)"] = vector(players, args.vector_batch, "numpy")
        competitors[f"vector jax {args.vector_batch} (learner)"] = vector(players, args.vector_batch, "jax")
        if "numba" in args.backends:
            competitors[f"vector numba {args.vector_batch} (learner)"] = vector(players, args.vector_batch, "numba")

        rates: dict[str, list[float]] = {name: [] for name in competitors}
        started = time.perf_counter()
        for rep in range(args.repeats):
            names = list(competitors)
            if rep % 2:
                names.reverse()
            for name in names:
                steps, seconds = competitors[name](args.seconds, 1_000_003 * rep + 1000 * players + 1)
                rates[name].append(steps / seconds)
            print(f"  {players} players: repetition {rep + 1}/{args.repeats} done "
                  f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)

        print(f"{players} players")
        reference = statistics.median(rates["rlcard"]) if have_rlcard else None
        for name, values in rates.items():
            median = statistics.median(values)
            ratio = f"{median / reference:9.1f}x" if reference else ""
            spread = f"({min(values):,.0f}-{max(values):,.0f})"
            print(f"  {name:<32} {median:>13,.0f} steps/s {ratio}  {spread}")
        print(f"  state: {state_bytes_per_game(players):,.0f} bytes per game; out per step: {OBS_SIZE} bytes of "
              f"observation (uint8) + {NUM_ACTIONS} of mask (bool) = {OBS_SIZE + NUM_ACTIONS} bytes "
              f"({4 * OBS_SIZE + NUM_ACTIONS} with float32 observations)\n")
    print("A step is one decision of one game with its observation and mask produced; the (learner) lines count"
          "\nonly the learner's decisions, the bots' decisions between them being part of their cost.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
