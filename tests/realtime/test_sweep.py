"""The access sweep (app.realtime.sweep): every open stream re-checked together, in a fixed number of
queries; a stream ends when its token no longer holds (12.2) and stops receiving a claim its user lost."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.models import Claim
from app.realtime.hub import Hub
from app.realtime.publishing import messages_topic
from app.realtime.sweep import sweep_access
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import DEFAULT_PASSWORD, create_supplier, create_user
from tests.helpers import count_queries
from tests.realtime.support import LiveServer, scene, subscribe, token_for


async def test_a_sweep_runs_the_same_queries_for_one_stream_and_for_many(app: FastAPI) -> None:
    customer = await create_user(app)
    claims = [await create_claim(app, await create_product(app, customer)) for _ in range(3)]
    few, many = Hub(8, 1000), Hub(8, 1000)
    few.subscribe(customer.id, [f"claims/{claims[0].id}/messages"])
    for index in range(300):
        many.subscribe(customer.id, [f"claims/{claims[index % 3].id}/messages"])

    with count_queries(app) as one:
        await sweep_access(few, app.state.sessionmaker)
    with count_queries(app) as three_hundred:
        await sweep_access(many, app.state.sessionmaker)

    assert len(one) == len(three_hundred) == 3  # the users, the claims' parties, the users' households
    assert many.subscriber_count == 300  # nobody lost access


async def test_a_sweep_revokes_only_the_claims_a_user_lost(app: FastAPI) -> None:
    customer = await create_user(app)
    supplier = await create_supplier(app)
    kept = await create_claim(app, await create_product(app, customer), supplier=supplier)
    lost = await create_claim(app, await create_product(app, customer), supplier=supplier)
    hub = Hub(8, 10)
    both = hub.subscribe(supplier.id, [f"claims/{kept.id}/messages", f"claims/{lost.id}/status"])
    only_lost = hub.subscribe(supplier.id, [f"claims/{lost.id}/messages"])
    owner = hub.subscribe(customer.id, [f"claims/{lost.id}/messages"])
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Claim).where(Claim.id == lost.id).values(supplier_id=None))

    assert await sweep_access(hub, app.state.sessionmaker) == 2

    assert both.topics == (f"claims/{kept.id}/messages",) and not both.closed
    assert only_lost.closed
    assert not owner.closed and hub.subscriber_count == 2


@pytest.mark.settings(sse_reauthorize_interval=0.2)
async def test_a_supplier_who_is_unassigned_stops_receiving(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=token_for(live.app, s.supplier)) as stream:
        async with live.app.state.sessionmaker() as session, session.begin():
            await session.execute(update(Claim).where(Claim.id == s.claim.id).values(supplier_id=None))
        await stream.end(within=10)


@pytest.mark.settings(sse_reauthorize_interval=0.2)
async def test_a_password_change_ends_the_streams_of_older_tokens(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    login = await http.post("/api/login", json={"email": s.customer.email, "password": DEFAULT_PASSWORD})
    token = login.json()["token"]

    async with subscribe(http, messages_topic(s.claim.id), token=token) as stream:
        changed = await http.post(
            "/api/me/password",
            json={"currentPassword": DEFAULT_PASSWORD, "newPassword": "brand new secret"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert changed.status_code == 204
        await stream.end(within=10)

    again = await http.get(
        "/.well-known/mercure",
        params={"topic": messages_topic(s.claim.id)},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert again.status_code == 401 and again.json()["code"] == "AUTH_TOKEN_INVALID"
