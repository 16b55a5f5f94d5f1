"""Deliveries to a real HTTP receiver on 127.0.0.1 (allowed by WARRANTY_WEBHOOK_ALLOW_PRIVATE): signed per
Standard Webhooks (checked with the `standardwebhooks` package), retried with backoff under the same
webhook-id, bounded by a timeout, refused at send time when the address is not public, listed and
retried by admins."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator

import httpx
import pytest
import trustme
from fastapi import FastAPI
from sqlalchemy import delete, update

from app.models import OutboxItem, WebhookEndpoint
from tests.factories.users import auth_headers, create_admin
from tests.factories.webhooks import deliveries, register, verified, webhook_worker
from tests.helpers import assert_error, count_queries, wait_for
from tests.webhooks.receiver import Receiver, start_receiver

pytestmark = pytest.mark.settings(
    webhook_allow_private=True, outbox_backoff_base=0.05, worker_poll_interval=0.05
)


async def _send_test(app: FastAPI, client: httpx.AsyncClient, webhook_id: int) -> dict[str, object]:
    admin = auth_headers(app, await create_admin(app))
    response = await client.post(f"/api/admin/webhooks/{webhook_id}/test", headers=admin)
    assert response.status_code == 202, response.text
    body: dict[str, object] = response.json()
    return body


async def _deliveries_of(
    app: FastAPI, client: httpx.AsyncClient, webhook_id: int, query: str = ""
) -> list[dict]:
    admin = auth_headers(app, await create_admin(app))
    response = await client.get(f"/api/admin/webhooks/{webhook_id}/deliveries{query}", headers=admin)
    assert response.status_code == 200, response.text
    return list(response.json()["data"])


async def test_the_test_event_arrives_signed(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/ok"), events=["claim.created"])
    queued = await _send_test(app, client, endpoint["id"])
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
    [listed] = await _deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "delivered" and listed["attempts"] == 1 and listed["responseStatus"] == 200
    assert listed["payload"] == payload and listed["deliveredAt"] and listed["nextAttemptAt"] is None


async def test_a_wrong_secret_fails_the_oracle(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    """The oracle is not a rubber stamp: another endpoint's secret does not verify."""
    endpoint = await register(app, client, receiver.url("/ok"))
    other = await register(app, client, receiver.url("/elsewhere"))
    await _send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    with pytest.raises(Exception, match="signature"):
        verified(other["secret"], receiver.at("/ok")[0])


