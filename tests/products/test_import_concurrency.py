"""Imports running at once (contract 15.3 under concurrency): each owner's rows all arrive, and the kept
counts (row_counts, product_expiry_counts) that every imported row adds to stay exact. On PostgreSQL the
counter rows two imports share are taken in one order, so neither import fails on a deadlock."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

import httpx
from fastapi import FastAPI

from tests.factories.users import auth_headers, create_admin, create_user

HEADER = "name,brand,category,purchaseDate,warrantyPeriodMonths\r\n"
BRANDS = ("Acme", "Bosch", "Gaggia", "Miele")
CATEGORIES = ("Kitchen", "Tools", "Garden")


def _csv(rows: int, shift: int) -> str:
    """`rows` products spread over brands, categories and expiry days; `shift` changes the order in which
    each file meets them, as two owners' files would."""
    lines = []
    for number in range(rows):
        turn = number + shift
        purchased = date(2025, 1, 1) + timedelta(days=(turn * 7) % 300)
        brand, category = BRANDS[turn % len(BRANDS)], CATEGORIES[(turn // 2) % len(CATEGORIES)]
        lines.append(f"Item {number},{brand},{category},{purchased.isoformat()},{12 + turn % 3 * 12}\r\n")
    return HEADER + "".join(lines)


async def test_concurrent_imports_all_succeed_with_exact_counts(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    # Four imports long enough to overlap: without one lock order, PostgreSQL found a deadlock in nearly
    # every run of this size (three of 600 rows: in about two runs of three).
    owners = [await create_user(app) for _ in range(4)]
    files = [_csv(1500, shift) for shift in (0, 5, 11, 17)]

    responses = await asyncio.gather(
        *(
            client.post(
                "/api/products/import",
                files={"file": ("products.csv", data.encode(), "text/csv")},
                headers=auth_headers(app, owner),
            )
            for owner, data in zip(owners, files, strict=True)
        )
    )

    assert [(r.status_code, r.json()) for r in responses] == [(201, {"created": 1500})] * 4
    admin = auth_headers(app, await create_admin(app))
    for query, expected in [
        ("", 6000),
        ("brand=acme", sum(f.count(",Acme,") for f in files)),
        ("category=garden", sum(f.count(",Garden,") for f in files)),
    ]:
        listed = await client.get(f"/api/admin/products?limit=1&{query}", headers=admin)
        assert listed.status_code == 200, listed.text
        assert listed.json()["meta"]["total"] == expected, query
    statuses = []
    for status in ("active", "expiring_soon", "expired"):
        listed = await client.get(f"/api/admin/products?limit=1&warrantyStatus={status}", headers=admin)
        counted = await client.get(
            f"/api/admin/products?limit=1&warrantyStatus={status}&search=item", headers=admin
        )
        statuses.append((listed.json()["meta"]["total"], counted.json()["meta"]["total"]))
    assert all(kept == counted for kept, counted in statuses), statuses  # kept counts = a count of the rows
    assert sum(kept for kept, _ in statuses) == 6000
