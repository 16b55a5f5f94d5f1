"""Household invitation emails (contract 17.2). `POST /api/households/{id}/invitations` stores the
invitation with a placeholder hash no token has, and queues `email.household_invitation`; the worker mints
the token when it sends the email and stores only its hash, so the raw token is in no table, no outbox
payload and no log. A retry mints another token (the unsent one never worked). app.households spends it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.core.clock import utc_now
from app.core.security import hash_token, new_opaque_token
from app.models import Household, HouseholdInvitation, User
from app.notifications.email import Email, MailSender, build_message
from app.notifications.render import render
from app.outbox.handlers import Handler, Skipped

SUBJECT = "An invitation to a household on Warranty"


async def invitation_email(session: AsyncSession, invitation_id: int, settings: Settings) -> Email:
    """The email of a new token for the invitation (its hash replaces the previous one). Skipped when the
    invitation is gone (accepted, withdrawn, its household deleted) or expired: nothing may be sent."""
    statement = (
        select(HouseholdInvitation, Household.name, User.name)
        .join(Household, Household.id == HouseholdInvitation.household_id)
        .outerjoin(User, User.id == HouseholdInvitation.invited_by)
        .where(HouseholdInvitation.id == invitation_id)
        .with_for_update(of=HouseholdInvitation)
    )
    row = (await session.execute(statement)).one_or_none()
    if row is None:
        raise Skipped("the invitation was accepted or withdrawn, or its household deleted")
    if row[0].expires_at <= utc_now():
        raise Skipped("the invitation expired before it was sent")
    invitation, household, inviter = row
    raw = new_opaque_token()
    invitation.token_hash = hash_token(raw)
    link = f"{settings.frontend_url.rstrip('/')}/invitations/{raw}"
    until = invitation.expires_at.strftime("%Y-%m-%d %H:%M UTC")
    text, html = render(
        "household_invitation",
        SUBJECT,
        inviter=inviter or "A member",
        household=household,
        role=invitation.role.value,
        link=link,
        until=until,
        email=invitation.email,
    )
    return Email(invitation.email, SUBJECT, text, html)


def invitation_handler(
    settings: Settings, sessionmaker: async_sessionmaker[AsyncSession], mailer: MailSender
) -> Handler:
    """The `email.household_invitation` handler, payload {"invitationId"}: sent whatever the invitee's
    email settings (they may have no account yet). The token's hash is committed before the send."""

    async def handle(payload: dict[str, Any]) -> None:
        async with sessionmaker() as session, session.begin():
            email = await invitation_email(session, int(payload["invitationId"]), settings)
        await mailer.send(build_message(email, settings))

    return handle
