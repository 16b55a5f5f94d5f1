"""The email a missed deadline sends the managers of the claim's organisation (contract 17.8):
`email.sla_breached` {"claimId", "organizationId", "which", "dueAt", "recipientId"}, to each manager with
email notifications on (decided when the breach is recorded). Skipped when the recipient no longer manages
the claim's organisation, or the claim was handed on meanwhile."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.models import Claim, OrganizationMember, Product, User
from app.models.enums import OrganizationRole
from app.notifications.email import Email
from app.notifications.render import render
from app.outbox.handlers import Skipped

WHICH = {"first_response": "first response", "resolution": "resolution"}


async def breach_email(session: AsyncSession, payload: dict[str, object], settings: Settings) -> Email | None:
    claim = await session.get(Claim, int(str(payload["claimId"])))
    recipient = await session.get(User, int(str(payload["recipientId"])))
    if claim is None or recipient is None:
        return None
    organization_id = int(str(payload["organizationId"]))
    if claim.organization_id != organization_id:
        raise Skipped(f"claim {claim.id} was handed on from organization {organization_id}")
    role = await session.scalar(
        select(OrganizationMember.role).where(
            OrganizationMember.user_id == recipient.id,
            OrganizationMember.organization_id == organization_id,
        )
    )
    if role != OrganizationRole.MANAGER:
        raise Skipped(f"user {recipient.id} no longer manages organization {organization_id}")
    product = await session.get(Product, claim.product_id)
    which = WHICH.get(str(payload["which"]), str(payload["which"]))
    subject = f"Claim #{claim.id} missed its {which} deadline"
    due = str(payload["dueAt"])
    link = f"{settings.frontend_url.rstrip('/')}/claims/{claim.id}"
    text, html = render(
        "sla_breached",
        subject,
        claim_id=claim.id,
        product=product.name if product is not None else "a product",
        which=which,
        due=due,
        link=link,
    )
    return Email(recipient.email, subject, text, html, claim.id)
