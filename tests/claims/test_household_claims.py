"""Household claims (contract 17.3, 17.4): the members of the household a product is shared with see its
claims; owners and members write in them as their customer side, viewers read; notifications reach every
customer-side participant who has not muted the claim; losing access ends open hub streams at once."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx
from fastapi import FastAPI
from sqlalchemy import delete, update

from app.changes.dispatch import record
from app.changes.events import HouseholdAccessChanged
from app.models import HouseholdMember, Product, User
from app.models.enums import HouseholdRole
from tests.factories.claims import create_claim, create_message
from tests.factories.households import HouseholdCast, add_member, household_cast
from tests.factories.notifications import outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_supplier, create_user


@dataclass
class Shared:
    people: HouseholdCast
    supplier: User
    outsider: User
    product: Product
    claim_id: int


async def _shared_claim(app: FastAPI, status: str = "in_progress") -> Shared:
    """The owner's product, shared with their household, and its claim, filed by the owner."""
    people = await household_cast(app)
    supplier = await create_supplier(app, name="Sam Supplier")
    product = await create_product(app, people.owner)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(Product).where(Product.id == product.id).values(household_id=people.household.id)
        )
    claim = await create_claim(app, product, supplier=supplier, status=status)
    return Shared(people, supplier, await create_user(app, name="Otto Outsider"), product, claim.id)


async def _post(
    client: httpx.AsyncClient, app: FastAPI, user: User, claim_id: int, text: str
) -> httpx.Response:
    return await client.post(
        f"/api/claims/{claim_id}/messages", json={"message": text}, headers=auth_headers(app, user)
    )


