"""Browser tests: Debian's Chromium driven by Playwright against a real `royal-revenge serve` process."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    folder = tmp_path_factory.mktemp("web")
    script = Path(sys.executable).with_name("royal-revenge")
    # The server's log goes to a file: a pipe nobody reads fills up (64 KiB) and then blocks the server mid-game.
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        # (every browser test opens its tables from this one address: the per-address bound of 20 live tables, which
        # tests/server covers, would refuse the later ones)
        [str(script), "serve", "--port", str(port), "--db", str(folder / "tables.db"), "--log-level", "warning",
         "--no-rate-limits"],
        stdout=subprocess.DEVNULL, stderr=log,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
                if response.status == 200:
                    break
        except OSError as error:
            if process.poll() is not None or time.monotonic() > deadline:
                output = (folder / "server.log").read_text(errors="replace")
                raise RuntimeError(f"server did not start: {output}") from error
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(timeout=10)
    log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is needed for the browser tests: install Debian's chromium ({CHROMIUM} not found)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def shots() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session", autouse=True)
def bundle() -> None:
    """The bundle the page loads, built from the sources (web/dist is not in git)."""
    subprocess.run(["npm", "run", "-s", "build"], cwd=ROOT, check=True, capture_output=True)


REFUSED_REQUEST = re.compile(r"Failed to load resource: the server responded with a status of 4\d\d")


@pytest.fixture
def pages(browser: Any) -> Iterator[Any]:
    """Makes pages in fresh browser contexts (the tour already seen); checks they logged no errors."""
    made: list[tuple[Any, list[str]]] = []

    def make(width: int = 1280, height: int = 800, *, toured: bool = True, **options: Any) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        if toured:
            context.add_init_script("localStorage.setItem('rr.toured', 'true')")
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(20_000)
        page.errors = errors
        made.append((page, errors))
        return page

    yield make
    for page, errors in made:
        # (the browser logs every refused request, which the page answers in words: only script errors count)
        real = [e for e in errors if not REFUSED_REQUEST.match(e)]
        page.context.close()
        assert real == [], f"console errors: {real}"


AXE = Path(str(__import__("axe_playwright_python").__file__)).with_name("axe.min.js")
"""axe-core, as the axe-playwright-python package ships it."""


def run_axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now."""
    page.evaluate(AXE.read_text())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']}).then(r => r.violations)")
    return [v for v in result if v["impact"] in ("serious", "critical")]
