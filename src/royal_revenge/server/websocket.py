"""The WebSocket settings of the server: one place for ``serve``, the tests and the benchmarks.

The WebSocket protocol itself is uvicorn's and the ``websockets`` library's, used through ASGI
as documented (``server/app.py``); nothing here reads or writes frames.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["SERVER_OPTIONS"]

SERVER_OPTIONS: Final[dict[str, Any]] = {
    # uvicorn's implementation on the websockets library's Sans-I/O core, chosen by name (uvicorn >= 0.44 also
    # sends its keepalive pings); "auto" would depend on which libraries happen to be installed.
    "ws": "websockets-sansio",
    # A client's messages are at most 4096 bytes (protocol.MAX_MESSAGE_BYTES): anything up to 16 KiB is read and
    # answered with too_large, anything longer closes the connection (1009).
    "ws_max_size": 16384,
    "ws_ping_interval": 20,
    "ws_ping_timeout": 20,
    # Frames are small partial states (~500 bytes): compressing each costs more CPU, and memory per
    # connection, than the bandwidth it saves.
    "ws_per_message_deflate": False,
}
"""Keyword arguments of ``uvicorn.run`` / ``uvicorn.Config`` (docs/protocol.md, "The WebSocket")."""
