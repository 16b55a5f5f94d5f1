"""`claim.status_changed` carries the claim's outcome and warranty extension, and a reopen's takes them
back (contract 15.5)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.outcomes import extension_from_today, resolved_cast
from tests.factories.users import auth_headers
from tests.factories.webhooks import register, verified, webhook_worker
from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.settings(webhook_allow_private=True)


async def test_the_status_change_carries_the_outcome(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/hooks"), events=["claim.status_changed"])
    cast = await resolved_cast(app, client)
    reopened = await client.post(
        f"/api/claims/{cast.claim.id}/status",
        json={"status": "in_progress"},
        headers=auth_headers(app, cast.customer),
    )
    assert reopened.status_code == 200, reopened.text

    await webhook_worker(app).run_until_idle()

    events = [verified(endpoint["secret"], item)["data"] for item in receiver.at("/hooks")]
    by_status = {event["claim"]["status"]: event for event in events}
    resolved, again = by_status["resolved"]["claim"], by_status["in_progress"]["claim"]
    assert (resolved["outcome"], resolved["outcomeNote"]) == ("replaced", "A new <pump> & seal.")
    assert resolved["warrantyExtension"] == extension_from_today()
    assert (again["outcome"], again["outcomeNote"], again["warrantyExtension"]) == (None, None, None)
    assert by_status["in_progress"]["previousStatus"] == "resolved"
