"""A claim resolved through the API with an outcome, and the warranty extension that outcome gives."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from app.core.clock import utc_today
from app.products.warranty import expiry_date
from tests.factories.claims import Cast, claim_cast
from tests.factories.users import auth_headers

REPLACED = {
    "status": "resolved",
    "outcome": "replaced",
    "outcomeNote": "A new <pump> & seal.",
    "newWarrantyMonths": 6,
}


def extension_from_today(months: int = 6) -> dict[str, Any]:
    """The `warrantyExtension` of a claim resolved today with `months`."""
    today = utc_today()
    return {"months": months, "startsOn": today.isoformat(), "endsOn": expiry_date(today, months).isoformat()}


async def resolved_cast(app: FastAPI, client: httpx.AsyncClient, body: dict[str, Any] = REPLACED) -> Cast:
    """A claim cast (customer ann@example.com) whose supplier resolved the claim with `body`."""
    cast = await claim_cast(app, status="in_progress", email="ann@example.com")
    response = await client.post(
        f"/api/claims/{cast.claim.id}/status", json=body, headers=auth_headers(app, cast.supplier)
    )
    assert response.status_code == 200, response.text
    return cast
