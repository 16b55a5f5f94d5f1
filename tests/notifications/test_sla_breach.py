"""The email of a missed deadline (app.notifications.sla_breach): to a manager of the claim's organisation,
naming the claim, its product, the deadline and its due time; skipped once the recipient no longer manages
that organisation or the claim was handed on."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.models import Claim, OrganizationMember
from app.models.enums import OrganizationRole
from app.notifications.sla_breach import breach_email
from app.outbox.handlers import Skipped
from tests.claims.routed import Routed, routed_claim


def _payload(cast: Routed, recipient_id: int) -> dict[str, object]:
    return {
        "claimId": cast.claim_id,
        "organizationId": cast.organization.id,
        "which": "resolution",
        "dueAt": "2026-11-09T09:00:00+00:00",
        "recipientId": recipient_id,
    }


async def test_the_email_names_the_claim_and_the_deadline(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    async with app.state.sessionmaker() as session:
        email = await breach_email(session, _payload(cast, cast.manager.id), app.state.settings)
    assert email is not None
    assert email.to == cast.manager.email
    assert email.subject == f"Claim #{cast.claim_id} missed its resolution deadline"
    assert "Washer" in email.text and "2026-11-09T09:00:00+00:00" in email.text
    assert f"/claims/{cast.claim_id}" in email.text


async def test_skipped_for_a_former_manager_and_a_claim_handed_on(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(OrganizationMember)
            .where(OrganizationMember.user_id == cast.manager.id)
            .values(role=OrganizationRole.AGENT)
        )
    async with app.state.sessionmaker() as session:
        with pytest.raises(Skipped):
            await breach_email(session, _payload(cast, cast.manager.id), app.state.settings)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(Claim).where(Claim.id == cast.claim_id).values(organization_id=cast.rival.id)
        )
    async with app.state.sessionmaker() as session:
        with pytest.raises(Skipped):
            await breach_email(session, _payload(cast, cast.rival_manager.id), app.state.settings)
