"""Exact totals: the admin lists' `meta.total` comes from row counts the database keeps in each writing
transaction; after any mix of writes, cascading deletes included, they equal a COUNT(*) of the tables."""

from __future__ import annotations

from datetime import date, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.clock import utc_today
from app.models import Claim, Message, Product
from app.products.warranty import warranty_status
from tests.factories.claims import claim_cast, create_claim, create_message
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import count_queries

TOTALS = {
    "/api/admin/products": "products",
    "/api/admin/claims": "claims",
    "/api/admin/claims?status=open": "claims:open",
    "/api/admin/claims?status=in_progress": "claims:in_progress",
    "/api/admin/claims?status=closed": "claims:closed",
    "/api/messages": "messages",
    "/api/messages?unread=true": "messages:unread",
    "/api/messages?unread=false": "messages:read",
    "/api/admin/products?brand=ACME": "products:brand:acme",
    "/api/admin/products?brand=Gaggia": "products:brand:gaggia",
    "/api/admin/products?category=tools": "products:category:tools",
    "/api/admin/products?warrantyStatus=active": "products:active",
    "/api/admin/products?warrantyStatus=expiring_soon": "products:expiring_soon",
    "/api/admin/products?warrantyStatus=expired": "products:expired",
    "/api/admin/products?warrantyStatus=void": "products:void",
}


async def _counted(app: FastAPI) -> dict[str, int]:
    """The same totals by counting the tables (read state as the read rows say it)."""
    async with app.state.sessionmaker() as session:

        async def count(statement: object) -> int:
            return int(await session.scalar(statement) or 0)  # type: ignore[call-overload]

        claims = select(func.count()).select_from(Claim)
        messages = select(func.count()).select_from(Message)
        unread = messages.where(Message.recipient_read_at.is_(None))
        found = {
            "products": await count(select(func.count()).select_from(Product)),
            "claims": await count(claims),
            "messages": await count(messages),
            "messages:unread": await count(unread),
        }
        for status in ("open", "in_progress", "closed"):
            found[f"claims:{status}"] = await count(claims.where(Claim.status == status))
        products = (
            await session.execute(
                select(
                    Product.brand, Product.category, Product.warranty_expires_on, Product.warranty_voided_at
                )
            )
        ).all()
    soon, today = app.state.settings.expiring_soon_days, utc_today()
    for facet, value in (("brand", "acme"), ("brand", "gaggia"), ("category", "tools")):
        found[f"products:{facet}:{value}"] = sum(1 for p in products if getattr(p, facet).lower() == value)
    for status in ("active", "expiring_soon", "expired"):
        found[f"products:{status}"] = sum(
            1
            for p in products
            if p.warranty_voided_at is None and warranty_status(p.warranty_expires_on, today, soon) == status
        )
    found["products:void"] = sum(1 for p in products if p.warranty_voided_at is not None)
    found["messages:read"] = found["messages"] - found["messages:unread"]
    return found


async def _messages_per_claim(app: FastAPI) -> dict[int, int]:
    async with app.state.sessionmaker() as session:
        counts = dict(
            (await session.execute(select(Message.claim_id, func.count()).group_by(Message.claim_id))).all()
        )
        return {claim_id: counts.get(claim_id, 0) for claim_id in await session.scalars(select(Claim.id))}


async def _shown(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, int]:
    shown = {}
    for path, name in TOTALS.items():
        response = await client.get(path, headers=headers)
        assert response.status_code == 200, response.text
        shown[name] = response.json()["meta"]["total"]
    return shown


