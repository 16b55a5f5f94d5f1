"""What several auth test modules share: signing in through the API, and hooks inside the app's password
hasher."""

from __future__ import annotations

import threading
from typing import Any

import httpx
from fastapi import FastAPI
from pwdlib import PasswordHash

from tests.factories.users import DEFAULT_PASSWORD

WRONG_PASSWORD = "wrong password"


async def login(client: httpx.AsyncClient, email: str, password: str = DEFAULT_PASSWORD) -> httpx.Response:
    return await client.post("/api/login", json={"email": email, "password": password})


class HasherHook:
    """Put in place of the app's pwdlib hasher: `around` runs before each verification (in the worker
    thread)."""

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


class Gate(HasherHook):
    """Verifications wait, inside the hasher, until released."""

    def __init__(self, app: FastAPI) -> None:
        super().__init__(app)
        self.entered, self.released = threading.Event(), threading.Event()

    def around(self) -> None:
        self.entered.set()
        self.released.wait(10)
