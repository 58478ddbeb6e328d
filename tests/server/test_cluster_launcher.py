"""The cluster's launcher: the generated HAProxy configuration, its routing by table code behind a real HAProxy,
and ``LocalCluster`` (server processes, the balancer and a throwaway PostgreSQL) starting and stopping.

Everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from royal_revenge.cli import main
from royal_revenge.server import localdb
from royal_revenge.server.balancer import HaproxyMissing, check_config, find_haproxy, haproxy_config, server_states
from royal_revenge.server.cluster import LocalCluster, serve_command
from royal_revenge.server.localdb import LocalPostgres, PostgresMissing, free_port

pytestmark = pytest.mark.timeout(60)

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


# --- the configuration ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("servers", [1, 3, 8])
def test_the_generated_configuration_passes_haproxys_check(tmp_path: Path, servers: int) -> None:
    addresses = [f"127.0.0.1:{9000 + index}" for index in range(servers)]
    text = haproxy_config(addresses, bind="127.0.0.1:8000", stats_socket=tmp_path / "admin.sock", log=servers == 3)
    path = tmp_path / "haproxy.cfg"
    path.write_text(text)
    check_config(path)
    for needed in ("balance hash var(txn.table)", "hash-type consistent", "option forwardfor", "option redispatch",
                   "timeout tunnel", "http-check send meth GET uri /healthz", "on-marked-down shutdown-sessions"):
        assert needed in text
    assert text.count("\n    server ") == servers


def test_haproxys_check_refuses_a_broken_configuration(tmp_path: Path) -> None:
    path = tmp_path / "haproxy.cfg"
    path.write_text(haproxy_config(["127.0.0.1:9000"]).replace("balance hash", "balance no-such-algorithm"))
    with pytest.raises(ValueError, match="HAProxy refuses"):
        check_config(path)


@pytest.mark.parametrize(("servers", "options"), [
    ([], {}),
    (["127.0.0.1"], {}),
    (["127.0.0.1:9000\n    server evil 10.0.0.1:80"], {}),
    (["127.0.0.1:9000", "127.0.0.1:9001"], {"names": ["a", "a"]}),
    (["127.0.0.1:9000"], {"names": ["a b"]}),
    (["127.0.0.1:9000"], {"bind": "127.0.0.1"}),
    (["127.0.0.1:9000"], {"check_interval": 0}),
])
def test_bad_addresses_and_names_are_refused(servers: list[str], options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        haproxy_config(servers, **options)  # type: ignore[arg-type]


# --- routing behind a real HAProxy ------------------------------------------------------------------------------


class NamedServer:
    """A tiny HTTP server on 127.0.0.1 that answers every GET with its name, the path and X-Forwarded-For."""

    def __init__(self, name: str, port: int = 0) -> None:
        self.name = name

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # (the name http.server calls)
                body = json.dumps({"name": name, "path": self.path,
                                   "forwarded": self.headers.get("X-Forwarded-For")}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.http.daemon_threads = True
        self.port: int = self.http.server_address[1]
        self.thread = threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.thread.join(timeout=5)


class Balancer:
    """A real HAProxy in the foreground, with the generated configuration, in front of ``servers``."""

    def __init__(self, folder: Path, servers: list[NamedServer]) -> None:
        self.port = free_port()
        self.socket = folder / "admin.sock"
        self.config = folder / "haproxy.cfg"
        self.config.write_text(haproxy_config([server.address for server in servers], bind=f"127.0.0.1:{self.port}",
                                              names=[server.name for server in servers], stats_socket=self.socket))
        self.log = (folder / "haproxy.log").open("wb")
        self.process = subprocess.Popen([find_haproxy(), "-db", "-f", str(self.config)], stdout=self.log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"

    def states(self) -> dict[str, str]:
        try:
            return server_states(self.socket)
        except OSError:
            return {}

    def wait_for(self, wanted: dict[str, str], seconds: float = 10) -> float:
        """Waits until the servers are in the wanted states; returns how long it took."""
        start = time.monotonic()
        while {name: self.states().get(name) for name in wanted} != wanted:
            assert self.process.poll() is None, "HAProxy stopped"
            assert time.monotonic() - start < seconds, f"the servers' states stayed {self.states()}, not {wanted}"
            time.sleep(0.05)
        return time.monotonic() - start

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture
def routed(tmp_path: Path) -> Iterator[tuple[Balancer, list[NamedServer]]]:
    servers = [NamedServer(name) for name in ("a", "b", "c")]
    balancer = Balancer(tmp_path, servers)
    try:
        balancer.wait_for(dict.fromkeys(("a", "b", "c"), "UP"))
        yield balancer, servers
    finally:
        balancer.stop()
        for server in servers:
            if server.thread.is_alive():
                server.stop()


def owner_of(client: httpx.Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code, response.text)
    answer = response.json()
    assert answer["path"] == path
    assert answer["forwarded"] == "127.0.0.1"  # (option forwardfor: the client's address)
    name: str = answer["name"]
    return name


def test_haproxy_routes_every_url_of_a_table_by_its_code_and_moves_only_a_stopped_servers_tables(
        routed: tuple[Balancer, list[NamedServer]]) -> None:
    balancer, servers = routed
    rng = random.Random(18)
    codes = ["".join(rng.choice(ALPHABET) for _ in range(10)) for _ in range(60)]
    with httpx.Client(base_url=balancer.url, timeout=5) as client:
        owners: dict[str, str] = {}
        for code in codes:
            dashed = f"{code[:5]}-{code[5:]}".lower()
            seen = {owner_of(client, path) for path in (
                f"/api/tables/{code}", f"/api/tables/{code}/join", f"/api/tables/{code}/record", f"/ws/{code}",
                f"/t/{code}", f"/ws/{code.lower()}", f"/t/{code.lower()}", f"/api/tables/{dashed}/join",
                f"/ws/{code}?resume=1", f"/ws/{code}")}
            assert len(seen) == 1, f"the URLs of {code} reached {seen}"
            owners[code] = seen.pop()
        spread = {name: sum(owner == name for owner in owners.values()) for name in ("a", "b", "c")}
        assert all(spread.values()), f"60 codes should reach every server: {spread}"
        # No code: round robin.
        assert len({owner_of(client, path) for path in ["/", "/api/tables", "/api/tables/", "/help"] * 2}) == 3

        servers[1].stop()
        took = balancer.wait_for({"a": "UP", "b": "DOWN", "c": "UP"})
        assert took < 3, f"a stopped server was marked down after {took:.1f} s"
        moved = {code: owner_of(client, f"/ws/{code}") for code in codes}
        for code, owner in owners.items():
            if owner == "b":
                assert moved[code] in ("a", "c")
            else:
                assert moved[code] == owner, f"{code} moved from {owner} although its server still runs"

        servers[1] = NamedServer("b", servers[1].port)  # back on the same address: its tables come back to it
        balancer.wait_for(dict.fromkeys(("a", "b", "c"), "UP"))
        assert {code: owner_of(client, f"/t/{code}") for code in codes} == owners


# --- LocalCluster: real server processes, HAProxy and a throwaway PostgreSQL -----------------------------------


def test_a_local_cluster_starts_answers_through_the_balancer_and_stops_cleanly() -> None:
    cluster = LocalCluster(processes=2, log_level="warning")
    with cluster:
        assert cluster.balancer_states() == {"p1": "UP", "p2": "UP"}
        assert [cluster.health(index)["node"] for index in (0, 1)] == ["p1", "p2"]
        nodes = {cluster.health()["node"] for _ in range(6)}  # (no table code: round robin)
        assert nodes == {"p1", "p2"}, cluster.logs()
        with httpx.Client(base_url=cluster.url, timeout=5) as client:
            created = client.post("/api/tables", json={"name": "Ann", "settings": {"players": 2}})
            assert created.status_code == 201, created.text
            code = created.json()["code"]
            for path in (f"/api/tables/{code}", f"/api/tables/{code.lower()}", f"/t/{code}"):
                assert client.get(path).status_code == 200, (path, cluster.logs())
        folder, postgres = cluster.folder, cluster.postgres
        assert folder is not None and (folder / "haproxy.cfg").exists()
        assert postgres is not None and postgres.running
        pids = [process.pid for process in cluster.processes]
    assert cluster.haproxy is None and not postgres.running and not folder.exists()
    # (uvicorn ends a graceful stop by raising the signal it caught again: a drained process's status is -SIGTERM)
    assert all(process.returncode in (0, -signal.SIGTERM) for process in cluster.processes), cluster.logs()
    for pid in pids:
        assert pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{cluster.url}/healthz", timeout=1)


def test_a_killed_or_paused_process_is_marked_down_within_seconds_and_up_again() -> None:
    with LocalCluster(processes=2, log_level="warning") as cluster:
        cluster.kill(1)
        assert cluster.wait_until_marked(1, "DOWN") < 2.5
        assert cluster.processes[1].returncode == -signal.SIGKILL
        assert {cluster.health()["node"] for _ in range(4)} == {"p1"}
        cluster.restart(1)
        cluster.wait_until_marked(1, "UP")
        cluster.pause(0)
        try:
            assert cluster.wait_until_marked(0, "DOWN") < 4
            assert {cluster.health()["node"] for _ in range(4)} == {"p2"}
        finally:
            cluster.resume(0)
        cluster.wait_until_marked(0, "UP")
        assert cluster.drain(0) in (0, -signal.SIGTERM)
        cluster.wait_until_marked(0, "DOWN")


def test_the_cluster_command_runs_until_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    command = [*serve_command(), "cluster", "--processes", "1", "--port", str(port), "--log-level", "warning",
               "--folder", str(tmp_path / "cluster")]
    launcher = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert launcher.stdout is not None
        said = []
        for line in launcher.stdout:
            said.append(line)
            if line.startswith("Ctrl-C"):
                break
        assert f"open http://127.0.0.1:{port}/" in said[0], "".join(said)
        assert re.search(r"^  p1 +pid \d+, http://127\.0\.0\.1:\d+", "".join(said), re.MULTILINE)
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()["node"] == "p1"
        launcher.send_signal(signal.SIGINT)
        try:
            # (the stop's own bounds: 10 s for HAProxy, 30 s for the processes to drain, 30 s for PostgreSQL)
            rest, _ = launcher.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            launcher.kill()
            rest, _ = launcher.communicate()
            raise AssertionError(f"the cluster did not stop within 90 s of Ctrl-C; it said: {rest}") from None
        assert launcher.returncode == 0, rest
        assert rest.rstrip().endswith("stopped")
        assert (tmp_path / "cluster" / "haproxy.cfg").exists() and (tmp_path / "cluster" / "p1.log").exists()
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()


def test_a_missing_haproxy_or_postgresql_is_said_in_plain_words(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)  # (as balancer.find_haproxy looks)
    cluster = LocalCluster(processes=1)
    with pytest.raises(HaproxyMissing, match=re.escape("apt-get install haproxy")):
        cluster.start()
    assert cluster.postgres is None and cluster.processes == []
    assert main(["cluster", "--port", "0"]) == 1
    assert "apt-get install haproxy" in capsys.readouterr().err
    monkeypatch.undo()

    monkeypatch.setattr(localdb, "find_bin_dir", lambda: None)
    with pytest.raises(PostgresMissing, match=re.escape("apt-get install postgresql")):
        LocalPostgres().start()
    assert main(["cluster", "--port", "0"]) == 1
    assert "apt-get install postgresql" in capsys.readouterr().err


def test_the_configuration_shown_in_the_scaling_guide_is_the_generated_one() -> None:
    guide = (Path(__file__).parents[2] / "docs" / "scaling.md").read_text()
    shown = re.search(r"```haproxy\n(.*?)```", guide, re.DOTALL)
    assert shown is not None, "docs/scaling.md shows the generated HAProxy configuration"
    addresses = re.findall(r"^    server p\d (\S+)$", shown.group(1), re.MULTILINE)
    bind = re.search(r"^    bind (\S+)$", shown.group(1), re.MULTILINE)
    assert addresses and bind is not None
    assert shown.group(1) == haproxy_config(addresses, bind=bind.group(1))
