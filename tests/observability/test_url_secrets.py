"""Secrets in a URL reach no log line (app.observability.url_secrets): the secret part of a path is REDACTED
in the server's scope while the app routes by the real path, and a URL the service calls is logged as its
origin."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest
from fastapi import FastAPI

from app.observability.url_secrets import hide_url_secrets, origin_of, redacted_path
from tests.factories.products import create_product
from tests.factories.users import DEFAULT_PASSWORD, create_user
from tests.support.processes import until_healthy, uvicorn_process


@pytest.mark.parametrize(
    ("path", "redacted"),
    [
        ("/api/calendar/tok3n.ics", "/api/calendar/REDACTED.ics"),
        ("/api/calendar/tok3n", "/api/calendar/REDACTED"),
        ("/api/calendar/tok.en.ics", "/api/calendar/REDACTED.ics"),
        ("/api/invitations/inv1te/accept", "/api/invitations/REDACTED/accept"),
        ("/api/device-tokens/fcm/with/slashes", "/api/device-tokens/REDACTED"),
        ("/api/device-tokens/line\nbreak", "/api/device-tokens/REDACTED"),  # a line break too
        ("/api/products/7", "/api/products/7"),
        ("/api/me/calendar", "/api/me/calendar"),
    ],
)
def test_the_secret_part_of_a_path_is_redacted(path: str, redacted: str) -> None:
    assert redacted_path(path) == redacted


def test_the_server_keeps_the_redacted_path_and_the_app_routes_by_the_real_one() -> None:
    scope: dict[str, Any] = {
        "type": "http",
        "path": "/api/invitations/inv1te/accept",
        "raw_path": b"/api/invitations/inv1te/accept",
        "query_string": b"authorization=hub-token",
    }
    for_app = hide_url_secrets(scope)

    assert (scope["path"], scope["raw_path"]) == (
        "/api/invitations/REDACTED/accept",
        b"/api/invitations/REDACTED/accept",
    )
    assert scope["query_string"] == b"authorization=REDACTED"
    assert for_app is not scope and for_app["path"] == "/api/invitations/inv1te/accept"
    assert for_app["raw_path"] == b"/api/invitations/inv1te/accept"


def test_a_path_without_a_secret_is_handed_on_as_it_is() -> None:
    scope: dict[str, Any] = {"type": "http", "path": "/api/products", "query_string": b"page=2"}
    assert hide_url_secrets(scope) is scope
    assert scope == {"type": "http", "path": "/api/products", "query_string": b"page=2"}


@pytest.mark.parametrize(
    ("url", "logged"),
    [
        ("https://hooks.example.com/services/T0/B0/secret", "https://hooks.example.com/REDACTED"),
        ("https://files.example.com/x?sig=secret", "https://files.example.com/REDACTED"),
        ("https://files.example.com/?sig=secret", "https://files.example.com/REDACTED"),
        ("https://user:pw@files.example.com:8443/", "https://files.example.com:8443/"),
        ("http://127.0.0.1:9000", "http://127.0.0.1:9000/"),
        (httpx.URL("https://hooks.example.com/a"), "https://hooks.example.com/REDACTED"),
    ],
)
def test_a_called_url_is_logged_as_its_origin(url: object, logged: str) -> None:
    assert origin_of(url) == logged


@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_secrets_in_a_path_reach_no_log_line_of_a_real_server(
    app: FastAPI, database_url: str, tmp_path: Path, log_format: str
) -> None:
    """A calendar feed's token, a device token being removed and an invitation's token are replaced by
    REDACTED in uvicorn's access log (and any line), as the hub's query token is; the requests work."""
    user = await create_user(app)
    await create_product(app, user)
    device = "fcm-device/secret-token-4711"
    invitation = "invitation-secret-0815"
    with uvicorn_process(database_url, tmp_path / "server", {"WARRANTY_LOG_FORMAT": log_format}) as served:
        await until_healthy(served)
        async with httpx.AsyncClient(base_url=served.url, timeout=10) as client:
            login = await client.post("/api/login", json={"email": user.email, "password": DEFAULT_PASSWORD})
            headers = {"Authorization": f"Bearer {login.json()['token']}"}
            feed = urlsplit((await client.get("/api/me/calendar", headers=headers)).json()["url"]).path
            token = feed.removeprefix("/api/calendar/").removesuffix(".ics")
            fetched = await client.get(feed)
            assert fetched.status_code == 200 and b"BEGIN:VEVENT" in fetched.content
            assert (await client.get(f"/api/calendar/{token}")).status_code == 404  # without .ics
            registered = await client.post(
                "/api/device-tokens", json={"token": device, "platform": "android"}, headers=headers
            )
            assert registered.status_code == 201
            removed = await client.delete(f"/api/device-tokens/{quote(device, safe='')}", headers=headers)
            assert removed.status_code == 204
            await client.post(f"/api/invitations/{invitation}/accept", headers=headers)
            await client.get("/.well-known/mercure?topic=x&authorization=query-secret-42")
            callback = "/api/auth/oidc/kc/callback?code=provider-code-77&state=state-secret-88"
            assert (await client.get(callback)).status_code == 400  # no sign-in cookie in this client
        output = served.stop()

    secrets = (token, device, quote(device, safe=""), "secret-token-4711", invitation, "query-secret-42")
    for secret in (*secrets, "provider-code-77", "state-secret-88"):
        assert secret not in output
    assert "/api/auth/oidc/kc/callback?code=REDACTED&state=REDACTED" in output
    assert "/api/calendar/REDACTED.ics" in output
    assert "/api/calendar/REDACTED " in output or '/api/calendar/REDACTED"' in output
    assert "/api/device-tokens/REDACTED" in output
    assert "/api/invitations/REDACTED/accept" in output


def test_a_sign_in_callback_logs_no_code_and_no_state_while_the_app_reads_them() -> None:
    query = b"code=auth-c0de&state=st4te&session_state=s&St%61te=again&error="
    scope: dict[str, Any] = {
        "type": "http",
        "path": "/api/auth/oidc/keycloak/callback",
        "query_string": query,
    }

    for_app = hide_url_secrets(scope)

    assert scope["query_string"] == b"code=REDACTED&state=REDACTED&session_state=s&St%61te=REDACTED&error="
    assert for_app["query_string"] == query


def test_only_the_callback_has_its_code_redacted() -> None:
    scope: dict[str, Any] = {
        "type": "http",
        "path": "/api/auth/oidc/keycloak/start",
        "query_string": b"code=1",
    }
    assert hide_url_secrets(scope) is scope and scope["query_string"] == b"code=1"
