"""A throwaway PostgreSQL server for the tests that run the store and the server on PostgreSQL.

The server itself is :mod:`royal_revenge.server.localdb` (Debian's ``postgresql`` binaries, which ``.ci/run``
installs); here a missing PostgreSQL fails the test, with what to install, instead of raising.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from royal_revenge.server.localdb import INSTALL_HINT, LocalPostgres, PostgresMissing

__all__ = ["INSTALL_HINT", "PostgresCluster", "temporary_cluster"]

#: A running cluster; ``new_database()`` gives each test a database of its own.
PostgresCluster = LocalPostgres


@contextlib.contextmanager
def temporary_cluster(max_connections: int = 50) -> Iterator[PostgresCluster]:
    server = LocalPostgres(max_connections=max_connections)
    try:
        server.start()
    except PostgresMissing as error:
        pytest.fail(f"PostgreSQL is needed for the PostgreSQL tests: {error} (as .ci/run does)")
    try:
        yield server
    finally:
        server.stop()