async def test_a_receiver_that_fails_twice_gets_the_same_webhook_id_three_times(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/flaky/2"))
    queued = await _send_test(app, client, endpoint["id"])
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
    [listed] = await _deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "delivered" and listed["attempts"] == 3 and listed["lastError"] is None


async def test_failures_show_in_the_list_while_retries_are_pending(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/flaky/50"))
    await _send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    [listed] = await _deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "pending" and listed["attempts"] >= 1
    assert listed["responseStatus"] == 503
    assert listed["lastError"] == "HTTP 503: down for maintenance"
    assert listed["nextAttemptAt"] is not None
    assert await _deliveries_of(app, client, endpoint["id"], "?status=pending") == [listed]
    assert await _deliveries_of(app, client, endpoint["id"], "?status=delivered") == []


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
        await _send_test(app, client, silent["id"])
        worker.wake()
        await wait_for(lambda: _arrived(receiver, "/hang", 1))
        # While it hangs, other deliveries go out.
        for _ in range(3):
            await _send_test(app, client, answering["id"])
            worker.wake()
        await wait_for(lambda: _arrived(receiver, "/ok", 3))
        [hanging] = await _deliveries_of(app, client, silent["id"])
        assert hanging["attempts"] == 0  # still in flight when the others arrived

        async def timed_out() -> bool:
            [delivery] = await _deliveries_of(app, client, silent["id"])
            return delivery["attempts"] == 1

        await wait_for(timed_out, within=10)
        [delivery] = await _deliveries_of(app, client, silent["id"])
        assert delivery["status"] == "pending"  # retried later, with backoff
        assert delivery["lastError"] == "TimeoutError: no answer within 3.0 s"
        # The worker is free again: a new delivery goes out at once.
        await _send_test(app, client, answering["id"])
        worker.wake()
        await wait_for(lambda: _arrived(receiver, "/ok", 4))
        worker.stop()
        await asyncio.wait_for(running, timeout=10)  # nothing in flight holds the worker
    finally:
        worker.stop()
        running.cancel()


async def _arrived(receiver: Receiver, path: str, count: int) -> bool:
    return len(receiver.at(path)) >= count


async def test_redirects_are_not_followed(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/redirect"))
    await _send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    assert receiver.at("/redirect")  # tried (and retried), never followed
    assert receiver.at("/ok") == []
    [listed] = await _deliveries_of(app, client, endpoint["id"])
    assert listed["responseStatus"] == 302 and listed["status"] == "pending"


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
    await _send_test(app, client, endpoint["id"])
    await _send_test(app, client, renamed["id"])
    strict = make_settings(webhook_allow_private=False)  # type: ignore[operator]
    await webhook_worker(app, strict).run_until_idle()

    assert receiver.received == []
    for webhook_id in (endpoint["id"], renamed["id"]):
        [listed] = await _deliveries_of(app, client, webhook_id)
        assert listed["status"] == "failed" and listed["attempts"] == 1
        assert "not a public address" in listed["lastError"]
    await _deliveries_of(app, client, endpoint["id"], "?status=failed")


async def test_the_checked_address_is_connected_with_the_host_name_kept(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/ok", host="localhost"))
    await _send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    [arrived] = receiver.at("/ok")
    assert arrived.headers["host"] == f"localhost:{receiver.port}"
    verified(endpoint["secret"], arrived)


@pytest.fixture
def tls_receiver() -> Iterator[tuple[Receiver, ssl.SSLContext]]:
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(server_context)
    client_context = ssl.create_default_context()
    authority.configure_trust(client_context)
    running = start_receiver(server_context)
    yield running, client_context
    running.stop()


async def test_https_keeps_the_server_name_for_sni_and_the_certificate(
    app: FastAPI, client: httpx.AsyncClient, tls_receiver: tuple[Receiver, ssl.SSLContext]
) -> None:
    receiver, trust = tls_receiver
    endpoint = await register(app, client, receiver.url("/ok", host="localhost"))
    await _send_test(app, client, endpoint["id"])
    await webhook_worker(app, tls=trust).run_until_idle()
    [arrived] = receiver.at("/ok")
    assert receiver.server_names == ["localhost"]
    assert arrived.headers["host"] == f"localhost:{receiver.port}"
    verified(endpoint["secret"], arrived)


@pytest.mark.settings(webhook_allow_private=True, outbox_backoff_base=0.01, outbox_retry_hours=1e-6)
async def test_a_failed_delivery_is_retried_by_an_admin(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/flaky/2"))
    queued = await _send_test(app, client, endpoint["id"])
    worker = webhook_worker(app)

    async def failed() -> bool:
        await worker.run_until_idle()
        return (await _deliveries_of(app, client, endpoint["id"]))[0]["status"] == "failed"

    await wait_for(failed)
    assert len(receiver.at("/flaky/2")) == 2
    admin = auth_headers(app, await create_admin(app))
    path = f"/api/admin/webhooks/{endpoint['id']}/deliveries/{queued['id']}/retry"
    retried = await client.post(path, headers=admin)
    assert retried.status_code == 202, retried.text
    assert retried.json()["status"] == "pending" and retried.json()["messageId"] == queued["messageId"]
    await worker.run_until_idle()
    arrivals = receiver.at("/flaky/2")
    assert len(arrivals) == 3 and {item.headers["webhook-id"] for item in arrivals} == {queued["messageId"]}
    [listed] = await _deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "delivered"

    # A delivered one may be sent again (same id); an unknown one, or another endpoint's, is 404.
    assert (await client.post(path, headers=admin)).status_code == 202
    await worker.run_until_idle()
    assert len(receiver.at("/flaky/2")) == 4
    other = await register(app, client, receiver.url("/ok"))
    assert_error(
        await client.post(
            f"/api/admin/webhooks/{other['id']}/deliveries/{queued['id']}/retry", headers=admin
        ),
        404,
        "NOT_FOUND",
    )
    assert_error(
        await client.post(f"/api/admin/webhooks/{endpoint['id']}/deliveries/999/retry", headers=admin),
        404,
        "NOT_FOUND",
    )


async def test_deleting_an_endpoint_drops_its_pending_deliveries(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/ok"))
    await _send_test(app, client, endpoint["id"])
    admin = auth_headers(app, await create_admin(app))
    assert (await client.delete(f"/api/admin/webhooks/{endpoint['id']}", headers=admin)).status_code == 204
    await webhook_worker(app).run_until_idle()
    assert receiver.received == []
    assert await deliveries(app) == []
    assert_error(
        await client.get(f"/api/admin/webhooks/{endpoint['id']}/deliveries", headers=admin), 404, "NOT_FOUND"
    )


async def test_the_deliveries_list_runs_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/ok"))
    admin = auth_headers(app, await create_admin(app))
    path = f"/api/admin/webhooks/{endpoint['id']}/deliveries?limit=100"
    for _ in range(2):
        await _send_test(app, client, endpoint["id"])
    with count_queries(app) as few:
        small = await client.get(path, headers=admin)
    for _ in range(20):
        await _send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    with count_queries(app) as many:
        large = await client.get(path, headers=admin)
    assert len(small.json()["data"]) == 2 and len(large.json()["data"]) == 22
    assert len(few) == len(many), many
    assert large.json()["meta"]["total"] == 22
    first = (await client.get(path.replace("100", "5"), headers=admin)).json()
    following = await client.get(
        f"/api/admin/webhooks/{endpoint['id']}/deliveries?limit=5&cursor={first['meta']['next_cursor']}",
        headers=admin,
    )
    ids = [item["id"] for item in first["data"] + following.json()["data"]]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 10


async def test_a_receiver_that_is_down_ends_failed_not_lost(app: FastAPI, client: httpx.AsyncClient) -> None:
    closed = start_receiver()
    url = closed.url("/ok")
    closed.stop()  # nothing listens on that port any more
    endpoint = await register(app, client, url)
    await _send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    [listed] = await _deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "pending" and listed["lastError"].startswith("ConnectError")


async def test_a_delivery_outlives_its_pruned_outbox_row(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    """Outbox rows are pruned after a while (retention); the delivery keeps its state and can be retried."""
    endpoint = await register(app, client, receiver.url("/ok"))
    queued = await _send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(delete(OutboxItem))
    [listed] = await _deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "delivered"
    admin = auth_headers(app, await create_admin(app))
    path = f"/api/admin/webhooks/{endpoint['id']}/deliveries/{queued['id']}/retry"
    assert (await client.post(path, headers=admin)).json()["status"] == "pending"
    await webhook_worker(app).run_until_idle()
    arrivals = receiver.at("/ok")
    assert [item.headers["webhook-id"] for item in arrivals] == [queued["messageId"]] * 2
    [listed] = await _deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "delivered" and listed["attempts"] == 2
