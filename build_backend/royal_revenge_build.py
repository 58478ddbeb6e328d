"""The build backend: setuptools, plus the optional mypyc-compiled build of the hot modules.

A thin wrapper around ``setuptools.build_meta`` (PEP 517, in-tree). The wheel (``pip wheel .``,
``pip install .``) asks for mypy and numpy as build requirements and compiles the modules that
``setup.py`` lists; the editable install (``pip install -e .``, the developers' install) never
compiles anything and needs neither, so an edited ``.py`` file is always the code that runs.

``ROYAL_REVENGE_COMPILE`` (environment) chooses, for a wheel: ``auto`` (the default: compile,
and fall back to the pure-Python wheel with a warning when no C compiler or Python headers are
available), ``1`` (compile or fail), ``0`` (pure Python).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (re-exported hooks)
    build_sdist,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

# mypyc comes with mypy; numpy is needed to type-check (and so compile) the RL modules.
COMPILE_REQUIRES = ["mypy>=1.18", "numpy>=1.26"]


def _mode() -> str:
    mode = os.environ.get("ROYAL_REVENGE_COMPILE", "auto").strip().lower() or "auto"
    if mode not in ("auto", "0", "1"):
        raise ValueError(f"ROYAL_REVENGE_COMPILE must be auto, 0 or 1, not {mode!r}")
    return mode


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    requires = list(_setuptools.get_requires_for_build_wheel(config_settings))
    return requires + (COMPILE_REQUIRES if _mode() != "0" else [])


ROOT = Path(__file__).resolve().parent.parent
WEB_BUNDLES = [ROOT / "src" / "royal_revenge" / "web" / "dist" / name for name in ("main.js", "help.js")]
"""The browser game's bundle entries (package.json's build): the game's page and the help page."""


def _ensure_web_bundle() -> None:
    """The wheel ships the browser game's bundle: build it with npm when the checkout has not (``make`` does)."""
    if all(bundle.exists() for bundle in WEB_BUNDLES) or not (ROOT / "package.json").exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("the browser game must be built before the wheel, and that needs Node.js and npm: "
                           "install them, or run `make web` where they are, then build again")
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ROOT, check=True)
    subprocess.run([npm, "run", "-s", "build"], cwd=ROOT, check=True)


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    _ensure_web_bundle()
    return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return list(_setuptools.get_requires_for_build_editable(config_settings))


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    # Never compile into an editable install: compiled modules would shadow the sources being edited.
    os.environ["ROYAL_REVENGE_COMPILE"] = "0"
    return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))
