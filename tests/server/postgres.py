"""A throwaway PostgreSQL server for the tests that run the store and the server on PostgreSQL.

It uses the server binaries of Debian's ``postgresql`` package (``.ci/run`` installs it): a new
cluster in a temporary folder, trust authentication on 127.0.0.1 and a free port, no fsync (the
tests check what the server writes and reads back, not the disk). Run as root, the cluster
belongs to the ``postgres`` user, since PostgreSQL refuses to run as root.
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
from typing import Any

import pytest

INSTALL_HINT = "install Debian's postgresql (apt-get install postgresql, as .ci/run does)"


def _bin_dir() -> Path | None:
    config = shutil.which("pg_config")
    if config is not None:
        found = Path(subprocess.run([config, "--bindir"], capture_output=True, text=True).stdout.strip())
        if (found / "initdb").exists():
            return found
    # Debian keeps each major version's binaries apart: the newest one installed.
    versions = [Path(path).parent for path in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    return max(versions, key=lambda bin_dir: int(bin_dir.parent.name) if bin_dir.parent.name.isdigit() else 0,
               default=None)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class PostgresCluster:
    """A running cluster; :meth:`new_database` gives each test a database of its own."""

    def __init__(self, bin_dir: Path, port: int) -> None:
        self.bin_dir = bin_dir
        self.port = port

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database's URL, as ``royal-revenge serve --db`` takes it."""
        name = f"rr_{uuid.uuid4().hex[:12]}"
        self._psql(f"CREATE DATABASE {name}")
        return self.url(name)

    def _psql(self, sql: str) -> None:
        subprocess.run([str(self.bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                        "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-c", sql],
                       check=True, capture_output=True, timeout=30)


@contextlib.contextmanager
def temporary_cluster() -> Iterator[PostgresCluster]:
    bin_dir = _bin_dir()
    if bin_dir is None:
        pytest.fail(f"PostgreSQL is needed for the PostgreSQL tests: {INSTALL_HINT} (no initdb found)")
    as_user: dict[str, Any] = {}
    folder = Path(tempfile.mkdtemp(prefix="rr-postgres-"))
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail(f"PostgreSQL does not run as root and there is no postgres user: {INSTALL_HINT}")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_user = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
    data = folder / "data"
    port = _free_port()
    server: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, timeout=120, **as_user)
        log = (folder / "server.log").open("wb")
        server = subprocess.Popen(
            [str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(folder),
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "max_connections=50"],
            stdout=log, stderr=log, **as_user)
        log.close()
        deadline = time.monotonic() + 60
        while subprocess.run([str(bin_dir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(port)]).returncode:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL did not start: {(folder / 'server.log').read_text()}")
            time.sleep(0.1)
        yield PostgresCluster(bin_dir, port)
    finally:
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGINT)  # fast shutdown: ends the sessions, no checkpoint wait
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(folder, ignore_errors=True)
