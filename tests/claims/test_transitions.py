"""The claim lifecycle (contract 5), move by move and actor by actor, written out here independently of
the code's table; and what a status change records (event, notifications) or, rolled back, does not."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.models import Claim, Event, OutboxItem
from tests.factories.claims import Cast, claim_cast
from tests.factories.users import auth_headers
from tests.helpers import assert_error, failing_statement

STATUSES = ("open", "in_progress", "resolved", "closed")
ACTORS = ("customer", "supplier", "admin", "outsider", "other_supplier")
ALLOWED = {
    ("open", "in_progress"): {"supplier", "admin"},
    ("in_progress", "resolved"): {"supplier", "admin"},
    ("resolved", "in_progress"): {"customer", "supplier", "admin"},
    ("resolved", "closed"): {"customer", "admin"},
}
NOW = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=5)


def expected(current: str, target: str, actor: str) -> tuple[int, str | None]:
    if actor in ("outsider", "other_supplier"):
        return 404, "NOT_FOUND"
    allowed = ALLOWED.get((current, target))
    if allowed is None:
        return 409, "INVALID_STATUS_TRANSITION"
    return (200, None) if actor in allowed else (403, "FORBIDDEN")


async def _state(app: FastAPI, claim_id: int) -> tuple[str, list[Event], list[OutboxItem]]:
    async with app.state.sessionmaker() as session:
        claim = await session.get(Claim, claim_id)
        assert claim is not None
        events = list(await session.scalars(select(Event).order_by(Event.id)))
        outbox = list(await session.scalars(select(OutboxItem).order_by(OutboxItem.id)))
        return claim.status, events, outbox


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("target", STATUSES)
@pytest.mark.parametrize("current", STATUSES)
async def test_status_moves(
    app: FastAPI, client: httpx.AsyncClient, current: str, target: str, actor: str
) -> None:
    cast = await claim_cast(app, status=current)
    user = getattr(cast, actor)

    response = await client.post(
        f"/api/claims/{cast.claim.id}/status", json={"status": target}, headers=auth_headers(app, user)
    )

    status, code = expected(current, target, actor)
    stored, events, outbox = await _state(app, cast.claim.id)
    if code is None:
        assert response.status_code == 200, response.text
        assert response.json()["status"] == target and stored == target
        assert len(events) == 1 and outbox
    else:
        assert_error(response, status, code)
        assert stored == current and events == [] and outbox == []


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("current", STATUSES)
async def test_close(app: FastAPI, client: httpx.AsyncClient, current: str, actor: str) -> None:
    cast = await claim_cast(app, status=current)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/close", headers=auth_headers(app, getattr(cast, actor))
    )

    stored, events, _ = await _state(app, cast.claim.id)
    if actor in ("outsider", "other_supplier"):
        assert_error(response, 404, "NOT_FOUND")
    elif actor == "supplier":
        assert_error(response, 403, "FORBIDDEN")
    elif current != "resolved":
        assert_error(response, 409, "CLAIM_NOT_RESOLVED")
    else:
        assert response.status_code == 200, response.text
        assert response.json()["id"] == cast.claim.id and response.json()["status"] == "closed"
        assert stored == "closed" and len(events) == 1
        return
    assert stored == current and events == []


@pytest.mark.parametrize("status", ["pending", "OPEN", "", None, 3])
async def test_unknown_status_is_400(app: FastAPI, client: httpx.AsyncClient, status: object) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/status", json={"status": status}, headers=auth_headers(app, cast.admin)
    )
    assert "status" in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


async def _move(
    app: FastAPI, client: httpx.AsyncClient, cast: Cast, actor: str, target: str
) -> httpx.Response:
    headers = auth_headers(app, getattr(cast, actor))
    with frozen_time(NOW):
        return await client.post(
            f"/api/claims/{cast.claim.id}/status", json={"status": target}, headers=headers
        )


def _payloads(events: list[Event]) -> list[tuple[str, dict[str, Any]]]:
    return [(row.topic, json.loads(row.payload)) for row in events]


def _kinds(outbox: list[OutboxItem]) -> list[tuple[str, dict[str, Any]]]:
    return sorted(
        ((row.kind, row.payload) for row in outbox), key=lambda item: (item[0], item[1]["recipientId"])
    )


async def test_a_status_change_records_its_event_and_notifies_the_other_party(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    response = await _move(app, client, cast, "supplier", "in_progress")

    assert response.json()["updatedAt"] == NOW.isoformat()
    _, events, outbox = await _state(app, cast.claim.id)
    assert _payloads(events) == [
        (
            f"claims/{cast.claim.id}/status",
            {
                "type": "status_update",
                "claimId": cast.claim.id,
                "status": "in_progress",
                "updatedAt": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"),
            },
        )
    ]
    payload = {"claimId": cast.claim.id, "status": "in_progress", "recipientId": cast.customer.id}
    assert _kinds(outbox) == [("email.claim_status", payload), ("push.claim_status", payload)]


async def test_an_admin_who_acts_notifies_both_and_settings_are_respected(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app, status="resolved", notifications_enabled=False)
    response = await _move(app, client, cast, "admin", "closed")
    assert response.status_code == 200

    _, events, outbox = await _state(app, cast.claim.id)
    assert [json.loads(row.payload)["status"] for row in events] == ["closed"]
    base = {"claimId": cast.claim.id, "status": "closed"}
    assert _kinds(outbox) == [
        ("email.claim_status", {**base, "recipientId": cast.customer.id}),
        ("email.claim_status", {**base, "recipientId": cast.supplier.id}),
        ("push.claim_status", {**base, "recipientId": cast.supplier.id}),
    ]


async def test_close_records_a_status_update(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app, status="resolved")
    headers = auth_headers(app, cast.customer)
    with frozen_time(NOW):
        response = await client.post(f"/api/claims/{cast.claim.id}/close", headers=headers)
    assert response.status_code == 200, response.text
    _, events, outbox = await _state(app, cast.claim.id)
    assert _payloads(events) == [
        (
            f"claims/{cast.claim.id}/status",
            {
                "type": "status_update",
                "claimId": cast.claim.id,
                "status": "closed",
                "updatedAt": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"),
            },
        )
    ]
    assert {row.payload["recipientId"] for row in outbox} == {cast.supplier.id}


async def test_a_failed_request_records_nothing(app: FastAPI, client: httpx.AsyncClient) -> None:
    """The database fails after the event is written (at the outbox insert): the request is a 500 and
    neither the status, nor the event, nor any notification is kept."""
    cast = await claim_cast(app)

    with failing_statement(app, "INSERT INTO outbox "):
        response = await _move(app, client, cast, "supplier", "in_progress")

    assert_error(response, 500, "INTERNAL_ERROR")
    assert await _state(app, cast.claim.id) == ("open", [], [])
