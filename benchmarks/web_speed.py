#!/usr/bin/env python3
"""How heavy is the browser game, and how fast does it answer a card click? (A script, not a test.)

Two figures, measured in Debian's Chromium through Playwright (issue 16's targets: under 150 KB, under 100 ms):

* **first load**: the JavaScript and CSS a fresh browser receives for the start page (``/``), summed as
  sent and as gzip (level 6, what a compressing proxy sends) would send them;
* **click to next paint**: at a table against bots, the time from a click on a playable card
  (``#hand button.card[data-playable="true"]``) to the next frame the browser paints, with the CPU slowed
  4 times (``Emulation.setCPUThrottlingRate``), median (and 90th percentile) of 20 clicks. Each click is
  timed by the Event Timing API (the measure behind INP: from the input to the paint after its handlers)
  and, when the browser reports no entry (under its 16 ms threshold), by a frame callback after the click.

The table is made through the HTTP API: a host (this script, which plays its own seat over the WebSocket
with the first legal action) and an instant bot, and a seat kept open for the browser, which joins it from
the start page (``#name``, ``#join-code``, ``#btn-join``) as a friend would. Only the DOM contract of the
issue's spec is used, so the script runs against any page that keeps it.

Example (a server of its own on a free port, about a minute)::

    .venv/bin/python benchmarks/web_speed.py --json web_speed.json
    .venv/bin/python benchmarks/web_speed.py --url http://127.0.0.1:8000 --clicks 20 --throttle 4
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import websockets

from royal_revenge.client import merge_state

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required"]
PLAYABLE = '#hand button.card[data-playable="true"]'
TIMER_JS = """
(() => {
  if (window.__rrClicks) return;
  const clicks = window.__rrClicks = [];
  const events = window.__rrEvents = [];
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.interactionId) events.push({id: entry.interactionId, name: entry.name, start: entry.startTime,
                                              duration: entry.duration});
      }
    }).observe({type: 'event', durationThreshold: 16, buffered: true});
  } catch (e) { /* no Event Timing */ }
  document.addEventListener('click', (event) => {
    if (!event.target.closest || !event.target.closest('#hand button.card')) return;
    const start = event.timeStamp;
    requestAnimationFrame(() => setTimeout(() => clicks.push({start, raf: performance.now() - start}), 0));
  }, true);
})();
"""
PREFER = ["jester", "victim", "colour", "play", "keep", "draw", "uno"]
"""The host's choice among its legal actions: the first kind found in this order (never a catch)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def own_server() -> Iterator[str]:
    """A `royal-revenge serve` of its own on a free port (a database in a temporary directory)."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(sys.executable).with_name("royal-revenge")
        process = subprocess.Popen([str(script), "serve", "--port", str(port), "--db", str(Path(tmp) / "t.db"),
                                    "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    output = process.stderr.read().decode() if process.stderr else ""
                    raise RuntimeError(f"the server did not start: {output}") from None
                time.sleep(0.1)
        try:
            yield url
        finally:
            process.terminate()
            process.wait(timeout=10)


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: dict[str, Any] = json.loads(response.read())
        return answer


def create_table(url: str) -> dict[str, Any]:
    """A 3-seat table: the host (this script), an instant easy bot and an open seat for the browser."""
    settings = {"players": 3, "target_score": 100000, "turn_seconds": 600, "bot_delay_seconds": 0,
                "next_round_seconds": 1, "grace_seconds": 600}
    try:  # the seat-by-seat form: seat 1 kept for a friend, seat 2 a bot
        return post(f"{url}/api/tables", {"name": "Host", "settings": settings, "bots": [None, "easy"]})
    except urllib.error.HTTPError:  # a server with only the short form: the bot sits right after the host
        return post(f"{url}/api/tables", {"name": "Host", "settings": settings, "bots": ["easy"]})


class Host(threading.Thread):
    """The host's seat over the WebSocket: starts the game once the browser has joined, then plays instantly."""

    def __init__(self, url: str, code: str, token: str) -> None:
        super().__init__(daemon=True)
        self.ws_url = url.replace("http", "ws", 1) + f"/ws/{code}"
        self.token = token
        self.stop = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(self._play())
        except BaseException as error:  # reported by the main thread
            self.error = error

    async def _play(self) -> None:
        async with websockets.connect(self.ws_url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": self.token}))
            view: dict[str, Any] | None = None
            sent_for = -1
            started = False
            number = 0
            while not self.stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=0.5)
                except TimeoutError:
                    continue
                message = json.loads(raw)
                if message.get("type") != "state":
                    continue
                view = merge_state(view, message)
                number += 1
                if view.get("phase") == "lobby":
                    if not started and all(seat.get("kind") != "open" for seat in view.get("seats", [])):
                        started = True
                        await ws.send(json.dumps({"type": "host", "id": f"h-{number}", "command": "start"}))
                    continue
                legal = view.get("legal") or []
                version = int(view.get("version", 0))
                if not legal or version == sent_for:
                    continue
                chosen = next((action for kind in PREFER for action in legal if action.get("type") == kind), None)
                if chosen is None:
                    continue
                sent_for = version
                await ws.send(json.dumps({"type": "action", "id": f"a-{number}", "action": chosen}))


