"""Replays after the window (app/inbound/staleness.py): a delivery dated before the deduplication window (its
keys may be forgotten by then) is ignored as stale, so a captured signed delivery replayed later makes no
second message. The date is the provider's own when the payload has one, else the email's; one that
cannot be read is no date, and one in the future is not stale."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time, utc_now
from app.inbound import deliveries
from app.inbound.formats import InboundEmail
from app.inbound.staleness import is_stale, sent_at
from app.models import Claim
from tests.factories.inbound import (
    FORMATS,
    SECRETS,
    claim_address,
    generic,
    post_provider,
    post_standard,
    postmark,
    provider_event,
)
from tests.inbound.support import CUSTOMER, bodies_of, messages_of, new_claim

pytestmark = pytest.mark.settings(**SECRETS)
STALE = {"status": "ignored", "reason": "stale"}


async def test_a_signed_delivery_replayed_after_the_window_makes_no_second_message(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    claim = await new_claim(app)
    sent = utc_now() - timedelta(days=8)
    payload = generic(
        CUSTOMER, claim_address(claim.id), text="It rattles.", headers={"Date": format_datetime(sent)}
    )  # no ids: only its content's hash names it, and only for the window
    with frozen_time(sent + timedelta(minutes=1)):  # delivered when it was sent
        first = await post_provider(client, payload)
    assert first.json()["status"] == "processed", first.text
    async with app.state.sessionmaker() as session, session.begin():  # the hourly pruning, since
        assert await deliveries.prune(session, app.state.settings.inbound_dedup_days) == 1

    replay = await post_provider(client, payload)

    assert replay.status_code == 200
    assert replay.json() == STALE
    assert await bodies_of(app, claim.id) == ["It rattles."]


def _dated(fmt: str, claim: Claim, date: str) -> dict[str, Any]:
    to = claim_address(claim.id)
    if fmt == "provider":
        payload = provider_event(CUSTOMER, [to], text="It rattles.")
        payload["data"]["created_at"] = date
        return payload
    if fmt == "postmark":
        payload = postmark(CUSTOMER, to, text="It rattles.")
        payload["Date"] = date
        return payload
    return generic(CUSTOMER, to, text="It rattles.", headers=[{"name": "Date", "value": date}])


@pytest.mark.parametrize("fmt", FORMATS)
async def test_each_format_dated_before_the_window_is_stale(
    app: FastAPI, client: httpx.AsyncClient, fmt: str
) -> None:
    claim = await new_claim(app)
    old = utc_now() - timedelta(days=7, hours=1)
    date = old.isoformat() if fmt == "provider" else format_datetime(old)

    response = await post_standard(client, _dated(fmt, claim, date))

    assert response.json() == STALE
    assert await messages_of(app, claim.id) == []


@pytest.mark.parametrize(
    "date",
    [
        "not a date",
        "Mon, 99 Foo 2026 99:99:99 +9999",
        "9" * 5000,
        format_datetime(utc_now() + timedelta(days=400)),  # a clock far ahead: not stale
        format_datetime(utc_now() - timedelta(days=6)),
    ],
    ids=["words", "impossible", "huge-number", "future", "six-days"],
)
async def test_a_date_that_cannot_be_read_or_is_recent_is_not_stale(
    app: FastAPI, client: httpx.AsyncClient, date: str
) -> None:
    claim = await new_claim(app)

    response = await post_provider(client, _dated("generic", claim, date))

    assert response.status_code == 200
    assert response.json()["status"] == "processed", response.text


async def test_the_providers_timestamp_outweighs_the_senders_clock(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Resend's `created_at` is when Resend received the email; the Date header is the sender's clock."""
    claim = await new_claim(app)
    payload = _dated("provider", claim, utc_now().isoformat())
    payload["data"]["headers"] = {"Date": "Mon, 5 Jan 2015 10:12:59 +0100"}

    response = await post_standard(client, payload)

    assert response.json()["status"] == "processed", response.text


def _email(date: str | None = None) -> InboundEmail:
    headers = {"date": date} if date is not None else {}
    return InboundEmail(None, None, CUSTOMER, [claim_address(1)], headers=headers)


def test_the_date_read_is_the_providers_else_the_emails() -> None:
    resend = {"data": {"created_at": "2026-05-01T12:00:00.123+02:00"}}
    postmark_payload = {"Date": "Fri, 1 May 2026 12:00:00 +0000"}
    naive = {"data": {"created_at": "2026-05-01T12:00:00"}}

    assert sent_at(resend, _email("Mon, 5 Jan 2015 10:12:59 +0100")) == datetime(
        2026, 5, 1, 10, 0, 0, 123000, tzinfo=UTC
    )
    assert sent_at(postmark_payload, _email()) == datetime(2026, 5, 1, 12, tzinfo=UTC)
    assert sent_at(naive, _email()) == datetime(2026, 5, 1, 12, tzinfo=UTC)  # no offset: UTC
    assert sent_at({"from": CUSTOMER}, _email("Mon, 5 Jan 2015 10:12:59 +0100")) == datetime(
        2015, 1, 5, 9, 12, 59, tzinfo=UTC
    )
    assert sent_at([], _email()) is None


@pytest.mark.parametrize(
    "value", [None, 42, "not a date", "9" * 5000, "2026-05-01T12:00:00+00:00" + " " * 200], ids=str
)
def test_a_date_that_cannot_be_read_is_no_date(value: object) -> None:
    assert sent_at({"data": {"created_at": value}}, _email()) is None


def test_stale_is_older_than_the_window_and_never_in_the_future() -> None:
    now = datetime(2026, 5, 10, 12, tzinfo=UTC)

    def stale(when: datetime) -> bool:
        return is_stale({"data": {"created_at": when.isoformat()}}, _email(), window_days=7)

    with frozen_time(now):
        assert stale(now - timedelta(days=7, seconds=1))
        assert not stale(now - timedelta(days=6, hours=23))
        assert not stale(now + timedelta(days=400))
        assert not is_stale({}, _email(), window_days=7)
