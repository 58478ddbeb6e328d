"""A throwaway PostgreSQL server on this machine: for a local cluster (``royal-revenge cluster``) and the tests.

It uses the server binaries of Debian's ``postgresql`` package: a new cluster in a temporary folder, trust
authentication on 127.0.0.1 and a free port, and (by default) no fsync, since what it holds is thrown away with it.
Run as root, the cluster belongs to the ``postgres`` user, since PostgreSQL refuses to run as root. Everything it
wrote is deleted when it stops.

>>> with LocalPostgres() as server:          # doctest: +SKIP
...     url = server.new_database()          # postgresql://postgres@127.0.0.1:PORT/rr_...
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["INSTALL_HINT", "LocalPostgres", "PostgresMissing", "find_bin_dir", "free_port", "temporary_cluster"]

INSTALL_HINT = "install Debian's postgresql package (apt-get install postgresql)"


class PostgresMissing(RuntimeError):
    """PostgreSQL's server programs are not on this machine, or cannot be run (the message says what to install)."""


def find_bin_dir() -> Path | None:
    """The folder of PostgreSQL's server programs (``initdb``, ``postgres``, ``pg_isready``, ``psql``), or None."""
    config = shutil.which("pg_config")
    if config is not None:
        found = Path(subprocess.run([config, "--bindir"], capture_output=True, text=True).stdout.strip())
        if (found / "initdb").exists():
            return found
    # Debian keeps each major version's binaries apart: the newest one installed.
    versions = [Path(path).parent for path in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    return max(versions, key=lambda bin_dir: int(bin_dir.parent.name) if bin_dir.parent.name.isdigit() else 0,
               default=None)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now (the operating system's choice)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


class LocalPostgres:
    """A throwaway PostgreSQL server: :meth:`start` it (or use ``with``), take databases, :meth:`stop` it.

    ``durable=False`` (the default) turns off ``fsync``, ``synchronous_commit`` and ``full_page_writes``: fast, and
    fine for data that is deleted at the end. ``max_connections`` bounds the sessions of all its clients together.
    """

    def __init__(self, *, max_connections: int = 50, durable: bool = False, start_timeout: float = 60.0) -> None:
        self.max_connections = max_connections
        self.durable = durable
        self.start_timeout = start_timeout
        self.bin_dir: Path | None = None
        self.port = 0
        self.folder: Path | None = None
        self._server: subprocess.Popen[bytes] | None = None

    # --- databases ---------------------------------------------------------------------------------------------

    def url(self, database: str) -> str:
        """The URL of one of its databases, as ``royal-revenge serve --db`` takes it."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self, name: str | None = None) -> str:
        """Creates a new empty database (a random ``rr_...`` name unless given) and returns its URL."""
        name = name or f"rr_{uuid.uuid4().hex[:12]}"
        if not name.replace("_", "").isalnum():
            raise ValueError(f"not a plain database name: {name!r}")
        self.psql(f"CREATE DATABASE {name}")
        return self.url(name)

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Runs SQL with ``psql`` as the ``postgres`` user; returns what it printed (unaligned, tuples only)."""
        if self.bin_dir is None or not self.running:
            raise RuntimeError("the PostgreSQL server is not running")
        done = subprocess.run([str(self.bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                               "-d", database, "-v", "ON_ERROR_STOP=1", "-q", "-A", "-t", "-c", sql],
                              check=False, capture_output=True, text=True, timeout=30)
        if done.returncode:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout

    # --- the server --------------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._server is not None and self._server.poll() is None

    @property
    def log(self) -> str:
        """What the server wrote to its log so far."""
        if self.folder is None:
            return ""
        with contextlib.suppress(OSError):
            return (self.folder / "server.log").read_text(errors="replace")
        return ""

    def start(self) -> LocalPostgres:
        """initdb in a new temporary folder, start the server on 127.0.0.1 and a free port, wait until it answers.

        Raises :class:`PostgresMissing` when PostgreSQL is not installed (or cannot run as root), RuntimeError
        when it does not start.
        """
        if self._server is not None:
            raise RuntimeError("this PostgreSQL server was already started")
        bin_dir = find_bin_dir()
        if bin_dir is None:
            raise PostgresMissing(f"PostgreSQL's server programs (initdb) were not found: {INSTALL_HINT}")
        as_user: dict[str, Any] = {}
        owner: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresMissing("PostgreSQL does not run as root and there is no postgres user to run it as: "
                                      f"{INSTALL_HINT}, which creates that user") from None
            as_user = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
        self.bin_dir = bin_dir
        self.folder = folder = Path(tempfile.mkdtemp(prefix="rr-postgres-"))
        try:
            if owner is not None:
                os.chown(folder, owner.pw_uid, owner.pw_gid)
            data = folder / "data"
            self.port = free_port()
            initdb = subprocess.run([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                                     "-E", "UTF8", "--no-sync"], check=False, capture_output=True, timeout=120,
                                    **as_user)
            if initdb.returncode:
                raise RuntimeError(f"initdb failed: {initdb.stderr.decode(errors='replace').strip()}")
            settings = ["-c", "listen_addresses=127.0.0.1", "-c", f"max_connections={self.max_connections}"]
            if not self.durable:
                settings += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
            with (folder / "server.log").open("wb") as log:
                self._server = subprocess.Popen(
                    [str(bin_dir / "postgres"), "-D", str(data), "-p", str(self.port), "-k", str(folder), *settings],
                    stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True, **as_user)
            deadline = time.monotonic() + self.start_timeout
            while subprocess.run([str(bin_dir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)],
                                 check=False).returncode:
                if self._server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL did not start: {self.log}")
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stops the server (a fast shutdown: its sessions are ended) and deletes its folder. Safe to call twice."""
        server, self._server = self._server, None
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGINT)  # fast shutdown: ends the sessions, no checkpoint wait
            try:
                server.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()


@contextlib.contextmanager
def temporary_cluster(**options: Any) -> Iterator[LocalPostgres]:
    """A started :class:`LocalPostgres` (``options`` as its constructor takes them), stopped at the end."""
    with LocalPostgres(**options) as server:
        yield server
