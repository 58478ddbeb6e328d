"""The expert bot: a policy network trained by self-play, played with NumPy alone.

``royal-revenge train`` (PyTorch, the ``train`` extra) trains the network on the batched core and
exports its weights; the package ships one trained set (``expert.npz`` beside this module). Playing
needs only NumPy: the observation is encoded as the RL environments encode it (docs/rl.md), the network
scores the 124 actions, and the bot takes the best-scored legal one (or, with a ``temperature``, draws
one from the softmax over the legal ones).

The policy learned to win single rounds: it does not see the scores (their inputs are zero), so at a
table it plays every round to win it.

>>> from royal_revenge.engine import GameOptions, GameState
>>> state = GameState.new(GameOptions(players=3), seed=1)
>>> bot = ExpertAgent()
>>> seat = state.decider
>>> bot.act(state.observe(seat), state.legal_actions(seat)) in state.legal_actions(seat)
True
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..engine import AnyAction, Observation
from ..rl.encoding import NUM_ACTIONS, OBS_SIZE, PASS, Layout, Role, encode_observation, legal_action_ints, role_of
from .base import seeded_rng

__all__ = ["WEIGHTS", "ExpertAgent", "ExpertPolicy", "features"]

WEIGHTS: Final = Path(__file__).with_name("expert.npz")
"""The shipped weights."""


def _input_scale() -> npt.NDArray[np.float32]:
    scale = np.full(OBS_SIZE, 1 / 8, dtype=np.float32)  # counts of cards and seats' flags: near [0, 1]
    # The scores are left out: the policy plays each round to win it (and rounds trained on score nothing).
    scale[Layout.SCORES:Layout.KING] = 0.0
    scale[Layout.DRAW_PILE] = 1 / 32
    scale[Layout.TURNS_SINCE_SCEPTER] = 1 / 64
    return scale


_SCALE: Final = _input_scale()
_CAP: Final = 255.0  # the batched core's compact observation saturates here; the engine's is capped to match


def features(observations: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """The network's inputs from observations (n, 292) as the environments give them (uint8 or float32)."""
    values = np.minimum(np.asarray(observations, dtype=np.float32), _CAP)
    result: npt.NDArray[np.float32] = values * _SCALE
    return result


class ExpertPolicy:
    """A multilayer perceptron in NumPy: ReLU hidden layers, then one score (logit) per action.

    ``layers`` are (weights (inputs, outputs), biases (outputs,)) pairs; the first takes the
    :data:`~royal_revenge.rl.encoding.OBS_SIZE` inputs of :func:`features`, the last gives
    :data:`~royal_revenge.rl.encoding.NUM_ACTIONS` logits. ``info`` describes the training.
    """

    def __init__(self, layers: Sequence[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]],
                 info: dict[str, Any] | None = None) -> None:
        if not layers:
            raise ValueError("a policy needs at least one layer")
        inputs = OBS_SIZE
        for weights, biases in layers:
            if weights.ndim != 2 or weights.shape[0] != inputs or biases.shape != (weights.shape[1],):
                raise ValueError(f"layer shapes do not chain: {weights.shape} after {inputs} inputs, biases "
                                 f"{biases.shape}")
            inputs = weights.shape[1]
        if inputs != NUM_ACTIONS:
            raise ValueError(f"the last layer gives {inputs} values, not one per action ({NUM_ACTIONS})")
        self.layers = [(np.ascontiguousarray(w, dtype=np.float32), np.ascontiguousarray(b, dtype=np.float32))
                       for w, b in layers]
        self.info = dict(info or {})

    @classmethod
    def load(cls, path: str | Path = WEIGHTS) -> ExpertPolicy:
        """Weights saved by :meth:`save` (``w0``, ``b0``, ``w1``, ... and ``info``, a JSON text)."""
        with np.load(path, allow_pickle=False) as saved:
            count = sum(1 for name in saved.files if name.startswith("w"))
            layers = [(saved[f"w{i}"], saved[f"b{i}"]) for i in range(count)]
            info = json.loads(str(saved["info"])) if "info" in saved.files else {}
        return cls(layers, info)

    def save(self, path: str | Path) -> None:
        """Write the weights as a compressed ``.npz`` file (float32: exact)."""
        arrays: dict[str, Any] = {}
        for i, (weights, biases) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = weights, biases
        with open(path, "wb") as out:
            np.savez_compressed(out, info=np.array(json.dumps(self.info, sort_keys=True)), **arrays)

    def logits(self, observations: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """The actions' scores (n, 124) for observations (n, 292)."""
        x = features(observations)
        last = len(self.layers) - 1
        for i, (weights, biases) in enumerate(self.layers):
            x = x @ weights + biases
            if i < last:
                np.maximum(x, 0.0, out=x)
        return x


@functools.lru_cache(maxsize=8)
def _loaded(path: str) -> ExpertPolicy:
    return ExpertPolicy.load(path)  # one copy of the weights for every bot that plays with them


class ExpertAgent:
    """The trained policy as a bot: the legal action its network scores best.

    ``weights``: a ``.npz`` file written by ``royal-revenge train`` (default: the shipped
    :data:`WEIGHTS`) or an :class:`ExpertPolicy`. ``temperature`` 0 (the default) plays the best
    action; above 0 the bot draws from the softmax of the legal actions' scores divided by it.
    """

    name = "expert"

    def __init__(self, seed: int | random.Random | None = None, *, weights: str | Path | ExpertPolicy | None = None,
                 temperature: float = 0.0) -> None:
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature >= 0:
            raise ValueError(f"temperature must be a number from 0 up, not {temperature!r}")
        if isinstance(weights, ExpertPolicy):
            self.policy = weights
        else:
            path = Path(WEIGHTS if weights is None else weights)
            if not path.is_file():
                raise ValueError(f"no weights file at {str(path)!r}")
            self.policy = _loaded(str(path.resolve()))
        self.temperature = float(temperature)
        self.rng = seeded_rng(seed)

    def act(self, observation: Observation, legal_actions: Sequence[AnyAction]) -> AnyAction | None:
        seat, players = observation.seat, observation.players
        if seat is None:
            raise ValueError("the expert bot plays a seat: this is a spectator's observation")
        chance = observation.pending.seat != seat  # an optional out-of-turn UNO chance
        role = Role.CHANCE if chance else role_of(observation.pending.kind)
        choices: dict[int, AnyAction | None] = {}
        for action, index in zip(legal_actions, legal_action_ints(legal_actions, seat, players), strict=True):
            choices[index] = action
        if chance:
            choices[PASS] = None
        if not choices:
            return None
        scores = self.policy.logits(encode_observation(observation, role)[None, :])[0]
        indices = list(choices)
        legal_scores = scores[indices]
        if self.temperature == 0.0:
            return choices[indices[int(np.argmax(legal_scores))]]
        weights = np.exp((legal_scores - legal_scores.max()) / self.temperature)
        return choices[self.rng.choices(indices, weights=weights.tolist())[0]]
