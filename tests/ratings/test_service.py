"""The rules of a rating, at the service: the window counts from the claim's last change to resolved or
closed, or from its last update when its timeline has none."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.errors import Conflict
from app.models import Claim, ClaimEvent, ClaimRating, User
from app.ratings import service
from app.ratings.repository import RatingRepository
from tests.factories.organizations import create_organization
from tests.factories.users import create_user
from tests.ratings.support import at, moved, org_claim


async def _rate(app: FastAPI, claim_id: int, customer_id: int, when: datetime) -> ClaimRating:
    with frozen_time(when):
        async with app.state.sessionmaker() as session, session.begin():
            claim, customer = await session.get(Claim, claim_id), await session.get(User, customer_id)
            assert claim is not None and customer is not None
            return await service.rate(claim, customer, 5, None, ratings=RatingRepository(session))


async def test_a_claim_without_its_resolution_on_the_timeline_counts_from_its_last_update(
    app: FastAPI,
) -> None:
    organization = await create_organization(app, "Acme Service", ["Acme"])
    customer = await create_user(app)
    late = await org_claim(app, organization, customer, at(1), status="resolved")  # updated at(1)
    with pytest.raises(Conflict) as refused:
        await _rate(app, late, customer.id, at(1) + timedelta(days=14, seconds=1))
    assert refused.value.code == "RATING_CLOSED"
    in_time = await org_claim(app, organization, customer, at(1), status="closed")
    rating = await _rate(app, in_time, customer.id, at(15))
    assert (rating.claim_id, rating.score, rating.created_at) == (in_time, 5, at(15))


async def test_the_rating_goes_on_the_timeline_with_its_score(app: FastAPI) -> None:
    organization = await create_organization(app, "Acme Service", ["Acme"])
    customer = await create_user(app)
    claim_id = await org_claim(app, organization, customer, at(1), status="resolved")
    await moved(app, claim_id, at(20), "in_progress", "resolved")  # the window counts from here
    await _rate(app, claim_id, customer.id, at(30))
    async with app.state.sessionmaker() as session:
        entry = (await session.scalars(select(ClaimEvent).order_by(ClaimEvent.id.desc()).limit(1))).one()
        assert (entry.kind, entry.data, entry.actor_id, entry.actor_role) == (
            "claim.rated",
            {"score": 5},
            customer.id,
            "customer",
        )
