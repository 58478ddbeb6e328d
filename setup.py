"""Build script: the package is pure Python; a wheel adds mypyc-compiled copies of the hot modules.

Everything else (metadata, dependencies, package data) is in pyproject.toml. The compiled modules
are an acceleration only: each compiled ``.so`` sits beside its ``.py`` source in the wheel, and
without a C compiler the build falls back to a pure-Python wheel (see
``build_backend/royal_revenge_build.py`` for ``ROYAL_REVENGE_COMPILE``). Editable installs are
always pure Python.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The hot paths: the engine's steps and views, the RL environments, and what the online tables
# server does with every move (the table and its parts, its log's narration, the runner, the state frames,
# the hub). The engine stays standard-library Python at run time: the compiled modules need nothing but the
# interpreter.
COMPILED = [
    "src/royal_revenge/engine/rng.py",
    "src/royal_revenge/engine/state.py",
    "src/royal_revenge/engine/observation.py",
    "src/royal_revenge/engine/events.py",
    "src/royal_revenge/narration.py",
    "src/royal_revenge/session/settings.py",
    "src/royal_revenge/session/seats.py",
    "src/royal_revenge/session/log.py",
    "src/royal_revenge/session/schedule.py",
    "src/royal_revenge/session/views.py",
    "src/royal_revenge/session/social.py",
    "src/royal_revenge/session/row.py",
    "src/royal_revenge/session/replay.py",
    "src/royal_revenge/session/table.py",
    "src/royal_revenge/session/runner.py",
    "src/royal_revenge/server/frames.py",
    "src/royal_revenge/server/hub.py",
    "src/royal_revenge/rl/encoding.py",
    "src/royal_revenge/rl/core.py",
]

HERE = Path(__file__).resolve().parent


def _warn(message: str) -> None:
    print(f"royal-revenge build: {message}", file=sys.stderr)


def _remove_compiled(root: Path) -> None:
    """Delete the compiled modules under a build directory (a failed or an earlier compiled build)."""
    for path in root.rglob("*"):
        if path.suffix in (".so", ".pyd") and path.is_file():
            path.unlink()


class OptionalBuildExt(build_ext):
    """build_ext that, in ``auto`` mode, falls back to pure Python when compiling fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no compiler, no Python headers, a failing link, ...
            if MODE == "1":
                raise
            _warn(f"compiling failed ({error}); building the pure-Python package instead")
            _remove_compiled(Path(self.build_lib))
            self.extensions = []


def _compiled_extensions() -> list[object]:
    if MODE == "0":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        if MODE == "1":
            raise
        _warn("mypy (mypyc) is not installed; building the pure-Python package")
        return []
    try:
        return list(mypycify(COMPILED, opt_level="3", group_name="royal_revenge"))
    except BaseException as error:  # mypyc's type check or code generation failed
        if MODE == "1" or isinstance(error, KeyboardInterrupt):
            raise
        _warn(f"mypyc could not compile ({error!r}); building the pure-Python package")
        return []


MODE = os.environ.get("ROYAL_REVENGE_COMPILE", "auto").strip().lower() or "auto"
if MODE not in ("auto", "0", "1"):
    raise SystemExit(f"ROYAL_REVENGE_COMPILE must be auto, 0 or 1, not {MODE!r}")
if "editable_wheel" in sys.argv or "develop" in sys.argv:
    MODE = "0"  # never compile into an editable install (the backend says so too)
elif not {"bdist_wheel", "build", "build_ext", "install"} & set(sys.argv[1:]):
    MODE = "0"  # metadata only (egg_info, dist_info, sdist): nothing to compile

os.chdir(HERE)  # mypycify takes paths relative to the project
extensions = _compiled_extensions()
if not extensions:
    # A pure build: no compiled module from an earlier build may slip into it.
    for lib in (HERE / "build").glob("lib*"):
        _remove_compiled(lib)

setup(ext_modules=extensions, cmdclass={"build_ext": OptionalBuildExt})
