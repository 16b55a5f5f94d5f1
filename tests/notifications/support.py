"""Helpers of the notifications tests: a claim with a message to notify of, devices registered as their users
register them, and a product whose warranty ends on EXPIRES, with the expiry job run on a chosen day."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, DeviceToken, Message, Product, User
from app.products.expiry_alerts import send_expiry_alerts
from tests.factories.claims import create_claim, create_message
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_supplier, create_user
from tests.support.pdf import PDF_BYTES


async def claim_with_message(
    app: FastAPI,
    body: str = "Hello",
    *,
    names: tuple[str, str, str] = ("Ann", "Sam <Support>", "Espresso machine"),
    attachment_name: str = "invoice.pdf",
) -> tuple[User, User, Claim, Message]:
    """Ann's claim on her product with Sam as supplier, and Sam's message with a PDF; `names` are the
    customer's, the supplier's and the product's."""
    customer = await create_user(app, email="ann@example.com", name=names[0])
    supplier = await create_supplier(app, email="sam@example.com", name=names[1])
    product = await create_product(app, customer, name=names[2])
    claim = await create_claim(app, product, supplier=supplier)
    key = await app.state.storage.save("attachments", PDF_BYTES, "pdf")
    message = await create_message(
        app,
        claim,
        supplier,
        body=body,
        attachment_name=attachment_name,
        attachment_mime="application/pdf",
        attachment_size=len(PDF_BYTES),
        attachment_key=key,
    )
    return customer, supplier, claim, message


async def register_device(
    client: httpx.AsyncClient, headers: dict[str, str], token: str, platform: str
) -> httpx.Response:
    """`POST /api/device-tokens` with these headers."""
    return await client.post(
        "/api/device-tokens", json={"token": token, "platform": platform}, headers=headers
    )


async def device_tokens(app: FastAPI) -> set[str]:
    """Every stored device token, whoever's."""
    async with app.state.sessionmaker() as session:
        return set(await session.scalars(select(DeviceToken.token)))


EXPIRES = date(2027, 3, 31)


def day_before_expiry(days: int) -> datetime:
    """09:00 UTC, `days` days before EXPIRES (negative: after it)."""
    return datetime.combine(EXPIRES - timedelta(days=days), datetime.min.time(), UTC) + timedelta(hours=9)


async def run_expiry_job(app: FastAPI) -> int:
    return await send_expiry_alerts(app.state.sessionmaker, app.state.settings)


async def expiring_product(app: FastAPI, **owner: object) -> Product:
    """Ann's espresso machine, whose warranty ends on EXPIRES; `owner`: more of Ann's fields."""
    user = await create_user(app, email="ann@example.com", name="Ann", **owner)
    # 2025-03-31 + 24 months = 2027-03-31
    return await create_product(app, user, name="Espresso machine", purchase_date=date(2025, 3, 31))


async def owner_headers(app: FastAPI, product: Product) -> dict[str, str]:
    """For requests made outside frozen time: tokens are checked against the real clock too."""
    async with app.state.sessionmaker() as session:
        owner = await session.get(User, product.owner_id)
    assert owner is not None
    return auth_headers(app, owner)


async def void_warranty(
    client: httpx.AsyncClient, product: Product, headers: dict[str, str], action: str = "void"
) -> None:
    """`POST /api/products/{id}/warranty/void` (or `unvoid`)."""
    body = {"reason": "Water damage"} if action == "void" else None
    response = await client.post(f"/api/products/{product.id}/warranty/{action}", json=body, headers=headers)
    assert response.status_code == 200, response.text
