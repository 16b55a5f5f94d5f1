"""What the households tests do again and again: a household made over HTTP, members put in directly (the
invitation flow has tests of its own), and an invitation's link read from the email that arrived."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select, update

from app.core.clock import utc_now
from app.models import HouseholdInvitation, HouseholdMember, User
from app.models.enums import HouseholdRole
from app.outbox.worker import OutboxWorker
from tests.factories.users import auth_headers
from tests.support.smtp import Inbox

LINK = re.compile(r"http://localhost:3000/invitations/([A-Za-z0-9_-]+)")


async def create_household(app: FastAPI, client: httpx.AsyncClient, owner: User, name: str = "Home") -> int:
    response = await client.post("/api/households", json={"name": name}, headers=auth_headers(app, owner))
    assert response.status_code == 201, response.text
    household_id: int = response.json()["id"]
    return household_id


async def add_member(app: FastAPI, household_id: int, user: User, role: str = "member") -> None:
    async with app.state.sessionmaker() as session, session.begin():
        session.add(
            HouseholdMember(
                household_id=household_id, user_id=user.id, role=HouseholdRole(role), joined_at=utc_now()
            )
        )


async def invite(
    app: FastAPI, client: httpx.AsyncClient, owner: User, household_id: int, email: str, role: str = "member"
) -> httpx.Response:
    return await client.post(
        f"/api/households/{household_id}/invitations",
        json={"email": email, "role": role},
        headers=auth_headers(app, owner),
    )


def tokens_sent_to(inbox: Inbox, email: str) -> list[str]:
    """The tokens of the invitation links that arrived at `email`, oldest first (text and HTML agree)."""
    found = []
    for message in inbox.to(email):
        text, html = message.get_body(("plain",)), message.get_body(("html",))
        assert text is not None and html is not None
        [token] = LINK.findall(text.get_content())
        assert LINK.findall(html.get_content()) == [token]
        found.append(token)
    return found


async def invited_token(
    app: FastAPI,
    client: httpx.AsyncClient,
    worker: OutboxWorker,
    inbox: Inbox,
    owner: User,
    household_id: int,
    email: str,
    role: str = "member",
) -> str:
    """Invites `email`, lets the worker send the email, and answers the token of its link."""
    response = await invite(app, client, owner, household_id, email, role)
    assert response.status_code == 201, response.text
    await worker.run_until_idle()
    return tokens_sent_to(inbox, email.lower())[-1]


async def accept(app: FastAPI, client: httpx.AsyncClient, user: User, token: str) -> httpx.Response:
    return await client.post(f"/api/invitations/{token}/accept", headers=auth_headers(app, user))


async def get(app: FastAPI, client: httpx.AsyncClient, user: User, path: str) -> httpx.Response:
    return await client.get(path, headers=auth_headers(app, user))


async def invitations_of(app: FastAPI, household_id: int) -> list[HouseholdInvitation]:
    async with app.state.sessionmaker() as session:
        statement = select(HouseholdInvitation).where(HouseholdInvitation.household_id == household_id)
        return list(await session.scalars(statement.order_by(HouseholdInvitation.id)))


async def set_expiry(app: FastAPI, email: str, expires_at: datetime) -> None:
    """Moves the invitations of `email` to expire at `expires_at` (access tokens follow the real clock, so
    the test moves the invitation rather than the time)."""
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(HouseholdInvitation)
            .where(HouseholdInvitation.email == email)
            .values(expires_at=expires_at)
        )


def roles(body: dict[str, Any]) -> dict[int, str]:
    """A household's members as {userId: role}."""
    return {member["userId"]: member["role"] for member in body["members"]}
