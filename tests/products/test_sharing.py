"""Shared products (contract 17.3): the members and viewers of a household see the products shared with it,
their receipts and files; owners and members write, viewers get 403 on every write; only the product's
owner (or an admin) deletes it or changes its `householdId`; members file claims on it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, Product, Receipt
from app.models.enums import HouseholdRole
from tests.factories.households import HouseholdCast, add_member, create_household, household_cast
from tests.factories.products import create_product, create_receipt
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error
from tests.support.pdf import PDF_BYTES

NEW = {
    "name": "Toaster",
    "brand": "Smeg",
    "category": "Kitchen",
    "purchaseDate": "2025-05-05",
    "warrantyPeriodMonths": 12,
}
# Every write a household member may see, with a body that would succeed.
WRITES: list[tuple[str, str, dict[str, Any]]] = [
    ("PUT", "/api/products/{p}", {"json": {"name": "Renamed"}}),
    ("PATCH", "/api/products/{p}", {"json": {"name": "Renamed"}}),
    ("POST", "/api/products/{p}/receipts", {"files": {"file": ("r.pdf", PDF_BYTES, "application/pdf")}}),
    ("DELETE", "/api/products/{p}/receipts/{r}", {}),
    ("POST", "/api/products/{p}/warranty/void", {"json": {"reason": "Opened by a third party."}}),
    ("POST", "/api/products/{p}/warranty/unvoid", {}),
]


async def _shared(app: FastAPI) -> tuple[HouseholdCast, Product, Receipt]:
    cast = await household_cast(app)
    product = await create_product(app, cast.owner, name="Fridge", household_id=cast.household.id)
    return cast, product, await create_receipt(app, product)


async def _stored(app: FastAPI, product_id: int) -> Product | None:
    async with app.state.sessionmaker() as session:
        return await session.get(Product, product_id)


@pytest.mark.parametrize("role", ["member", "viewer"])
async def test_members_and_viewers_see_the_product_its_owner_its_receipts_and_their_files(
    app: FastAPI, client: httpx.AsyncClient, role: str
) -> None:
    cast, product, receipt = await _shared(app)
    headers = auth_headers(app, getattr(cast, role))

    detail = await client.get(f"/api/products/{product.id}", headers=headers)
    receipts = await client.get(f"/api/products/{product.id}/receipts", headers=headers)
    file = await client.get(f"/api/products/{product.id}/receipts/{receipt.id}/file", headers=headers)

    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert (body["name"], body["householdId"]) == ("Fridge", cast.household.id)
    assert body["owner"] == {"id": cast.owner.id, "name": "Olga Owner"}
    assert [item["id"] for item in body["receipts"]] == [receipt.id]
    assert [item["id"] for item in receipts.json()] == [receipt.id]
    assert (file.status_code, file.content) == (200, PDF_BYTES)


async def test_a_product_shared_with_another_household_stays_404(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast, product, receipt = await _shared(app)
    outsider = await create_user(app)
    await add_member(app, await create_household(app, cast.owner), outsider)  # the owner's other household
    headers = auth_headers(app, outsider)

    for path in (
        f"/api/products/{product.id}",
        f"/api/products/{product.id}/receipts",
        f"/api/products/{product.id}/receipts/{receipt.id}/file",
    ):
        assert_error(await client.get(path, headers=headers), 404, "NOT_FOUND")
    assert (await client.get("/api/products", headers=headers)).json() == []


@pytest.mark.parametrize(("method", "template", "kwargs"), WRITES)
async def test_a_viewer_gets_403_on_every_write_and_nothing_changes(
    app: FastAPI, client: httpx.AsyncClient, method: str, template: str, kwargs: dict[str, Any]
) -> None:
    cast, product, receipt = await _shared(app)
    path = template.format(p=product.id, r=receipt.id)

    response = await client.request(method, path, headers=auth_headers(app, cast.viewer), **kwargs)

    assert_error(response, 403, "FORBIDDEN")
    stored = await _stored(app, product.id)
    assert stored is not None and (stored.name, stored.warranty_voided_at) == ("Fridge", None)
    async with app.state.sessionmaker() as session:
        assert list(await session.scalars(select(Receipt.id))) == [receipt.id]


@pytest.mark.parametrize(("method", "template", "kwargs"), WRITES)
async def test_a_member_may_make_every_write(
    app: FastAPI, client: httpx.AsyncClient, method: str, template: str, kwargs: dict[str, Any]
) -> None:
    cast, product, receipt = await _shared(app)
    path = template.format(p=product.id, r=receipt.id)

    response = await client.request(method, path, headers=auth_headers(app, cast.member), **kwargs)

    assert response.status_code in (200, 201, 204), response.text
    stored = await _stored(app, product.id)
    assert stored is not None and stored.owner_id == cast.owner.id  # still the owner's


async def test_a_members_edit_answers_the_product_with_its_owner(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast, product, _ = await _shared(app)

    response = await client.patch(
        f"/api/products/{product.id}", json={"store": "Corner shop"}, headers=auth_headers(app, cast.member)
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["store"], body["householdId"]) == ("Corner shop", cast.household.id)
    assert body["owner"] == {"id": cast.owner.id, "name": "Olga Owner"}


@pytest.mark.parametrize("role", ["member", "viewer"])
async def test_only_the_owner_deletes_it(app: FastAPI, client: httpx.AsyncClient, role: str) -> None:
    cast, product, _ = await _shared(app)
    path = f"/api/products/{product.id}"

    refused = await client.delete(path, headers=auth_headers(app, getattr(cast, role)))

    assert_error(refused, 403, "FORBIDDEN")
    assert await _stored(app, product.id) is not None
    assert (await client.delete(path, headers=auth_headers(app, cast.owner))).status_code == 204
    assert await _stored(app, product.id) is None


async def test_the_owner_creates_a_shared_product(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await household_cast(app)

    created = await client.post(
        "/api/products", json=NEW | {"householdId": cast.household.id}, headers=auth_headers(app, cast.owner)
    )

    assert created.status_code == 201, created.text
    assert created.json()["householdId"] == cast.household.id
    assert created.json()["owner"] == {"id": cast.owner.id, "name": "Olga Owner"}
    detail = await client.get(created.headers["Location"], headers=auth_headers(app, cast.viewer))
    assert detail.status_code == 200


@pytest.mark.parametrize("role", ["member", "viewer"])
async def test_any_member_may_share_their_own_products_with_the_household(
    app: FastAPI, client: httpx.AsyncClient, role: str
) -> None:
    cast = await household_cast(app)
    sharer = getattr(cast, role)
    product = await create_product(app, sharer, name="Bike")

    shared = await client.patch(
        f"/api/products/{product.id}",
        json={"householdId": cast.household.id},
        headers=auth_headers(app, sharer),
    )

    assert shared.status_code == 200, shared.text
    seen = await client.get(f"/api/products/{product.id}", headers=auth_headers(app, cast.owner))
    assert seen.json()["owner"] == {"id": sharer.id, "name": sharer.name}


async def test_a_household_the_owner_is_not_in_is_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await household_cast(app)
    theirs = await create_household(app, await create_user(app))
    product = await create_product(app, cast.owner)
    headers = auth_headers(app, cast.owner)

    for household_id in (theirs.id, theirs.id + 1000):
        created = await client.post(
            "/api/products", json=NEW | {"householdId": household_id}, headers=headers
        )
        assert_error(created, 404, "NOT_FOUND")
        updated = await client.put(
            f"/api/products/{product.id}", json={"householdId": household_id}, headers=headers
        )
        assert_error(updated, 404, "NOT_FOUND")
    stored = await _stored(app, product.id)
    assert stored is not None and stored.household_id is None
    assert len((await client.get("/api/products", headers=headers)).json()) == 1


@pytest.mark.parametrize("value", [0, -1, 2**31, "3", 1.5, True])
async def test_a_household_id_that_is_not_an_id_is_400(
    app: FastAPI, client: httpx.AsyncClient, value: object
) -> None:
    user = await create_user(app)

    response = await client.post(
        "/api/products", json=NEW | {"householdId": value}, headers=auth_headers(app, user)
    )

    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert set(body["details"]["fields"]) == {"householdId"}


@pytest.mark.parametrize("role", ["member", "viewer"])
@pytest.mark.parametrize("target", ["unshare", "other"])
async def test_only_the_owner_changes_the_household(
    app: FastAPI, client: httpx.AsyncClient, role: str, target: str
) -> None:
    cast, product, _ = await _shared(app)
    actor = getattr(cast, role)
    other = await create_household(app, actor)  # a household the member could share with themselves
    await add_member(app, other, cast.owner)
    value = None if target == "unshare" else other.id

    response = await client.patch(
        f"/api/products/{product.id}", json={"householdId": value}, headers=auth_headers(app, actor)
    )

    assert_error(response, 403, "FORBIDDEN")
    stored = await _stored(app, product.id)
    assert stored is not None and stored.household_id == cast.household.id


async def test_sending_the_household_it_has_is_no_change(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast, product, _ = await _shared(app)

    response = await client.put(
        f"/api/products/{product.id}",
        json={"name": "Big fridge", "householdId": cast.household.id},
        headers=auth_headers(app, cast.member),
    )

    assert response.status_code == 200, response.text
    assert (response.json()["name"], response.json()["householdId"]) == ("Big fridge", cast.household.id)


async def test_the_owner_moves_it_to_another_household_and_unshares_it(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast, product, _ = await _shared(app)
    second = await create_household(app, cast.owner)
    newcomer = await create_user(app)
    await add_member(app, second, newcomer, HouseholdRole.VIEWER)
    path, owner = f"/api/products/{product.id}", auth_headers(app, cast.owner)

    moved = await client.patch(path, json={"householdId": second.id}, headers=owner)

    assert moved.status_code == 200, moved.text
    assert moved.json()["householdId"] == second.id
    assert (await client.get(path, headers=auth_headers(app, newcomer))).status_code == 200
    assert_error(await client.get(path, headers=auth_headers(app, cast.member)), 404, "NOT_FOUND")

    unshared = await client.patch(path, json={"householdId": None}, headers=owner)

    assert unshared.status_code == 200 and unshared.json()["householdId"] is None
    assert_error(await client.get(path, headers=auth_headers(app, newcomer)), 404, "NOT_FOUND")
    assert (await client.get(path, headers=owner)).status_code == 200


async def test_an_admin_shares_only_with_a_household_of_the_owners(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await household_cast(app)
    admin = await create_admin(app)
    admins_own = await create_household(app, admin)
    product = await create_product(app, cast.owner)
    path, headers = f"/api/products/{product.id}", auth_headers(app, admin)

    assert_error(
        await client.patch(path, json={"householdId": admins_own.id}, headers=headers), 404, "NOT_FOUND"
    )
    shared = await client.patch(path, json={"householdId": cast.household.id}, headers=headers)

    assert shared.status_code == 200, shared.text
    assert shared.json()["owner"]["id"] == cast.owner.id


@pytest.mark.parametrize("role", ["owner", "member"])
async def test_owners_and_members_file_claims_as_its_customer(
    app: FastAPI, client: httpx.AsyncClient, role: str
) -> None:
    cast = await household_cast(app)
    filer = getattr(cast, role)
    product = await create_product(app, await create_user(app), household_id=cast.household.id)

    response = await client.post(
        "/api/claims",
        json={"productId": product.id, "description": "Broken"},
        headers=auth_headers(app, filer),
    )

    assert response.status_code == 201, response.text
    assert response.json()["customerId"] == filer.id
    async with app.state.sessionmaker() as session:
        stored = await session.scalar(select(Claim).where(Claim.product_id == product.id))
    assert stored is not None and stored.customer_id == filer.id


async def test_a_viewer_may_not_file_a_claim_and_a_stranger_gets_404(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast, product, _ = await _shared(app)
    body = {"productId": product.id, "description": "Broken"}

    refused = await client.post("/api/claims", json=body, headers=auth_headers(app, cast.viewer))
    hidden = await client.post("/api/claims", json=body, headers=auth_headers(app, await create_user(app)))

    assert_error(refused, 403, "FORBIDDEN")
    assert_error(hidden, 404, "NOT_FOUND")
    async with app.state.sessionmaker() as session:
        assert list(await session.scalars(select(Claim.id))) == []
