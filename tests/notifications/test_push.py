"""Device token endpoints, and pushes arriving at a gorush-compatible gateway."""

from __future__ import annotations

from datetime import timedelta

import httpx
from fastapi import FastAPI

from app.core.clock import utc_today
from app.notifications.push import GorushPush, PushNotification, PushTarget, invalid_tokens, masked
from app.outbox.worker import OutboxWorker
from app.products.expiry_alerts import send_expiry_alerts
from tests.factories.claims import create_claim, create_message
from tests.factories.notifications import notify_message, notify_status, outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_supplier, create_user
from tests.notifications.support import (
    register_device,
)
from tests.support.gorush import ANDROID, APNS_TOPIC, IOS, Gorush, GorushState, push
from tests.support.smtp import Inbox


async def test_every_push_is_accepted_by_gorush_on_ios_and_android(
    app: FastAPI, client: httpx.AsyncClient, gorush: Gorush, push_worker: OutboxWorker, inbox: Inbox
) -> None:
    customer = await create_user(app, email_notifications_enabled=False)
    supplier = await create_supplier(app)
    expires = utc_today() + timedelta(days=10)  # within the 30-day alert threshold
    expires -= timedelta(days=1) if (expires.month, expires.day) == (2, 29) else timedelta(0)
    purchased = expires.replace(year=expires.year - 1)
    product = await create_product(
        app, customer, name="Espresso machine", purchase_date=purchased, warranty_period_months=12
    )
    claim = await create_claim(app, product, supplier=supplier)
    message = await create_message(app, claim, supplier, body="Your part is on its way")
    headers = auth_headers(app, customer)
    for token, platform in (("ios-1", "ios"), ("android-1", "android"), ("web-1", "web")):
        assert (await register_device(client, headers, token, platform)).status_code == 201
    await notify_message(app, message, [customer])
    claim.status = "in_progress"
    await notify_status(app, claim, [customer])
    assert await send_expiry_alerts(app.state.sessionmaker, app.state.settings) == 1

    await push_worker.run_until_idle()

    gorush.assert_all_accepted()
    assert all(request["path"] == "/api/push" for request in gorush.requests)
    by_type = {push["type"]: push for push in gorush.received("ios-1")}
    new_message, status_update, expiring = (
        by_type[t] for t in ("new_message", "status_update", "warranty_expiring")
    )
    assert new_message["aps"]["alert"]["body"] == "Your part is on its way"
    assert "Espresso machine" in new_message["aps"]["alert"]["title"]
    assert [push["aps"]["sound"] for push in (new_message, status_update, expiring)] == ["default"] * 3
    assert new_message["aps"]["thread-id"] == status_update["aps"]["thread-id"] == f"claim-{claim.id}"
    assert expiring["aps"]["thread-id"] != new_message["aps"]["thread-id"]
    for token in ("android-1", "web-1"):
        by_type = {push["data"]["type"]: push for push in gorush.received(token)}
        message_push, status_push = by_type["new_message"], by_type["status_update"]
        expiry_push = by_type["warranty_expiring"]
        assert message_push["data"] == {
            "type": "new_message",
            "claimId": str(claim.id),
            "messageId": str(message.id),
        }
        assert status_push["data"] == {
            "type": "status_update",
            "claimId": str(claim.id),
            "status": "in_progress",
        }
        assert expiry_push["data"]["productId"] == str(product.id)
        assert message_push["notification"]["body"] == "Your part is on its way"
    ios_items = [
        item
        for request in gorush.requests
        for item in request["body"]["notifications"]
        if item["platform"] == IOS
    ]
    assert {item["topic"] for item in ios_items} == {APNS_TOPIC}
    assert all(
        "topic" not in item and "sound" not in item
        for request in gorush.requests
        for item in request["body"]["notifications"]
        if item["platform"] == ANDROID
    )
    assert [row.status for row in await outbox_rows(app)] == ["done"] * 3
    assert inbox.messages == []


