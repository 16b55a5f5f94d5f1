"""The breach job (contract 17.8): a deadline that passes unmet is recorded once, with a timeline entry, a
`claim.sla_breached` webhook to a real receiver, an email to the organisation's managers over SMTP and the
`warranty_sla_breaches_total` counter; again and again it records nothing more; and two processes running
it at once on one PostgreSQL database record each breach exactly once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.core.clock import frozen_time
from app.models import ClaimDeadline, ClaimEvent, OutboxItem
from app.models.enums import OutboxKind
from app.observability.metrics import series
from app.organizations.breaches import record_breaches
from app.timeline.record import TimelineKind
from tests.claims.routed import open_claim, routed_claim
from tests.factories.products import create_product
from tests.factories.users import auth_headers
from tests.factories.webhooks import register, verified, webhook_worker
from tests.helpers import wait_for
from tests.support.processes import until_healthy, uvicorn_process
from tests.support.smtp import SMTP_URL, Inbox
from tests.webhooks.receiver import Receiver, start_receiver

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
TTL = 20 * 365 * 86400  # tokens issued at T0 pass the JWT library's expiry check, which reads the real clock
pytestmark = pytest.mark.settings(access_token_ttl=TTL)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = start_receiver()
    yield running
    running.stop()


def _counted(which: str) -> float:
    value = series().sla_breaches.labels(which)._value.get()
    return float(value)


async def _breach_events(app: FastAPI, claim_id: int) -> list[ClaimEvent]:
    async with app.state.sessionmaker() as session:
        statement = select(ClaimEvent).where(
            ClaimEvent.claim_id == claim_id, ClaimEvent.kind == TimelineKind.SLA_BREACHED
        )
        return list(await session.scalars(statement))


@pytest.mark.settings(webhook_allow_private=True, smtp_url=SMTP_URL, access_token_ttl=TTL)
async def test_a_missed_first_response_is_recorded_once_with_its_consequences(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver, inbox: Inbox
) -> None:
    endpoint = await register(app, client, receiver.url("/sla"), events=["claim.sla_breached"])
    with frozen_time(T0):
        cast = await routed_claim(app, client)
    postgresql = not app.state.settings.is_sqlite
    before = _counted("first_response")
    # A minute before it is due, nothing; once due, the first response (not yet the resolution).
    assert (
        await record_breaches(app.state.sessionmaker, postgresql=postgresql, now=T0 + timedelta(minutes=1439))
        == 0
    )
    due = T0 + timedelta(minutes=1440)
    assert await record_breaches(app.state.sessionmaker, postgresql=postgresql, now=due) == 1
    for _ in range(3):  # however often it runs again
        assert (
            await record_breaches(app.state.sessionmaker, postgresql=postgresql, now=due + timedelta(hours=1))
            == 0
        )
    assert _counted("first_response") == before + 1

    detail = (await client.get(cast.path, headers=auth_headers(app, cast.manager))).json()
    assert detail["sla"]["breached"] == ["first_response"]
    [event] = await _breach_events(app, cast.claim_id)
    assert event.data == {
        "which": "first_response",
        "dueAt": due.isoformat(),
        "organizationId": cast.organization.id,
    }
    timeline = await client.get(f"{cast.path}/timeline", headers=auth_headers(app, cast.manager))
    assert "sla.breached" in {entry["type"] for entry in timeline.json()}, timeline.text

    await webhook_worker(app).run_until_idle()  # delivers the webhook and the emails
    [received] = [verified(endpoint["secret"], item) for item in receiver.at("/sla")]
    assert received["type"] == "claim.sla_breached"
    assert received["data"] == {
        "claimId": cast.claim_id,
        "organizationId": cast.organization.id,
        "which": "first_response",
        "dueAt": due.isoformat(),
    }
    [email] = inbox.to(cast.manager.email)
    assert f"Claim #{cast.claim_id} missed its first response deadline" == email["Subject"]
    assert not inbox.to(cast.agent.email) and not inbox.to(cast.customer.email)  # managers only

    # Answered late, the response is still recorded; the breach stays.
    with frozen_time(due + timedelta(hours=2)):
        await client.post(
            f"{cast.path}/messages", json={"message": "Sorry."}, headers=auth_headers(app, cast.agent)
        )
    detail = (await client.get(cast.path, headers=auth_headers(app, cast.manager))).json()
    assert detail["sla"]["firstRespondedAt"] is not None
    assert detail["sla"]["breached"] == ["first_response"]


async def test_a_paused_resolution_does_not_breach_and_a_resolved_one_neither(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    with frozen_time(T0):
        cast = await routed_claim(app, client)
        agent = auth_headers(app, cast.agent)
        await client.post(f"{cast.path}/messages", json={"message": "Photo?"}, headers=agent)
        response = await client.post(f"{cast.path}/status", json={"status": "in_progress"}, headers=agent)
        assert response.json()["sla"]["paused"] is True
    postgresql = not app.state.settings.is_sqlite
    later = T0 + timedelta(days=30)
    assert await record_breaches(app.state.sessionmaker, postgresql=postgresql, now=later) == 0
    assert await _breach_events(app, cast.claim_id) == []


@pytest.mark.postgres_only
async def test_two_processes_record_each_breach_once(
    app: FastAPI, client: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    with frozen_time(T0):
        cast = await routed_claim(app, client)
        for _ in range(24):
            await open_claim(
                client, app, cast.customer, await create_product(app, cast.customer, brand="Acme")
            )
    async with app.state.sessionmaker() as session:
        claims = int(await session.scalar(select(func.count()).select_from(ClaimDeadline)) or 0)
    assert claims == 25  # every deadline passed long ago: 50 breaches wait

    env = {"WARRANTY_RUN_WORKER": "true", "WARRANTY_SLA_CHECK_INTERVAL": "0.2"}
    shared = tmp_path / "data"
    with (
        uvicorn_process(database_url, shared, env) as first,
        uvicorn_process(database_url, shared, env) as second,
    ):
        await until_healthy(first)
        await until_healthy(second)

        async def all_recorded() -> bool:
            async with app.state.sessionmaker() as session:
                statement = (
                    select(func.count())
                    .select_from(ClaimDeadline)
                    .where(
                        ClaimDeadline.first_response_breached_at.is_not(None),
                        ClaimDeadline.resolution_breached_at.is_not(None),
                    )
                )
                return int(await session.scalar(statement) or 0) == claims

        await wait_for(all_recorded, within=30)
        await asyncio.sleep(1.0)  # several more rounds of both
        logs = first.stop() + second.stop()
    assert "Traceback" not in logs, logs
    async with app.state.sessionmaker() as session:
        entries = (
            await session.execute(
                select(ClaimEvent.claim_id, ClaimEvent.data).where(
                    ClaimEvent.kind == TimelineKind.SLA_BREACHED
                )
            )
        ).all()
        emails = await session.scalar(
            select(func.count())
            .select_from(OutboxItem)
            .where(OutboxItem.kind == OutboxKind.EMAIL_SLA_BREACHED)
        )
    pairs = [(claim_id, data["which"]) for claim_id, data in entries]
    assert len(pairs) == 2 * claims and len(set(pairs)) == 2 * claims  # each deadline once
    assert emails == 2 * claims  # one manager: one email per breach
