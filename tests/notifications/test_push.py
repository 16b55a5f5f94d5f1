"""Device token endpoints, and pushes arriving at a gorush-compatible gateway."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.models import DeviceToken
from app.notifications.push import invalid_tokens
from tests.factories.claims import create_claim, create_message
from tests.factories.notifications import notify_message, notify_status, outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_supplier, create_user
from tests.helpers import assert_error
from tests.notifications.conftest import push_worker
from tests.notifications.servers import Gorush, Inbox


async def _register(
    client: httpx.AsyncClient, headers: dict[str, str], token: str, platform: str
) -> httpx.Response:
    return await client.post(
        "/api/device-tokens", json={"token": token, "platform": platform}, headers=headers
    )


async def test_register_list_and_delete_device_tokens(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await create_user(app), await create_user(app)
    ann_headers, bob_headers = auth_headers(app, ann), auth_headers(app, bob)

    created = await _register(client, ann_headers, "tok/1+a", "ios")
    await _register(client, ann_headers, "tok-2", "android")

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


async def test_re_registering_a_token_moves_it_to_the_caller(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await create_user(app), await create_user(app)
    await _register(client, auth_headers(app, ann), "shared", "android")

    moved = await _register(client, auth_headers(app, bob), "shared", "web")

    assert moved.status_code == 201 and moved.json()["platform"] == "web"
    assert (await client.get("/api/device-tokens", headers=auth_headers(app, ann))).json() == []
    [item] = (await client.get("/api/device-tokens", headers=auth_headers(app, bob))).json()
    assert item["token"] == "shared"
    again = await _register(client, auth_headers(app, bob), "shared", "web")
    assert again.status_code == 201


async def test_device_token_input_is_validated(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))
    assert_error(await _register(client, headers, "t", "blackberry"), 400, "VALIDATION_FAILED")
    assert_error(await _register(client, headers, "", "ios"), 400, "VALIDATION_FAILED")
    assert_error(await client.get("/api/device-tokens"), 401, "AUTH_REQUIRED")


async def test_pushes_reach_every_device_and_invalid_tokens_are_removed(
    app: FastAPI, client: httpx.AsyncClient, gorush: Gorush, inbox: Inbox
) -> None:
    customer = await create_user(app, email_notifications_enabled=False)
    supplier = await create_supplier(app)
    product = await create_product(app, customer, name="Espresso machine")
    claim = await create_claim(app, product, supplier=supplier)
    message = await create_message(app, claim, supplier, body="Your part is on its way")
    headers = auth_headers(app, customer)
    for token, platform in (("ios-1", "ios"), ("android-1", "android"), ("dead-1", "android")):
        assert (await _register(client, headers, token, platform)).status_code == 201
    await notify_message(app, message, [customer])

    await push_worker(app, gorush).run_until_idle()

    [request] = gorush.requests
    assert request["path"] == "/api/push"
    by_platform = {item["platform"]: item for item in request["body"]["notifications"]}
    assert by_platform[1]["tokens"] == ["ios-1"]
    assert sorted(by_platform[2]["tokens"]) == ["android-1", "dead-1"]
    assert "Your part is on its way" in by_platform[1]["message"]
    assert "Espresso machine" in by_platform[1]["title"]
    assert by_platform[1]["data"] == {
        "type": "new_message",
        "claimId": claim.id,
        "messageId": str(message.id),
    }
    async with app.state.sessionmaker() as session:
        left = set(await session.scalars(select(DeviceToken.token)))
    assert left == {"ios-1", "android-1"}
    assert [(row.kind, row.status) for row in await outbox_rows(app)] == [("push.claim_message", "done")]
    assert inbox.messages == []


async def test_status_push_and_no_push_for_users_who_turned_it_off(
    app: FastAPI, client: httpx.AsyncClient, gorush: Gorush
) -> None:
    customer = await create_user(app)
    muted = await create_supplier(app, notifications_enabled=False, email_notifications_enabled=False)
    claim = await create_claim(app, await create_product(app, customer), supplier=muted)
    await _register(client, auth_headers(app, customer), "c-1", "web")
    await _register(client, auth_headers(app, muted), "m-1", "ios")
    claim.status = "resolved"
    await notify_status(app, claim, [customer, muted])

    await push_worker(app, gorush).run_until_idle()

    [request] = gorush.requests
    [notification] = request["body"]["notifications"]
    assert notification["tokens"] == ["c-1"] and notification["platform"] == 2
    assert notification["data"] == {"type": "status_update", "claimId": claim.id, "status": "resolved"}


async def test_gateway_down_retries_later(app: FastAPI, client: httpx.AsyncClient, gorush: Gorush) -> None:
    customer = await create_user(app, email_notifications_enabled=False)
    claim = await create_claim(app, await create_product(app, customer))
    await _register(client, auth_headers(app, customer), "c-1", "ios")
    worker = push_worker(app, gorush)
    gorush.stop()
    await notify_status(app, claim, [customer])

    await worker.run_until_idle()

    [row] = await outbox_rows(app)
    assert row.status == "pending" and row.attempts == 1 and row.last_error


def test_invalid_tokens_reads_gorush_failure_logs() -> None:
    answer = {
        "counts": 4,
        "success": "ok",
        "logs": [
            {"type": "failed-push", "platform": "ios", "token": "a", "error": "Unregistered"},
            {"type": "failed-push", "platform": "ios", "token": "b", "error": "BadDeviceToken"},
            {"type": "failed-push", "platform": "android", "token": "c", "error": "InvalidRegistration"},
            {"type": "failed-push", "platform": "android", "token": "d", "error": "Internal Server Error"},
            {"type": "succeeded-push", "platform": "android", "token": "e"},
        ],
    }
    assert invalid_tokens(answer) == {"a", "b", "c"}
    assert invalid_tokens({"counts": 1, "success": "ok"}) == set()
