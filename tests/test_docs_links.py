"""Every relative link of the README and docs/*.md reaches a file of the repository, and its #anchor a heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_LINK = re.compile(r"\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def _anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_anchor(heading) for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.MULTILINE)}


def test_the_anchor_of_a_heading() -> None:
    assert _anchor("The RL environments against RLCard's UNO") == "the-rl-environments-against-rlcards-uno"
    assert _anchor("The observation: `observation` (float32, 292)") == "the-observation-observation-float32-292"


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_relative_link_reaches_its_target(page: Path) -> None:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    broken = []
    for match in _LINK.finditer(text):
        target = match[1] or match[2]
        if re.match(r"[a-z]+:", target):  # (http:, https:, mailto: are not the repository's)
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or not file.resolve().is_relative_to(ROOT):
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no such heading")
    assert not broken, broken
