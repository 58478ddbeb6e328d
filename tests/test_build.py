"""Which build runs: the sources in the development install, the compiled modules in the compiled build.

``make test`` runs the suite against the editable install (pure Python: an edited ``.py`` file is what
runs, never a stale compiled copy), then runs this file and the tests of everything the compiled modules
run in (engine, RL, bots, server, terminal game, simulations) again with the compiled build first on
``PYTHONPATH`` and ``ROYAL_REVENGE_EXPECT_COMPILED=1``. The compiled modules are the ones that
``setup.py`` lists.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import os
from pathlib import Path

import pytest

import royal_revenge
from royal_revenge.engine import GameOptions, GameState
from royal_revenge.engine import state as state_module

ROOT = Path(__file__).resolve().parent.parent
EXPECT_COMPILED = os.environ.get("ROYAL_REVENGE_EXPECT_COMPILED") == "1"


def compiled_modules() -> list[str]:
    """The module names of setup.py's ``COMPILED`` list."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets):
            paths = ast.literal_eval(node.value)
            return [str(Path(p).relative_to("src").with_suffix("")).replace("/", ".") for p in paths]
    raise AssertionError("setup.py has no COMPILED list")


def is_compiled(module_name: str) -> bool:
    module = importlib.import_module(module_name)
    file = getattr(module, "__file__", None) or ""
    return file.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def test_the_compiled_list_names_the_hot_modules() -> None:
    session = [f"royal_revenge.session.{name}" for name in
               ("settings", "seats", "log", "schedule", "views", "social", "row", "replay", "table", "runner")]
    assert compiled_modules() == [
        "royal_revenge.engine.rng", "royal_revenge.engine.state", "royal_revenge.engine.observation",
        "royal_revenge.engine.events", "royal_revenge.narration", *session, "royal_revenge.server.frames",
        "royal_revenge.server.hub", "royal_revenge.rl.encoding", "royal_revenge.rl.core"]


def test_the_expected_build_is_the_one_loaded() -> None:
    names = compiled_modules()
    loaded = {name: is_compiled(name) for name in names}
    package_dir = Path(royal_revenge.__file__).resolve().parent
    if EXPECT_COMPILED:
        assert all(loaded.values()), f"expected the compiled build, but these run as Python: {loaded}"
        assert package_dir != ROOT / "src" / "royal_revenge", "the compiled build must not be the checkout's sources"
    elif package_dir == ROOT / "src" / "royal_revenge":
        # The development install runs the sources being edited: no compiled module beside them.
        assert not any(loaded.values()), f"compiled modules shadow the sources: {loaded}"
        strays = [p.name for p in package_dir.rglob("*") if p.suffix in (".so", ".pyd")]
        assert not strays, f"compiled files in the source tree would shadow the .py files: {strays}"
    else:  # an installed wheel: compiled or not, but all of a piece
        assert len(set(loaded.values())) == 1, loaded


def test_a_bare_game_state_is_refused() -> None:
    with pytest.raises(TypeError, match=r"GameState\.new"):
        GameState()


def test_the_compared_fields_are_every_field_but_the_events() -> None:
    fields = state_module._FIELDS
    slots = getattr(GameState, "__slots__", None)
    if slots is not None:  # interpreted: the class lists its slots
        assert set(fields) == set(slots) - {"_events"}
    state = GameState.new(GameOptions(players=3), seed=1)
    copy = state.copy()
    assert all(getattr(state, name) == getattr(copy, name) for name in fields)
    assert state == copy and state is not copy
