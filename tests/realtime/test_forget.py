"""A deleted claim leaves the hub's history (app.realtime.forget): the events of the claims selected go, both
topics of each, and no other claim's, however alike their ids."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, Event
from app.realtime.forget import forget_claims
from app.realtime.publishing import messages_topic, status_topic
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.realtime import publish_event
from tests.factories.users import create_user


async def _topics(app: FastAPI) -> list[str]:
    async with app.state.sessionmaker() as session:
        return list(await session.scalars(select(Event.topic).order_by(Event.id)))


async def test_the_events_of_the_selected_claims_go_and_every_other_stays(app: FastAPI) -> None:
    owner = await create_user(app)
    gone = await create_claim(app, await create_product(app, owner))
    kept = await create_claim(app, await create_product(app, owner))
    lookalike = gone.id * 10 + 1  # claims/{id}1/...: the same digits, and more
    for topic in (
        messages_topic(gone.id),
        status_topic(gone.id),
        messages_topic(kept.id),
        status_topic(lookalike),
        f"claims/{gone.id}/messages/extra",
    ):
        await publish_event(app, topic, {"type": "any"})

    async with app.state.sessionmaker() as session, session.begin():
        await forget_claims(session, select(Claim.id).where(Claim.id == gone.id))

    assert await _topics(app) == [
        messages_topic(kept.id),
        status_topic(lookalike),
        f"claims/{gone.id}/messages/extra",
    ]


async def test_several_claims_at_once_and_none(app: FastAPI) -> None:
    owner = await create_user(app)
    claims = [await create_claim(app, await create_product(app, owner)) for _ in range(3)]
    for claim in claims:
        await publish_event(app, messages_topic(claim.id), {"type": "any"})

    async with app.state.sessionmaker() as session, session.begin():
        await forget_claims(session, select(Claim.id).where(Claim.id == -1))
    assert len(await _topics(app)) == 3

    async with app.state.sessionmaker() as session, session.begin():
        await forget_claims(
            session, select(Claim.id).where(Claim.customer_id == owner.id, Claim.id != claims[1].id)
        )
    assert await _topics(app) == [messages_topic(claims[1].id)]
