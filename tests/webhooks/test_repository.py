"""Webhook endpoints and their deliveries as an admin manages them (app/webhooks/repository.py): a delivery's
state read from its outbox row unless it says it was delivered (so it outlives its pruned row), the
deliveries paged by state, a retry that makes any delivery due now under the same webhook-id, and an
endpoint removed with its deliveries."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import delete

from app.core.clock import utc_now
from app.errors import NotFound
from app.models import OutboxItem, WebhookDelivery, WebhookEndpoint
from app.models.enums import OutboxState
from app.webhooks.recording import body, queue
from app.webhooks.repository import DeliveryRepository, WebhookRepository
from app.webhooks.signing import new_secret
from tests.factories.users import auth_headers, create_admin
from tests.factories.webhooks import deliveries, register, webhook_worker
from tests.helpers import assert_error, wait_for
from tests.webhooks.receiver import Receiver
from tests.webhooks.support import deliveries_of, send_test

pytestmark = pytest.mark.settings(
    webhook_allow_private=True, outbox_backoff_base=0.05, worker_poll_interval=0.05
)


async def _endpoint_with(app: FastAPI, count: int) -> tuple[int, list[WebhookDelivery]]:
    """An endpoint and `count` deliveries queued for it, oldest first."""
    async with app.state.sessionmaker() as session, session.begin():
        endpoint = await WebhookRepository(session).add(
            WebhookEndpoint(url="https://203.0.114.7/hooks", events=["claim.created"], secret=new_secret())
        )
        made = await queue(session, [endpoint.id] * count, "claim.created", body("claim.created", {"n": 1}))
    return endpoint.id, made


async def test_a_deliverys_state_comes_from_its_outbox_row_unless_it_was_delivered(app: FastAPI) -> None:
    endpoint_id, made = await _endpoint_with(app, 6)
    async with app.state.sessionmaker() as session, session.begin():
        items = [await session.get(OutboxItem, delivery.outbox_id) for delivery in made]
        items[1].status = OutboxState.DONE
        items[2].status = OutboxState.FAILED
        items[3].status = OutboxState.SKIPPED  # its endpoint was gone when the worker reached it
        await session.delete(items[4])  # pruned without ever being delivered: it had failed
        await session.delete(items[5])  # pruned after it was delivered: the delivery says so
        delivered = await session.get(WebhookDelivery, made[5].id)
        delivered.delivered_at = utc_now()

    async with app.state.sessionmaker() as session:
        repository = DeliveryRepository(session)
        rows, total = await repository.page(endpoint_id, None, 100, 0, None)
        failed, failed_total = await repository.page(endpoint_id, "failed", 2, 0, None)
        after, _ = await repository.page(endpoint_id, "failed", 100, 0, made[4].id)
        pending, _ = await repository.page(endpoint_id, "pending", 100, 0, None)

    ids = [delivery.id for delivery in made]
    assert [(row[0].id, row.status) for row in rows] == [
        (ids[5], "delivered"), (ids[4], "failed"), (ids[3], "failed"), (ids[2], "failed"),
        (ids[1], "delivered"), (ids[0], "pending"),
    ]  # fmt: skip
    assert total == 6
    assert ([row[0].id for row in failed], failed_total) == ([ids[4], ids[3]], 3)
    assert [row[0].id for row in after] == [ids[3], ids[2]]
    [(only, status, next_attempt_at)] = pending
    assert (only.id, status) == (ids[0], "pending") and next_attempt_at is not None


async def test_a_retry_makes_any_delivery_due_now_under_the_same_webhook_id(app: FastAPI) -> None:
    endpoint_id, made = await _endpoint_with(app, 3)
    async with app.state.sessionmaker() as session, session.begin():
        failed = await session.get(OutboxItem, made[0].outbox_id)
        failed.status, failed.attempts, failed.done_at = OutboxState.FAILED, 9, utc_now()
        await session.execute(delete(OutboxItem).where(OutboxItem.id == made[1].outbox_id))
        delivered = await session.get(WebhookDelivery, made[1].id)
        delivered.delivered_at = utc_now()
        waiting = await session.get(OutboxItem, made[2].outbox_id)
        waiting.attempts, waiting.next_attempt_at = 2, utc_now().replace(year=2999)

    async with app.state.sessionmaker() as session, session.begin():
        repository = DeliveryRepository(session)
        due = {}
        for delivery in made:
            row, _status, _next = await repository.get(endpoint_id, delivery.id)
            due[delivery.id] = await repository.retry(row)
        with pytest.raises(NotFound):
            await repository.get(endpoint_id + 1, made[0].id)

    async with app.state.sessionmaker() as session:
        for delivery, attempts in zip(made, (0, 0, 2), strict=True):
            row = await session.get(WebhookDelivery, delivery.id)
            item = await session.get(OutboxItem, row.outbox_id)
            assert row.message_id == delivery.message_id and row.delivered_at is None
            assert item.payload == {"messageId": delivery.message_id}
            assert (item.status, item.attempts, item.done_at) == (OutboxState.PENDING, attempts, None)
            assert item.next_attempt_at == due[delivery.id]
        assert row.outbox_id == delivery.outbox_id  # a pending one keeps its row
        renewed = await session.get(WebhookDelivery, made[1].id)
        assert renewed.outbox_id not in (None, made[1].outbox_id)  # a pruned one gets a new row


async def test_endpoints_are_paged_oldest_first_and_an_unknown_one_is_not_found(app: FastAPI) -> None:
    first, _ = await _endpoint_with(app, 0)
    second, _ = await _endpoint_with(app, 0)
    third, _ = await _endpoint_with(app, 0)

    async with app.state.sessionmaker() as session:
        repository = WebhookRepository(session)
        page, total = await repository.page(2, 0, None)
        after, _ = await repository.page(10, 0, first)
        with pytest.raises(NotFound):
            await repository.get(third + 1)

    assert ([endpoint.id for endpoint in page], total) == ([first, second], 3)
    assert [endpoint.id for endpoint in after] == [second, third]


@pytest.mark.settings(webhook_allow_private=True, outbox_backoff_base=0.01, outbox_retry_hours=1e-6)
async def test_a_failed_delivery_is_retried_by_an_admin(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/flaky/2"))
    queued = await send_test(app, client, endpoint["id"])
    worker = webhook_worker(app)

    async def failed() -> bool:
        await worker.run_until_idle()
        return (await deliveries_of(app, client, endpoint["id"]))[0]["status"] == "failed"

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
    [listed] = await deliveries_of(app, client, endpoint["id"])
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
    await send_test(app, client, endpoint["id"])
    admin = auth_headers(app, await create_admin(app))
    assert (await client.delete(f"/api/admin/webhooks/{endpoint['id']}", headers=admin)).status_code == 204
    await webhook_worker(app).run_until_idle()
    assert receiver.received == []
    assert await deliveries(app) == []
    assert_error(
        await client.get(f"/api/admin/webhooks/{endpoint['id']}/deliveries", headers=admin), 404, "NOT_FOUND"
    )


async def test_a_delivery_outlives_its_pruned_outbox_row(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    """Outbox rows are pruned after a while (retention); the delivery keeps its state and can be retried."""
    endpoint = await register(app, client, receiver.url("/ok"))
    queued = await send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(delete(OutboxItem))
    [listed] = await deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "delivered"
    admin = auth_headers(app, await create_admin(app))
    path = f"/api/admin/webhooks/{endpoint['id']}/deliveries/{queued['id']}/retry"
    assert (await client.post(path, headers=admin)).json()["status"] == "pending"
    await webhook_worker(app).run_until_idle()
    arrivals = receiver.at("/ok")
    assert [item.headers["webhook-id"] for item in arrivals] == [queued["messageId"]] * 2
    [listed] = await deliveries_of(app, client, endpoint["id"])
    assert listed["status"] == "delivered" and listed["attempts"] == 2
