"""The message lists and the claim detail run a fixed number of queries whatever the claim's length (page
cache off, so every request computes); the claim lists' are in test_repository.py."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.claims.support import queries_of
from tests.factories.claims import claim_cast, create_message, mark_read_by


@pytest.mark.settings(cache_ttl=0)
@pytest.mark.parametrize(
    "path",
    [
        "/api/claims/{id}/messages",
        "/api/claims/messages/{id}?limit=50",
        "/api/messages?limit=100",
        "/api/claims/{id}",
    ],
)
async def test_message_lists_run_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient, path: str
) -> None:
    cast = await claim_cast(app)
    path = path.format(id=cast.claim.id)
    viewer = cast.admin if path.startswith("/api/messages") else cast.customer

    async def add(count: int) -> None:
        for number in range(count):
            sender = (cast.customer, cast.supplier, cast.admin)[number % 3]
            message = await create_message(app, cast.claim, sender, f"m{number}")
            if number % 2:
                await mark_read_by(app, message, cast.supplier if sender != cast.supplier else cast.customer)

    await add(1)
    one = await queries_of(app, client, path, viewer)
    await add(59)
    sixty = await queries_of(app, client, path, viewer)
    assert one == sixty
