"""A notification names the request that caused it (contract 14.2): the outbox row keeps the request id,
the worker's log lines carry it, and the push gateway receives it as X-Request-ID."""

from __future__ import annotations

import logging

import httpx
import pytest
from fastapi import FastAPI

from app.observability.logs import RequestContextFilter
from app.outbox.worker import OutboxWorker
from tests.factories.claims import create_claim
from tests.factories.notifications import outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_supplier, create_user
from tests.support.gorush import Gorush


async def test_a_message_s_notifications_carry_its_request_id_to_the_gateway_and_the_logs(
    app: FastAPI,
    client: httpx.AsyncClient,
    gorush: Gorush,
    push_worker: OutboxWorker,
    caplog: pytest.LogCaptureFixture,
) -> None:
    customer, supplier = await create_user(app), await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    device = {"token": "ios-1", "platform": "ios"}
    assert (
        await client.post("/api/device-tokens", json=device, headers=auth_headers(app, customer))
    ).is_success

    posted = await client.post(
        f"/api/claims/{claim.id}/messages",
        json={"message": "The part is on its way"},
        headers={**auth_headers(app, supplier), "X-Request-ID": "req-part-shipped"},
    )
    assert posted.status_code == 201
    rows = await outbox_rows(app)
    assert {row.kind for row in rows} >= {"push.claim_message", "email.claim_message"}
    assert {row.request_id for row in rows} == {"req-part-shipped"}

    caplog.handler.addFilter(RequestContextFilter())
    with caplog.at_level(logging.WARNING, logger="app.outbox.worker"):
        await push_worker.run_until_idle()  # no mail server runs: the email fails and is logged

    [push] = [request for request in gorush.requests if request["path"] == "/api/push"]
    assert push["request_id"] == "req-part-shipped"
    [failed] = [record for record in caplog.records if "email.claim_message" in record.getMessage()]
    assert failed.request_id == "req-part-shipped"  # type: ignore[attr-defined]


async def test_a_notification_no_request_caused_has_no_request_id(app: FastAPI) -> None:
    from app.outbox.enqueue import enqueue

    async with app.state.sessionmaker() as session, session.begin():
        enqueue(session, "email.expiry_alert", {"productId": 1, "days": 7})
    [row] = await outbox_rows(app)
    assert row.request_id is None
