"""Standard Webhooks signing (app/webhooks/signing.py): the `whsec_` secrets, the webhook-ids, and the three
headers of an attempt, checked against the `standardwebhooks` package as a receiver would check them."""

from __future__ import annotations

import base64
import re
import time

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from app.webhooks.signing import SECRET_BYTES, new_message_id, new_secret, signature, signed_headers

BODY = b'{"type":"webhook.test","timestamp":"2026-05-01T12:00:00Z","data":{"message":"h\xc3\xa9"}}'


def test_a_secret_is_whsec_and_32_random_bytes_in_base64() -> None:
    secrets = {new_secret() for _ in range(20)}

    assert len(secrets) == 20
    for secret in secrets:
        assert secret.startswith("whsec_")
        assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) == SECRET_BYTES == 32


def test_a_webhook_id_is_msg_and_128_random_bits() -> None:
    ids = {new_message_id() for _ in range(20)}

    assert len(ids) == 20
    assert all(re.fullmatch(r"msg_[0-9a-f]{32}", message_id) for message_id in ids)


def test_the_signed_headers_verify_as_a_receiver_checks_them() -> None:
    secret, message_id, now = new_secret(), new_message_id(), int(time.time())

    headers = signed_headers(secret, message_id, now, BODY)

    assert headers == {
        "webhook-id": message_id,
        "webhook-timestamp": str(now),
        "webhook-signature": signature(secret, message_id, now, BODY),
    }
    assert headers["webhook-signature"].startswith("v1,")
    assert Webhook(secret).verify(BODY, headers)["data"] == {"message": "hé"}


@pytest.mark.parametrize("change", ["body", "id", "timestamp", "secret"])
def test_the_signature_covers_the_id_the_timestamp_and_the_body_under_its_secret(change: str) -> None:
    secret, message_id, now = new_secret(), new_message_id(), int(time.time())
    headers = signed_headers(secret, message_id, now, BODY)
    body, checker = BODY, Webhook(secret)
    if change == "body":
        body = BODY.replace(b"test", b"tost")
    elif change == "id":
        headers["webhook-id"] = new_message_id()
    elif change == "timestamp":
        headers["webhook-timestamp"] = str(now - 1)
    else:
        checker = Webhook(new_secret())

    with pytest.raises(WebhookVerificationError):
        checker.verify(body, headers)


def test_the_signature_is_the_hmac_of_id_timestamp_and_body() -> None:
    """Standard Webhooks' own example: its secret, id, timestamp, body and signature."""
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'

    assert signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body) == (
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )
