"""Every rule of docs/rules.md is cited by a test, and every id cited anywhere is one the page defines.

The repository's own rules page (docs/rules.md, read by ``rules_page``) is the list: it restates every rule id
of the shared reference, so nothing here depends on a file outside the repository, and nothing skips. A test
cites a rule wherever in its own source the id appears: its docstring, a comment, or its code (a
``refused(state, seat, action, "R-UNO-3")`` call, a parametrized case), its decorators included.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from .rules_page import DECISION_ID, RULE_FAMILY, RULE_ID, RULES_PAGE, decision_ids, rule_families, rule_ids

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
SOURCES = ROOT / "src" / "royal_revenge"

_NOT_SOURCES = {"__pycache__", "dist", "node_modules", "__snapshots__"}
"""Folders of generated files (the bundled browser game repeats its sources' comments)."""
_TEXT_SUFFIXES = {".py", ".js", ".html", ".css", ".md", ".tcss"}


def _test_sources() -> Iterator[tuple[str, str]]:
    """``(name, source)`` of every test function in tests/, with its decorators (this file's aside)."""
    for path in sorted(TESTS.rglob("test_*.py")):
        if path == Path(__file__).resolve() or _NOT_SOURCES & set(path.parts):
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
                first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
                yield f"{path.relative_to(ROOT)}::{node.name}", "\n".join(lines[first - 1:node.end_lineno])


def _cited_by_tests() -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    for name, source in _test_sources():
        for rule in set(RULE_ID.findall(source)):
            cited.setdefault(rule, []).append(name)
    return cited


def _text_files() -> Iterator[Path]:
    for folder in (SOURCES, TESTS):
        for path in sorted(folder.rglob("*")):
            if path.suffix in _TEXT_SUFFIXES and path.is_file() and not _NOT_SOURCES & set(path.parts):
                yield path


def test_the_rules_page_is_read_as_it_is_written() -> None:
    """Every id the page names is one of its bullets (so none is missed by the reading), and the decisions are
    numbered from D-1 without a gap. (At least 35 rules: a page that the reading no longer understands would
    otherwise leave nothing to cover.)"""
    text = RULES_PAGE.read_text(encoding="utf-8")
    assert set(RULE_ID.findall(text)) == rule_ids() and len(rule_ids()) >= 35
    assert set(DECISION_ID.findall(text)) == decision_ids()
    numbers = sorted(int(decision.removeprefix("D-")) for decision in decision_ids())
    assert numbers == list(range(1, len(numbers) + 1)), numbers


def test_every_rule_is_cited_by_a_test() -> None:
    """Each rule id that docs/rules.md defines appears in the source of at least one test function."""
    uncited = rule_ids() - set(_cited_by_tests())
    assert not uncited, f"no test cites {sorted(uncited)} (rules of {RULES_PAGE.relative_to(ROOT)})"


def test_every_cited_id_is_defined() -> None:
    """An id in the package or the tests (code, comments, docs, the browser game) is one that the page defines:
    a mistyped or a withdrawn id fails here."""
    rules, families, decisions = rule_ids(), rule_families(), decision_ids()
    unknown: list[str] = []
    for path in _text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        found = ([rule for rule in RULE_ID.findall(text) if rule not in rules]
                 + [family for family in RULE_FAMILY.findall(text) if family not in families]
                 + [decision for decision in DECISION_ID.findall(text) if decision not in decisions])
        unknown += [f"{path.relative_to(ROOT)}: {name}" for name in sorted(set(found))]
    assert not unknown, unknown
