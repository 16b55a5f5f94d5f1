"""A claim's timeline (contract 15.4) as `GET /api/claims/{id}/timeline` shows it (app/timeline/router.py):
every change in order with its actor and time, to whoever may see the claim, paged, outliving its actors."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import ClaimEvent
from tests.factories.claims import create_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, count_queries
from tests.timeline.support import story, timeline


async def test_every_change_shows_in_order_with_its_actor_and_time(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    lived = await story(app, client)
    customer, supplier, admin = lived["customer"], lived["supplier"], lived["admin"]
    ann = {"id": customer.id, "name": "Ann", "role": "customer"}
    sam = {"id": supplier.id, "name": "Sam", "role": "supplier"}
    ada = {"id": admin.id, "name": "Ada", "role": "admin"}

    entries = await timeline(client, lived["claim"], lived["headers"][0])

    assert [(e["type"], e["actor"], e["data"]) for e in entries] == [
        ("claim.created", ann, {"status": "open"}),
        ("supplier.assigned", ada, {"supplierId": supplier.id, "previousSupplierId": None}),
        ("status.changed", sam, {"from": "open", "to": "in_progress"}),
        ("message.posted", sam, {"messageId": lived["message"], "senderId": supplier.id}),
        ("status.changed", sam, {"from": "in_progress", "to": "resolved"}),
        ("status.changed", ann, {"from": "resolved", "to": "closed"}),
        ("supplier.unassigned", ada, {"supplierId": supplier.id}),
    ]
    ids = [e["id"] for e in entries]
    assert ids == sorted(ids)
    times = [e["createdAt"] for e in entries]
    assert times == sorted(times) and all(t.endswith("+00:00") for t in times)
    assert "Secret words" not in str(entries)


async def test_only_who_may_see_the_claim_sees_its_timeline(app: FastAPI, client: httpx.AsyncClient) -> None:
    customer, supplier, other_supplier = (
        await create_user(app),
        await create_supplier(app),
        await create_supplier(app),
    )
    stranger, admin = await create_user(app), await create_admin(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)

    for user in (customer, supplier, admin):
        assert (
            await client.get(f"/api/claims/{claim.id}/timeline", headers=auth_headers(app, user))
        ).status_code == 200
    for user in (stranger, other_supplier):
        response = await client.get(f"/api/claims/{claim.id}/timeline", headers=auth_headers(app, user))
        assert_error(response, 404, "NOT_FOUND")
    assert_error(await client.get(f"/api/claims/{claim.id}/timeline"), 401, "AUTH_REQUIRED")
    assert_error(
        await client.get("/api/claims/999999/timeline", headers=auth_headers(app, admin)), 404, "NOT_FOUND"
    )


async def test_paged_by_page_or_cursor_in_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer, supplier = await create_user(app), await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    sam = auth_headers(app, supplier)
    ann = auth_headers(app, customer)

    async def post(n: int) -> None:
        for i in range(n):
            response = await client.post(
                f"/api/claims/{claim.id}/messages", json={"message": f"m{i}"}, headers=sam
            )
            assert response.status_code == 201

    await post(3)
    with count_queries(app) as few:
        await timeline(client, claim.id, ann, "?limit=2")
    await post(25)
    with count_queries(app) as many:
        page = await timeline(client, claim.id, ann, "?limit=20")
    assert len(many) == len(few)

    everything = await timeline(client, claim.id, ann)
    assert len(everything) == 28
    assert [e["id"] for e in page["data"]] == [e["id"] for e in everything[:20]]
    assert page["meta"]["total"] == 28 and page["meta"]["last_page"] == 2
    second = await timeline(client, claim.id, ann, f"?limit=20&cursor={page['meta']['next_cursor']}")
    assert [e["id"] for e in second["data"]] == [e["id"] for e in everything[20:]]
    assert second["meta"]["next_cursor"] is None
    by_page = await timeline(client, claim.id, ann, "?page=2&limit=20")
    assert by_page["data"] == second["data"]
    assert_error(
        await client.get(f"/api/claims/{claim.id}/timeline?limit=101", headers=ann),
        400,
        "VALIDATION_LIMIT_EXCEEDED",
    )


async def test_the_timeline_goes_with_its_claim_and_outlives_its_actors(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    lived = await story(app, client)
    ann, sam, _ada = lived["headers"]
    assert (await client.delete("/api/me", headers=sam)).status_code == 204

    entries = await timeline(client, lived["claim"], ann)

    assert entries[2]["actor"] == {"id": None, "name": "Deleted user", "role": "supplier"}
    product_id = (await client.get(f"/api/claims/{lived['claim']}", headers=ann)).json()["productId"]
    assert (await client.delete(f"/api/products/{product_id}", headers=ann)).status_code == 204
    async with app.state.sessionmaker() as session:
        assert await session.scalar(select(func.count(ClaimEvent.id))) == 0
