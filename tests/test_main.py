"""The application (app/main.py). Routers are matched in the order ROUTERS gives (the hottest first, for
speed); that order may change nothing a client sees: no path the service answers is matched by two
operations of one method, so whichever router is tried first, the same operation answers. The app takes
secrets out of the server's view of a URL before anything runs, answers CORS from the settings, keeps one
refined OpenAPI document, sets up and ends the process's objects in its lifespan, and is built on first
access by `uvicorn app.main:app`, not on import."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI
from starlette.types import Message

from app import main
from app.api.openapi_document import refine
from app.main import create_app
from tests.conftest import SettingsFactory
from tests.factories.users import auth_headers, create_user

METHODS = ("get", "put", "post", "patch", "delete")


def _pattern(template: str, parameters: dict[str, Any]) -> re.Pattern[str]:
    """The paths a template matches: integer parameters are digits (with a sign, as the service reads
    them), others any one segment."""

    def segment(found: re.Match[str]) -> str:
        schema = parameters.get(found.group(1), {})
        return "-?[0-9]+" if schema.get("type") == "integer" else "[^/]+"

    return re.compile(re.sub(r"\\\{(\w+)\\\}", segment, re.escape(template)) + "$")


def _sample(template: str) -> str:
    return re.sub(r"\{\w+\}", "1", template)


def _operations() -> list[tuple[str, str, re.Pattern[str]]]:
    document = create_app().openapi()
    found = []
    for template, item in document["paths"].items():
        for method in METHODS:
            if method not in item:
                continue
            declared = [*item.get("parameters", []), *item[method].get("parameters", [])]
            parameters = {p["name"]: p.get("schema", {}) for p in declared if p.get("in") == "path"}
            found.append((method, template, _pattern(template, parameters)))
    return found


def test_no_path_is_answered_by_two_operations() -> None:
    operations = _operations()
    assert len(operations) > 60
    for method, template, _ in operations:
        sample = _sample(template)
        matching = [other for m, other, pattern in operations if m == method and pattern.match(sample)]
        assert matching == [template], (method, sample, matching)


async def test_a_url_secret_is_out_of_the_server_s_view_before_the_app_runs(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """The server logs the scope it handed over: its path must not hold the calendar token, while the app
    still reads the token it was sent."""
    owner = await create_user(app)
    feed = (await client.get("/api/me/calendar", headers=auth_headers(app, owner))).json()["url"]
    path = urlsplit(feed).path
    token = path.removeprefix("/api/calendar/").removesuffix(".ics")
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"", "headers": [],
        "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }  # fmt: skip
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)

    assert sent[0]["status"] == 200  # the app opened the feed with the real token
    assert token not in scope["path"] and token.encode() not in scope["raw_path"]
    assert scope["path"].startswith("/api/calendar/")


@pytest.mark.settings(cors_origins="https://app.example.com")
async def test_cors_answers_the_configured_origins_with_credentials(client: httpx.AsyncClient) -> None:
    asked = {"Access-Control-Request-Method": "PATCH", "Access-Control-Request-Headers": "authorization"}

    allowed = await client.options("/api/me", headers={"Origin": "https://app.example.com", **asked})
    refused = await client.options("/api/me", headers={"Origin": "https://evil.example", **asked})
    simple = await client.get("/health", headers={"Origin": "https://app.example.com"})

    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://app.example.com"
    assert allowed.headers["access-control-allow-credentials"] == "true"
    assert "access-control-allow-origin" not in refused.headers
    exposed = {name.strip().lower() for name in simple.headers["access-control-expose-headers"].split(",")}
    assert {"location", "retry-after", "x-request-id", "last-event-id", "link"} <= exposed


def test_the_document_is_refined_once_and_kept(
    make_settings: SettingsFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    refined: list[int] = []

    def counting(schema: dict[str, Any]) -> dict[str, Any]:
        refined.append(1)
        return refine(schema)

    monkeypatch.setattr(main, "refine", counting)
    application = create_app(make_settings())

    document = application.openapi()

    assert application.openapi() is document and len(refined) == 1
    assert document["paths"]["/api/claims"]["get"]["operationId"] == "listClaims"
    assert "HTTPValidationError" not in document["components"]["schemas"]


async def test_the_lifespan_sets_up_the_process_and_ends_it(make_settings: SettingsFactory) -> None:
    settings = make_settings(run_worker=False)
    application = create_app(settings)
    assert application.state.settings is settings
    assert application.state.password_hasher is not None

    async with application.router.lifespan_context(application):
        state = application.state
        parts = ("engine", "sessionmaker", "read_engine", "read_sessionmaker", "storage", "page_cache")
        assert all(getattr(state, name, None) is not None for name in parts)
        assert not hasattr(state, "outbox_worker")  # WARRANTY_RUN_WORKER=false
        engine = state.engine
        async with engine.connect() as connection:
            assert connection is not None
        assert engine.pool.checkedout() == 0

    assert engine.pool.checkedin() == 0  # disposed at the end


def test_importing_builds_nothing_and_first_access_builds_one_app(
    monkeypatch: pytest.MonkeyPatch, make_settings: SettingsFactory
) -> None:
    settings = make_settings()
    monkeypatch.setattr(main, "get_settings", lambda: settings)  # what the environment says
    monkeypatch.delitem(vars(main), "app", raising=False)
    assert "app" not in vars(main)

    built = main.app

    assert isinstance(built, FastAPI) and main.app is built
    assert built.state.settings is settings
    monkeypatch.delitem(vars(main), "app")  # the next test imports a module without one again
    with pytest.raises(AttributeError):
        main.no_such_name  # noqa: B018
