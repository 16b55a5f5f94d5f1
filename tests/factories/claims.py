"""Claims and messages, written straight to the database."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fastapi import FastAPI

from app.core.clock import utc_now
from app.derived import read_state
from app.derived.claim_search import search_text
from app.models import Claim, Message, MessageRead, Product, User
from tests.factories.products import create_product
from tests.factories.users import create_admin, create_supplier, create_user


async def create_claim(
    app: FastAPI,
    product: Product,
    *,
    supplier: User | None = None,
    status: str = "open",
    description: str = "It stopped working.",
) -> Claim:
    async with app.state.sessionmaker() as session, session.begin():
        claim = Claim(
            product_id=product.id,
            customer_id=product.owner_id,
            supplier_id=supplier.id if supplier else None,
            status=status,
            description=description,
            search_text=search_text(product.name, description),
        )
        session.add(claim)
    return claim


async def create_message(
    app: FastAPI, claim: Claim, sender: User, body: str = "Hello", **fields: Any
) -> Message:
    async with app.state.sessionmaker() as session, session.begin():
        message = Message(claim_id=claim.id, sender_id=sender.id, body=body, **fields)
        session.add(message)
    return message


async def mark_read_by(app: FastAPI, message: Message, reader: User, at: datetime | None = None) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        session.add(MessageRead(message_id=message.id, user_id=reader.id, read_at=at or utc_now()))
        await session.flush()
        await read_state.recompute(session, [message.claim_id])  # as the service keeps it


def data_url(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def attachment(data: bytes, file_name: str, mime: str, **overrides: Any) -> dict[str, Any]:
    """An attachment as the send endpoint takes it."""
    return {"dataUrl": data_url(data, mime), "fileName": file_name, "mimeType": mime, "size": len(data)} | (
        overrides
    )


@dataclass
class Cast:
    """A claim with everyone around it: its customer, assigned supplier, an admin and an outsider (a
    plain user) and another supplier, neither of whom takes part."""

    customer: User
    supplier: User
    admin: User
    outsider: User
    other_supplier: User
    product: Product
    claim: Claim


async def claim_cast(app: FastAPI, *, status: str = "open", **customer_fields: Any) -> Cast:
    customer = await create_user(app, name="Ann Customer", **customer_fields)
    supplier = await create_supplier(app, name="Sam Supplier")
    product = await create_product(app, customer)
    claim = await create_claim(app, product, supplier=supplier, status=status)
    return Cast(
        customer=customer,
        supplier=supplier,
        admin=await create_admin(app, name="Ada Admin"),
        outsider=await create_user(app, name="Otto Outsider"),
        other_supplier=await create_supplier(app, name="Sue Othersupplier"),
        product=product,
        claim=claim,
    )
