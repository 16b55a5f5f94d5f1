"""The routes of contract 19 (app/notifications/router.py): the VAPID key, each user's own Web Push
subscriptions (validated as a push service would need them, endpoints under the address rules) and
notification URLs (allowed schemes, host rules, encrypted at rest, shown redacted)."""

from __future__ import annotations

import base64
import os

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import FastAPI
from sqlalchemy import select

from app.models import NotificationTarget
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error

ENDPOINT = "https://push.example.net/push/abc"  # resolved: refused unless private addresses are allowed


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def subscription(endpoint: str, **keys: str) -> dict[str, object]:
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {
        "endpoint": endpoint,
        "expirationTime": None,
        "keys": {"p256dh": b64url(point), "auth": b64url(os.urandom(16)), **keys},
    }


async def test_the_public_key_is_a_p256_point_and_stays_the_same(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    first = await client.get("/api/push/web/key")
    again = await client.get("/api/push/web/key")
    assert first.status_code == 200 and first.json() == again.json()
    point = base64.urlsafe_b64decode(first.json()["publicKey"] + "=")
    assert len(point) == 65 and point[0] == 4
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    assert (app.state.settings.data_dir / "vapid_private_key.pem").stat().st_mode & 0o777 == 0o600


@pytest.mark.settings(webhook_allow_private=True, max_web_push_subscriptions_per_user=2)
async def test_subscribe_list_update_and_delete(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann, bob = await create_user(app), await create_user(app)
    ann_headers, bob_headers = auth_headers(app, ann), auth_headers(app, bob)

    first = await client.post(
        "/api/me/web-push-subscriptions",
        json=subscription("http://127.0.0.1:9/push/1") | {"expirationTime": 1893456000000},
        headers=ann_headers,
    )
    assert first.status_code == 201, first.text
    assert first.headers["Location"] == f"/api/me/web-push-subscriptions/{first.json()['id']}"
    assert first.json()["expiresAt"] == "2030-01-01T00:00:00+00:00"
    again = await client.post(
        "/api/me/web-push-subscriptions", json=subscription("http://127.0.0.1:9/push/1"), headers=ann_headers
    )
    assert again.json()["id"] == first.json()["id"]  # the same endpoint updates, never duplicates
    await client.post(
        "/api/me/web-push-subscriptions", json=subscription("http://127.0.0.1:9/push/2"), headers=ann_headers
    )
    listed = (await client.get("/api/me/web-push-subscriptions", headers=ann_headers)).json()
    assert [item["endpoint"] for item in listed] == ["http://127.0.0.1:9/push/1", "http://127.0.0.1:9/push/2"]
    assert listed[0]["expiresAt"] is None

    third = await client.post(
        "/api/me/web-push-subscriptions", json=subscription("http://127.0.0.1:9/push/3"), headers=ann_headers
    )
    listed = (await client.get("/api/me/web-push-subscriptions", headers=ann_headers)).json()
    assert [item["endpoint"] for item in listed] == ["http://127.0.0.1:9/push/2", "http://127.0.0.1:9/push/3"]

    assert (await client.get("/api/me/web-push-subscriptions", headers=bob_headers)).json() == []
    path = f"/api/me/web-push-subscriptions/{third.json()['id']}"
    assert_error(await client.delete(path, headers=bob_headers), 404, "NOT_FOUND")
    assert (await client.delete(path, headers=ann_headers)).status_code == 204
    assert len((await client.get("/api/me/web-push-subscriptions", headers=ann_headers)).json()) == 1
    assert_error(await client.get("/api/me/web-push-subscriptions"), 401, "AUTH_REQUIRED")


async def test_an_endpoint_must_be_https_and_public(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))
    for endpoint, problem in [
        ("http://push.example.net/push/abc", "https"),
        ("https://127.0.0.1/push/abc", "not a public address"),
        ("https://169.254.169.254/latest", "not a public address"),
        ("ftp://push.example.net/x", "http or https"),
    ]:
        answer = await client.post(
            "/api/me/web-push-subscriptions", json=subscription(endpoint), headers=headers
        )
        assert_error(answer, 400, "VALIDATION_FAILED")
        assert problem in answer.json()["details"]["fields"]["endpoint"]


@pytest.mark.settings(webhook_allow_private=True)
async def test_keys_must_be_a_p256_point_and_16_bytes(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_user(app))
    endpoint = "http://127.0.0.1:9/push/1"
    not_on_curve = b64url(b"\x04" + b"\x01" * 64)
    for keys, field in [
        ({"p256dh": not_on_curve}, "keys.p256dh"),
        ({"p256dh": "!" * 87}, "keys.p256dh"),
        ({"auth": b64url(os.urandom(17))}, "keys.auth"),
        ({"auth": "x" * 200}, "keys.auth"),
    ]:
        answer = await client.post(
            "/api/me/web-push-subscriptions", json=subscription(endpoint, **keys), headers=headers
        )
        assert_error(answer, 400, "VALIDATION_FAILED")
        assert field in answer.json()["details"]["fields"], answer.text
    too_long = subscription("http://127.0.0.1:9/" + "a" * 2100)
    assert_error(
        await client.post("/api/me/web-push-subscriptions", json=too_long, headers=headers),
        400,
        "VALIDATION_FAILED",
    )
    assert (await client.get("/api/me/web-push-subscriptions", headers=headers)).json() == []


@pytest.mark.settings(webhook_allow_private=True, max_notification_targets_per_user=2)
async def test_notification_urls_are_kept_encrypted_and_shown_redacted(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bob = await create_user(app), await create_user(app)
    ann_headers, bob_headers = auth_headers(app, ann), auth_headers(app, bob)
    url = "ntfys://alice:s3cret@127.0.0.1/warranty-alice"

    added = await client.post("/api/me/notification-targets", json={"url": url}, headers=ann_headers)
    assert added.status_code == 201, added.text
    assert added.json()["scheme"] == "ntfys" and added.json()["redacted"] == "ntfys://127.0.0.1/****"
    same = await client.post("/api/me/notification-targets", json={"url": url}, headers=ann_headers)
    assert same.json()["id"] == added.json()["id"]
    hosted = await client.post(
        "/api/me/notification-targets",
        json={"url": "tgram://123456789:AAHsecret/987654"},
        headers=ann_headers,
    )
    assert hosted.status_code == 201 and hosted.json()["redacted"] == "tgram://****"
    listed = await client.get("/api/me/notification-targets", headers=ann_headers)
    assert [item["redacted"] for item in listed.json()] == ["ntfys://127.0.0.1/****", "tgram://****"]
    assert "s3cret" not in listed.text and "AAHsecret" not in listed.text

    async with app.state.sessionmaker() as session:
        stored = list(await session.scalars(select(NotificationTarget.secret)))
    assert len(stored) == 2 and not any("s3cret" in secret or "AAHsecret" in secret for secret in stored)

    full = await client.post(
        "/api/me/notification-targets", json={"url": "gotify://127.0.0.1/token"}, headers=ann_headers
    )
    assert_error(full, 409, "TOO_MANY_TARGETS")
    assert (await client.get("/api/me/notification-targets", headers=bob_headers)).json() == []
    path = f"/api/me/notification-targets/{added.json()['id']}"
    assert_error(await client.delete(path, headers=bob_headers), 404, "NOT_FOUND")
    assert (await client.delete(path, headers=ann_headers)).status_code == 204
    assert len((await client.get("/api/me/notification-targets", headers=ann_headers)).json()) == 1


async def test_notification_urls_follow_the_schemes_and_the_address_rules(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    headers = auth_headers(app, await create_user(app))
    for url, problem in [
        ("json://127.0.0.1/hook", "not allowed"),
        ("file:///etc/passwd", "not allowed"),
        ("mailto://user:pass@example.com", "not allowed"),
        ("ntfy://127.0.0.1/topic", "not a public address"),
        ("gotifys://10.0.0.8/token", "not a public address"),
        ("no scheme at all", "must be a URL"),
        ("discord://", "Apprise understands"),
    ]:
        answer = await client.post("/api/me/notification-targets", json={"url": url}, headers=headers)
        assert_error(answer, 400, "VALIDATION_FAILED")
        assert problem in answer.json()["details"]["fields"]["url"], (url, answer.text)
    assert (await client.get("/api/me/notification-targets", headers=headers)).json() == []
