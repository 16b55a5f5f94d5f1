"""The household invitation email (app.notifications.household_invitation): the worker mints the token when
it sends, stores only its hash and puts the link in the email; a retry mints another; nothing is sent for
an invitation withdrawn, accepted, of a deleted household, or expired; the token is never logged."""

from __future__ import annotations

import logging
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import delete

from app.core.clock import utc_now
from app.core.security import hash_token
from app.households.repository import unsent_token_hash
from app.models import Household, HouseholdInvitation, User
from app.models.enums import HouseholdRole
from app.notifications.email import SmtpSender
from app.notifications.household_invitation import SUBJECT, invitation_email, invitation_handler
from app.outbox.handlers import Handler, Skipped
from app.outbox.worker import OutboxWorker
from tests.factories.households import create_household
from tests.factories.users import create_user
from tests.helpers import assert_error
from tests.households.steps import (
    LINK,
    accept,
    invitations_of,
    invite,
    invited_token,
    tokens_sent_to,
)
from tests.households.steps import create_household as create_household_over_http
from tests.support.smtp import SMTP_URL, Inbox


async def _invitation(
    app: FastAPI,
    household: Household,
    inviter: User | None,
    *,
    email: str = "bob@example.com",
    expires_in: timedelta = timedelta(days=7),
) -> HouseholdInvitation:
    """An invitation as the API stores it: not sent yet, its hash a placeholder no token has."""
    async with app.state.sessionmaker() as session, session.begin():
        invitation = HouseholdInvitation(
            household_id=household.id,
            email=email,
            role=HouseholdRole.VIEWER,
            invited_by=inviter.id if inviter else None,
            expires_at=utc_now() + expires_in,
            token_hash=unsent_token_hash(),
        )
        session.add(invitation)
    return invitation


def _handler(app: FastAPI) -> Handler:
    return invitation_handler(app.state.settings, app.state.sessionmaker, SmtpSender(SMTP_URL, timeout=5))


async def test_the_email_carries_a_new_token_and_only_its_hash_is_stored(app: FastAPI, inbox: Inbox) -> None:
    ann = await create_user(app, name="Ann")
    household = await create_household(app, ann, name="The Smiths")
    invitation = await _invitation(app, household, ann)

    await _handler(app)({"invitationId": invitation.id})

    [email] = inbox.to("bob@example.com")
    assert email["Subject"] == SUBJECT == "An invitation to a household on Warranty"
    text = email.get_body(("plain",))
    assert text is not None
    content = text.get_content()
    assert 'Ann invited you to the household "The Smiths" on Warranty, as a viewer' in content
    assert "with this email address, bob@example.com," in content
    assert f"until {invitation.expires_at.strftime('%Y-%m-%d %H:%M UTC')}" in content
    [token] = tokens_sent_to(inbox, "bob@example.com")  # the same link in the text and the HTML
    [stored] = await invitations_of(app, household.id)
    assert stored.token_hash == hash_token(token) != token


@pytest.mark.settings(frontend_url="https://warranty.example/app/")
async def test_the_link_is_on_the_configured_frontend(app: FastAPI, inbox: Inbox) -> None:
    owner = await create_user(app)
    invitation = await _invitation(app, await create_household(app, owner), owner)

    await _handler(app)({"invitationId": invitation.id})

    [email] = inbox.to("bob@example.com")
    text = email.get_body(("plain",))
    assert text is not None
    assert "\nhttps://warranty.example/app/invitations/" in text.get_content()
    assert not LINK.search(text.get_content())  # not the default frontend


async def test_an_inviter_who_left_is_a_member(app: FastAPI) -> None:
    owner = await create_user(app)
    invitation = await _invitation(app, await create_household(app, owner, name="Home"), None)

    async with app.state.sessionmaker() as session, session.begin():
        email = await invitation_email(session, invitation.id, app.state.settings)

    assert email.to == "bob@example.com" and 'A member invited you to the household "Home"' in email.text


async def test_nothing_is_sent_for_a_withdrawn_invitation_or_a_deleted_household(
    app: FastAPI, inbox: Inbox
) -> None:
    owner = await create_user(app)
    household = await create_household(app, owner)
    withdrawn = await _invitation(app, household, owner)
    of_deleted = await _invitation(app, await create_household(app, owner), owner, email="carl@example.com")
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(delete(HouseholdInvitation).where(HouseholdInvitation.id == withdrawn.id))
        await session.execute(delete(Household).where(Household.id == of_deleted.household_id))

    for invitation in (withdrawn, of_deleted):
        with pytest.raises(Skipped, match="accepted or withdrawn"):
            await _handler(app)({"invitationId": invitation.id})

    assert inbox.messages == []


async def test_nothing_is_sent_for_an_expired_invitation_and_no_token_is_minted(
    app: FastAPI, inbox: Inbox
) -> None:
    owner = await create_user(app)
    household = await create_household(app, owner)
    invitation = await _invitation(app, household, owner, expires_in=timedelta(seconds=-1))

    with pytest.raises(Skipped, match="expired"):
        await _handler(app)({"invitationId": invitation.id})

    assert inbox.messages == []
    [stored] = await invitations_of(app, household.id)
    assert stored.token_hash == invitation.token_hash  # still the placeholder


async def test_a_retried_email_carries_a_new_token_and_the_older_one_stops_working(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox
) -> None:
    owner, bob = await create_user(app), await create_user(app, email="bob@example.com")
    household_id = await create_household_over_http(app, client, owner)
    invitation = (await invite(app, client, owner, household_id, "bob@example.com")).json()
    # The handler run twice, as after a send the worker could not see succeed.
    handle = _handler(app)
    for _ in range(2):
        await handle({"invitationId": invitation["id"]})

    first, second = tokens_sent_to(inbox, "bob@example.com")

    assert first != second
    assert_error(await accept(app, client, bob, first), 404, "NOT_FOUND")
    assert (await accept(app, client, bob, second)).status_code == 200


async def test_the_token_is_never_logged(
    app: FastAPI,
    client: httpx.AsyncClient,
    worker: OutboxWorker,
    inbox: Inbox,
    caplog: pytest.LogCaptureFixture,
) -> None:
    owner, bob = await create_user(app), await create_user(app, email="bob@example.com")
    household_id = await create_household_over_http(app, client, owner)
    caplog.set_level(logging.DEBUG)

    token = await invited_token(app, client, worker, inbox, owner, household_id, "bob@example.com")
    assert (await accept(app, client, bob, token)).status_code == 200

    service_records = [
        record for record in caplog.records if record.name != "mail.log"
    ]  # not the test server
    assert service_records and all(token not in record.getMessage() for record in service_records)