@pytest.mark.settings(cache_ttl=0)
async def test_totals_stay_exact_through_creates_changes_and_cascading_deletes(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    headers = auth_headers(app, admin)
    cast = await claim_cast(app)
    customer, supplier = cast.customer, cast.supplier
    customer_headers, supplier_headers = auth_headers(app, customer), auth_headers(app, supplier)
    leaving = await create_user(app, name="Leaving Customer")
    leaving_supplier = await create_supplier(app, name="Leaving Supplier")

    async def check() -> None:
        shown, counted = await _shown(client, headers), await _counted(app)
        assert shown == counted
        assert counted["messages"] > 0
        # Each claim's message count, in the claim lists and as the claim filter's total.
        listed = (await client.get("/api/admin/claims?limit=100", headers=headers)).json()["data"]
        per_claim = await _messages_per_claim(app)
        assert {claim["id"]: claim["messageCount"] for claim in listed} == per_claim
        for claim_id, count in per_claim.items():
            page = (await client.get(f"/api/messages?claimId={claim_id}", headers=headers)).json()
            assert page["meta"]["total"] == count

    # Products and claims through the API and straight in the tables, messages both ways.
    for number in range(3):
        created = await client.post(
            "/api/products",
            json={
                "name": f"Thing {number}",
                "brand": "Acme",
                "category": "Tools",
                "purchaseDate": "2026-01-10",
                "warrantyPeriodMonths": 12,
            },
            headers=customer_headers,
        )
        claim = await client.post(
            "/api/claims",
            json={"productId": created.json()["id"], "description": "Broken."},
            headers=customer_headers,
        )
        await client.put(
            f"/api/claims/{claim.json()['id']}/supplier", json={"supplierId": supplier.id}, headers=headers
        )
        await client.post(
            f"/api/claims/{claim.json()['id']}/messages", json={"message": "Hi"}, headers=customer_headers
        )
    for number in range(4):
        await create_message(app, cast.claim, (customer, supplier)[number % 2], f"m{number}")
    elsewhere = await create_claim(app, await create_product(app, leaving), supplier=leaving_supplier)
    # Every warranty status, and brands and categories in other cases.
    today = utc_today()
    await create_product(app, customer, brand="ACME", category="TOOLS", purchase_date=date(2020, 1, 1))
    leaving_product = await create_product(
        app, leaving, brand="acme", purchase_date=today - timedelta(days=20), warranty_period_months=1
    )
    for number in range(3):
        await create_message(app, elsewhere, (leaving, leaving_supplier)[number % 2], f"x{number}")
    await check()

    # Reads: the supplier reads (recipient), the admin reads (not a recipient).
    await client.post(f"/api/claims/{cast.claim.id}/messages/read", headers=supplier_headers)
    await client.post(f"/api/claims/{cast.claim.id}/messages/read", headers=headers)
    await client.post(f"/api/claims/{elsewhere.id}/messages/read", headers=auth_headers(app, leaving))
    await check()

    # A product's brand, category and purchase date changed: it moves between the facet counts.
    moved = (await client.get("/api/products?limit=1", headers=customer_headers)).json()["data"][0]["id"]
    changed = await client.patch(
        f"/api/products/{moved}",
        json={"brand": "Gaggia", "category": "Tools", "purchaseDate": "2019-05-01"},
        headers=customer_headers,
    )
    assert changed.status_code == 200, changed.text
    await check()

    # Voided warranties count as `void`, not on their expiry day, through date changes, unvoid and the
    # cascade of their owner's deletion.
    for voided in (moved, leaving_product.id):
        path = f"/api/products/{voided}/warranty/void"
        assert (await client.post(path, json={"reason": "Dropped."}, headers=headers)).status_code == 200
    await check()
    await client.patch(f"/api/products/{moved}", json={"warrantyEndsOn": "2030-01-01"}, headers=headers)
    await check()
    await client.post(f"/api/products/{moved}/warranty/unvoid", headers=headers)
    await check()

    # Status changes move claims between the per-status counts.
    await client.post(
        f"/api/claims/{cast.claim.id}/status", json={"status": "in_progress"}, headers=supplier_headers
    )
    await check()

    # A supplier replaced: the old one's reads stop counting as a recipient's.
    await client.put(f"/api/claims/{cast.claim.id}/supplier", json={"supplierId": None}, headers=headers)
    await check()

    # Cascades: a product with its claim and messages; a supplier (claims lose it); a customer with all.
    product_id = (await client.get("/api/products?limit=1", headers=customer_headers)).json()["data"][0]["id"]
    assert (await client.delete(f"/api/products/{product_id}", headers=customer_headers)).status_code == 204
    await check()
    assert (await client.delete(f"/api/users/{leaving_supplier.id}", headers=headers)).status_code == 204
    await check()
    assert (await client.delete(f"/api/users/{leaving.id}", headers=headers)).status_code == 204
    await check()


@pytest.mark.settings(cache_ttl=0)
async def test_a_product_total_of_one_facet_counts_no_products(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """A brand, category or warranty-status total sums kept counts; only combinations count rows."""
    headers = auth_headers(app, await create_admin(app))
    for path in [*(path for path in TOTALS if path.startswith("/api/admin/products")), "/api/admin/products"]:
        with count_queries(app) as statements:
            assert (await client.get(path, headers=headers)).status_code == 200
        assert not [s for s in statements if "count(" in s.lower()], path
    with count_queries(app) as statements:
        combined = await client.get("/api/admin/products?brand=acme&warrantyStatus=active", headers=headers)
    assert combined.status_code == 200
    assert [s for s in statements if "count(" in s.lower()]