def first_load(browser: Any, url: str) -> dict[str, Any]:
    """The JavaScript and CSS a fresh browser gets for the start page."""
    context = browser.new_context()
    page = context.new_page()
    files: list[dict[str, Any]] = []

    def on_response(response: Any) -> None:
        kind = response.request.resource_type
        if kind in ("script", "stylesheet") and response.ok:
            with contextlib.suppress(Exception):
                body = response.body()
                files.append({"url": response.url.replace(url, ""), "kind": kind, "bytes": len(body),
                              "gzip": len(gzip.compress(body, 6))})

    page.on("response", on_response)
    page.goto(url + "/", wait_until="networkidle")
    page.wait_for_timeout(300)
    context.close()
    return {"files": files, "bytes": sum(f["bytes"] for f in files), "gzip_bytes": sum(f["gzip"] for f in files)}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def click_to_paint(browser: Any, url: str, clicks: int, throttle: float) -> dict[str, Any]:
    table = create_table(url)
    host = Host(url, table["code"], table["token"])
    host.start()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script("localStorage.setItem('rr.toured', 'true')")  # (a returning player: no first-visit tour)
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(url + "/")
        page.fill("#name", "Bench")
        page.fill("#join-code", table["code"])
        page.click("#btn-join")
        page.wait_for_selector("#table", state="attached")
        page.evaluate(TIMER_JS)
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        measured: list[float] = []
        deadline = time.monotonic() + 60 + clicks * 15
        while len(measured) < clicks:
            if host.error is not None:
                raise RuntimeError(f"the host's connection failed: {host.error!r}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {len(measured)} card clicks could be made in time")
            if not decide_other(page):
                page.wait_for_timeout(50)
                continue
            card = page.locator(PLAYABLE).first
            before = page.evaluate("window.__rrClicks.length")
            card.click(timeout=5_000)
            page.wait_for_function("n => window.__rrClicks.length > n", arg=before, timeout=10_000)
            page.wait_for_timeout(150)  # let the Event Timing entry arrive
            measured.append(click_time(page, before))
            page.wait_for_timeout(100)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    finally:
        host.stop.set()
        context.close()
        host.join(timeout=5)
    return {"clicks": len(measured), "throttle": throttle, "median_ms": statistics.median(measured),
            "p90_ms": percentile(measured, 0.9), "max_ms": max(measured), "all_ms": measured, "page_errors": errors}


def decide_other(page: Any) -> bool:
    """Gets the page to a playable card: makes the King's choices and draws when no card fits; True when one is."""
    if page.locator(PLAYABLE).count():
        return True
    for chooser in ("#royal button[data-colour]", "#royal button[data-victim]", "#royal button[data-jester]"):
        button = page.locator(f"{chooser}:not([disabled])")
        if button.count():
            with contextlib.suppress(Exception):
                button.first.click(timeout=2_000)
            return False
    for action in ("#btn-keep", "#btn-draw"):
        button = page.locator(f"{action}:visible:not([disabled])")
        if button.count():
            with contextlib.suppress(Exception):
                button.first.click(timeout=2_000)
                page.wait_for_timeout(150)
            return bool(page.locator(PLAYABLE).count())
    return False


def click_time(page: Any, index: int) -> float:
    """The click's Event Timing duration (the longest event of its interaction), else its frame-callback time."""
    result: dict[str, Any] = page.evaluate("""i => {
        const click = window.__rrClicks[i];
        const kinds = ['pointerdown', 'pointerup', 'click', 'mousedown', 'mouseup'];
        const near = window.__rrEvents.filter(e => Math.abs(e.start - click.start) < 200 && kinds.includes(e.name));
        return {raf: click.raf, event: near.length ? Math.max(...near.map(e => e.duration)) : null};
    }""", index)
    return float(result["event"]) if result["event"] is not None else float(result["raf"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running server (default: start one on a free port)")
    parser.add_argument("--clicks", type=int, default=20, help="card clicks to time (default 20)")
    parser.add_argument("--throttle", type=float, default=4.0, help="CPU slow-down factor (default 4)")
    parser.add_argument("--chromium", default=CHROMIUM, help=f"the Chromium to drive (default {CHROMIUM})")
    parser.add_argument("--load-only", action="store_true", help="measure only the first load (no table)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    if not shutil.which(args.chromium) and not Path(args.chromium).exists():
        parser.error(f"Chromium not found at {args.chromium} (install Debian's chromium or pass --chromium)")
    from playwright.sync_api import sync_playwright

    with contextlib.ExitStack() as stack:
        url = args.url.rstrip("/") if args.url else stack.enter_context(own_server())
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=args.chromium, headless=True, args=CHROMIUM_ARGS)
        stack.callback(browser.close)
        load = first_load(browser, url)
        speed = None if args.load_only else click_to_paint(browser, url, args.clicks, args.throttle)
    print(f"first load: {len(load['files'])} JS/CSS files, {load['bytes'] / 1024:.1f} KB as sent, "
          f"{load['gzip_bytes'] / 1024:.1f} KB gzipped (target: under 150 KB)")
    for item in load["files"]:
        print(f"  {item['url']}: {item['bytes'] / 1024:.1f} KB, {item['gzip'] / 1024:.1f} KB gzipped")
    if speed is None:
        if args.json:
            args.json.write_text(json.dumps({"first_load": load}, indent=2) + "\n")
        return 0
    print(f"click to next paint, CPU slowed {speed['throttle']:g}x: median {speed['median_ms']:.0f} ms, "
          f"90th percentile {speed['p90_ms']:.0f} ms, max {speed['max_ms']:.0f} ms over {speed['clicks']} clicks "
          "(target: median under 100 ms)")
    if speed["page_errors"]:
        print(f"page errors: {speed['page_errors']}")
    if args.json:
        args.json.write_text(json.dumps({"first_load": load, "click_to_paint": speed}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
