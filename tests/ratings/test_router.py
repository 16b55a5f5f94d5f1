"""Rating a claim over HTTP (contract 17.11): its customer, once, within 14 days after it last became resolved
or closed; what the others get; what the claim then shows (its detail, its timeline)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.models import User
from tests.claims.routed import Routed, routed_claim
from tests.factories.users import auth_headers
from tests.helpers import assert_error

# A month ago. Tokens are issued at the frozen time and checked by the real clock too (the signature's
# library): they live long enough to still be valid now.
RESOLVED_AT = datetime.now(UTC).replace(microsecond=0) - timedelta(days=30)
pytestmark = pytest.mark.settings(access_token_ttl=90 * 24 * 3600)


async def move(
    client: httpx.AsyncClient, app: FastAPI, routed: Routed, user: User, status: str, at: datetime
) -> None:
    """`user` moves the claim to `status` at `at`."""
    closing = status == "closed"
    with frozen_time(at):
        headers = auth_headers(app, user)
        response = await client.post(
            f"{routed.path}/{'close' if closing else 'status'}",
            json=None if closing else {"status": status},
            headers=headers,
        )
    assert response.status_code == 200, response.text


async def resolved(app: FastAPI, client: httpx.AsyncClient, at: datetime = RESOLVED_AT) -> Routed:
    """A routed claim its agent took and resolved at `at`."""
    routed = await routed_claim(app, client)
    await move(client, app, routed, routed.agent, "in_progress", at - timedelta(hours=1))
    await move(client, app, routed, routed.agent, "resolved", at)
    return routed


async def rate(
    client: httpx.AsyncClient, app: FastAPI, routed: Routed, user: User, body: Any, at: datetime
) -> httpx.Response:
    with frozen_time(at):
        headers = auth_headers(app, user)
        return await client.post(f"{routed.path}/rating", json=body, headers=headers)


async def test_the_customer_rates_a_resolved_claim_once(app: FastAPI, client: httpx.AsyncClient) -> None:
    routed = await resolved(app, client)
    when = RESOLVED_AT + timedelta(days=1)
    body = {"score": 4, "comment": " Quick and friendly. "}
    response = await rate(client, app, routed, routed.customer, body, when)
    assert response.status_code == 201, response.text
    rating = {
        "claimId": routed.claim_id,
        "score": 4,
        "comment": "Quick and friendly.",
        "createdAt": when.isoformat(),
    }
    assert response.json() == rating
    assert response.headers["location"] == routed.path

    again = await rate(client, app, routed, routed.customer, {"score": 5}, when + timedelta(minutes=1))
    assert_error(again, 409, "ALREADY_RATED")
    for user in (routed.customer, routed.agent, routed.manager, routed.admin):
        detail = await client.get(routed.path, headers=auth_headers(app, user))
        assert detail.json()["rating"] == rating
    timeline = await client.get(f"{routed.path}/timeline", headers=auth_headers(app, routed.manager))
    last = timeline.json()[-1]
    assert (last["type"], last["data"], last["createdAt"]) == ("claim.rated", {"score": 4}, when.isoformat())
    assert (last["actor"]["id"], last["actor"]["role"]) == (routed.customer.id, "customer")


async def test_a_blank_comment_is_none(app: FastAPI, client: httpx.AsyncClient) -> None:
    routed = await resolved(app, client)
    response = await rate(client, app, routed, routed.customer, {"score": 1, "comment": "  "}, RESOLVED_AT)
    assert response.status_code == 201, response.text
    assert response.json()["comment"] is None


@pytest.mark.parametrize(
    ("after", "status"),
    [(timedelta(days=14), 201), (timedelta(days=14, seconds=1), 409)],
)
async def test_within_14_days_of_the_resolution(
    app: FastAPI, client: httpx.AsyncClient, after: timedelta, status: int
) -> None:
    routed = await resolved(app, client)
    response = await rate(client, app, routed, routed.customer, {"score": 5}, RESOLVED_AT + after)
    if status == 201:
        assert response.status_code == 201, response.text
    else:
        assert_error(response, 409, "RATING_CLOSED")


async def test_closing_starts_the_14_days_again(app: FastAPI, client: httpx.AsyncClient) -> None:
    routed = await resolved(app, client)
    await move(client, app, routed, routed.customer, "closed", RESOLVED_AT + timedelta(days=10))
    response = await rate(
        client, app, routed, routed.customer, {"score": 3}, RESOLVED_AT + timedelta(days=20)
    )
    assert response.status_code == 201, response.text


async def test_not_before_it_is_resolved(app: FastAPI, client: httpx.AsyncClient) -> None:
    routed = await routed_claim(app, client)
    before = RESOLVED_AT - timedelta(hours=2)
    assert_error(await rate(client, app, routed, routed.customer, {"score": 5}, before), 409, "RATING_CLOSED")
    await move(client, app, routed, routed.agent, "in_progress", RESOLVED_AT - timedelta(hours=1))
    assert_error(await rate(client, app, routed, routed.customer, {"score": 5}, before), 409, "RATING_CLOSED")
    await move(client, app, routed, routed.agent, "resolved", RESOLVED_AT)
    await move(client, app, routed, routed.customer, "in_progress", RESOLVED_AT + timedelta(hours=1))
    late = RESOLVED_AT + timedelta(hours=2)
    assert_error(await rate(client, app, routed, routed.customer, {"score": 5}, late), 409, "RATING_CLOSED")


async def test_only_its_customer_rates_it(app: FastAPI, client: httpx.AsyncClient) -> None:
    routed = await resolved(app, client)
    when = RESOLVED_AT + timedelta(days=1)
    for user in (routed.agent, routed.other_agent, routed.manager, routed.admin):
        assert_error(await rate(client, app, routed, user, {"score": 5}, when), 403, "FORBIDDEN")
    for user in (routed.outsider, routed.rival_manager, routed.rival_agent):
        assert_error(await rate(client, app, routed, user, {"score": 5}, when), 404, "NOT_FOUND")
    with frozen_time(when):
        assert (await client.post(f"{routed.path}/rating", json={"score": 5})).status_code == 401
    detail = await client.get(routed.path, headers=auth_headers(app, routed.customer))
    assert detail.json()["rating"] is None


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"score": 0},
        {"score": 6},
        {"score": "5"},
        {"score": 4.5},
        {"score": None},
        {"score": 5, "comment": "x" * 2001},
        {"score": 5, "comment": 7},
        {"score": 5, "stars": 5},
    ],
)
async def test_a_bad_body_is_400(app: FastAPI, client: httpx.AsyncClient, body: dict[str, Any]) -> None:
    routed = await resolved(app, client)
    response = await rate(client, app, routed, routed.customer, body, RESOLVED_AT)
    assert_error(response, 400, "VALIDATION_FAILED")


async def test_a_comment_of_2000_characters(app: FastAPI, client: httpx.AsyncClient) -> None:
    routed = await resolved(app, client)
    response = await rate(
        client, app, routed, routed.customer, {"score": 2, "comment": "é" * 2000}, RESOLVED_AT
    )
    assert response.status_code == 201, response.text


async def test_two_ratings_at_once_make_one(app: FastAPI, client: httpx.AsyncClient) -> None:
    routed = await resolved(app, client)
    with frozen_time(RESOLVED_AT + timedelta(days=1)):
        headers = auth_headers(app, routed.customer)
        answers = await asyncio.gather(
            *(
                client.post(f"{routed.path}/rating", json={"score": score}, headers=headers)
                for score in (2, 5)
            )
        )
    assert sorted(answer.status_code for answer in answers) == [201, 409]
    refused = next(answer for answer in answers if answer.status_code == 409)
    assert_error(refused, 409, "ALREADY_RATED")
    kept = next(answer for answer in answers if answer.status_code == 201).json()["score"]
    detail = await client.get(routed.path, headers=auth_headers(app, routed.customer))
    assert detail.json()["rating"]["score"] == kept
