"""Clients of a table: one interface (:class:`TableClient`), two transports.

:class:`LocalClient` plays a table in this process against bots; :class:`RemoteClient` joins a
table on a running server over the WebSocket protocol. Both deliver the server's messages
(``state``, ``ack``, ``error``) with the same shapes, so the terminal game cannot tell them apart.
"""

from .base import BaseClient, ClientError, Listener, TableClient, merge_state
from .local import SAVE_FORMAT, LocalClient, LocalGame, load_save
from .remote import RemoteClient, parse_join_target

__all__ = [
    "SAVE_FORMAT",
    "BaseClient",
    "ClientError",
    "Listener",
    "LocalClient",
    "LocalGame",
    "RemoteClient",
    "TableClient",
    "load_save",
    "merge_state",
    "parse_join_target",
]
