"""Every member of a claim's organisation sees it as its supplier side (contract 17.7): detail, messages,
attachments, timeline and hub topics, and they write in it; members of other organisations get the 404 of
anyone who cannot see it. Their own claim list stays what they take part in; streams end when a claim is
handed on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import delete, update

from app.changes.dispatch import record
from app.changes.events import OrganizationAccessEnded, OrganizationRenamed
from app.config import Settings
from app.core.security import create_access_token
from app.models import Claim, Organization, OrganizationMember, User
from app.realtime.hub import Hub
from app.realtime.publishing import messages_topic, status_topic
from app.realtime.sweep import sweep_access
from tests.access.test_claims import ENDPOINTS
from tests.claims.routed import Routed, open_claim, routed_claim
from tests.conftest import _empty_all_tables
from tests.factories.claims import create_message
from tests.factories.products import create_product
from tests.factories.users import auth_headers
from tests.helpers import assert_error, count_queries
from tests.realtime.support import HUB, LiveServer, live_server, subscribe
from tests.support.pdf import PDF_BYTES

SEEN = ("detail", "messages", "messages, paged", "messages, other path", "one message", "attachment")


async def _with_attachment(app: FastAPI, cast: Routed) -> int:
    async with app.state.sessionmaker() as session:
        claim = await session.get_one(Claim, cast.claim_id)
    message = await create_message(
        app,
        claim,
        cast.customer,
        attachment_name="bill.pdf",
        attachment_mime="application/pdf",
        attachment_size=len(PDF_BYTES),
        attachment_key=await app.state.storage.save("attachments", PDF_BYTES, "pdf"),
    )
    return message.id


@pytest.mark.parametrize("who", ["manager", "agent", "other_agent"])
async def test_every_member_of_the_organization_sees_the_claim(
    app: FastAPI, client: httpx.AsyncClient, who: str
) -> None:
    cast = await routed_claim(app, client)
    message_id = await _with_attachment(app, cast)
    headers = auth_headers(app, getattr(cast, who))
    for endpoint in SEEN:
        method, path, body = ENDPOINTS[endpoint](cast.claim_id, message_id)
        response = await client.request(method, path, json=body, headers=headers)
        assert response.status_code == 200, (endpoint, response.text)
    timeline = await client.get(f"{cast.path}/timeline", headers=headers)
    assert timeline.status_code == 200
    read = await client.post(f"{cast.path}/messages/read", headers=headers)
    assert read.status_code == 200 and read.json()["markedAsRead"] == 1


@pytest.mark.parametrize("endpoint", [*ENDPOINTS, "timeline"])
@pytest.mark.parametrize("who", ["rival_manager", "rival_agent"])
async def test_members_of_another_organization_get_404_everywhere(
    app: FastAPI, client: httpx.AsyncClient, endpoint: str, who: str
) -> None:
    cast = await routed_claim(app, client)
    message_id = await _with_attachment(app, cast)
    headers = auth_headers(app, getattr(cast, who))
    if endpoint == "timeline":
        method, path, body = "GET", f"{cast.path}/timeline", None
    else:
        method, path, body = ENDPOINTS[endpoint](cast.claim_id, message_id)
    response = await client.request(method, path, json=body, headers=headers)
    assert_error(response, 404, "NOT_FOUND")


async def test_a_members_claim_list_holds_only_the_claims_they_work(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    agent = auth_headers(app, cast.agent)
    assert (await client.get("/api/claims", headers=agent)).json() == []  # the organisation's: its queue

    taken = await client.put(f"{cast.path}/supplier", json={"supplierId": cast.agent.id}, headers=agent)
    assert taken.status_code == 200, taken.text

    listed = (await client.get("/api/claims", headers=agent)).json()
    assert [item["id"] for item in listed] == [cast.claim_id]
    assert listed[0]["organization"] == {"id": cast.organization.id, "name": "Acme Service"}
    assert (await client.get("/api/claims", headers=auth_headers(app, cast.other_agent))).json() == []


async def test_the_customers_list_costs_the_same_with_routed_claims(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)

    async def count() -> int:
        with count_queries(app) as statements:
            response = await client.get("/api/claims?limit=50", headers=auth_headers(app, cast.customer))
        assert response.status_code == 200
        return len(statements)

    one = await count()
    for number in range(30):
        brand = ("Acme", "Rival", "Gaggia")[number % 3]
        await open_claim(client, app, cast.customer, await create_product(app, cast.customer, brand=brand))
    assert await count() == one


def _token(app: FastAPI, user: User) -> str:
    return create_access_token(app.state.settings, user.id, list(user.roles))


@pytest.fixture
async def live(settings: Settings, database_url: str) -> AsyncIterator[LiveServer]:
    await _empty_all_tables(database_url)
    async with live_server(settings) as server:
        yield server


async def test_members_follow_the_claims_hub_topics(live: LiveServer) -> None:
    app = live.app
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as http:
        cast = await routed_claim(app, http)
        topics = (messages_topic(cast.claim_id), status_topic(cast.claim_id))
        rival = {"Authorization": f"Bearer {_token(app, cast.rival_agent)}"}
        refused = await http.get(HUB, params=[("topic", topic) for topic in topics], headers=rival)
        assert_error(refused, 403, "FORBIDDEN")

        async with subscribe(http, *topics, token=_token(app, cast.agent)) as stream:
            moved = await http.post(
                f"{cast.path}/status",
                json={"status": "in_progress"},
                headers=auth_headers(app, cast.other_agent),
            )
            assert moved.status_code == 200, moved.text
            [(_, data)] = await stream.events(1)

    assert json.loads(data) == {
        "type": "status_update",
        "claimId": cast.claim_id,
        "status": "in_progress",
        "updatedAt": moved.json()["updatedAt"].replace("+00:00", "Z"),
        "organizationId": cast.organization.id,
    }


async def test_a_claim_handed_on_leaves_the_streams_of_its_former_organization(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    hub = Hub(8, 10)
    topic = messages_topic(cast.claim_id)
    former = hub.subscribe(cast.agent.id, [topic])
    customer = hub.subscribe(cast.customer.id, [topic])
    with count_queries(app) as statements:
        assert await sweep_access(hub, app.state.sessionmaker) == 0
    assert len(statements) == 3  # the users with their organisations, the claims' parties, the households

    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(Claim).where(Claim.id == cast.claim_id).values(organization_id=cast.rival.id)
        )
    new = hub.subscribe(cast.rival_agent.id, [topic])

    assert await sweep_access(hub, app.state.sessionmaker) == 1
    assert former.closed and not customer.closed and not new.closed


async def test_leaving_the_organization_ends_its_open_streams_at_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    hub = app.state.hub
    leaving = hub.subscribe(cast.agent.id, [messages_topic(cast.claim_id)])
    staying = hub.subscribe(cast.other_agent.id, [messages_topic(cast.claim_id)])
    try:
        async with app.state.sessionmaker() as session, session.begin():
            await session.execute(
                delete(OrganizationMember).where(OrganizationMember.user_id == cast.agent.id)
            )
            await record(session, OrganizationAccessEnded(cast.organization.id, (cast.agent.id,)))

        async with asyncio.timeout(5):  # far less than the periodic sweep's 30 seconds
            while not leaving.closed:  # noqa: ASYNC110 (the hub wakes the stream's own reader, not a test's)
                await asyncio.sleep(0.01)
        assert leaving.reason == "access" and not staying.closed
    finally:
        hub.unsubscribe(staying)


async def test_a_renamed_organization_shows_its_new_name_in_cached_lists(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    customer = auth_headers(app, cast.customer)
    assert (await client.get("/api/claims", headers=customer)).json()[0]["organization"][
        "name"
    ] == "Acme Service"

    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(Organization).where(Organization.id == cast.organization.id).values(name="Acme Care")
        )
        await record(session, OrganizationRenamed(cast.organization.id))

    assert (await client.get("/api/claims", headers=customer)).json()[0]["organization"][
        "name"
    ] == "Acme Care"
