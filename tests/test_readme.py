"""The README's library example runs as written."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_library_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has a Python example"
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(blocks[0], "README.md", "exec"), {})
    lines = output.getvalue().splitlines()
    assert lines[0].startswith("Outcome(winners=(")
    assert lines[1] == "JESTER R7!"


def test_quickstart_names_exactly_two_commands() -> None:
    quickstart = README.read_text().split("## Quickstart", 1)[1].split("##", 1)[0]
    commands = re.findall(r"^make \w+", quickstart.split("```sh", 1)[1].split("```", 1)[0], flags=re.M)
    assert commands == ["make run", "make test"]
