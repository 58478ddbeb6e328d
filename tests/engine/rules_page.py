"""The rule ids as the repository states them: docs/rules.md, the project's own rules page.

Every rule keeps the id of the shared reference (``RULES.md``, outside the repository), and the page lists each
one as a bullet that starts with the id in bold (``- **R-UNO-2** ...``), the decisions where the rules are
silent as ``- **D-1** ...``. Tests read the ids from here, so a rule added to the page is a rule the tests must
cover, and no test keeps its own copy of the list.
"""

from __future__ import annotations

import re
from pathlib import Path

RULES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules.md"

RULE_ID = re.compile(r"\bR-[A-Z]+-[A-Z0-9]+\b")
"""A rule id where it is cited (``R-ACT-PLUS``, ``R-UNO-2``)."""
RULE_FAMILY = re.compile(r"\bR-[A-Z]+\b(?!-)")
"""A whole family of rules (``R-UNO``: a test file's or a module's subject)."""
DECISION_ID = re.compile(r"\bD-[0-9]+\b")
"""One of the project's decisions where the rules are silent (``D-4``)."""

_DEFINED = re.compile(r"^- \*\*((?:R-[A-Z]+-[A-Z0-9]+)|(?:D-[0-9]+))\*\*", re.MULTILINE)


def _defined() -> list[str]:
    return _DEFINED.findall(RULES_PAGE.read_text(encoding="utf-8"))


def rule_ids() -> frozenset[str]:
    """Every rule id that docs/rules.md defines (``R-...``)."""
    return frozenset(name for name in _defined() if name.startswith("R-"))


def decision_ids() -> frozenset[str]:
    """Every decision that docs/rules.md defines (``D-...``)."""
    return frozenset(name for name in _defined() if name.startswith("D-"))


def rule_families() -> frozenset[str]:
    """The families of the rule ids (``R-UNO`` for ``R-UNO-1`` to ``R-UNO-3``)."""
    return frozenset(name.rsplit("-", 1)[0] for name in rule_ids())
