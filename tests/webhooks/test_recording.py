"""Recording outbound webhooks (app/webhooks/recording.py): in the change's own transaction, one delivery per
endpoint subscribed to the event type, each with its own webhook-id and outbox row, all of one event
signing the same serialized body; nothing, and no query, when there is nothing to send."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.models import OutboxItem, WebhookEndpoint
from app.webhooks.recording import body, record
from app.webhooks.signing import new_secret
from tests.factories.claims import claim_cast, create_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers
from tests.factories.webhooks import deliveries, register, webhook_worker
from tests.helpers import assert_error, count_queries
from tests.webhooks.receiver import Receiver
from tests.webhooks.support import events_at

pytestmark = pytest.mark.settings(webhook_allow_private=True)
AT = datetime(2026, 5, 1, 12, 30, 15, 999, tzinfo=UTC)


def test_the_body_is_the_envelope_serialized_once_compactly() -> None:
    text = body("claim.created", {"claim": {"id": 7, "description": "Café à Zürich"}}, AT)

    assert text == (
        '{"type":"claim.created","timestamp":"2026-05-01T12:30:15Z",'
        '"data":{"claim":{"id":7,"description":"Café à Zürich"}}}'
    )
    assert json.loads(text)["data"]["claim"]["description"] == "Café à Zürich"


async def _endpoints(app: FastAPI, *events: list[str]) -> list[int]:
    async with app.state.sessionmaker() as session, session.begin():
        rows = [
            WebhookEndpoint(url="https://203.0.114.7/h", events=chosen, secret=new_secret())
            for chosen in events
        ]
        session.add_all(rows)
    return [row.id for row in rows]


async def test_each_subscribed_endpoint_gets_one_delivery_of_each_event(app: FastAPI) -> None:
    both, statuses, other = await _endpoints(
        app, ["claim.created", "claim.status_changed"], ["claim.status_changed"], ["message.created"]
    )

    with frozen_time(AT):
        async with app.state.sessionmaker() as session, session.begin():
            await record(session, "claim.status_changed", {"n": 1}, {"n": 2})

    made = await deliveries(app)
    assert sorted((row.endpoint_id, json.loads(row.body)["data"]["n"]) for row in made) == [
        (both, 1), (both, 2), (statuses, 1), (statuses, 2)
    ]  # fmt: skip
    assert other not in {row.endpoint_id for row in made}
    assert {row.body for row in made} == {
        body("claim.status_changed", {"n": 1}, AT),
        body("claim.status_changed", {"n": 2}, AT),
    }
    assert len({row.message_id for row in made}) == 4 and all(
        row.message_id.startswith("msg_") for row in made
    )
    assert all(
        (row.event_type, row.attempts, row.delivered_at) == ("claim.status_changed", 0, None) for row in made
    )
    async with app.state.sessionmaker() as session:
        items = {item.id: item for item in await session.scalars(select(OutboxItem))}
    assert sorted(items) == sorted(row.outbox_id for row in made)
    for row in made:
        assert (items[row.outbox_id].kind, items[row.outbox_id].payload) == (
            "webhook.deliver",
            {"messageId": row.message_id},
        )


async def test_without_data_nothing_is_read_and_without_subscribers_nothing_is_written(app: FastAPI) -> None:
    await _endpoints(app, ["message.created"])

    async with app.state.sessionmaker() as session, session.begin():
        with count_queries(app) as nothing:
            await record(session, "message.created")
        with count_queries(app) as one:
            await record(session, "claim.created", {"claim": {"id": 1}})

    assert nothing == []
    assert len(one) == 1
    assert await deliveries(app) == []


async def test_a_change_that_rolls_back_leaves_no_delivery(app: FastAPI) -> None:
    await _endpoints(app, ["claim.created"])

    async with app.state.sessionmaker() as session:
        await record(session, "claim.created", {"claim": {"id": 1}})
        await session.rollback()

    assert await deliveries(app) == []
    async with app.state.sessionmaker() as session:
        assert list(await session.scalars(select(OutboxItem))) == []


async def test_an_endpoint_receives_only_the_events_it_chose(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    messages_only = await register(app, client, receiver.url("/messages"), events=["message.created"])
    statuses_only = await register(app, client, receiver.url("/statuses"), events=["claim.status_changed"])
    cast = await claim_cast(app)
    supplier = auth_headers(app, cast.supplier)
    await client.post(f"/api/claims/{cast.claim.id}/messages", json={"message": "Hello"}, headers=supplier)
    await client.post(f"/api/claims/{cast.claim.id}/status", json={"status": "in_progress"}, headers=supplier)

    messages = await events_at(app, receiver, "/messages", messages_only["secret"])
    statuses = await events_at(app, receiver, "/statuses", statuses_only["secret"])
    assert [event["type"] for event in messages] == ["message.created"]
    assert [event["type"] for event in statuses] == ["claim.status_changed"]
    # Each endpoint's delivery has its own webhook-id.
    assert (
        receiver.at("/messages")[0].headers["webhook-id"] != receiver.at("/statuses")[0].headers["webhook-id"]
    )


async def test_a_change_that_is_refused_sends_nothing(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    await register(app, client, receiver.url("/all"))
    cast = await claim_cast(app)
    customer = auth_headers(app, cast.customer)
    again = await client.post(
        "/api/claims", json={"productId": cast.product.id, "description": "Again"}, headers=customer
    )
    assert_error(again, 409, "CLAIM_ALREADY_ACTIVE")
    closed = await create_claim(app, await create_product(app, cast.customer), status="closed")
    refused = await client.post(f"/api/claims/{closed.id}/messages", json={"message": "Hi"}, headers=customer)
    assert_error(refused, 409, "CLAIM_CLOSED")
    wrong = await client.post(
        f"/api/claims/{cast.claim.id}/status", json={"status": "closed"}, headers=customer
    )
    assert_error(wrong, 409, "INVALID_STATUS_TRANSITION")
    assert await deliveries(app) == []
    await webhook_worker(app).run_until_idle()
    assert receiver.received == []
