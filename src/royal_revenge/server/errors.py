"""The HTTP API's error answers as the OpenAPI document declares them (``/openapi.json``).

Every error is ``{"detail": {"code": "<error code>", "message": "<plain words>"}}``; each route lists
the statuses it can answer with :func:`error_responses`, so that the schema says what the server does
(``tests/server/test_contract.py`` checks it with schemathesis).
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel

__all__ = ["ErrorBody", "ErrorDetail", "Health", "error_responses"]


class ErrorDetail(BaseModel):
    """What went wrong: an error code (docs/protocol.md, Error codes) and the same in plain words."""

    code: str
    message: str


class ErrorBody(BaseModel):
    """The body of every error answer."""

    detail: ErrorDetail


class Health(BaseModel):
    """``GET /healthz``: whether the database answers, how many tables are in memory, the protocol version, and in a
    cluster which process answered (``serve --node``)."""

    status: str
    database: bool
    tables: int
    protocol: int
    node: str | None = None


_DESCRIPTIONS: Final = {
    400: "The request was refused (`bad_request`, `bad_settings`: the message says why).",
    404: "No table has this code (`no_table`).",
    409: "Not possible now: the table is full or past its lobby (`table_full`, `wrong_phase`), or the address "
         "already has as many open tables as it may (`too_many_tables`).",
    422: "The request is not well-formed (`bad_request`: the message names the field).",
    429: "Too many requests from this address (`rate_limited`): try again after `Retry-After` seconds.",
    503: "The database could not save the change (`storage`): try again.",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """FastAPI ``responses=`` for a route that can answer with these error statuses."""
    responses: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        response: dict[str, Any] = {"model": ErrorBody, "description": _DESCRIPTIONS[status]}
        if status == 429:
            response["headers"] = {"Retry-After": {"description": "seconds to wait before trying again",
                                                   "schema": {"type": "integer", "minimum": 1}}}
        responses[status] = response
    return responses
