"""Every bold rule id of RULES.md is named by at least one rule test's docstring."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
_CANDIDATES = [
    _HERE.parents[2] / "shared" / "RULES.md",  # the shared material beside the project (as in CI)
    Path("/work/shared/RULES.md"),
    _HERE.parents[1] / "docs" / "rules.md",  # the project's own rules page keeps every id in bold
]


def _rules_text() -> str | None:
    for path in _CANDIDATES:
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return None


def _documented_ids() -> set[str]:
    found: set[str] = set()
    for path in sorted(_HERE.glob("test_rules_*.py")):
        module = importlib.import_module(f"{__package__}.{path.stem}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("test_") and function.__module__ == module.__name__:
                found.update(re.findall(r"R-[A-Z]+-[A-Z0-9]+", (function.__doc__ or "") + name))
    return found


def test_every_bold_rule_has_a_test() -> None:
    """Each **R-...** id in RULES.md appears in a test docstring of tests/engine/test_rules_*.py."""
    text = _rules_text()
    if text is None:
        pytest.skip("RULES.md not found")
    bold = set(re.findall(r"\*\*(R-[A-Z]+-[A-Z0-9]+)\*\*", text))
    assert len(bold) >= 35
    assert bold - _documented_ids() == set()
