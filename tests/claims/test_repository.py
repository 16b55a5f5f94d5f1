"""Claim reads and writes (app/claims/repository.py): the lists in a fixed number of queries whatever their
length, totals kept or counted alike, the insert that the one-active-claim index may refuse, and the reads
of a product's claim and of a supplier with their organisation."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.access.claims import visible_claims
from app.claims.repository import ClaimFilter, ClaimRepository
from app.errors import Conflict, Forbidden
from app.models import Claim, User
from tests.claims.support import queries_of
from tests.factories.claims import create_claim, create_message
from tests.factories.households import household_cast
from tests.factories.organizations import add_org_member, create_organization
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import count_queries


async def _claims(app: FastAPI, customer: User, supplier: User, count: int) -> None:
    for _ in range(count):
        claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
        await create_message(app, claim, customer)


@pytest.mark.settings(cache_ttl=0)
@pytest.mark.parametrize(
    "path", ["/api/claims", "/api/claims?page=1&limit=50", "/api/admin/claims?limit=100"]
)
async def test_claim_lists_run_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    customer, supplier = await create_user(app), await create_supplier(app)
    admin = await create_user(app, roles=["ROLE_ADMIN"])
    viewer = admin if "admin" in path else customer
    await _claims(app, customer, supplier, 1)
    one = await queries_of(app, client, path, viewer)
    await _claims(app, customer, supplier, 59)
    sixty = await queries_of(app, client, path, viewer)
    assert one == sixty
    items = (await client.get(path, headers=auth_headers(app, viewer))).json()
    items = items["data"] if isinstance(items, dict) else items
    assert len(items) == (50 if "limit=50" in path else 60)
    assert {item["messageCount"] for item in items} == {1}


async def test_kept_totals_of_the_admin_list_agree_with_a_count(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """The admin list (`everyone`) reads its totals from kept counts; they are what a count says."""
    admin, ann, bob = await create_admin(app), await create_user(app), await create_user(app)
    for owner, made in [(ann, "open"), (ann, "closed"), (bob, "open"), (bob, "resolved"), (bob, "open")]:
        await create_claim(app, await create_product(app, owner), status=made)

    async with sessionmaker() as session:
        claims = ClaimRepository(session)
        for status in (None, "open", "in_progress", "resolved", "closed"):
            where = ClaimFilter(status=status)
            rows, kept = await claims.list_items(visible_claims(admin), where, limit=2, everyone=True)
            _, counted = await claims.list_items(visible_claims(admin), where, limit=2)
            expected = await session.scalar(select(func.count(Claim.id)).where(*where.conditions()))
            assert kept == counted == expected, status
            assert len(rows) == min(2, kept)


async def test_the_database_index_conflict_is_a_409_and_the_transaction_goes_on(app: FastAPI) -> None:
    """Two transactions insert an active claim for one product; the second waits for the first to commit,
    then its insert fails on the unique index: 409 CLAIM_ALREADY_ACTIVE, and its transaction is still
    usable (the savepoint rolled back only the insert)."""
    ann = await create_user(app)
    product = await create_product(app, ann)

    def new_claim() -> Claim:
        return Claim(product_id=product.id, customer_id=ann.id, status="open", description="x")

    async with app.state.sessionmaker() as first, app.state.sessionmaker() as second:
        await ClaimRepository(first).add(new_claim())
        losing = asyncio.create_task(ClaimRepository(second).add(new_claim()))
        await first.commit()
        with pytest.raises(Conflict) as raised:
            await losing
        assert raised.value.code == "CLAIM_ALREADY_ACTIVE"
        assert await second.scalar(select(func.count(Claim.id))) == 1
        await second.rollback()


async def test_own_products_and_active_claims(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    ann, bob, admin = await create_user(app), await create_user(app), await create_admin(app)
    with_open, with_closed, without = [await create_product(app, ann) for _ in range(3)]
    await create_claim(app, with_open, status="in_progress")
    await create_claim(app, with_closed, status="closed")
    cast = await household_cast(app)
    shared = await create_product(app, cast.owner, household_id=cast.household.id)

    async with sessionmaker() as session:
        claims = ClaimRepository(session)
        assert [await claims.has_active_claim(p.id) for p in (with_open, with_closed, without)] == [
            True,
            False,
            False,
        ]
        own = await claims.own_product(ann, with_open.id)
        assert own is not None and own.id == with_open.id
        assert await claims.own_product(bob, with_open.id) is None
        assert await claims.own_product(admin, with_open.id) is None  # admins claim as anyone
        # A household member writes to a product shared with them; a viewer sees it but may not (403).
        written = await claims.own_product(cast.member, shared.id)
        assert written is not None and written.id == shared.id
        with pytest.raises(Forbidden):
            await claims.own_product(cast.viewer, shared.id)


async def test_a_supplier_candidate_is_read_with_their_organisation_in_one_query(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    free, member = await create_user(app), await create_supplier(app)
    organization = await create_organization(app, "Gaggia Service", ["Gaggia"])
    await add_org_member(app, organization, member)

    async with sessionmaker() as session:
        claims = ClaimRepository(session)
        with count_queries(app) as asked:
            found = [await claims.supplier_candidate(i) for i in (member.id, 999_999, free.id)]

    shown = [None if row is None else (row[0].id, row[1]) for row in found]
    assert shown == [(member.id, organization.id), None, (free.id, None)]
    assert len(asked) == 3  # one read each, the organisation joined in
