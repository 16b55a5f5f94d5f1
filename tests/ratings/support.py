"""Rows of a report's scenario, written straight to the database at the times a test names: claims of an
organisation, their status changes (the timeline), their deadlines and their ratings."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI

from app.models import Claim, ClaimDeadline, ClaimEvent, ClaimRating, Organization, User
from app.organizations.deadlines import NO_DEADLINE
from tests.factories.products import create_product


def at(day: int, hour: int = 12, minute: int = 0, second: int = 0, month: int = 11) -> datetime:
    """A moment of 2026 (November unless told), UTC."""
    return datetime(2026, month, day, hour, minute, second, tzinfo=UTC)


async def org_claim(
    app: FastAPI,
    organization: Organization,
    customer: User,
    created: datetime,
    *,
    agent: User | None = None,
    status: str = "open",
) -> int:
    """A claim routed to `organization`, opened at `created`, assigned to `agent`."""
    product = await create_product(app, customer, brand="Acme")
    async with app.state.sessionmaker() as session, session.begin():
        claim = Claim(
            product_id=product.id,
            customer_id=customer.id,
            supplier_id=agent.id if agent else None,
            organization_id=organization.id,
            status=status,
            description="It stopped working.",
            created_at=created,
            updated_at=created,
        )
        session.add(claim)
        await session.flush()
        return claim.id


async def moved(app: FastAPI, claim_id: int, when: datetime, former: str, to: str) -> None:
    """A status change on the claim's timeline, as the claims service records it."""
    async with app.state.sessionmaker() as session, session.begin():
        session.add(
            ClaimEvent(
                claim_id=claim_id,
                kind="status.changed",
                actor_id=None,
                actor_role="supplier",
                data={"from": former, "to": to},
                created_at=when,
            )
        )


async def deadlines(app: FastAPI, claim_id: int, **columns: Any) -> None:
    """The claim's deadline row, as the deadline code writes it (the clocks started when the claim was
    routed, at its creation; what the report reads is in `columns`)."""
    async with app.state.sessionmaker() as session, session.begin():
        claim = await session.get_one(Claim, claim_id)
        assert claim.organization_id is not None
        started = {
            "started_at": claim.created_at,
            "organization_id": claim.organization_id,
            "next_due_at": NO_DEADLINE,
        }
        session.add(ClaimDeadline(claim_id=claim_id, **(started | columns)))


async def rated(app: FastAPI, claim_id: int, customer: User, score: int, when: datetime) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        session.add(ClaimRating(claim_id=claim_id, user_id=customer.id, score=score, created_at=when))
