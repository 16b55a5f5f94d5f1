"""Log lines name their request (contract 14.2): the request id on every line a request causes, the user
once known, and WARRANTY_LOG_FORMAT=json writing one JSON object per line, uvicorn's access log included."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.observability import request_context
from app.observability.logs import JsonFormatter, RequestContextFilter, TextFormatter
from tests.factories.inbound import RAW_INBOUND_SECRET, body_of, standard_headers
from tests.factories.users import DEFAULT_PASSWORD, create_user
from tests.support.processes import until_healthy, uvicorn_process


async def test_json_logs_of_a_real_server_name_each_request_and_its_user(
    app: FastAPI, database_url: str, tmp_path: Path
) -> None:
    user = await create_user(app)
    env = {"WARRANTY_LOG_FORMAT": "json", "WARRANTY_INBOUND_SECRET": RAW_INBOUND_SECRET}
    with uvicorn_process(database_url, tmp_path / "server", env) as served:
        await until_healthy(served)
        async with httpx.AsyncClient(base_url=served.url, timeout=10) as client:
            login = await client.post(
                "/api/login",
                json={"email": user.email, "password": DEFAULT_PASSWORD},
                headers={"X-Request-ID": "req-login"},
            )
            token = login.json()["token"]
            me = await client.get(
                "/api/me", headers={"Authorization": f"Bearer {token}", "X-Request-ID": "req-me"}
            )
            assert me.status_code == 200
            body = body_of({"type": "email.bounced", "data": {}})
            inbound = await client.post(
                "/api/inbound/email",
                content=body,
                headers={**standard_headers(body), "X-Request-ID": "req-inbound"},
            )
            assert inbound.json() == {"status": "ignored"}
            generated = (await client.get("/api/products")).headers["x-request-id"]
        output = served.stop()

    lines = [json.loads(line) for line in output.splitlines() if line.strip()]  # every line is JSON
    assert all({"time", "level", "logger", "message", "request_id", "user_id"} <= set(line) for line in lines)
    access = {line["request_id"]: line for line in lines if line["logger"] == "uvicorn.access"}
    assert access["req-me"]["user_id"] == user.id
    assert access["req-me"]["method"] == "GET" and access["req-me"]["path"] == "/api/me"
    assert access["req-me"]["status"] == 200
    assert access["req-login"]["status"] == 200
    assert access[generated]["status"] == 401 and access[generated]["user_id"] is None
    ignored = [line for line in lines if line["logger"] == "warranty.inbound"]
    assert [line["request_id"] for line in ignored] == ["req-inbound"]
    assert "ignored" in ignored[0]["message"]
    startup = [line for line in lines if line["logger"].startswith("uvicorn.error")]
    assert startup and all(line["request_id"] is None for line in startup)


async def test_a_url_the_service_calls_is_logged_without_its_path_or_query(
    app: FastAPI, caplog: pytest.LogCaptureFixture
) -> None:
    """httpx logs every request it sends with the whole URL; a webhook URL may hold its secret in the
    path (Slack's do), a signed download link in its query: only the origin reaches the log."""
    transport = httpx.MockTransport(lambda request: httpx.Response(200))
    caplog.set_level(logging.INFO, logger="httpx")
    async with httpx.AsyncClient(transport=transport) as client:
        await client.post("https://hooks.example.com/services/T0/B0/hook-secret-1?sig=sig-secret-2")
        await client.get("https://user:pw-secret-3@files.example.com:8443/")

    lines = [record.getMessage() for record in caplog.records if record.name == "httpx"]
    assert lines == [
        'HTTP Request: POST https://hooks.example.com/REDACTED "HTTP/1.1 200 OK"',
        'HTTP Request: GET https://files.example.com:8443/ "HTTP/1.1 200 OK"',
    ]


def _record(message: str) -> logging.LogRecord:
    record = logging.LogRecord("warranty.test", logging.ERROR, __file__, 1, message, None, None)
    RequestContextFilter().filter(record)
    return record


def test_a_line_outside_any_request_has_no_request_id() -> None:
    record = _record("idle")
    assert json.loads(JsonFormatter().format(record))["request_id"] is None
    assert "warranty.test -: idle" in TextFormatter().format(record)


def test_text_lines_carry_the_request_and_the_user() -> None:
    bound = request_context.bind("abc123")
    try:
        request_context.set_user(7)
        line = TextFormatter().format(_record("boom"))
    finally:
        request_context.unbind(bound)
    assert "warranty.test request=abc123 user=7: boom" in line
