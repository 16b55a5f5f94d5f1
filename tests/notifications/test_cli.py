"""`warranty worker` and `warranty send-expiry-alerts`, run as an operator would."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from asyncio.subprocess import PIPE
from datetime import timedelta
from pathlib import Path

import httpx
from fastapi import FastAPI

from app.core.clock import utc_today
from app.models import Product
from tests.conftest import TEST_SECRET
from tests.factories.notifications import outbox_rows
from tests.factories.products import create_product
from tests.factories.users import create_user
from tests.helpers import wait_for
from tests.support.smtp import SMTP_URL, Inbox


def _env(database_url: str, data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "WARRANTY_DATABASE_URL": database_url,
        "WARRANTY_SECRET_KEY": TEST_SECRET,
        "WARRANTY_SMTP_URL": SMTP_URL,
        "WARRANTY_DATA_DIR": str(data_dir),
        "WARRANTY_WORKER_POLL_INTERVAL": "0.2",
    }


async def _run(database_url: str, data_dir: Path, *args: str) -> tuple[int | None, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app.cli", *args, env=_env(database_url, data_dir), stdout=PIPE, stderr=PIPE
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, stderr.decode()
    return process.returncode, stdout.decode().strip()


async def test_worker_command_delivers_and_stops_on_sigterm(
    app: FastAPI, client: httpx.AsyncClient, database_url: str, inbox: Inbox, tmp_path: Path
) -> None:
    await create_user(app, email="ann@example.com")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app.cli", "worker",
        env=_env(database_url, tmp_path), stdout=PIPE, stderr=PIPE,
    )  # fmt: skip
    try:
        assert (
            await client.post("/api/password/forgot", json={"email": "ann@example.com"})
        ).status_code == 202

        async def delivered() -> bool:
            return len(inbox.to("ann@example.com")) == 1

        await wait_for(delivered, within=20)
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
    assert process.returncode == 0, stderr.decode()


async def test_send_expiry_alerts_command_is_idempotent(
    app: FastAPI, database_url: str, tmp_path: Path
) -> None:
    owner = await create_user(app)
    product = await create_product(app, owner)
    async with app.state.sessionmaker() as session, session.begin():
        stored = await session.get(Product, product.id)
        assert stored is not None
        stored.warranty_expires_on = utc_today() + timedelta(days=10)
    first = await _run(database_url, tmp_path, "send-expiry-alerts")
    second = await _run(database_url, tmp_path, "send-expiry-alerts")

    assert first == (0, "expiry alerts recorded for 1 product(s)")
    assert second == (0, "expiry alerts recorded for 0 product(s)")
    assert [row.kind for row in await outbox_rows(app)] == ["email.expiry_alert", "push.expiry_alert"]
