"""Password hashing is bounded work (contract 12.5): at most WARRANTY_HASH_CONCURRENCY hashes run at once
(two by default). That a login holds no write lock while it hashes, and renews a hash with other
parameters, is in test_service.py."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.auth.support import WRONG_PASSWORD, HasherHook, login


class _Counter(HasherHook):
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


@pytest.mark.settings(hash_concurrency=2, login_max_failures_per_client=100)
async def test_at_most_hash_concurrency_hashes_run_at_once(app: FastAPI, client: httpx.AsyncClient) -> None:
    counter = _Counter(app)

    answers = await asyncio.gather(
        *(login(client, f"guess{n}@example.com", WRONG_PASSWORD) for n in range(6))
    )

    assert [response.status_code for response in answers] == [401] * 6  # all answered, in turn
    assert counter.most == 2


def test_two_hashes_at_once_by_default(make_settings: Any) -> None:
    assert make_settings().hash_concurrency == 2
