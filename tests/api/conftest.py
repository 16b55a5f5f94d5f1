"""Fixtures of the API tests: the OpenAPI document as a client reads it."""

from __future__ import annotations

import httpx
import pytest

from tests.api.support import Document


@pytest.fixture
async def spec(client: httpx.AsyncClient) -> Document:
    document: Document = (await client.get("/api/openapi.json")).json()
    return document
