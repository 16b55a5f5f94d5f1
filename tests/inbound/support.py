"""Helpers of the inbound tests: the claim a reply is addressed to, the messages it made, the settings that
point the service at Resend's stand-in (tests/inbound/resend_server.py, the `resend` fixture) and Postmark's
credentials."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, Message, User
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import create_supplier, create_user
from tests.inbound.resend_server import API_KEY
from tests.support.ports import free_port

CUSTOMER = "ann@example.com"
SUPPLIER = "sam@supplier.example"

RESEND_PORT = free_port()
RESEND: dict[str, Any] = {
    "resend_api_url": f"http://127.0.0.1:{RESEND_PORT}",
    "resend_api_key": API_KEY,
    "webhook_allow_private": True,  # the stand-in's files are on localhost
}
POSTMARK_USER, POSTMARK_PASSWORD = "postmark", "s3cret-inbound-password"
POSTMARK: dict[str, Any] = {
    "postmark_inbound_user": POSTMARK_USER,
    "postmark_inbound_password": POSTMARK_PASSWORD,
}


def as_postmark(
    client: httpx.AsyncClient, user: str = POSTMARK_USER, password: str = POSTMARK_PASSWORD
) -> httpx.AsyncClient:
    """`client`'s app, posted to as Postmark posts: with the credentials written in the webhook URL."""
    return httpx.AsyncClient(transport=client._transport, base_url=f"http://{user}:{password}@testserver")


async def make_claim(
    app: FastAPI, *, status: str = "open", assigned: bool = True, **product: Any
) -> tuple[User, User, Claim]:
    """Ann (CUSTOMER)'s claim on a product of hers, assigned to Sam (SUPPLIER) unless not `assigned`."""
    customer = await create_user(app, email=CUSTOMER, name="Ann")
    supplier = await create_supplier(app, email=SUPPLIER, name="Sam")
    product_of_hers = await create_product(app, customer, **product)
    claim = await create_claim(app, product_of_hers, supplier=supplier if assigned else None, status=status)
    return customer, supplier, claim


async def new_claim(app: FastAPI) -> Claim:
    """`make_claim`'s claim, when the test needs no user."""
    _customer, _supplier, claim = await make_claim(app)
    return claim


async def messages_of(app: FastAPI, claim_id: int) -> list[Message]:
    async with app.state.sessionmaker() as session:
        query = select(Message).where(Message.claim_id == claim_id).order_by(Message.id)
        return list((await session.scalars(query)).all())


async def bodies_of(app: FastAPI, claim_id: int) -> list[str]:
    return [message.body for message in await messages_of(app, claim_id)]
