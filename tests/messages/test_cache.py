"""Cached pages never go stale: each change shows on the very next request (cache on, the default)."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.factories.claims import claim_cast
from tests.factories.users import auth_headers


async def test_claim_and_message_pages_follow_every_change(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    assert app.state.settings.cache_ttl > 0
    customer, supplier, admin = (auth_headers(app, u) for u in (cast.customer, cast.supplier, cast.admin))
    claim_url = f"/api/claims/{cast.claim.id}"

    async def seen() -> tuple[object, ...]:
        mine = (await client.get("/api/claims", headers=customer)).json()
        theirs = (await client.get("/api/claims?page=1", headers=supplier)).json()["data"]
        every = (await client.get("/api/admin/claims", headers=admin)).json()["data"]
        messages = (await client.get(f"{claim_url}/messages", headers=customer)).json()
        all_messages = (await client.get("/api/messages?unread=true", headers=admin)).json()["data"]
        return (
            [(c["status"], c["messageCount"]) for c in mine],
            [(c["status"], c["messageCount"]) for c in theirs],
            [(c["status"], c["messageCount"]) for c in every],
            [(m["message"], m["isRead"]) for m in messages],
            [m["message"] for m in all_messages],
        )

    assert await seen() == ([("open", 0)], [("open", 0)], [("open", 0)], [], [])

    await client.post(f"{claim_url}/messages", json={"message": "hello"}, headers=customer)
    assert await seen() == ([("open", 1)], [("open", 1)], [("open", 1)], [("hello", False)], ["hello"])

    await client.post(f"{claim_url}/messages/read", headers=supplier)
    assert await seen() == ([("open", 1)], [("open", 1)], [("open", 1)], [("hello", True)], [])

    await client.post(f"{claim_url}/status", json={"status": "in_progress"}, headers=supplier)
    assert await seen() == (
        [("in_progress", 1)],
        [("in_progress", 1)],
        [("in_progress", 1)],
        [("hello", True)],
        [],
    )

    await client.put(f"{claim_url}/supplier", json={"supplierId": cast.other_supplier.id}, headers=admin)
    # The former supplier's read no longer counts as the receipt of a participant.
    assert (await client.get("/api/claims", headers=supplier)).json() == []
    assert [(m["isRead"]) for m in (await client.get(f"{claim_url}/messages", headers=customer)).json()] == [
        False
    ]
    other = (await client.get("/api/claims", headers=auth_headers(app, cast.other_supplier))).json()
    assert [c["id"] for c in other] == [cast.claim.id]
