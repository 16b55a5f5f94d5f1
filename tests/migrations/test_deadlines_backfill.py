"""Revision 0019 gives every claim routed before deadlines existed a deadline row without due times (no
open deadline: last under the queue's `sort=due`, nothing to breach), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from app.core.migrate import upgrade
from tests.conftest import PG_URL, _create_pg_database, _drop_pg_database

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
ROWS = [
    "INSERT INTO users (id, email, name, password_hash, roles, notifications_enabled, "
    "email_notifications_enabled, updated_at, created_at) VALUES "
    "(1, 'ann@example.com', 'Ann', 'x', '[\"ROLE_USER\"]', true, true, :now, :now)",
    "INSERT INTO products (id, owner_id, name, brand, category, purchase_date, warranty_expires_on, "
    "updated_at, created_at) VALUES "
    "(1, 1, 'Washer', 'Acme', 'Home', '2026-01-01', '2028-01-01', :now, :now), "
    "(2, 1, 'Kettle', 'Other', 'Home', '2026-01-01', '2028-01-01', :now, :now)",
    "INSERT INTO organizations (id, name, updated_at, created_at) VALUES (1, 'Acme Service', :now, :now)",
    "INSERT INTO claims (id, product_id, customer_id, status, description, organization_id, updated_at, "
    "created_at) VALUES (1, 1, 1, 'open', 'Routed', 1, :now, :now), "
    "(2, 2, 1, 'open', 'Unrouted', NULL, :now, :now)",
]


async def test_claims_routed_before_get_a_row_without_due_times(tmp_path: Path) -> None:
    url = await _create_pg_database(PG_URL) if PG_URL else f"sqlite+aiosqlite:///{tmp_path / 'm.db'}"
    engine = create_async_engine(url)
    try:
        await asyncio.to_thread(upgrade, url, "0018")
        async with engine.begin() as connection:
            for statement in ROWS:
                # SQLite's column stores the text the app's type writes; PostgreSQL takes the instant.
                now = NOW if PG_URL else NOW.strftime("%Y-%m-%d %H:%M:%S")
                await connection.execute(text(statement), {"now": now})
        await asyncio.to_thread(upgrade, url)
        async with engine.connect() as connection:
            rows = (
                await connection.execute(
                    text(
                        "SELECT claim_id, organization_id, first_response_due_at, resolution_due_at, "
                        "next_due_at FROM claim_deadlines"
                    )
                )
            ).all()
        assert len(rows) == 1
        claim_id, organization_id, first, resolution, next_due = rows[0]
        assert (claim_id, organization_id, first, resolution) == (1, 1, None, None)
        assert str(next_due).startswith("9999-12-31")
    finally:
        await engine.dispose()
        if PG_URL:
            await _drop_pg_database(PG_URL, url)
