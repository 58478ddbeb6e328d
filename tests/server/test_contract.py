"""The HTTP API does what its OpenAPI document (``/openapi.json``) says: schemathesis, against a real server.

Two runs of schemathesis' command line, each a few seconds: one with the server's real per-address limits
and made-up table codes (404s, then 429s once the guesses are spent), one without rate limits and with
every ``{code}`` a real table's (the lobby's answers: 200, 409 and so on).
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

from royal_revenge.server.throttle import Limits

from .conftest import LIFTED_LIMITS, Server, running_server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]

SCHEMATHESIS = shutil.which("schemathesis", path=str(Path(sys.executable).parent))

CONFIG = """
# A body the schema allows can still be refused (400) by rules it does not spell out: the settings' ranges
# (scepter_max_seconds >= scepter_min_seconds, ...) and names that are blank once white space is collapsed.
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "400", "404", "409", "429"]
"""


async def _schemathesis(port: int, config: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        SCHEMATHESIS or "schemathesis", "--config-file", str(config), "run",
        f"http://127.0.0.1:{port}/openapi.json", "--max-examples", "60", "--workers", "1", "--seed", "1",
        "--no-color", cwd=config.parent, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await process.communicate()
    text = output.decode(errors="replace")
    assert process.returncode == 0, text
    assert "Tested: 7" in text, text  # (every operation was exercised)


@pytest.mark.parametrize("limits", ["real", "lifted"])
async def test_the_api_keeps_its_openapi_contract(tmp_path: Path, limits: str) -> None:
    # (schemathesis is in the dev extra that every test run installs: without it this fails, it does not skip)
    assert SCHEMATHESIS is not None, "schemathesis is not installed beside this Python: pip install -e '.[dev]'"
    config = tmp_path / "schemathesis.toml"
    async with running_server(tmp_path / "t.db", limits=Limits() if limits == "real" else LIFTED_LIMITS) as server:
        if limits == "lifted":
            code = (await server.create_table("Ann", settings={"players": 6}))["code"]
            config.write_text(CONFIG + f'\n[parameters]\n"path.code" = "{code}"\n')
        else:
            config.write_text(CONFIG)
        await _schemathesis(server.port, config)


async def test_the_frameworks_own_refusals_answer_in_the_documented_shape(server: Server) -> None:
    async with server.http() as http:
        not_json = await http.post("/api/tables", content=b"\xff{", headers={"Content-Type": "application/json"})
        assert not_json.status_code == 400
        assert not_json.json() == {"detail": {"code": "bad_request", "message": "the request body is not valid JSON"}}
        broken = await http.post("/api/tables", content=b'{"name": ', headers={"Content-Type": "application/json"})
        assert broken.status_code == 422 and set(broken.json()["detail"]) == {"code", "message"}
        wrong_method = await http.put("/api/tables")
        assert wrong_method.status_code == 405 and wrong_method.headers["Allow"] == "GET, POST"
        assert wrong_method.json() == {"detail": {"code": "method_not_allowed", "message": "method not allowed"}}
        assert (await http.get("/api/nothing")).json() == {"detail": {"code": "not_found", "message": "not found"}}
        for age in (True, "9", 9.5):
            refused = await http.post("/api/tables", json={"name": "Ann", "age": age})
            assert refused.status_code == 422, age
            assert refused.json() == {"detail": {"code": "bad_request",
                                              "message": "An age must be a whole number from 0 to 150, or left empty"}}
        assert (await http.post("/api/tables", json={"name": "Ann", "age": 9.0})).status_code == 201
        assert server.hub.table_count == 1