async def test_every_member_sees_a_shared_claim_and_nobody_else_does(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    shared = await _shared_claim(app)
    await create_message(app, await _claim(app, shared), shared.supplier, "We are on it.")
    for user in (shared.people.owner, shared.people.member, shared.people.viewer):
        headers = auth_headers(app, user)
        detail = await client.get(f"/api/claims/{shared.claim_id}", headers=headers)
        assert detail.status_code == 200, detail.text
        listed = await client.get("/api/claims", headers=headers)
        assert [item["id"] for item in listed.json()] == [shared.claim_id]
        messages = await client.get(f"/api/claims/{shared.claim_id}/messages", headers=headers)
        assert [message["message"] for message in messages.json()] == ["We are on it."]
        timeline = await client.get(f"/api/claims/{shared.claim_id}/timeline", headers=headers)
        assert timeline.status_code == 200

    outsider = auth_headers(app, shared.outsider)
    assert (await client.get(f"/api/claims/{shared.claim_id}", headers=outsider)).status_code == 404
    assert (await client.get("/api/claims", headers=outsider)).json() == []


async def _claim(app: FastAPI, shared: Shared):  # type: ignore[no-untyped-def]
    from app.models import Claim

    async with app.state.sessionmaker() as session:
        return await session.get_one(Claim, shared.claim_id)


async def test_members_write_as_the_customer_side_and_viewers_only_read(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    shared = await _shared_claim(app, status="resolved")

    viewer_post = await _post(client, app, shared.people.viewer, shared.claim_id, "Me too")
    assert viewer_post.status_code == 403
    reopen = {"status": "in_progress"}
    viewer_move = await client.post(
        f"/api/claims/{shared.claim_id}/status", json=reopen, headers=auth_headers(app, shared.people.viewer)
    )
    assert viewer_move.status_code == 403

    assert (
        await _post(client, app, shared.people.member, shared.claim_id, "Still broken")
    ).status_code == 201
    closed = await client.post(
        f"/api/claims/{shared.claim_id}/close", headers=auth_headers(app, shared.people.member)
    )
    assert closed.status_code == 200, closed.text
    assert closed.json()["status"] == "closed"
    assert closed.json()["customerId"] == shared.people.owner.id  # the filer stays its customer
    timeline = await client.get(
        f"/api/claims/{shared.claim_id}/timeline", headers=auth_headers(app, shared.people.owner)
    )
    by_member = [entry for entry in timeline.json() if entry["actor"]["id"] == shared.people.member.id]
    assert {entry["actor"]["role"] for entry in by_member} == {"customer"}


async def test_a_message_notifies_every_customer_side_participant_who_has_not_muted_the_claim(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    shared = await _shared_claim(app)
    people = shared.people

    assert (await _post(client, app, shared.supplier, shared.claim_id, "First")).status_code == 201
    first = {row.payload["recipientId"] for row in await outbox_rows(app, "email.claim_message")}
    assert first == {people.owner.id, people.member.id}  # the viewer hears nothing by default

    viewer, member = auth_headers(app, people.viewer), auth_headers(app, people.member)
    unmuted = await client.post(f"/api/claims/{shared.claim_id}/unmute", headers=viewer)
    assert unmuted.status_code == 200 and unmuted.json() == {"claimId": shared.claim_id, "muted": False}
    muted = await client.post(f"/api/claims/{shared.claim_id}/mute", headers=member)
    assert muted.json() == {"claimId": shared.claim_id, "muted": True}

    assert (await _post(client, app, people.owner, shared.claim_id, "Second")).status_code == 201
    rows = await outbox_rows(app, "email.claim_message")
    second = {row.payload["recipientId"] for row in rows} - first
    latest = [row for row in rows if row.payload["messageId"] == max(r.payload["messageId"] for r in rows)]
    assert {row.payload["recipientId"] for row in latest} == {shared.supplier.id, people.viewer.id}
    assert second <= {shared.supplier.id, people.viewer.id}


async def test_an_outsider_cannot_mute_a_claim_they_cannot_see(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    shared = await _shared_claim(app)
    answer = await client.post(
        f"/api/claims/{shared.claim_id}/mute", headers=auth_headers(app, shared.outsider)
    )
    assert answer.status_code == 404


async def test_claim_lists_run_the_same_statements_whatever_the_memberships(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    from tests.helpers import count_queries

    shared = await _shared_claim(app)
    member = shared.people.member
    for _ in range(5):  # more households, each sharing a product with a claim
        other = await household_cast(app)
        await add_member(app, other.household, member)
        product = await create_product(app, other.owner)
        async with app.state.sessionmaker() as session, session.begin():
            await session.execute(
                update(Product).where(Product.id == product.id).values(household_id=other.household.id)
            )
        await create_claim(app, product)
    lone = await create_user(app)
    await create_claim(app, await create_product(app, lone))

    counts = []
    for user, expected in ((lone, 1), (member, 6)):
        with count_queries(app) as statements:
            answer = await client.get("/api/claims?limit=50", headers=auth_headers(app, user))
        assert answer.status_code == 200 and answer.json()["meta"]["total"] == expected
        counts.append(len(statements))
    assert counts[0] == counts[1]


async def test_leaving_the_household_ends_its_open_streams_at_once(app: FastAPI) -> None:
    shared = await _shared_claim(app)
    member = shared.people.member
    hub = app.state.hub
    stream = hub.subscribe(member.id, [f"claims/{shared.claim_id}/messages"])
    owners_stream = hub.subscribe(shared.people.owner.id, [f"claims/{shared.claim_id}/messages"])
    try:
        async with app.state.sessionmaker() as session, session.begin():
            await session.execute(
                delete(HouseholdMember).where(
                    HouseholdMember.household_id == shared.people.household.id,
                    HouseholdMember.user_id == member.id,
                )
            )
            await record(session, HouseholdAccessChanged(shared.people.household.id, (member.id,)))

        async with asyncio.timeout(5):  # far less than the periodic sweep's 30 seconds
            while not stream.closed:  # noqa: ASYNC110 (the hub wakes the stream's own reader, not a test's)
                await asyncio.sleep(0.01)
        assert stream.reason == "access"
        assert not owners_stream.closed
    finally:
        hub.unsubscribe(owners_stream)


async def test_a_viewer_promoted_to_member_may_write(app: FastAPI, client: httpx.AsyncClient) -> None:
    shared = await _shared_claim(app)
    viewer = shared.people.viewer
    assert (await _post(client, app, viewer, shared.claim_id, "Hi")).status_code == 403
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(HouseholdMember)
            .where(HouseholdMember.user_id == viewer.id)
            .values(role=HouseholdRole.MEMBER)
        )
    assert (await _post(client, app, viewer, shared.claim_id, "Hi")).status_code == 201


async def test_a_member_who_leaves_over_http_no_longer_sees_the_shared_claim(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    shared = await _shared_claim(app)
    member = shared.people.member
    headers = auth_headers(app, member)
    assert [item["id"] for item in (await client.get("/api/claims", headers=headers)).json()] == [
        shared.claim_id
    ]  # the list is now in the page cache
    stream = app.state.hub.subscribe(member.id, [f"claims/{shared.claim_id}/status"])

    left = await client.delete(
        f"/api/households/{shared.people.household.id}/members/{member.id}", headers=headers
    )
    assert left.status_code == 204, left.text

    assert (await client.get("/api/claims", headers=headers)).json() == []
    assert (await client.get(f"/api/claims/{shared.claim_id}", headers=headers)).status_code == 404
    async with asyncio.timeout(5):
        while not stream.closed:  # noqa: ASYNC110 (the hub wakes the stream's own reader, not a test's)
            await asyncio.sleep(0.01)


async def test_unsharing_the_product_ends_the_members_view_of_its_claim_at_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    shared = await _shared_claim(app)
    member = auth_headers(app, shared.people.member)
    assert len((await client.get("/api/claims", headers=member)).json()) == 1  # cached now
    stream = app.state.hub.subscribe(shared.people.member.id, [f"claims/{shared.claim_id}/messages"])

    unshared = await client.patch(
        f"/api/products/{shared.product.id}",
        json={"householdId": None},
        headers=auth_headers(app, shared.people.owner),
    )
    assert unshared.status_code == 200, unshared.text

    assert (await client.get("/api/claims", headers=member)).json() == []
    async with asyncio.timeout(5):
        while not stream.closed:  # noqa: ASYNC110 (the hub wakes the stream's own reader, not a test's)
            await asyncio.sleep(0.01)
