"""Helpers of the inbound tests: the claim a reply is addressed to, an email to it in any format delivered on
either path, the messages and rows it made, the settings that point the service at Resend's stand-in
(tests/inbound/resend_server.py, the `resend` fixture) and Postmark's credentials."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, Message, User
from tests.factories.claims import create_claim
from tests.factories.inbound import SECRETS, claim_address, email_in, post_provider, post_standard
from tests.factories.products import create_product
from tests.factories.users import create_supplier, create_user
from tests.inbound.resend_server import API_KEY, FLOOD, ResendApi
from tests.support.pdf import PDF_BYTES
from tests.support.ports import free_port

CUSTOMER = "ann@example.com"
SUPPLIER = "sam@supplier.example"

RESEND_PORT = free_port()
RESEND: dict[str, Any] = {
    "resend_api_url": f"http://127.0.0.1:{RESEND_PORT}",
    "resend_api_key": API_KEY,
    "webhook_allow_private": True,  # the stand-in's files are on localhost
}
# Resend's stand-in, answering within the second these settings wait.
WITH_RESEND: dict[str, Any] = {**SECRETS, **RESEND, "resend_timeout": 1.0}
SMALL = 256 * 1024  # the answer limits the tests of floods set
HUNG_UP_BY = FLOOD // 2  # a reader that stops at its limit leaves most of a flood unsent
POSTMARK_USER, POSTMARK_PASSWORD = "postmark", "s3cret-inbound-password"
POSTMARK: dict[str, Any] = {
    "postmark_inbound_user": POSTMARK_USER,
    "postmark_inbound_password": POSTMARK_PASSWORD,
}

# A reply to one of our emails: the answer, then the attribution and the quote that are cut.
REPLY = (
    "The part fits.\n\nOn Tue, Nov 24, 2026 at 10:00 AM Warranty <notifications@warranty.local> wrote:\n> Hi"
)
LONG = "1" * 4301  # one digit past Python's integer-string limit: int() raises on it
PATHS = ["provider", "standard"]  # /api/webhook/{provider}/inbound and /api/inbound/email


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


def build(fmt: str, sender: str, claim_id: int, **fields: Any) -> dict[str, Any]:
    """An email in format `fmt` from `sender` to the claim's address."""
    return email_in(fmt, sender, claim_address(claim_id), **fields)


async def deliver(client: httpx.AsyncClient, path: str, payload: object, **kwargs: Any) -> httpx.Response:
    """Posts `payload` on one of PATHS, signed as that path wants."""
    if path == "provider":
        return await post_provider(client, payload)
    return await post_standard(client, payload, **kwargs)


async def rows(app: FastAPI, model: type[Any]) -> list[Any]:
    async with app.state.sessionmaker() as session:
        return list((await session.scalars(select(model))).all())


def emailed_bill(resend: ResendApi, claim: Claim, **fields: Any) -> str:
    """An email Resend's stand-in holds from Ann to the claim, "Fits." with bill.pdf unless `files` says
    otherwise; answers its id."""
    fields.setdefault("files", [("bill.pdf", "application/pdf", PDF_BYTES)])
    return resend.add_email(sender=f"Ann <{CUSTOMER}>", to=[claim_address(claim.id)], text="Fits.", **fields)
