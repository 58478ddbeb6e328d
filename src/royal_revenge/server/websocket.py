"""The WebSocket transport: uvicorn's ``websockets-sansio`` protocol, with a short path for state frames.

A busy server sends four text frames for every move (one to each seat), and uvicorn's protocol
builds each through the ``websockets`` library's general machinery (a ``Frame`` object, its
serialization, the outgoing buffer). :class:`FrameProtocol` writes a plain text message on an
open connection straight to the socket as one unfragmented frame, which is exactly what that
machinery produces for it (RFC 6455 §5.2: a server's frames are not masked; no extension is
negotiated, since ``serve`` turns permessage-deflate off). Everything else (the handshake,
pings, closing, binary frames, a connection whose socket buffer is full, any other state) goes
through uvicorn's own code unchanged.

:data:`SERVER_OPTIONS` are the WebSocket settings of ``uvicorn.run`` for ``serve`` and the tests.
"""

from __future__ import annotations

import struct
from typing import Any, Final

__all__ = ["SERVER_OPTIONS", "text_frame"]


def text_frame(payload: bytes) -> bytes:
    """One final, unmasked text frame carrying ``payload`` (RFC 6455 §5.2).

    >>> text_frame(b"hi")
    b'\\x81\\x02hi'
    >>> text_frame(b"x" * 200)[:4]
    b'\\x81~\\x00\\xc8'
    """
    length = len(payload)
    if length < 126:
        return bytes((0x81, length)) + payload
    if length < 65536:
        return struct.pack("!BBH", 0x81, 126, length) + payload
    return struct.pack("!BBQ", 0x81, 127, length) + payload


def _frame_protocol() -> Any:
    """:class:`FrameProtocol`, or ``None`` if this uvicorn has no ``websockets-sansio`` protocol (then uvicorn's
    default is used as it is)."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
        from websockets.protocol import State
    except ImportError:
        return None

    class FrameProtocol(WebSocketsSansIOProtocol):
        """uvicorn's protocol, sending a text message on an open connection as one frame written at once."""

        async def send(self, message: Any) -> None:
            if (message["type"] == "websocket.send" and self.handshake_complete and not self.close_sent
                    and not self.disconnected and self.writable.is_set() and self.conn.state is State.OPEN
                    and not self.conn.extensions):
                text = message.get("text")
                if text is not None and message.get("bytes") is None:
                    self.transport.write(text_frame(text.encode()))
                    return
            await super().send(message)

    return FrameProtocol


FRAME_PROTOCOL: Final = _frame_protocol()

SERVER_OPTIONS: Final[dict[str, Any]] = {
    "ws": FRAME_PROTOCOL or "auto",
    "ws_max_size": 16384,
    "ws_ping_interval": 20,
    "ws_ping_timeout": 20,
    # Frames are small partial states (~500 bytes): compressing each costs more CPU, and memory per
    # connection, than the bandwidth it saves.
    "ws_per_message_deflate": False,
}