async def test_tokens_are_recognised_when_gorush_hides_them(app: FastAPI, client: httpx.AsyncClient) -> None:
    hiding = Gorush(APNS_TOPIC, hide_token=True)
    hiding.start()
    sender = GorushPush(hiding.url, timeout=5, apns_topic=APNS_TOPIC)
    try:
        targets = [
            PushTarget("gone-ios-" + "1" * 50, "ios"),
            PushTarget("ok-ios-" + "1" * 50, "ios"),
            PushTarget("bad-android-" + "2" * 50, "android"),
        ]
        gone = await sender.send(targets, PushNotification("Title", "Body", {"type": "x"}))
    finally:
        await sender.aclose()
        hiding.stop()
    assert gone == {"gone-ios-" + "1" * 50, "bad-android-" + "2" * 50}


async def test_one_http_client_serves_every_send(gorush: Gorush, pusher: GorushPush) -> None:
    for n in range(3):
        await pusher.send([PushTarget(f"ok-{n}", "android")], PushNotification("Title", "Body"))

    assert len(gorush.requests) == 3
    assert len(gorush.state.connections) == 1  # one kept-alive connection, not one per push


async def test_gateway_down_retries_later(
    app: FastAPI, client: httpx.AsyncClient, gorush: Gorush, push_worker: OutboxWorker
) -> None:
    customer = await create_user(app, email_notifications_enabled=False)
    claim = await create_claim(app, await create_product(app, customer))
    await register_device(client, auth_headers(app, customer), "c-1", "ios")
    gorush.stop()
    await notify_status(app, claim, [customer])

    await push_worker.run_until_idle()

    [row] = await outbox_rows(app)
    assert row.status == "pending" and row.attempts == 1 and row.last_error


def test_the_gateway_drops_what_fcm_v1_and_apns_refuse() -> None:
    """The test gateway itself: a notification with an integer in `data` never reaches a device, and an
    iOS push without its topic fails as APNs token authentication fails it."""
    state = GorushState(APNS_TOPIC)
    android = {"tokens": ["a-1"], "platform": ANDROID, "message": "m", "data": {"claimId": 42}}
    ios = {"tokens": ["i-1"], "platform": IOS, "title": "t", "message": "m", "data": {"claimId": "42"}}

    status, answer = push(state, {"notifications": [android, ios]})

    assert status == 200 and answer["success"] == "ok" and answer["counts"] == 2
    assert state.rejected == [(android, "invalid data format")]
    assert [(entry["token"], entry["error"]) for entry in answer["logs"]] == [("i-1", "MissingTopic")]
    assert state.delivered == []
    assert push(state, {"notifications": []}) == (
        400,
        {"code": 400, "message": "Notifications field is empty."},
    )
    assert push(state, {"notifications": [{"tokens": ["x"], "platform": "1"}]})[0] == 400


def test_invalid_tokens_reads_gorush_failure_logs_in_fcm_v1_and_apns_wordings() -> None:
    sent = ["a", "b", "c", "d", "e", "f", "g", "h" * 40]
    answer = {
        "counts": 8,
        "success": "ok",
        "logs": [
            {"type": "failed-push", "platform": "ios", "token": "a", "error": "Unregistered"},
            {"type": "failed-push", "platform": "ios", "token": "b", "error": "BadDeviceToken"},
            {
                "type": "failed-push",
                "platform": "android",
                "token": "c",
                "error": "Requested entity was not found.",
            },
            {
                "type": "failed-push",
                "platform": "android",
                "token": "d",
                "error": "The registration token is not a valid FCM registration token",
            },
            {
                "type": "failed-push",
                "platform": "android",
                "token": "e",
                "error": "Internal error encountered.",
            },
            {"type": "failed-push", "platform": "ios", "token": "f", "error": "DeviceTokenNotForTopic"},
            {"type": "succeeded-push", "platform": "android", "token": "g"},
            {
                "type": "failed-push",
                "platform": "android",
                "token": masked("h" * 40),
                "error": "NotRegistered",
            },
            {"type": "failed-push", "platform": "android", "token": "not-sent", "error": "NotRegistered"},
        ],
    }
    assert invalid_tokens(answer, sent) == {"a", "b", "c", "d", "h" * 40}
    assert invalid_tokens({"counts": 1, "success": "ok"}, sent) == set()
