"""A claim's timeline (contract 15.4): what `GET /api/claims/{id}/timeline` shows after real changes
through the API, the outbox worker and the inbound email webhook."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import ClaimEvent
from app.worker_assembly import build_worker
from tests.factories.claims import create_claim
from tests.factories.inbound import RAW_INBOUND_SECRET, claim_address, generic, post_standard
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, count_queries, wait_for

pytestmark = pytest.mark.settings(inbound_secret=RAW_INBOUND_SECRET)


async def _timeline(
    client: httpx.AsyncClient, claim_id: int, headers: dict[str, str], query: str = ""
) -> Any:
    response = await client.get(f"/api/claims/{claim_id}/timeline{query}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def _story(app: FastAPI, client: httpx.AsyncClient) -> dict[str, Any]:
    """A claim lived through the API: opened, assigned, worked on, talked about, resolved and closed."""
    customer = await create_user(app, name="Ann", email="ann@example.com")
    supplier = await create_supplier(app, name="Sam", email="sam@example.com")
    admin = await create_admin(app, name="Ada")
    product = await create_product(app, customer)
    ann, sam, ada = (auth_headers(app, user) for user in (customer, supplier, admin))

    async def ok(method: str, path: str, headers: dict[str, str], **body: Any) -> Any:
        response = await client.request(method, path, json=body or None, headers=headers)
        assert response.status_code in (200, 201), response.text
        return response.json()

    claim = await ok("POST", "/api/claims", ann, productId=product.id, description="Broken hinge")
    path = f"/api/claims/{claim['id']}"
    await ok("PUT", f"{path}/supplier", ada, supplierId=supplier.id)
    await ok("POST", f"{path}/status", sam, status="in_progress")
    message = await ok("POST", f"/api/claims/{claim['id']}/messages", sam, message="Secret words")
    await ok("POST", f"{path}/status", sam, status="resolved")
    await ok("POST", f"{path}/close", ann)
    await ok("PUT", f"{path}/supplier", ada, supplierId=None)
    return {
        "claim": claim["id"], "message": int(message["id"]), "customer": customer, "supplier": supplier,
        "admin": admin, "headers": (ann, sam, ada),
    }  # fmt: skip


async def test_every_change_shows_in_order_with_its_actor_and_time(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    story = await _story(app, client)
    customer, supplier, admin = story["customer"], story["supplier"], story["admin"]
    ann = {"id": customer.id, "name": "Ann", "role": "customer"}
    sam = {"id": supplier.id, "name": "Sam", "role": "supplier"}
    ada = {"id": admin.id, "name": "Ada", "role": "admin"}

    entries = await _timeline(client, story["claim"], story["headers"][0])

    assert [(e["type"], e["actor"], e["data"]) for e in entries] == [
        ("claim.created", ann, {"status": "open"}),
        ("supplier.assigned", ada, {"supplierId": supplier.id, "previousSupplierId": None}),
        ("status.changed", sam, {"from": "open", "to": "in_progress"}),
        ("message.posted", sam, {"messageId": story["message"], "senderId": supplier.id}),
        ("status.changed", sam, {"from": "in_progress", "to": "resolved"}),
        ("status.changed", ann, {"from": "resolved", "to": "closed"}),
        ("supplier.unassigned", ada, {"supplierId": supplier.id}),
    ]
    ids = [e["id"] for e in entries]
    assert ids == sorted(ids)
    times = [e["createdAt"] for e in entries]
    assert times == sorted(times) and all(t.endswith("+00:00") for t in times)
    assert "Secret words" not in str(entries)


async def test_the_worker_records_each_notification_it_sent_or_failed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    story = await _story(app, client)
    worker = build_worker(
        app.state.settings, app.state.sessionmaker, app.state.storage
    )  # .eml files, push log
    await worker.run_until_idle()

    entries = await _timeline(client, story["claim"], story["headers"][2])
    sent = [e for e in entries if e["type"] == "notification.sent"]

    assert sent and all(e["actor"] is None for e in sent)
    customer_id = story["customer"].id
    # The customer heard of the supplier's message and of each status change the supplier made.
    to_customer = sorted(
        (e["data"]["channel"], e["data"]["notification"])
        for e in sent
        if e["data"]["recipientId"] == customer_id
    )
    assert to_customer == sorted(
        [("email", "claim_message"), ("push", "claim_message")]
        + [("email", "claim_status"), ("push", "claim_status")] * 2
    )
    assert all(set(e["data"]) == {"channel", "notification", "recipientId", "outboxId"} for e in sent)
    assert [e["type"] for e in entries[:7]][
        -1
    ] == "supplier.unassigned"  # recorded when sent, after the changes


@pytest.mark.settings(
    smtp_url="smtp://127.0.0.1:9",
    outbox_retry_hours=0.0001,
    outbox_backoff_base=0.01,
    inbound_secret=RAW_INBOUND_SECRET,
)
async def test_an_email_that_could_not_be_sent_shows_as_failed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer = await create_user(app)
    supplier = await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    response = await client.post(
        f"/api/claims/{claim.id}/messages", json={"message": "Hi"}, headers=auth_headers(app, supplier)
    )
    assert response.status_code == 201
    worker = build_worker(app.state.settings, app.state.sessionmaker, app.state.storage)

    async def failed_entries() -> list[Any]:
        await worker.run_until_idle()  # retried with backoff until its (short) retry window is over
        entries = await _timeline(client, claim.id, auth_headers(app, customer))
        return [e for e in entries if e["type"] == "notification.failed"]

    failed = await wait_for(failed_entries)
    entries = await _timeline(client, claim.id, auth_headers(app, customer))

    assert [(e["data"]["channel"], e["data"]["recipientId"]) for e in failed] == [("email", customer.id)]
    assert failed[0]["data"]["error"] in ("ConnectionRefusedError", "SMTPConnectError", "OSError")
    assert [e["data"]["channel"] for e in entries if e["type"] == "notification.sent"] == ["push"]


async def test_inbound_emails_show_as_accepted_or_ignored_with_the_reason(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    customer = await create_user(app, email="ann@example.com", name="Ann")
    supplier = await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    to = claim_address(claim.id)

    accepted = await post_standard(client, generic("ann@example.com", to, text="It rattles."))
    auto = await post_standard(
        client, generic("ann@example.com", to, headers={"Auto-Submitted": "auto-replied"})
    )
    empty = await post_standard(client, generic("ann@example.com", to, text="> only a quote\n"))
    assert [r.json()["status"] for r in (accepted, auto, empty)] == ["processed", "ignored", "ignored"]

    entries = await _timeline(client, claim.id, auth_headers(app, customer))

    ann = {"id": customer.id, "name": "Ann", "role": "customer"}
    message_id = int(accepted.json()["messageId"])
    assert [(e["type"], e["actor"], e["data"]) for e in entries] == [
        ("message.posted", ann, {"messageId": message_id, "senderId": customer.id}),
        ("inbound.accepted", ann, {"messageId": message_id, "sender": "ann@example.com"}),
        ("inbound.ignored", None, {"reason": "automated", "sender": "ann@example.com"}),
        ("inbound.ignored", ann, {"reason": "empty_reply", "sender": "ann@example.com"}),
    ]


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
        await _timeline(client, claim.id, ann, "?limit=2")
    await post(25)
    with count_queries(app) as many:
        page = await _timeline(client, claim.id, ann, "?limit=20")
    assert len(many) == len(few)

    everything = await _timeline(client, claim.id, ann)
    assert len(everything) == 28
    assert [e["id"] for e in page["data"]] == [e["id"] for e in everything[:20]]
    assert page["meta"]["total"] == 28 and page["meta"]["last_page"] == 2
    second = await _timeline(client, claim.id, ann, f"?limit=20&cursor={page['meta']['next_cursor']}")
    assert [e["id"] for e in second["data"]] == [e["id"] for e in everything[20:]]
    assert second["meta"]["next_cursor"] is None
    by_page = await _timeline(client, claim.id, ann, "?page=2&limit=20")
    assert by_page["data"] == second["data"]
    assert_error(
        await client.get(f"/api/claims/{claim.id}/timeline?limit=101", headers=ann),
        400,
        "VALIDATION_LIMIT_EXCEEDED",
    )


async def test_the_timeline_goes_with_its_claim_and_outlives_its_actors(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    story = await _story(app, client)
    ann, sam, _ada = story["headers"]
    assert (await client.delete("/api/me", headers=sam)).status_code == 204

    entries = await _timeline(client, story["claim"], ann)

    assert entries[2]["actor"] == {"id": None, "name": "Deleted user", "role": "supplier"}
    product_id = (await client.get(f"/api/claims/{story['claim']}", headers=ann)).json()["productId"]
    assert (await client.delete(f"/api/products/{product_id}", headers=ann)).status_code == 204
    async with app.state.sessionmaker() as session:
        assert await session.scalar(select(func.count(ClaimEvent.id))) == 0
