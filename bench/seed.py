"""The benchmark data set: 100 users; one customer with 1,000 products and 200 claims (one with 10,000
messages) handled by one supplier. Written with bulk inserts through the app's own models."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.security import PasswordHasher
from app.models import Claim, Message, Product, User
from app.products.warranty import expiry_date

PASSWORD = "bench password"
CUSTOMER_EMAIL = "customer@bench.example"
SUPPLIER_EMAIL = "supplier@bench.example"


@dataclass
class Seeded:
    customer_id: int
    supplier_id: int
    busy_claim_id: int  # the claim with 10,000 messages
    quiet_claim_id: int  # a claim with no messages, for the detail
    write_claim_id: int  # the claim the message-write benchmark posts to (it grows during the run)


async def seed(session: AsyncSession, hasher: PasswordHasher) -> Seeded:
    rng = random.Random(42)
    password_hash = await hasher.hash(PASSWORD)
    now = datetime.now(UTC)
    users = [
        {"email": CUSTOMER_EMAIL, "name": "Bench Customer", "roles": ["ROLE_USER"]},
        {"email": SUPPLIER_EMAIL, "name": "Bench Supplier", "roles": ["ROLE_USER", "ROLE_SUPPLIER"]},
    ] + [{"email": f"user{n}@bench.example", "name": f"User {n}", "roles": ["ROLE_USER"]} for n in range(98)]
    for user in users:
        user.update(password_hash=password_hash, created_at=now, updated_at=now)
    await session.execute(insert(User), users)
    customer_id = await session.scalar(select(User.id).where(User.email == CUSTOMER_EMAIL))
    supplier_id = await session.scalar(select(User.id).where(User.email == SUPPLIER_EMAIL))
    assert customer_id is not None and supplier_id is not None

    brands = ["Bosch", "Miele", "Sony", "Apple", "Dyson", "Philips", "Samsung", "LG"]
    products = []
    for n in range(1000):
        bought = date(2024, 1, 1) + timedelta(days=rng.randrange(0, 1000))
        months = rng.choice([12, 24, 36])
        products.append(
            {
                "owner_id": customer_id,
                "name": f"Product {n}",
                "brand": rng.choice(brands),
                "category": rng.choice(["Kitchen", "Audio", "Phone", "Garden"]),
                "store": "Bench Store",
                "purchase_date": bought,
                "warranty_period_months": months,
                "warranty_expires_on": expiry_date(bought, months),
                "serial_number": f"SN{n:06d}",
                "created_at": now - timedelta(seconds=n),
                "updated_at": now,
            }
        )
    await session.execute(insert(Product), products)
    product_ids = list(
        (await session.scalars(select(Product.id).where(Product.owner_id == customer_id))).all()
    )

    claims = [
        {
            "product_id": product_ids[n],
            "customer_id": customer_id,
            "supplier_id": supplier_id,
            "status": "in_progress",
            "description": f"Claim {n}: it broke.",
            "created_at": now - timedelta(minutes=n),
            "updated_at": now,
        }
        for n in range(200)
    ]
    await session.execute(insert(Claim), claims)
    claim_ids = sorted(
        (await session.scalars(select(Claim.id).where(Claim.customer_id == customer_id))).all()
    )
    busy, quiet, write = claim_ids[0], claim_ids[1], claim_ids[2]

    messages = [
        {
            "claim_id": busy,
            "sender_id": customer_id if n % 2 else supplier_id,
            "body": f"Message {n} about the repair.",
            "created_at": now - timedelta(seconds=10_000 - n),
        }
        for n in range(10_000)
    ]
    for start in range(0, len(messages), 2000):
        await session.execute(insert(Message), messages[start : start + 2000])
    return Seeded(customer_id, supplier_id, busy, quiet, write)
