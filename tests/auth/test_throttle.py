"""Throttles (contract 2 and 12.4): 429 RATE_LIMITED with Retry-After, counted in the database before the
request is served, so parallel requests all count."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.clock import frozen_time
from app.models import OutboxItem
from tests.factories.users import DEFAULT_PASSWORD, create_user
from tests.helpers import assert_error


async def _login(client: httpx.AsyncClient, email: str, password: str = "wrong password") -> httpx.Response:
    return await client.post("/api/login", json={"email": email, "password": password})


@pytest.fixture
async def other_client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A second caller, from another address."""
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False, client=("198.51.100.7", 4711))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as test_client:
        yield test_client


async def test_twenty_parallel_guesses_at_one_email_let_five_through(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await create_user(app, email="ann@example.com")

    answers = await asyncio.gather(*(_login(client, "ann@example.com") for _ in range(20)))

    statuses = sorted(response.status_code for response in answers)
    assert statuses == [401] * 5 + [429] * 15
    for response in answers:
        if response.status_code == 429:
            assert_error(response, 429, "RATE_LIMITED")
            assert 290 <= int(response.headers["retry-after"]) <= 300
    assert_error(await _login(client, "ann@example.com", DEFAULT_PASSWORD), 429, "RATE_LIMITED")


@pytest.mark.settings(login_max_failures_per_client=20, login_max_failures_per_email=100)
async def test_twenty_parallel_guesses_from_one_address_count_twenty(
    app: FastAPI, client: httpx.AsyncClient, other_client: httpx.AsyncClient
) -> None:
    await create_user(app, email="ann@example.com")

    answers = await asyncio.gather(*(_login(client, f"guess{n}@example.com") for n in range(20)))

    assert [response.status_code for response in answers] == [401] * 20
    assert_error(await _login(client, "ann@example.com", DEFAULT_PASSWORD), 429, "RATE_LIMITED")
    assert (await _login(other_client, "ann@example.com", DEFAULT_PASSWORD)).status_code == 200


@pytest.mark.settings(login_max_failures_per_client=20)
async def test_twenty_parallel_guesses_at_one_email_count_twenty_for_the_address(
    app: FastAPI, client: httpx.AsyncClient, other_client: httpx.AsyncClient
) -> None:
    """Five are answered 401 and fifteen 429 (the email's limit): every one of them counts against the
    address, which is then at its limit for every other account too."""
    await create_user(app, email="ann@example.com")
    await create_user(app, email="bob@example.com")

    answers = await asyncio.gather(*(_login(client, "ann@example.com") for _ in range(20)))

    assert sorted(response.status_code for response in answers) == [401] * 5 + [429] * 15
    refused = await _login(client, "bob@example.com", DEFAULT_PASSWORD)
    assert_error(refused, 429, "RATE_LIMITED")
    assert 290 <= int(refused.headers["retry-after"]) <= 300
    assert (await _login(other_client, "bob@example.com", DEFAULT_PASSWORD)).status_code == 200


@pytest.mark.settings(login_max_failures_per_client=3, login_max_failures_per_email=100)
async def test_an_address_that_keeps_guessing_past_its_limit_stays_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Refused attempts count too (the address's limit slides with them), and Retry-After says when the
    address may try again."""
    await create_user(app, email="ann@example.com")
    started = datetime.now(UTC)
    for number in range(3):
        assert (await _login(client, f"guess{number}@example.com")).status_code == 401
    with frozen_time(started + timedelta(seconds=200)):
        refused = [await _login(client, f"guess{number}@example.com") for number in range(3)]
    assert [response.status_code for response in refused] == [429] * 3
    assert 299 <= int(refused[-1].headers["retry-after"]) <= 300  # three guesses at 200 s now fill it

    with frozen_time(started + timedelta(seconds=301)):
        still = await _login(client, "ann@example.com", DEFAULT_PASSWORD)
    assert_error(still, 429, "RATE_LIMITED")
    assert 198 <= int(still.headers["retry-after"]) <= 200
    with frozen_time(started + timedelta(seconds=502)):
        assert (await _login(client, "ann@example.com", DEFAULT_PASSWORD)).status_code == 200


@pytest.mark.settings(login_max_failures_per_client=3)
async def test_sign_ins_are_no_failures(app: FastAPI, client: httpx.AsyncClient) -> None:
    """Many people behind one address signing in is no attack: only failures count against it, and a
    sign-in starts that email's count over."""
    await create_user(app, email="ann@example.com")
    for _ in range(2):
        assert (await _login(client, "ann@example.com")).status_code == 401
        assert (await _login(client, "ann@example.com", DEFAULT_PASSWORD)).status_code == 200
    for _ in range(5):
        assert (await _login(client, "ann@example.com", DEFAULT_PASSWORD)).status_code == 200

    assert (await _login(client, "ann@example.com")).status_code == 401


async def _outbox_rows(sessionmaker: async_sessionmaker[AsyncSession]) -> int:
    async with sessionmaker() as session:
        return await session.scalar(select(func.count()).select_from(OutboxItem)) or 0


async def test_password_forgot_takes_five_requests_per_address_per_quarter_hour(
    client: httpx.AsyncClient,
    other_client: httpx.AsyncClient,
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    async def forgot(caller: httpx.AsyncClient, number: int) -> httpx.Response:
        return await caller.post("/api/password/forgot", json={"email": f"someone{number}@example.com"})

    statuses = [(await forgot(client, number)).status_code for number in range(5)]
    refused = await forgot(client, 5)

    assert statuses == [202] * 5
    assert_error(refused, 429, "RATE_LIMITED")
    assert 890 <= int(refused.headers["retry-after"]) <= 900
    assert await _outbox_rows(sessionmaker) == 5  # the refused request wrote nothing
    assert (await forgot(other_client, 6)).status_code == 202
    with frozen_time(datetime.now(UTC) + timedelta(seconds=901)):
        assert (await forgot(client, 7)).status_code == 202


async def test_register_takes_ten_per_address_per_hour(
    client: httpx.AsyncClient, other_client: httpx.AsyncClient
) -> None:
    async def register(caller: httpx.AsyncClient, number: int) -> httpx.Response:
        body = {"email": f"new{number}@example.com", "password": "long enough", "name": "N"}
        return await caller.post("/api/register", json=body)

    statuses = [(await register(client, number)).status_code for number in range(9)]
    taken = await register(client, 0)  # answered 409, and counted all the same
    refused = await register(client, 10)

    assert statuses == [201] * 9
    assert_error(taken, 409, "EMAIL_TAKEN")
    assert_error(refused, 429, "RATE_LIMITED")
    assert 3590 <= int(refused.headers["retry-after"]) <= 3600
    assert (await register(other_client, 10)).status_code == 201
