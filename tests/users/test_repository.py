"""Users in the database (app.users.repository): roles kept normalized, one account per email whatever its
case, the list's filter and pages, the admins, and what goes with an account when it is deleted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.errors import Conflict
from app.models import Claim, Event
from app.realtime.publishing import messages_topic
from app.users.repository import LIST_COLUMNS, UserFilter, UserRepository, normalize_roles
from tests.factories.claims import create_claim, create_message
from tests.factories.products import create_product, create_receipt
from tests.factories.realtime import publish_event
from tests.factories.users import create_admin, create_supplier, create_user

T0 = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)


def _attachment(key: str) -> dict[str, object]:
    return {
        "attachment_name": "a.png",
        "attachment_mime": "image/png",
        "attachment_size": 10,
        "attachment_key": key,
    }


def test_every_account_holds_role_user_and_the_others_once_in_a_stable_order() -> None:
    assert normalize_roles(None) == normalize_roles([]) == ["ROLE_USER"]
    assert normalize_roles(["ROLE_SUPPLIER", "ROLE_USER", "ROLE_ADMIN", "ROLE_SUPPLIER"]) == [
        "ROLE_USER",
        "ROLE_ADMIN",
        "ROLE_SUPPLIER",
    ]
    with pytest.raises(ValueError):
        normalize_roles(["ROLE_ROOT"])


async def test_an_email_has_one_account_whatever_its_case(app: FastAPI) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        users = UserRepository(session)
        ann = await users.add(email="Ann@Example.com", name="Ann", password_hash="x")
        bob = await users.add(email="bob@example.com", name="Bob", password_hash="x", roles=["ROLE_SUPPLIER"])
        assert (ann.email, ann.roles) == ("ann@example.com", ["ROLE_USER"])
        assert bob.roles == ["ROLE_USER", "ROLE_SUPPLIER"]
        assert await users.get_by_email(" ANN@example.com ") is ann
        assert await users.get(bob.id) is bob

        with pytest.raises(Conflict) as refused:
            await users.add(email="ann@EXAMPLE.com", name="Other", password_hash="x")
        assert refused.value.code == "EMAIL_TAKEN"
        with pytest.raises(Conflict) as refused:
            await users.update(bob, {"email": "ANN@example.com"})
        assert refused.value.code == "EMAIL_TAKEN"

        await users.update(ann, {"email": "ANN@example.COM", "roles": ["ROLE_SUPPLIER"]})  # her own
        assert (ann.email, ann.roles) == ("ann@example.com", ["ROLE_USER", "ROLE_SUPPLIER"])
        assert bob.email == "bob@example.com"


async def test_a_page_of_the_list_is_filtered_newest_first_and_counted(app: FastAPI) -> None:
    with frozen_time(T0):
        ann = await create_user(app, name="Ann Lee", email="ann.lee@example.com")
    with frozen_time(T0 + timedelta(minutes=1)):
        bob = await create_supplier(app, name="Bob 100%", email="b_o_b@example.com")
    with frozen_time(T0 + timedelta(minutes=2)):
        cy = await create_admin(app, name="Cy", email="cy@example.com")

    async def page(where: UserFilter, **kwargs: object) -> tuple[list[int], int]:
        async with app.state.sessionmaker() as session:
            rows, total = await UserRepository(session).list_page(
                where, **{"offset": 0, "limit": 10, **kwargs}
            )
        assert all(set(row) == {column.key for column in LIST_COLUMNS} for row in rows)
        return [row["id"] for row in rows], total

    assert await page(UserFilter(), limit=2) == ([cy.id, bob.id], 3)
    assert await page(UserFilter(), offset=2, limit=2) == ([ann.id], 3)
    assert await page(UserFilter(), after=(bob.created_at, bob.id)) == ([ann.id], 3)
    assert await page(UserFilter(search="LEE")) == ([ann.id], 1)
    assert await page(UserFilter(search="%")) == ([bob.id], 1)  # a literal percent sign, not a wildcard
    assert await page(UserFilter(search="_")) == ([bob.id], 1)
    assert await page(UserFilter(role="ROLE_SUPPLIER")) == ([bob.id], 1)
    assert await page(UserFilter(role="ROLE_USER")) == ([cy.id, bob.id, ann.id], 3)
    assert await page(UserFilter(search="example", role="ROLE_ADMIN")) == ([cy.id], 1)

    async with app.state.sessionmaker() as session, session.begin():
        assert await UserRepository(session).admin_ids_locked() == [cy.id]


async def test_an_accounts_files_and_claims_and_what_its_deletion_takes(app: FastAPI) -> None:
    owner, supplier, other = await create_user(app), await create_supplier(app), await create_user(app)
    own_product = await create_product(app, owner)
    receipt = await create_receipt(app, own_product)
    own_claim = await create_claim(app, own_product, supplier=supplier)
    attached = await create_message(app, own_claim, supplier, **_attachment("attachments/a.png"))
    await create_message(app, own_claim, owner)  # no attachment
    supplied = await create_claim(app, await create_product(app, other), supplier=owner)
    await create_message(app, supplied, other, **_attachment("attachments/theirs.png"))
    for claim in (own_claim, supplied):
        await publish_event(app, messages_topic(claim.id), {"type": "any"})

    async with app.state.sessionmaker() as session, session.begin():
        users = UserRepository(session)
        assert sorted(await users.owned_file_keys(owner.id)) == sorted(
            [receipt.storage_key, attached.attachment_key]
        )
        assert await users.supplied_claims(owner.id) == [supplied.id]
        assert await users.supplied_claims(supplier.id) == [own_claim.id]
        await users.delete(await users.get(owner.id))  # type: ignore[arg-type]

    async with app.state.sessionmaker() as session:
        assert list(await session.scalars(select(Claim.id))) == [supplied.id]
        assert list(await session.scalars(select(Event.topic))) == [messages_topic(supplied.id)]
