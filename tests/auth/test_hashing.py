"""Password hashing is bounded work (contract 12.5): a login holds no write lock while it hashes, at most
WARRANTY_HASH_CONCURRENCY hashes run at once, and hashes with other parameters are renewed on sign-in."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.models import User
from tests.factories.users import DEFAULT_PASSWORD, auth_headers, create_user


async def _login(client: httpx.AsyncClient, email: str, password: str = "wrong password") -> httpx.Response:
    return await client.post("/api/login", json={"email": email, "password": password})


class _Wrapped:
    """The app's pwdlib hasher, with a hook around each verification (run in the worker thread)."""

    def __init__(self, app: FastAPI) -> None:
        self.inner: PasswordHash = app.state.password_hasher._hash
        app.state.password_hasher._hash = self

    def hash(self, password: str) -> str:
        return self.inner.hash(password)

    def verify(self, password: str, hashed: str) -> bool:
        self.around()
        return self.inner.verify(password, hashed)

    def verify_and_update(self, password: str, hashed: str) -> Any:
        self.around()
        return self.inner.verify_and_update(password, hashed)

    def around(self) -> None:
        raise NotImplementedError


class _Gate(_Wrapped):
    """Verifications wait, inside the hasher, until released."""

    def __init__(self, app: FastAPI) -> None:
        super().__init__(app)
        self.entered, self.released = threading.Event(), threading.Event()

    def around(self) -> None:
        self.entered.set()
        self.released.wait(10)


class _Counter(_Wrapped):
    """Counts how many verifications run at the same time."""

    def __init__(self, app: FastAPI) -> None:
        super().__init__(app)
        self.lock, self.running, self.most = threading.Lock(), 0, 0

    def around(self) -> None:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.2)
        with self.lock:
            self.running -= 1


async def test_a_patch_goes_through_while_eight_failed_logins_hash(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    user = await create_user(app, email="ann@example.com")
    gate = _Gate(app)
    logins = [asyncio.create_task(_login(client, "ann@example.com")) for _ in range(8)]
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


@pytest.mark.settings(hash_concurrency=2, login_max_failures_per_client=100)
async def test_at_most_hash_concurrency_hashes_run_at_once(app: FastAPI, client: httpx.AsyncClient) -> None:
    counter = _Counter(app)

    answers = await asyncio.gather(*(_login(client, f"guess{n}@example.com") for n in range(6)))

    assert [response.status_code for response in answers] == [401] * 6  # all answered, in turn
    assert counter.most == 2


def test_two_hashes_at_once_by_default(make_settings: Any) -> None:
    assert make_settings().hash_concurrency == 2


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

    assert (await _login(client, "ann@example.com")).status_code == 401
    assert await _stored_hash(sessionmaker, user.id) == older  # a failed login changes nothing
    assert (await _login(client, "ann@example.com", DEFAULT_PASSWORD)).status_code == 200

    renewed = await _stored_hash(sessionmaker, user.id)
    assert renewed.startswith("$argon2id$") and "$m=1024,t=1,p=1$" in renewed  # the test settings' cost
    assert (await _login(client, "ann@example.com", DEFAULT_PASSWORD)).status_code == 200
    assert await _stored_hash(sessionmaker, user.id) == renewed  # current parameters: left as they are
