"""A resolution's timeline entry carries its outcome (contract 15.4, 15.5)."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.factories.outcomes import extension_from_today, resolved_cast
from tests.factories.users import auth_headers


async def test_the_resolution_entry_carries_the_outcome(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await resolved_cast(app, client)

    response = await client.get(
        f"/api/claims/{cast.claim.id}/timeline", headers=auth_headers(app, cast.customer)
    )

    assert response.status_code == 200, response.text
    [resolved] = [entry for entry in response.json() if entry["type"] == "status.changed"]
    assert resolved["data"] == {
        "from": "in_progress",
        "to": "resolved",
        "outcome": "replaced",
        "outcomeNote": "A new <pump> & seal.",
        "warrantyExtension": extension_from_today(),
    }
