"""A cluster on this machine: N ``royal-revenge serve`` processes, HAProxy in front of them and PostgreSQL behind.

``royal-revenge cluster`` runs one for trying it; :class:`LocalCluster` is the same from Python, for the end-to-end
tests and the benchmarks::

    with LocalCluster(processes=3) as cluster:       # a throwaway PostgreSQL, 3 processes, HAProxy
        httpx.get(f"{cluster.url}/healthz")           # through the balancer
        cluster.kill(1)                               # SIGKILL the second process (p2)
        cluster.wait_until_marked(1, "DOWN")          # HAProxy saw it die: its tables go to the others

Each process is ``royal-revenge serve --node pK --db URL --host 127.0.0.1 --port FREE --forwarded-allow-ips
127.0.0.1`` (the balancer passes the players' addresses in X-Forwarded-For); its standard error goes to a log file
in the cluster's folder, where the generated HAProxy configuration is too. Stopping stops HAProxy first, then every
process by SIGTERM (each drains: stops listening, commits, hands its tables' leases back), then PostgreSQL if the
cluster started it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from .balancer import check_config, find_haproxy, haproxy_config, server_states
from .localdb import LocalPostgres, free_port

__all__ = ["ClusterError", "LocalCluster", "ServerProcess", "serve_command"]

DRAIN_SECONDS = 30.0
"""How long :meth:`LocalCluster.stop` lets a process drain after SIGTERM before it kills it."""


class ClusterError(RuntimeError):
    """A part of the local cluster did not start, or stopped (the message says which, with its log's end)."""


def serve_command() -> list[str]:
    """How to run ``royal-revenge`` with this interpreter: its console script beside ``sys.executable``, or the
    interpreter itself on the command-line module (same packages, same ``PYTHONPATH``)."""
    script = Path(sys.executable).with_name("royal-revenge")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-P", "-c", "import sys; from royal_revenge.cli import main; sys.exit(main())"]


def _tail(path: Path, lines: int = 15) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    return ""


@dataclass(eq=False)
class ServerProcess:
    """One ``royal-revenge serve`` of the cluster."""

    name: str
    """Its ``--node`` name, which is also its server's name in HAProxy (``p1``, ``p2``...)."""
    port: int
    log: Path
    popen: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The process itself, bypassing the balancer."""
        return f"http://{self.address}"

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen is not None else None

    @property
    def running(self) -> bool:
        """Started and not exited (a paused process is running)."""
        return self.popen is not None and self.popen.poll() is None

    @property
    def returncode(self) -> int | None:
        return self.popen.poll() if self.popen is not None else None


class LocalCluster:
    """``processes`` server processes behind HAProxy on ``host:port`` (0: a free port), sharing PostgreSQL.

    ``db`` is a PostgreSQL URL every process uses; without it the cluster starts a throwaway PostgreSQL of its own
    (:class:`~royal_revenge.server.localdb.LocalPostgres`) and deletes it at the end. ``lease_seconds`` is passed to
    each process as ``--lease-seconds`` (the processes' default otherwise), ``log_level`` as ``--log-level``;
    ``no_rate_limits`` lifts the per-address limits (load tests only); ``serve_args`` are added to every ``serve``
    command. ``folder`` keeps the logs and the HAProxy configuration there (a temporary folder, deleted at the end,
    by default). ``check_interval`` is HAProxy's health-check period in seconds.

    Processes are numbered from 0 in :attr:`processes` (named ``p1``...): :meth:`kill`, :meth:`pause`,
    :meth:`resume`, :meth:`drain` and :meth:`restart` take that index.
    """

    def __init__(
        self,
        processes: int = 2,
        *,
        port: int = 0,
        host: str = "127.0.0.1",
        db: str | None = None,
        lease_seconds: float | None = None,
        log_level: str = "info",
        no_rate_limits: bool = False,
        serve_args: Sequence[str] = (),
        folder: Path | str | None = None,
        check_interval: float = 0.5,
        start_timeout: float = 60.0,
        env: dict[str, str] | None = None,
    ) -> None:
        if processes < 1:
            raise ValueError("a cluster needs at least one process")
        if db is not None and not db.startswith("postgresql"):
            raise ValueError("the processes of a cluster share a PostgreSQL database: give a postgresql:// URL")
        self.host = host
        self.port = port
        self.given_db = db
        self.lease_seconds = lease_seconds
        self.log_level = log_level
        self.no_rate_limits = no_rate_limits
        self.serve_args = list(serve_args)
        self.check_interval = check_interval
        self.start_timeout = start_timeout
        self.env = env
        self._keep_folder = folder is not None
        self._folder_option = Path(folder) if folder is not None else None
        self.folder: Path | None = None
        self.db_url: str | None = db
        self.postgres: LocalPostgres | None = None
        self.processes: list[ServerProcess] = []
        self.count = processes
        self.haproxy: subprocess.Popen[bytes] | None = None
        self.config_path: Path | None = None
        self.stats_socket: Path | None = None
        self._started = False

    # --- addresses ------------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The balancer's URL: what players open."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "*", "") else self.host
        return f"http://{host}:{self.port}"

    # --- starting and stopping ------------------------------------------------------------------------------------

    def start(self) -> LocalCluster:
        """Starts PostgreSQL (unless given), the processes (each waited for until its ``/healthz`` answers) and
        HAProxy (waited for until it sees every process up). Raises :class:`~.balancer.HaproxyMissing` or
        :class:`~.localdb.PostgresMissing` (saying which Debian package to install), or :class:`ClusterError`."""
        if self._started:
            raise ClusterError("this cluster was already started")
        self._started = True
        haproxy = find_haproxy()  # (before anything starts: a missing balancer is said at once)
        if importlib.util.find_spec("asyncpg") is None:
            raise ClusterError("the server processes need the PostgreSQL driver asyncpg: "
                               "pip install 'royal-revenge[postgres]'")
        try:
            if self._folder_option is not None:
                self._folder_option.mkdir(parents=True, exist_ok=True)
                self.folder = self._folder_option
            else:
                self.folder = Path(tempfile.mkdtemp(prefix="rr-cluster-"))
            if self.given_db is None:
                self.postgres = LocalPostgres(max_connections=40 + 30 * self.count)
                self.postgres.start()
                self.db_url = self.postgres.new_database("royal_revenge")
            if self.port == 0:
                self.port = free_port("127.0.0.1" if self.host in ("0.0.0.0", "*", "") else self.host)
            self.processes = [ServerProcess(f"p{index}", free_port(), self.folder / f"p{index}.log")
                              for index in range(1, self.count + 1)]
            # The first process alone, so that it creates the database's tables before the others look for them.
            self._launch(self.processes[0])
            self._wait_healthy(self.processes[0])
            for process in self.processes[1:]:
                self._launch(process)
            for process in self.processes[1:]:
                self._wait_healthy(process)
            self._start_haproxy(haproxy)
        except BaseException:
            self.stop()
            raise
        return self

    def _launch(self, process: ServerProcess) -> None:
        assert self.folder is not None and self.db_url is not None
        command = [*serve_command(), "serve", "--host", "127.0.0.1", "--port", str(process.port), "--db", self.db_url,
                   "--node", process.name, "--forwarded-allow-ips", "127.0.0.1", "--log-level", self.log_level]
        if self.lease_seconds is not None:
            command += ["--lease-seconds", str(self.lease_seconds)]
        if self.no_rate_limits:
            command.append("--no-rate-limits")
        command += self.serve_args
        environment = {**os.environ, **(self.env or {})}
        with process.log.open("ab") as log:
            # (a session of its own: a Ctrl-C at the terminal reaches the launcher, which stops everything in order)
            process.popen = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                             env=environment, start_new_session=True)

    def _wait_healthy(self, process: ServerProcess) -> None:
        deadline = time.monotonic() + self.start_timeout
        with httpx.Client(timeout=1.0) as client:
            while True:
                if not process.running:
                    raise ClusterError(f"the server process {process.name} stopped while starting "
                                       f"(exit status {process.returncode}); the end of its log:\n{_tail(process.log)}")
                with contextlib.suppress(httpx.HTTPError, ValueError):
                    answer = client.get(f"{process.url}/healthz")
                    if answer.status_code == 200 and answer.json().get("status") == "ok":
                        node = answer.json().get("node")
                        if node != process.name:
                            raise ClusterError(f"the server process {process.name} does not run as a cluster "
                                               f"process (its /healthz names the node {node!r})")
                        return
                if time.monotonic() > deadline:
                    raise ClusterError(f"the server process {process.name} did not answer /healthz within "
                                       f"{self.start_timeout:g} s; the end of its log:\n{_tail(process.log)}")
                time.sleep(0.05)

    def _start_haproxy(self, haproxy: str) -> None:
        assert self.folder is not None
        self.stats_socket = self.folder / "haproxy.sock"
        self.config_path = self.folder / "haproxy.cfg"
        self.config_path.write_text(haproxy_config(
            [process.address for process in self.processes], bind=f"{self.host}:{self.port}",
            names=[process.name for process in self.processes], check_interval=self.check_interval,
            stats_socket=self.stats_socket))
        check_config(self.config_path)
        with (self.folder / "haproxy.log").open("ab") as log:
            self.haproxy = subprocess.Popen([haproxy, "-db", "-f", str(self.config_path)], stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + self.start_timeout
        while set(self.balancer_states().values()) != {"UP"}:
            if self.haproxy.poll() is not None:
                raise ClusterError(f"HAProxy stopped while starting; the end of its log:\n"
                                   f"{_tail(self.folder / 'haproxy.log')}")
            if time.monotonic() > deadline:
                raise ClusterError(f"HAProxy did not see every process up within {self.start_timeout:g} s: "
                                   f"{self.balancer_states()}")
            time.sleep(0.05)

    def stop(self, drain_seconds: float = DRAIN_SECONDS) -> None:
        """Stops HAProxy, then every process by SIGTERM (killed if it has not drained within ``drain_seconds``),
        then the throwaway PostgreSQL, and deletes the temporary folder. Safe to call twice, and after a failed
        start."""
        if self.haproxy is not None:
            _end(self.haproxy, signal.SIGTERM, 10.0)
            self.haproxy = None
        running = [process for process in self.processes if process.running]
        for process in running:
            assert process.popen is not None
            with contextlib.suppress(ProcessLookupError):
                process.popen.send_signal(signal.SIGCONT)  # (a paused process must run to drain)
                process.popen.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + drain_seconds
        for process in running:
            assert process.popen is not None
            _end(process.popen, None, max(0.0, deadline - time.monotonic()))
        if self.postgres is not None:
            self.postgres.stop()
            self.postgres = None
        if self.folder is not None and not self._keep_folder:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

    # --- one process ----------------------------------------------------------------------------------------------

    def _popen(self, index: int) -> subprocess.Popen[bytes]:
        popen = self.processes[index].popen
        if popen is None:
            raise ClusterError(f"the server process {self.processes[index].name} was not started")
        return popen

    def signal(self, index: int, signum: int) -> None:
        """Sends a signal to process ``index``."""
        self._popen(index).send_signal(signum)

    def kill(self, index: int) -> None:
        """SIGKILL: the process dies at once, as in a crash; its leases expire and the others take its tables."""
        self.signal(index, signal.SIGKILL)
        self._popen(index).wait()

    def pause(self, index: int) -> None:
        """SIGSTOP: the process stops running without dying (as in a long pause or a partition)."""
        self.signal(index, signal.SIGSTOP)

    def resume(self, index: int) -> None:
        """SIGCONT: a paused process runs again."""
        self.signal(index, signal.SIGCONT)

    def drain(self, index: int, wait: float | None = DRAIN_SECONDS) -> int | None:
        """SIGTERM: the process drains (stops listening, commits, hands its tables back) and exits. Waits up to
        ``wait`` seconds for it (None: does not wait) and returns its exit status, None if it has not exited."""
        self.signal(index, signal.SIGTERM)
        if wait is None:
            return None
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self._popen(index).wait(timeout=wait)
        return None

    def restart(self, index: int) -> None:
        """Starts process ``index`` again (after it exited) on the same port and with the same name, and waits
        until it answers ``/healthz``; HAProxy puts it back when its checks pass (:meth:`wait_until_marked`)."""
        process = self.processes[index]
        if process.running:
            raise ClusterError(f"the server process {process.name} is still running")
        self._launch(process)
        self._wait_healthy(process)

    # --- what the balancer sees -----------------------------------------------------------------------------------

    def balancer_states(self) -> dict[str, str]:
        """HAProxy's view of each process by name: ``UP``, ``DOWN``, ``UP 1/2`` (failing), ``DOWN 1/2`` (coming
        back)...; empty while HAProxy does not answer."""
        if self.stats_socket is None or self.haproxy is None or self.haproxy.poll() is not None:
            return {}
        try:
            return server_states(self.stats_socket)
        except (OSError, ValueError):
            return {}

    def wait_until_marked(self, index: int, state: str, timeout: float = 10.0) -> float:
        """Waits until HAProxy marks process ``index`` ``UP`` or ``DOWN``; returns how long it took (seconds)."""
        name = self.processes[index].name
        start = time.monotonic()
        while self.balancer_states().get(name) != state:
            if time.monotonic() - start > timeout:
                raise ClusterError(f"HAProxy did not mark {name} {state} within {timeout:g} s "
                                   f"({self.balancer_states()})")
            time.sleep(0.02)
        return time.monotonic() - start

    def health(self, index: int | None = None, timeout: float = 2.0) -> dict[str, Any]:
        """``GET /healthz`` of process ``index``, or through the balancer (None); raises for an HTTP error."""
        url = self.url if index is None else self.processes[index].url
        answer = httpx.get(f"{url}/healthz", timeout=timeout)
        answer.raise_for_status()
        body: dict[str, Any] = answer.json()
        return body

    def logs(self) -> dict[str, str]:
        """Each log's text so far, by name (``p1``..., ``haproxy``, ``postgres``), for a failing test's message."""
        found = {process.name: _tail(process.log, 10_000) for process in self.processes}
        if self.folder is not None:
            found["haproxy"] = _tail(self.folder / "haproxy.log", 10_000)
        if self.postgres is not None:
            found["postgres"] = self.postgres.log
        return found

    def describe(self) -> str:
        """What runs where, for a person."""
        lines = [f"UNO Royal Revenge cluster: open {self.url}/",
                 f"  balancer  HAProxy, pid {self.haproxy.pid if self.haproxy else '-'}, on {self.host}:{self.port}, "
                 f"configuration {self.config_path}"]
        for process in self.processes:
            lines.append(f"  {process.name:<9} pid {process.pid}, {process.url}, log {process.log}")
        database = self.db_url or ""
        kind = "throwaway, deleted at the end" if self.postgres is not None else "given"
        lines.append(f"  database  {database} ({kind})")
        return "\n".join(lines)

    def check(self) -> list[str]:
        """What has stopped that should run: one line per process or balancer that exited."""
        gone = [f"the server process {process.name} exited with status {process.returncode}"
                for process in self.processes if process.popen is not None and not process.running]
        if self.haproxy is not None and self.haproxy.poll() is not None:
            gone.append(f"HAProxy exited with status {self.haproxy.returncode}")
        return gone


def _end(popen: subprocess.Popen[bytes], signum: int | None, timeout: float) -> None:
    """Sends ``signum`` (unless None), waits up to ``timeout`` seconds, then kills."""
    if popen.poll() is None and signum is not None:
        with contextlib.suppress(ProcessLookupError):
            popen.send_signal(signum)
    try:
        popen.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        popen.kill()
        popen.wait()


def run(processes: int, host: str, port: int, db: str | None, lease_seconds: float | None, log_level: str,
        no_rate_limits: bool, folder: Path | None, echo: Callable[[str], object] = print) -> int:
    """``royal-revenge cluster``: starts a :class:`LocalCluster`, says what runs where, runs until Ctrl-C or SIGTERM
    (or until HAProxy stops), then stops everything; returns the exit status. A part that cannot start raises
    (:class:`~.balancer.HaproxyMissing`, :class:`~.localdb.PostgresMissing`, :class:`ClusterError`), after what had
    started is stopped."""
    cluster = LocalCluster(processes, port=port, host=host, db=db, lease_seconds=lease_seconds, log_level=log_level,
                           no_rate_limits=no_rate_limits, folder=folder)

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupted)
    # (Ctrl-C is handled here too: a process started in the background by a shell without job control inherits
    # SIGINT ignored, and Python then leaves it ignored)
    previous_interrupt = signal.signal(signal.SIGINT, interrupted)
    try:
        try:
            cluster.start()
        except KeyboardInterrupt:  # (start stops what it had started)
            echo("interrupted while starting: stopped")
            return 130
        status = 0
        try:
            echo(cluster.describe())
            echo("Ctrl-C stops everything (the processes drain first).")
            told: set[str] = set()
            while cluster.haproxy is not None and cluster.haproxy.poll() is None:
                for line in cluster.check():
                    if line not in told:
                        told.add(line)
                        echo(line)
                time.sleep(0.2)
            echo(f"HAProxy stopped (exit status {cluster.haproxy.returncode if cluster.haproxy else '?'})")
            status = 1
        except KeyboardInterrupt:
            pass
        finally:
            echo("stopping: HAProxy, then each process (draining), then the database")
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # (a second Ctrl-C does not cut the stop short)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            try:
                cluster.stop()
            finally:
                signal.signal(signal.SIGINT, interrupted)
        echo("stopped")
        return status
    finally:
        signal.signal(signal.SIGTERM, previous)
        if previous_interrupt is not None:
            signal.signal(signal.SIGINT, previous_interrupt)
