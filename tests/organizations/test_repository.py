"""The organisations' statements: a brand or membership the keys refuse changes nothing and leaves the
transaction usable, and the reads answer every organisation asked about, those without brands or members
too."""

from __future__ import annotations

from fastapi import FastAPI

from app.core.clock import utc_now
from app.models.enums import OrganizationRole
from app.organizations.repository import MemberRepository, OrganizationRepository
from tests.factories.organizations import add_org_member, create_organization
from tests.factories.users import create_supplier


async def test_a_brand_the_key_refuses_changes_none_of_the_brands(app: FastAPI) -> None:
    await create_organization(app, "First", ["Gaggia"])
    second = await create_organization(app, "Second", ["Krups", "Saeco"])
    held = {"krups": "Krups", "saeco": "Saeco"}

    async with app.state.sessionmaker() as session, session.begin():
        organizations = OrganizationRepository(session)
        refused = await organizations.set_brands(second.id, held, {"saeco": "SAECO", "gaggia": "Gaggia"})
        after = await organizations.brands_of([second.id])  # the transaction goes on

    assert refused is False
    assert after == {second.id: held}


async def test_brands_are_added_renamed_and_released(app: FastAPI) -> None:
    organization = await create_organization(app, "First", ["Krups", "Saeco"])

    async with app.state.sessionmaker() as session, session.begin():
        organizations = OrganizationRepository(session)
        held = (await organizations.brands_of([organization.id]))[organization.id]
        kept = await organizations.set_brands(organization.id, held, {"saeco": "SAECO", "gaggia": "Gaggia"})
        after = await organizations.brands_of([organization.id])

    assert kept is True
    assert after == {organization.id: {"gaggia": "Gaggia", "saeco": "SAECO"}}


async def test_reads_answer_every_organization_asked_about(app: FastAPI) -> None:
    empty = await create_organization(app, "Empty")
    busy = await create_organization(app, "Busy", ["B", "a"])
    await add_org_member(app, busy, await create_supplier(app))

    async with app.state.sessionmaker() as session:
        organizations = OrganizationRepository(session)
        brands = await organizations.brands_of([empty.id, busy.id])
        counts = await organizations.member_counts([empty.id, busy.id])

    assert brands == {empty.id: {}, busy.id: {"a": "a", "b": "B"}}
    assert counts == {empty.id: 0, busy.id: 1}


async def test_a_second_membership_is_refused_and_the_first_stays(app: FastAPI) -> None:
    first, second = await create_organization(app, "First"), await create_organization(app, "Second")
    sam = await create_supplier(app)
    await add_org_member(app, first, sam, OrganizationRole.MANAGER)

    async with app.state.sessionmaker() as session, session.begin():
        members = MemberRepository(session)
        added = await members.add(second.id, sam.id, OrganizationRole.AGENT, utc_now())
        kept = await members.get(first.id, sam.id)

    assert added is False
    assert kept is not None and kept.role == OrganizationRole.MANAGER
