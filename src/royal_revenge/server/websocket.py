"""The WebSocket transport: uvicorn's ``websockets-sansio`` protocol, with a short path for game messages.

A busy server receives one small text frame for every move and sends four (one to each seat).
uvicorn's protocol takes each through the ``websockets`` library's general machinery (a parser
coroutine and a ``Frame`` object per frame, an event list, a queue, a ``receive`` coroutine and
a future per message, reading paused and resumed around each one), and each message left
waiting in it is more work for the garbage collector. :class:`FrameProtocol` keeps uvicorn's
protocol for everything and adds two short ways for an open connection:

* **out**: a plain text message is written straight to the socket as one unfragmented frame,
  exactly the bytes that machinery produces for it (RFC 6455 §5.2: a server's frames are not
  masked; no extension is negotiated, since ``serve`` turns permessage-deflate off);
* **in**: the application may register a callback (the ASGI extension
  :data:`DIRECT_EXTENSION`); then each complete, unfragmented, masked text frame that arrives
  while the library's parser is between frames is unmasked, decoded and handed to it at once.

Anything else (the handshake, pings and pongs, closing, binary or fragmented or oversized or
invalid frames, a frame cut across reads, a connection whose socket buffer is full, any other
state) goes through uvicorn's and the library's code unchanged, which keep the connection's
state. The two ways never reorder messages: the short way is taken only when nothing is
waiting in the long one.

:data:`SERVER_OPTIONS` are the WebSocket settings of ``uvicorn.run`` for ``serve`` and the tests.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable
from typing import Any, Final

__all__ = ["DIRECT_EXTENSION", "SERVER_OPTIONS", "read_text_frames", "text_frame"]

DIRECT_EXTENSION: Final = "royal_revenge.direct"
"""The ASGI extension (in ``scope["extensions"]``) of a connection that has the short ways: its value holds
``listen(on_text)``, which registers the callback for incoming text messages (``None`` to stop), and
``write(text) -> bool``, which writes a text message at once if it can (``False``: send it through ASGI)."""

log = logging.getLogger("royal_revenge.server")


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


def read_text_frames(data: bytes, max_size: int, on_text: Callable[[str], None],
                     keep_going: Callable[[], bool] | None = None) -> int:
    """Hand ``on_text`` the messages of the complete, final, masked text frames at the start of ``data`` (as a
    client sends them), up to the first byte that is anything else; returns how many bytes were used.

    Stops before a frame that is not one (a control, binary or continuation frame, a fragment, a reserved bit
    set, an unmasked frame), is cut short, is longer than ``max_size`` or is not UTF-8; and after a message once
    ``keep_going()`` is false. What is left is for the ``websockets`` parser, which judges it as it always does.

    >>> got = []
    >>> frame = bytes((0x81, 0x82)) + bytes(4) + b"hi"            # "hi", masked with a zero key
    >>> read_text_frames(frame + frame + bytes((0x89, 0x80)), 100, got.append), got
    (16, ['hi', 'hi'])
    >>> read_text_frames(frame[:5], 100, got.append)                # cut short: nothing used
    0
    """
    used, size = 0, len(data)
    while size - used >= 6:
        if data[used] != 0x81:  # FIN, no reserved bits, text
            break
        length = data[used + 1]
        if length < 0x80:  # a client's frames are masked
            break
        length &= 0x7F
        head = used + 2
        if length == 126:
            if size - used < 8:
                break
            length = (data[head] << 8) | data[head + 1]
            head += 2
        elif length == 127:
            break  # (longer than any message this server takes)
        end = head + 4 + length
        if length > max_size or end > size:
            break
        try:
            text = _apply_mask(data[head + 4:end], data[head:head + 4]).decode()
        except UnicodeDecodeError:
            break
        used = end
        on_text(text)
        if keep_going is not None and not keep_going():
            break
    return used


def _mask_function() -> Callable[[bytes, bytes], bytes]:
    try:
        from websockets.speedups import apply_mask
    except ImportError:  # (a pure-Python install of the library)
        from websockets.utils import apply_mask
    return apply_mask


_apply_mask: Final = _mask_function()


def _frame_protocol() -> Any:
    """:class:`FrameProtocol`, or ``None`` if this uvicorn has no ``websockets-sansio`` protocol (then uvicorn's
    default is used as it is)."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
        from websockets.protocol import State
    except ImportError:
        return None

    try:
        from websockets.streams import StreamReader
        at_eof = StreamReader.at_eof.__code__
    except (ImportError, AttributeError):
        at_eof = None

    class FrameProtocol(WebSocketsSansIOProtocol):
        """uvicorn's protocol, with the short ways in and out for text messages on an open connection."""

        _on_text: Callable[[str], None] | None = None

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)  # (there is none if the handshake was refused)
            if scope is not None and at_eof is not None:
                scope["extensions"][DIRECT_EXTENSION] = {"listen": self._listen, "write": self.write_text}

        def _listen(self, on_text: Callable[[str], None] | None) -> None:
            self._on_text = on_text

        def connection_lost(self, exc: Exception | None) -> None:
            self._on_text = None
            super().connection_lost(exc)
            scope = getattr(self, "scope", None)
            if scope is not None:
                scope["extensions"].pop(DIRECT_EXTENSION, None)  # (it refers back to this protocol)

        def write_text(self, text: str) -> bool:
            """Write ``text`` as one frame at once if the connection is open and can take it now."""
            if (self.handshake_complete and not self.close_sent and not self.disconnected
                    and self.writable.is_set() and self.conn.state is State.OPEN and not self.conn.extensions):
                self.transport.write(text_frame(text.encode()))
                return True
            return False

        async def send(self, message: Any) -> None:
            if message["type"] == "websocket.send":
                text = message.get("text")
                if text is not None and message.get("bytes") is None and self.write_text(text):
                    return
            await super().send(message)

        def data_received(self, data: bytes) -> None:
            on_text = self._on_text
            if on_text is not None and self._between_frames():
                used = read_text_frames(data, self.config.ws_max_size, self._deliver, self._still_direct)
                if used == len(data):
                    return
                data = data[used:]
            super().data_received(data)

        def _deliver(self, text: str) -> None:
            on_text = self._on_text
            if on_text is None:
                return
            try:
                on_text(text)
            except Exception:  # (the application answers its own errors: this is a bug, and must not end the read)
                log.exception("message_callback_failed")

        def _still_direct(self) -> bool:
            return self._on_text is not None and not self.close_sent and not self.disconnected

        def _between_frames(self) -> bool:
            """Whether the library's parser waits for the start of a new frame with nothing buffered, and no message
            waits for the application in uvicorn's queue: only then may a frame skip them."""
            conn = self.conn
            if (conn.state is not State.OPEN or self.close_sent or self.disconnected or self.read_paused
                    or conn.reader.buffer or conn.current_size is not None or conn.extensions or self.frames
                    or not self.queue.empty()):
                return False
            parser = conn.parser
            while (inner := getattr(parser, "gi_yieldfrom", None)) is not None:
                parser = inner
            return getattr(parser, "gi_code", None) is at_eof

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
