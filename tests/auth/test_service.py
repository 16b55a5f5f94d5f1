"""Sign-in, registration and password changes (app/auth/service.py): a wrong password and an unknown email
answer alike, a login hashes with no transaction open and renews an old hash, registration can be closed,
a password change ends the other sign-ins, a reset link is spent once, and a reset request only queues
its email."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.auth import service
from app.auth.throttle import Throttle
from app.auth.tokens import RefreshTokenRepository
from app.core.clock import frozen_time, utc_now
from app.core.security import hash_token
from app.errors import ValidationFailed
from app.models import OutboxItem, PasswordResetToken, User
from app.users.repository import UserRepository
from tests.auth.support import WRONG_PASSWORD, Gate, login
from tests.factories.users import DEFAULT_PASSWORD, auth_headers, create_user
from tests.helpers import assert_error

# Signing in


async def test_wrong_password_and_unknown_email_get_the_same_answer(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await create_user(app, email="ann@example.com")

    wrong = await login(client, "ann@example.com", "not the password")
    unknown = await login(client, "nobody@example.com")

    for response in (wrong, unknown):
        assert_error(response, 401, "AUTH_INVALID_CREDENTIALS")
        assert response.headers["www-authenticate"] == "Bearer"
    assert wrong.json() == unknown.json()


async def test_a_patch_goes_through_while_eight_failed_logins_hash(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app, email="ann@example.com")
    gate = Gate(app)
    logins = [asyncio.create_task(login(client, "ann@example.com", WRONG_PASSWORD)) for _ in range(8)]
    await asyncio.to_thread(gate.entered.wait, 10)  # a login is hashing now

    try:
        patched = await asyncio.wait_for(
            client.patch("/api/me", json={"city": "Paris"}, headers=auth_headers(app, user)), timeout=5
        )
    finally:
        gate.released.set()

    assert patched.status_code == 200 and patched.json()["city"] == "Paris"
    statuses = sorted(response.status_code for response in await asyncio.gather(*logins))
    assert statuses == [401] * 5 + [429] * 3


async def _stored_hash(sessionmaker: async_sessionmaker[AsyncSession], user_id: int) -> str:
    async with sessionmaker() as session:
        return (await session.scalar(select(User.password_hash).where(User.id == user_id))) or ""


async def test_a_hash_with_other_parameters_is_renewed_on_sign_in(
    app: FastAPI, client: httpx.AsyncClient, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    user = await create_user(app, email="ann@example.com")
    older = PasswordHash((Argon2Hasher(time_cost=2, memory_cost=2048, parallelism=2),)).hash(DEFAULT_PASSWORD)
    async with sessionmaker() as session, session.begin():
        await session.execute(update(User).where(User.id == user.id).values(password_hash=older))

    assert (await login(client, "ann@example.com", WRONG_PASSWORD)).status_code == 401
    assert await _stored_hash(sessionmaker, user.id) == older  # a failed login changes nothing
    assert (await login(client, "ann@example.com")).status_code == 200

    renewed = await _stored_hash(sessionmaker, user.id)
    assert renewed.startswith("$argon2id$") and "$m=1024,t=1,p=1$" in renewed  # the test settings' cost
    assert (await login(client, "ann@example.com")).status_code == 200
    assert await _stored_hash(sessionmaker, user.id) == renewed  # current parameters: left as they are


# Registration and passwords


@pytest.mark.settings(allow_registration=False)
async def test_registration_can_be_switched_off(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/register", json={"email": "x@example.com", "password": "long enough", "name": "X"}
    )
    assert_error(response, 403, "FORBIDDEN")


async def test_change_password_ends_other_sign_ins(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")
    here = (await login(client, "ann@example.com")).json()
    elsewhere = (await login(client, "ann@example.com")).json()
    headers = {"Authorization": f"Bearer {here['token']}"}

    wrong = await client.post(
        "/api/me/password",
        json={"currentPassword": "nope nope", "newPassword": "brand new secret"},
        headers=headers,
    )
    assert_error(wrong, 400, "VALIDATION_FAILED")
    response = await client.post(
        "/api/me/password",
        json={"currentPassword": DEFAULT_PASSWORD, "newPassword": "brand new secret"},
        headers=headers,
    )

    assert response.status_code == 204
    assert (
        await client.post("/api/token/refresh", json={"refreshToken": here["refreshToken"]})
    ).status_code == 200
    gone = await client.post("/api/token/refresh", json={"refreshToken": elsewhere["refreshToken"]})
    assert_error(gone, 401, "AUTH_TOKEN_INVALID")
    assert_error(await login(client, "ann@example.com"), 401, "AUTH_INVALID_CREDENTIALS")
    assert (await login(client, "ann@example.com", "brand new secret")).status_code == 200


async def _reset_link(app: FastAPI, user: User, raw: str) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        session.add(
            PasswordResetToken(
                user_id=user.id, token_hash=hash_token(raw), expires_at=utc_now() + timedelta(hours=1)
            )
        )


async def test_a_reset_link_used_twice_at_once_is_spent_once(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """Of two requests spending one link at the same moment, one sets its password; the other is refused."""
    ann = await create_user(app)
    await _reset_link(app, ann, "the-raw-reset-token")
    hasher, settings = app.state.password_hasher, app.state.settings

    async def spend(password: str) -> str:
        async with sessionmaker() as session, session.begin():
            users = UserRepository(session)
            await service.reset_password(
                "the-raw-reset-token",
                password,
                hasher=hasher,
                users=users,
                refresh_tokens=RefreshTokenRepository(session, settings),
            )
        return password

    outcomes = await asyncio.gather(
        spend("first new password"), spend("second new password"), return_exceptions=True
    )

    [winner] = [outcome for outcome in outcomes if isinstance(outcome, str)]
    [refused] = [outcome for outcome in outcomes if isinstance(outcome, ValidationFailed)]
    assert refused.details == {"fields": {"token": "is not valid: it is unknown, expired or already used"}}
    async with sessionmaker() as session:
        stored = await session.get_one(User, ann.id)
        assert await hasher.verify(winner, stored.password_hash)
        assert stored.credential_version == ann.credential_version + 1


@pytest.mark.parametrize("past_its_end", [timedelta(0), timedelta(seconds=1)])
async def test_a_reset_link_at_or_past_its_end_changes_nothing(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession], past_its_end: timedelta
) -> None:
    ann = await create_user(app)
    await _reset_link(app, ann, "expired")
    async with sessionmaker() as session:
        link = await session.scalar(select(PasswordResetToken))
        assert link is not None

        with frozen_time(link.expires_at + past_its_end), pytest.raises(ValidationFailed):
            await service.reset_password(
                "expired",
                "a new password",
                hasher=app.state.password_hasher,
                users=UserRepository(session),
                refresh_tokens=RefreshTokenRepository(session, app.state.settings),
            )
        await session.rollback()
        stored = await session.get_one(User, ann.id)
        assert await app.state.password_hasher.verify(DEFAULT_PASSWORD, stored.password_hash)


async def test_a_reset_request_queues_the_email_of_the_address_as_stored(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    throttle = Throttle(sessionmaker, app.state.settings)
    async with sessionmaker() as session, session.begin():
        await service.forgot_password(session, "  Ann@Example.COM ", "192.0.2.1", throttle=throttle)

    async with sessionmaker() as session:
        queued = [(row.kind, row.payload) for row in await session.scalars(select(OutboxItem))]
    assert queued == [("email.password_reset", {"email": "ann@example.com"})]
