"""A claim's search text: written with the claim through the API, and following its product's name, so the
queue's `q` finds claims by the name the product has now."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim
from tests.claims.routed import routed_claim
from tests.factories.users import auth_headers


async def _stored(app: FastAPI, claim_id: int) -> str:
    async with app.state.sessionmaker() as session:
        return (await session.scalars(select(Claim.search_text).where(Claim.id == claim_id))).one()


async def _found(app: FastAPI, client: httpx.AsyncClient, routed: object, q: str) -> list[int]:
    answer = await client.get(
        f"/api/organizations/{routed.organization.id}/claims",  # type: ignore[attr-defined]
        params={"q": q, "limit": 10},
        headers=auth_headers(app, routed.agent),  # type: ignore[attr-defined]
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["meta"]["total"] == len(answer.json()["data"])
    return [item["id"] for item in answer.json()["data"]]


async def test_a_new_claim_stores_its_product_name_and_description(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    routed = await routed_claim(app, client)
    assert await _stored(app, routed.claim_id) == "washer\nthe drum does not turn."
    assert await _found(app, client, routed, "WASHER") == [routed.claim_id]
    assert await _found(app, client, routed, "drum does") == [routed.claim_id]


async def test_a_renamed_product_is_found_by_its_new_name_only(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    routed = await routed_claim(app, client)
    renamed = await client.patch(
        f"/api/products/{routed.product.id}",
        json={"name": "Dryer Deluxe"},
        headers=auth_headers(app, routed.customer),
    )
    assert renamed.status_code == 200, renamed.text
    assert await _stored(app, routed.claim_id) == "dryer deluxe\nthe drum does not turn."
    assert await _found(app, client, routed, "deluxe") == [routed.claim_id]
    assert await _found(app, client, routed, "washer") == []
    assert await _found(app, client, routed, "drum") == [routed.claim_id]


async def test_the_name_and_the_description_do_not_run_together(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    routed = await routed_claim(app, client)
    assert await _found(app, client, routed, "washerthe") == []
    assert await _found(app, client, routed, "washer the") == []
