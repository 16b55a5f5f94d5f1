"""The notifications' routes (app/notifications/router.py): each user's own device tokens, registered (201
with a `Location` naming the token URL-encoded), listed and deleted, and what a token may not hold. The
admin's view of the outbox is tested with the outbox (tests/outbox)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error
from tests.notifications.support import register_device


async def test_register_list_and_delete_device_tokens(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await create_user(app), await create_user(app)
    ann_headers, bob_headers = auth_headers(app, ann), auth_headers(app, bob)

    created = await register_device(client, ann_headers, "tok/1+a", "ios")
    await register_device(client, ann_headers, "tok-2", "android")

    assert created.status_code == 201
    assert created.headers["Location"] == "/api/device-tokens/tok%2F1%2Ba"
    assert created.json()["token"] == "tok/1+a" and created.json()["platform"] == "ios"
    assert created.json()["createdAt"].endswith("+00:00")
    listed = await client.get("/api/device-tokens", headers=ann_headers)
    assert [(item["token"], item["platform"]) for item in listed.json()] == [
        ("tok/1+a", "ios"),
        ("tok-2", "android"),
    ]
    assert (await client.get("/api/device-tokens", headers=bob_headers)).json() == []

    assert_error(await client.delete("/api/device-tokens/tok-2", headers=bob_headers), 404, "NOT_FOUND")
    assert (await client.delete("/api/device-tokens/tok%2F1%2Ba", headers=ann_headers)).status_code == 204
    assert_error(await client.delete("/api/device-tokens/tok%2F1%2Ba", headers=ann_headers), 404, "NOT_FOUND")
    assert [
        item["token"] for item in (await client.get("/api/device-tokens", headers=ann_headers)).json()
    ] == ["tok-2"]


@pytest.mark.parametrize("token", ["a\nb", " tok", "tok\t", "to k", "tok\x85", "tok\u2028"])
async def test_a_token_with_whitespace_or_a_control_character_is_refused(
    app: FastAPI, client: httpx.AsyncClient, token: str
) -> None:
    """No device has such a token, and a newline could not be named again in the DELETE path."""
    headers = auth_headers(app, await create_user(app))

    refused = await register_device(client, headers, token, "web")

    assert "token" in assert_error(refused, 400, "VALIDATION_FAILED")["details"]["fields"]
    assert (await client.get("/api/device-tokens", headers=headers)).json() == []


async def test_device_token_input_is_validated(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))
    assert_error(await register_device(client, headers, "t", "blackberry"), 400, "VALIDATION_FAILED")
    assert_error(await register_device(client, headers, "", "ios"), 400, "VALIDATION_FAILED")
    assert_error(await client.get("/api/device-tokens"), 401, "AUTH_REQUIRED")
