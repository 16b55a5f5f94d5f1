"""A participant's mute choice for one claim: one row per (claim, user), holding the last word."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from app.claims.mutes import set_muted
from app.models import ClaimMute
from tests.factories.claims import claim_cast


async def _choices(app: FastAPI) -> list[tuple[int, int, bool]]:
    async with app.state.sessionmaker() as session:
        rows = await session.execute(select(ClaimMute.claim_id, ClaimMute.user_id, ClaimMute.muted))
        return sorted(tuple(row) for row in rows)  # type: ignore[misc]


async def test_the_last_choice_is_kept_in_one_row(app: FastAPI) -> None:
    cast = await claim_cast(app)
    for muted in (True, True, False):
        async with app.state.sessionmaker() as session, session.begin():
            await set_muted(session, cast.customer, cast.claim, muted)
    assert await _choices(app) == [(cast.claim.id, cast.customer.id, False)]


async def test_choices_are_per_user(app: FastAPI) -> None:
    cast = await claim_cast(app)
    async with app.state.sessionmaker() as session, session.begin():
        await set_muted(session, cast.customer, cast.claim, True)
        await set_muted(session, cast.supplier, cast.claim, False)
    assert await _choices(app) == sorted(
        [(cast.claim.id, cast.customer.id, True), (cast.claim.id, cast.supplier.id, False)]
    )
