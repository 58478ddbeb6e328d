"""What differs between the array libraries the batched core runs on: NumPy and JAX.

The rules (:mod:`.rules`) are written once, against the array API that NumPy 2 and ``jax.numpy`` both
implement (``xp.where``, ``xp.take_along_axis``, ``xp.sum``, ...). What cannot be written the same way in
both, or is fast in one and slow in the other, lives here:

* **writing at indices**: NumPy writes into the array (the batch's arrays are updated in place, which
  is what makes NumPy fast here); JAX arrays are immutable, so the write makes a new array
  (``x.at[i].set(v)``), which ``jax.jit`` turns into an in-place update of its own;
* **working on some rows only** (dealing to the games whose round just ended): NumPy takes the rows
  that need it, however many; JAX needs shapes known when compiling, so it takes them ``chunk`` at a
  time in a ``lax.while_loop`` until none is left; and a loop that fewer and fewer games need (the bots
  still to move before a learner decides, ``narrowing``) works on fewer rows as they drop out: NumPy on
  just the rows that need it, JAX on the whole batch, then an eighth of it, then a 64th;
* **doing something only if some game needs it** (a reshuffle): a Python ``if`` for NumPy,
  ``lax.cond`` for JAX, so that a compiled step skips the work on the (many) steps that need none;
* **a random order** (the deal): NumPy sorts, JAX counts (``order_by``, the same order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = ["Arrays", "NumpyArrays", "JaxArrays", "arrays_for"]

T = TypeVar("T")
Array = Any  # a NumPy or JAX array: the rules are typed loosely on purpose (two libraries, one code)


class Arrays:
    """The array library the core runs on: ``xp`` is its namespace, the methods are what ``xp`` lacks."""

    name: str
    xp: Any
    jax: Any = None  # the jax module, for JAX

    def set(self, x: Array, index: tuple[Array, ...], value: Array) -> Array:
        """``x`` with ``x[index] = value`` (every index an integer array; no index repeated)."""
        raise NotImplementedError

    def add(self, x: Array, index: tuple[Array, ...], value: Array) -> Array:
        """``x`` with ``x[index] += value`` (no index repeated)."""
        raise NotImplementedError

    def when(self, needed: Array, work: Callable[[T], T], value: T) -> T:
        """``work(value)`` if any element of ``needed`` is true, else ``value`` unchanged."""
        raise NotImplementedError

    def for_rows(self, needed: Array, chunk: int, work: Callable[[T, Array, Array], T], value: T) -> T:
        """Call ``work(value, rows, valid)`` for the rows where ``needed`` is true.

        ``rows`` are row indices; where ``valid`` is false the row is padding and ``work`` must not
        write it (:meth:`put_rows` takes care of that).
        """
        raise NotImplementedError

    def put_rows(self, x: Array, rows: Array, valid: Array, value: Array) -> Array:
        """``x`` with ``x[rows] = value`` for the valid rows."""
        raise NotImplementedError

    def order_by(self, keys: Array) -> Array:
        """For each row of ``keys`` (R, K), the indices that sort it, ties in index order (a stable argsort)."""
        raise NotImplementedError

    def narrowing(self, needs: Callable[[Any], Array], work: Callable[[Any, Array], Any], value: Any) -> Any:
        """``value = work(value, needs(value))`` as long as any row needs it.

        ``value`` is a tuple (or NamedTuple) of arrays with the batch first; ``needs(value)`` (B,) bool says
        which rows the work is for, and ``work`` must leave the other rows unchanged, so that it may be
        handed only some of the rows (with ``needs`` recomputed on them).
        """
        raise NotImplementedError

    def to_numpy(self, x: Array) -> np.ndarray[Any, Any]:
        return np.asarray(x)


class NumpyArrays(Arrays):
    """NumPy: writes go into the arrays themselves."""

    name = "numpy"
    xp = np

    def set(self, x: Array, index: tuple[Array, ...], value: Array) -> Array:
        x[index] = value
        return x

    def add(self, x: Array, index: tuple[Array, ...], value: Array) -> Array:
        x[index] += value
        return x

    def when(self, needed: Array, work: Callable[[T], T], value: T) -> T:
        return work(value) if needed.any() else value

    def for_rows(self, needed: Array, chunk: int, work: Callable[[T, Array, Array], T], value: T) -> T:
        rows = np.flatnonzero(needed)
        if rows.size == 0:
            return value
        return work(value, rows, np.ones(rows.shape, dtype=bool))

    def put_rows(self, x: Array, rows: Array, valid: Array, value: Array) -> Array:
        x[rows] = value
        return x

    def order_by(self, keys: Array) -> Array:
        return np.argsort(keys, axis=1, kind="stable")

    def narrowing(self, needs: Callable[[Any], Array], work: Callable[[Any, Array], Any], value: Any) -> Any:
        while True:
            needed = needs(value)
            rows = np.flatnonzero(needed)
            if rows.size == 0:
                return value
            if rows.size * 3 > needed.shape[0]:  # (many: a copy of their rows would cost more than it saves)
                value = work(value, needed)
            else:
                done = work(_take_rows(value, rows), np.ones(rows.size, dtype=bool))
                _put_rows(value, rows, done)


def _take_rows(value: Any, rows: Array) -> Any:
    """The rows of every array in nested tuples (NamedTuples keep their type)."""
    if isinstance(value, tuple):
        parts = [_take_rows(part, rows) for part in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    return value[rows]


def _put_rows(whole: Any, rows: Array, part: Any) -> None:
    if isinstance(whole, tuple):
        for inner_whole, inner_part in zip(whole, part, strict=True):
            _put_rows(inner_whole, rows, inner_part)
    else:
        whole[rows] = part


class JaxArrays(Arrays):
    """JAX: functional writes, ``lax.cond`` and ``lax.while_loop`` so that the step compiles with ``jax.jit``."""

    name = "jax"

    def __init__(self) -> None:
        try:
            import jax
            import jax.numpy as jnp
        except ImportError as error:  # pragma: no cover - depends on the extra
            raise ImportError(
                "the JAX form of the batched core needs JAX: pip install 'royal-revenge[jax]'"
            ) from error
        self.jax = jax
        self.xp = jnp

    def set(self, x: Array, index: tuple[Array, ...], value: Array) -> Array:
        return x.at[index].set(value)

    def add(self, x: Array, index: tuple[Array, ...], value: Array) -> Array:
        return x.at[index].add(value)

    def when(self, needed: Array, work: Callable[[T], T], value: T) -> T:
        result: T = self.jax.lax.cond(needed.any(), work, lambda unchanged: unchanged, value)
        return result

    def for_rows(self, needed: Array, chunk: int, work: Callable[[T, Array, Array], T], value: T) -> T:
        jnp = self.xp
        size = min(chunk, needed.shape[0])

        def more(carry: tuple[T, Array]) -> Array:
            return carry[1].any()

        def one_chunk(carry: tuple[T, Array]) -> tuple[T, Array]:
            current, left = carry
            (rows,) = jnp.nonzero(left, size=size, fill_value=0)
            valid = jnp.arange(size) < left.sum()
            # (Padding repeats row 0, which may be a real row of this chunk: it points past the end, and is dropped.)
            left = left.at[jnp.where(valid, rows, left.shape[0])].set(False, mode="drop")
            return work(current, rows, valid), left

        result: T
        result, _ = self.jax.lax.while_loop(more, one_chunk, (value, needed))
        return result

    def put_rows(self, x: Array, rows: Array, valid: Array, value: Array) -> Array:
        # Padding rows point past the end, and mode="drop" leaves them out.
        return x.at[self.xp.where(valid, rows, x.shape[0])].set(value, mode="drop")

    def narrowing(self, needs: Callable[[Any], Array], work: Callable[[Any, Array], Any], value: Any) -> Any:
        # The whole batch while more than an eighth of it needs the work; then those rows, gathered into a
        # batch of an eighth's size, until at most a 64th needs it; then those, until none (the last bots
        # of a learner's step wait for a few long turns, and stepping the whole batch for them was most of its cost).
        batch = self.jax.tree_util.tree_leaves(value)[0].shape[0]
        return self._narrowing(needs, work, value, [size for size in (batch // 8, batch // 64) if size >= 1])

    def _narrowing(self, needs: Callable[[Any], Array], work: Callable[[Any, Array], Any], value: Any,
                   sizes: list[int], valid: Array | None = None) -> Any:
        jax, jnp = self.jax, self.xp

        def needed(v: Any) -> Array:  # (``valid``: the gathered rows that are not padding)
            return needs(v) if valid is None else needs(v) & valid

        floor = sizes[0] if sizes else 0
        value = jax.lax.while_loop(lambda v: needed(v).sum() > floor, lambda v: work(v, needed(v)), value)
        if not sizes:
            return value
        batch = jax.tree_util.tree_leaves(value)[0].shape[0]
        now = needed(value)
        (rows,) = jnp.nonzero(now, size=floor, fill_value=0)
        real = jnp.arange(floor) < now.sum()
        part = jax.tree_util.tree_map(lambda x: x[rows], value)
        # (Padding repeats row 0: it is not worked on, and its write points past the end and is dropped.)
        part = self._narrowing(needs, work, part, sizes[1:], real)
        target = jnp.where(real, rows, batch)
        return jax.tree_util.tree_map(lambda x, done: x.at[target].set(done, mode="drop"), value, part)

    def order_by(self, keys: Array) -> Array:
        # By counting, not sorting: XLA's sort on the CPU calls a comparator per comparison, and sorting the
        # 56 places of the games being dealt took a sixth of a whole step. Card i's place is how many keys
        # come before its own (ties in index order, as a stable sort), and the card at place p is the one
        # whose place is p: two (R, K, K) comparisons that vectorise.
        jnp = self.xp
        places = jnp.arange(keys.shape[1], dtype=jnp.int32)
        mine, other = keys[:, :, None], keys[:, None, :]
        before = (other < mine) | ((other == mine) & (places[None, None, :] < places[None, :, None]))
        place = jnp.sum(before, axis=2, dtype=jnp.int32)  # (R, K): the place of each index
        at = place[:, None, :] == places[None, :, None]  # (R, place, index)
        return jnp.sum(jnp.where(at, places[None, None, :], 0), axis=2, dtype=jnp.int32)

    def to_numpy(self, x: Array) -> np.ndarray[Any, Any]:
        return np.asarray(self.jax.device_get(x))


_NUMPY = NumpyArrays()


def arrays_for(backend: str) -> Arrays:
    """The array library by name: ``"numpy"`` or ``"jax"``."""
    if backend == "numpy":
        return _NUMPY
    if backend == "jax":
        return JaxArrays()
    raise ValueError(f"backend must be 'numpy' or 'jax', not {backend!r}")
