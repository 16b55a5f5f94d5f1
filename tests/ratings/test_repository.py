"""A claim's rating, read and written: when the claim last became resolved or closed (its timeline), and one
rating per claim whatever the concurrency (the key decides)."""

from __future__ import annotations

import asyncio

from fastapi import FastAPI

from app.ratings.repository import RatingRepository
from tests.factories.organizations import create_organization
from tests.factories.users import create_user
from tests.ratings.support import at, moved, org_claim


async def test_settled_at_is_the_last_change_to_resolved_or_closed(app: FastAPI) -> None:
    organization = await create_organization(app, "Acme Service", ["Acme"])
    customer = await create_user(app)
    claim_id = await org_claim(app, organization, customer, at(1), status="in_progress")
    async with app.state.sessionmaker() as session:
        assert await RatingRepository(session).settled_at(claim_id) is None
    await moved(app, claim_id, at(2), "open", "in_progress")
    await moved(app, claim_id, at(3), "in_progress", "resolved")
    await moved(app, claim_id, at(4), "resolved", "in_progress")
    await moved(app, claim_id, at(5), "in_progress", "resolved")
    await moved(app, claim_id, at(6), "resolved", "closed")
    other = await org_claim(app, organization, customer, at(1), status="resolved")
    await moved(app, other, at(9), "in_progress", "resolved")
    async with app.state.sessionmaker() as session:
        assert await RatingRepository(session).settled_at(claim_id) == at(6)
    await moved(app, claim_id, at(7), "closed", "in_progress")  # whatever the lifecycle allows later
    async with app.state.sessionmaker() as session:
        assert await RatingRepository(session).settled_at(claim_id) == at(6)


async def test_one_rating_per_claim_even_at_the_same_moment(app: FastAPI) -> None:
    organization = await create_organization(app, "Acme Service", ["Acme"])
    customer = await create_user(app)
    claim_id = await org_claim(app, organization, customer, at(1), status="resolved")

    async def add(score: int) -> bool:
        async with app.state.sessionmaker() as session, session.begin():
            return await RatingRepository(session).add(claim_id, customer.id, score, None) is not None

    assert sorted(await asyncio.gather(add(4), add(5))) == [False, True]
    assert await add(3) is False
    async with app.state.sessionmaker() as session:
        rating = await RatingRepository(session).of_claim(claim_id)
        assert rating is not None and rating.score in (4, 5) and rating.user_id == customer.id
