"""Deliveries to a real HTTP receiver on 127.0.0.1 (allowed by WARRANTY_WEBHOOK_ALLOW_PRIVATE): signed per
Standard Webhooks (checked with the `standardwebhooks` package), retried with backoff under the same
webhook-id, bounded by a timeout, refused at send time when the address is not public, and what each
attempt saw noted on the delivery (app/webhooks/delivery.py)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.models import WebhookEndpoint
from tests.factories.webhooks import register, verified, webhook_worker
from tests.helpers import wait_for
from tests.webhooks.receiver import Receiver, start_receiver
from tests.webhooks.support import deliveries_of, send_test

pytestmark = pytest.mark.settings(
    webhook_allow_private=True, outbox_backoff_base=0.05, worker_poll_interval=0.05
)


async def test_the_test_event_arrives_signed(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/ok"), events=["claim.created"])
    queued = await send_test(app, client, endpoint["id"])
    assert queued["status"] == "pending" and queued["type"] == "webhook.test"
    await webhook_worker(app).run_until_idle()

    [arrived] = receiver.at("/ok")
    payload = verified(endpoint["secret"], arrived)
    assert payload["type"] == "webhook.test"
    assert payload["data"] == {"webhookId": endpoint["id"], "message": "A test event from Warranty."}
    assert payload["timestamp"].endswith("Z")
    assert arrived.headers["webhook-id"] == queued["messageId"]
    assert arrived.headers["content-type"] == "application/json"
    assert arrived.headers["webhook-signature"].startswith("v1,")
    [listed] = await deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "delivered" and listed["attempts"] == 1 and listed["responseStatus"] == 200
    assert listed["payload"] == payload and listed["deliveredAt"] and listed["nextAttemptAt"] is None


async def test_a_wrong_secret_fails_the_oracle(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    """The oracle is not a rubber stamp: another endpoint's secret does not verify."""
    endpoint = await register(app, client, receiver.url("/ok"))
    other = await register(app, client, receiver.url("/elsewhere"))
    await send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    with pytest.raises(Exception, match="signature"):
        verified(other["secret"], receiver.at("/ok")[0])


async def test_a_receiver_that_fails_twice_gets_the_same_webhook_id_three_times(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/flaky/2"))
    queued = await send_test(app, client, endpoint["id"])
    worker = webhook_worker(app)

    async def three_arrived() -> bool:
        await worker.run_until_idle()
        return len(receiver.at("/flaky/2")) == 3

    await wait_for(three_arrived, within=20)
    arrivals = receiver.at("/flaky/2")
    assert {item.headers["webhook-id"] for item in arrivals} == {queued["messageId"]}
    assert len({item.body for item in arrivals}) == 1
    for item in arrivals:
        verified(endpoint["secret"], item)  # every attempt is signed afresh
    [listed] = await deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "delivered" and listed["attempts"] == 3 and listed["lastError"] is None


async def test_failures_show_in_the_list_while_retries_are_pending(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/flaky/50"))
    await send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    [listed] = await deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "pending" and listed["attempts"] >= 1
    assert listed["responseStatus"] == 503
    assert listed["lastError"] == "HTTP 503: down for maintenance"
    assert listed["nextAttemptAt"] is not None
    assert await deliveries_of(app, client, endpoint["id"], "?status=pending") == [listed]
    assert await deliveries_of(app, client, endpoint["id"], "?status=delivered") == []


@pytest.mark.settings(
    webhook_allow_private=True, webhook_timeout=3.0, worker_poll_interval=0.05, outbox_backoff_base=60
)
async def test_a_receiver_that_never_answers_holds_only_its_own_delivery(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    silent = await register(app, client, receiver.url("/hang"))
    answering = await register(app, client, receiver.url("/ok"))
    worker = webhook_worker(app)
    running = asyncio.create_task(worker.run_forever())
    try:
        await send_test(app, client, silent["id"])
        worker.wake()
        await wait_for(lambda: _arrived(receiver, "/hang", 1))
        # While it hangs, other deliveries go out.
        for _ in range(3):
            await send_test(app, client, answering["id"])
            worker.wake()
        await wait_for(lambda: _arrived(receiver, "/ok", 3))
        [hanging] = await deliveries_of(app, client, silent["id"])
        assert hanging["attempts"] == 0  # still in flight when the others arrived

        async def timed_out() -> bool:
            [delivery] = await deliveries_of(app, client, silent["id"])
            return delivery["attempts"] == 1

        await wait_for(timed_out, within=10)
        [delivery] = await deliveries_of(app, client, silent["id"])
        assert delivery["status"] == "pending"  # retried later, with backoff
        assert delivery["lastError"] == "TimeoutError: no answer within 3.0 s"
        # The worker is free again: a new delivery goes out at once.
        await send_test(app, client, answering["id"])
        worker.wake()
        await wait_for(lambda: _arrived(receiver, "/ok", 4))
        worker.stop()
        await asyncio.wait_for(running, timeout=10)  # nothing in flight holds the worker
    finally:
        worker.stop()
        running.cancel()


async def _arrived(receiver: Receiver, path: str, count: int) -> bool:
    return len(receiver.at(path)) >= count


async def test_private_addresses_are_refused_at_delivery(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver, make_settings: object
) -> None:
    """Registered while allowed (or while its host resolved elsewhere): with the setting off, the send is
    refused before any connection, and the delivery fails for good at once (visible, retryable)."""
    endpoint = await register(app, client, receiver.url("/ok"))
    renamed = await register(app, client, receiver.url("/ok"))
    async with app.state.sessionmaker() as session, session.begin():
        # As if its DNS name now pointed at the loopback address.
        await session.execute(
            update(WebhookEndpoint)
            .where(WebhookEndpoint.id == renamed["id"])
            .values(url=receiver.url("/ok", host="localhost"))
        )
    await send_test(app, client, endpoint["id"])
    await send_test(app, client, renamed["id"])
    strict = make_settings(webhook_allow_private=False)  # type: ignore[operator]
    await webhook_worker(app, strict).run_until_idle()

    assert receiver.received == []
    for webhook_id in (endpoint["id"], renamed["id"]):
        [listed] = await deliveries_of(app, client, webhook_id)
        assert listed["status"] == "failed" and listed["attempts"] == 1
        assert "not a public address" in listed["lastError"]
    await deliveries_of(app, client, endpoint["id"], "?status=failed")


async def test_a_receiver_that_is_down_ends_failed_not_lost(app: FastAPI, client: httpx.AsyncClient) -> None:
    closed = start_receiver()
    url = closed.url("/ok")
    closed.stop()  # nothing listens on that port any more
    endpoint = await register(app, client, url)
    await send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    [listed] = await deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "pending" and listed["lastError"].startswith("ConnectError")
