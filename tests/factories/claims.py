"""Claims and messages, written straight to the database."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from app.models import Claim, Message, Product, User


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
