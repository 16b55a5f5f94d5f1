"""Keyset paging (contract 9): every paged list answers `meta.next_cursor`, and walking a list by cursor
gives what walking it by page numbers gives, filters kept, whatever the ties in its sort order."""

from __future__ import annotations

import base64
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.models import User
from tests.factories.claims import claim_cast, create_claim, create_message, mark_read_by
from tests.factories.notifications import notify_message
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error

BASE = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _at(step: int) -> datetime:
    """Times with ties: every two rows share one."""
    return BASE + timedelta(minutes=step // 2)


async def _world(app: FastAPI) -> dict[str, Any]:
    """Seven products (one owner), claims and messages whose sort keys tie in pairs, outbox rows."""
    cast = await claim_cast(app)
    owner = cast.customer
    brands = ["Acme", "acme", "Bolt", "Acme", "Crux", "bolt", "Acme"]
    for step, brand in enumerate(brands):
        product = await create_product(
            app,
            owner,
            name=f"Item {step % 3}",
            brand=brand,
            purchase_date=date(2025, 1, 1) + timedelta(days=step // 2),
            created_at=_at(step),
        )
        await create_claim(app, product, supplier=cast.supplier, status=("open", "closed")[step % 2])
    for step in range(9):
        sender = (cast.customer, cast.supplier)[step % 2]
        message = await create_message(app, cast.claim, sender, f"m{step}", created_at=_at(step))
        if step % 3 == 0:
            await mark_read_by(app, message, cast.supplier if sender == cast.customer else cast.customer)
        await notify_message(app, message, [cast.supplier])
    for step in range(4):
        await create_user(app, name=f"Extra {step}")
    return {"cast": cast, "claim": cast.claim.id}


LISTS = [
    ("customer", "/api/products?sort=createdAt"),
    ("customer", "/api/products?sort=name&order=asc"),
    ("customer", "/api/products?sort=brand&order=desc&search=a"),
    ("customer", "/api/products?sort=purchaseDate&order=asc&brand=acme"),
    ("customer", "/api/products?sort=warrantyExpiresAt&order=desc"),
    ("admin", "/api/admin/products?sort=name&order=desc"),
    ("customer", "/api/claims"),
    ("customer", "/api/claims?status=closed"),
    ("admin", "/api/admin/claims"),
    ("customer", "/api/claims/{claim}/messages"),
    ("supplier", "/api/claims/messages/{claim}"),
    ("admin", "/api/messages"),
    ("admin", "/api/messages?unread=true"),
    ("admin", "/api/messages?claimId={claim}&unread=false"),
    ("admin", "/api/admin/users"),
    ("admin", "/api/users"),
    ("admin", "/api/admin/notifications"),
    ("admin", "/api/admin/notifications?status=pending"),
]


def _viewer(world: dict[str, Any], who: str) -> User:
    cast = world["cast"]
    return {"customer": cast.customer, "supplier": cast.supplier, "admin": cast.admin}[who]


def _join(path: str, query: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}{query}"


def _total(body: dict[str, Any]) -> int:
    meta = body["meta"]
    return int(meta["total"] if "total" in meta else meta["totalItems"])


@pytest.mark.settings(cache_ttl=0)
@pytest.mark.parametrize(("who", "path"), LISTS)
async def test_walking_by_cursor_gives_what_page_numbers_give(
    app: FastAPI, client: httpx.AsyncClient, who: str, path: str
) -> None:
    world = await _world(app)
    path = path.format(claim=world["claim"])
    headers = auth_headers(app, _viewer(world, who))

    by_number: list[Any] = []
    number = 1
    while True:
        body = (await client.get(_join(path, f"page={number}&limit=2"), headers=headers)).json()
        by_number += [item["id"] for item in body["data"]]
        if not body["data"]:
            break
        number += 1
    total = _total(body)
    assert len(by_number) == total >= 3, body

    first = (await client.get(_join(path, "limit=2"), headers=headers)).json()
    by_cursor = [item["id"] for item in first["data"]]
    cursor = first["meta"]["next_cursor"]
    pages = 1
    while cursor is not None:
        response = await client.get(_join(path, f"limit=2&cursor={cursor}"), headers=headers)
        assert response.status_code == 200, response.text
        body = response.json()
        assert _total(body) == total  # exact, by cursor too
        page_field = "current_page" if "current_page" in body["meta"] else "currentPage"
        assert body["meta"][page_field] is None
        if "links" in body and body["meta"]["next_cursor"]:
            assert body["links"]["next"] == _join(path, f"cursor={body['meta']['next_cursor']}&limit=2")
        by_cursor += [item["id"] for item in body["data"]]
        cursor = body["meta"]["next_cursor"]
        pages += 1
    assert by_cursor == by_number
    assert pages == (total + 1) // 2  # the last page's cursor is null: no empty page at the end


async def _a_cursor(client: httpx.AsyncClient, path: str, headers: dict[str, str]) -> str:
    cursor = (await client.get(_join(path, "limit=1"), headers=headers)).json()["meta"]["next_cursor"]
    assert isinstance(cursor, str)
    return cursor


@pytest.mark.settings(cache_ttl=0)
async def test_a_cursor_of_another_list_or_made_up_is_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    world = await _world(app)
    admin = auth_headers(app, world["cast"].admin)
    claims = await _a_cursor(client, "/api/admin/claims", admin)
    messages = await _a_cursor(client, "/api/messages", admin)
    products = await _a_cursor(client, "/api/admin/products?brand=acme", admin)
    _payload, _, mac = messages.partition(".")
    forged = base64.urlsafe_b64encode(b'["2020-01-01T00:00:00+00:00",1]').rstrip(b"=").decode() + "." + mac

    refused = [
        f"/api/messages?cursor={claims}",  # another list's (same key shape)
        f"/api/messages?unread=true&cursor={messages}",  # the same list with other filters
        f"/api/admin/products?brand=bolt&cursor={products}",
        f"/api/messages?cursor={forged}",  # a key of its own, with a real signature of another key
        "/api/messages?cursor=not-a-cursor",
        "/api/messages?cursor=%E2%9C%93.%E2%9C%93",
        f"/api/messages?page=2&cursor={messages}",  # a page number and a cursor at once
    ]
    for path in refused:
        body = assert_error(await client.get(path, headers=admin), 400, "VALIDATION_FAILED")
        assert "cursor" in body["details"]["fields"], path
    assert (await client.get(f"/api/messages?cursor={messages}", headers=admin)).status_code == 200


@pytest.mark.settings(cache_ttl=0)
async def test_a_cursor_page_keeps_its_filters_and_role_limit(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner = await create_user(app)
    for step in range(60):
        await create_product(app, owner, brand="Acme" if step % 2 else "Bolt", created_at=_at(step))
    headers = auth_headers(app, owner)

    first = (await client.get("/api/products?brand=acme&limit=100", headers=headers)).json()
    assert first["meta"]["per_page"] == 50 and len(first["data"]) == 30
    assert first["meta"]["next_cursor"] is None
    first = (await client.get("/api/products?brand=acme&limit=20", headers=headers)).json()
    following = await client.get(
        f"/api/products?brand=acme&limit=20&cursor={first['meta']['next_cursor']}", headers=headers
    )
    body = following.json()
    assert [item["brand"] for item in body["data"]] == ["Acme"] * 10
    assert body["meta"] == {
        "current_page": None,
        "per_page": 20,
        "total": 30,
        "last_page": 2,
        "from": None,
        "to": None,
        "next_cursor": None,
    }
    assert body["links"]["prev"] is None and body["links"]["next"] is None


@pytest.mark.settings(cache_ttl=0)
async def test_an_empty_list_has_no_cursor(app: FastAPI, client: httpx.AsyncClient) -> None:
    headers = auth_headers(app, await create_admin(app))

    for path in ("/api/admin/products", "/api/admin/claims", "/api/messages", "/api/admin/notifications"):
        body = (await client.get(path, headers=headers)).json()
        assert body["data"] == [] and body["meta"]["next_cursor"] is None, path
