"""One Web Push (app/notifications/web_push.py): the payload kept under 3 KB, encryption a browser can
decrypt, the request's headers, and what each answer of the push service becomes."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from email.utils import format_datetime
from pathlib import Path

import http_ece
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from app.config import Settings
from app.core.clock import utc_now
from app.notifications import web_push
from app.notifications.vapid import b64url, vapid_key
from app.outbox.handlers import PermanentFailure, RetryLater
from tests.support.push_service import Browser, PushService


def test_a_long_body_is_shortened_to_fit_and_the_rest_kept() -> None:
    payload = {
        "type": "new_message",
        "claimId": 7,
        "title": "Sam",
        "body": "é" * 5000,
        "url": "https://x/claims/7",
    }
    encoded = web_push.payload_bytes(payload)
    decoded = json.loads(encoded)
    assert len(encoded) <= web_push.MAX_PAYLOAD
    assert decoded["body"].endswith("…") and decoded["body"].startswith("é")
    assert {key: value for key, value in decoded.items() if key != "body"} == {
        key: value for key, value in payload.items() if key != "body"
    }
    short = {**payload, "body": "Hello"}
    assert json.loads(web_push.payload_bytes(short)) == short


def test_the_browser_decrypts_what_was_encrypted_for_it() -> None:
    browser_key, auth = ec.generate_private_key(ec.SECP256R1()), os.urandom(16)
    point = browser_key.public_key().public_numbers()
    p256dh = b64url(b"\x04" + point.x.to_bytes(32, "big") + point.y.to_bytes(32, "big"))
    body = web_push.encrypt(b'{"a":1}', web_push.Subscription("https://x", p256dh, b64url(auth)))
    assert body[20] == 65  # the keyid is the sender's ephemeral public key (RFC 8291 section 4)
    plain = http_ece.decrypt(body, private_key=browser_key, auth_secret=auth, version="aes128gcm")
    assert plain == b'{"a":1}'


def test_retry_after_in_seconds_or_as_a_date() -> None:
    assert web_push.retry_after_seconds("120") == 120.0
    later = format_datetime(utc_now() + timedelta(minutes=10), usegmt=True)
    assert 590 <= (web_push.retry_after_seconds(later) or 0) <= 600
    assert web_push.retry_after_seconds(None) is None
    assert web_push.retry_after_seconds("soon") is None


async def _send(browser: Browser, settings: Settings) -> None:
    await web_push.send(
        web_push.WebPush({"type": "new_message", "body": "Hi"}, "claim-1", "high"),
        web_push.Subscription(browser.endpoint, browser.p256dh, b64url(browser.auth)),
        key=vapid_key(settings),
        subject="mailto:ops@example.com",
        ttl=60,
        allow_private=True,
        seconds=5,
    )


async def test_each_answer_of_the_push_service(push_service: PushService, tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    browser = push_service.browser("b", vapid_key(settings).public_key)
    browser.answers = [(410, None), (404, None), (429, "30"), (503, None), (400, None)]
    with pytest.raises(web_push.SubscriptionGone):
        await _send(browser, settings)
    with pytest.raises(web_push.SubscriptionGone):
        await _send(browser, settings)
    with pytest.raises(RetryLater) as deferred:
        await _send(browser, settings)
    assert deferred.value.seconds == 30
    with pytest.raises(RetryLater) as failing:
        await _send(browser, settings)
    assert failing.value.seconds is None
    with pytest.raises(PermanentFailure):
        await _send(browser, settings)
    await _send(browser, settings)
    push_service.assert_nothing_refused()
    assert browser.received == [{"type": "new_message", "body": "Hi"}]
    assert browser.headers[0]["ttl"] == "60" and browser.headers[0]["topic"] == "claim-1"


async def test_a_push_signed_with_another_key_is_refused(push_service: PushService, tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    other = Settings(_env_file=None, data_dir=tmp_path / "other")  # type: ignore[call-arg]
    browser = push_service.browser("b", vapid_key(other).public_key)
    with pytest.raises(PermanentFailure, match="403"):
        await _send(browser, settings)


async def test_a_private_endpoint_is_refused_without_a_request(
    push_service: PushService, tmp_path: Path
) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    browser = push_service.browser("b", vapid_key(settings).public_key)
    with pytest.raises(PermanentFailure, match="not a public address"):
        await web_push.send(
            web_push.WebPush({"type": "x"}, "t", "normal"),
            web_push.Subscription(browser.endpoint, browser.p256dh, b64url(browser.auth)),
            key=vapid_key(settings),
            subject="mailto:ops@example.com",
            ttl=60,
            allow_private=False,
            seconds=5,
        )
    assert browser.attempts == 0
