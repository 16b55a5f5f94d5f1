"""Who may see a claim: its customer, its assigned supplier, and admins. The one place that says so;
every read of claims, messages and attachments goes through these statements."""

from __future__ import annotations

from sqlalchemy import Select, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ROLE_ADMIN, Claim, User


def visible_claims(user: User) -> Select[Claim]:
    statement = select(Claim)
    if ROLE_ADMIN in user.effective_roles:
        return statement
    return statement.where(or_(Claim.customer_id == user.id, Claim.supplier_id == user.id))


async def can_see_claim(session: AsyncSession, user: User, claim_id: int) -> bool:
    found = await session.scalar(visible_claims(user).with_only_columns(Claim.id).where(Claim.id == claim_id))
    return found is not None


def is_participant(user: User, claim: Claim) -> bool:
    return user.id in (claim.customer_id, claim.supplier_id)
