"""Replays after the window: a delivery dated before the deduplication window is stale.

Delivery keys are kept for the window only (deliveries.prune), so an older delivery could no longer be
recognised as a duplicate: a signed payload captured and replayed later would post again. The date read
is the provider's own timestamp when the payload has one (Resend's `data.created_at`, Postmark's `Date`),
else the email's `Date` header. A date that cannot be read is no date (the other rules apply); a date in
the future is not stale (a sender's clock ahead), though its keys may be forgotten before it ages out.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

from app.core.clock import utc_now
from app.inbound.formats import InboundEmail

_MAX_DATE = 128  # characters: a real date is some 40; longer is not read


def _parse(value: object) -> datetime | None:
    if not isinstance(value, str) or len(value) > _MAX_DATE:
        return None
    text = value.strip()
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (ValueError, TypeError, IndexError, OverflowError):
            return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _provider_timestamp(payload: object) -> object:
    if not isinstance(payload, dict):
        return None
    data = payload.get("data")
    if isinstance(data, dict) and "created_at" in data:
        return data["created_at"]  # format (a): when the provider received the email
    return payload.get("Date")  # Postmark


def sent_at(payload: object, email: InboundEmail) -> datetime | None:
    """When the email was received or, failing that, written; None when no date can be read."""
    return _parse(_provider_timestamp(payload)) or _parse(email.headers.get("date"))


def is_stale(payload: object, email: InboundEmail, window_days: int) -> bool:
    when = sent_at(payload, email)
    return when is not None and when < utc_now() - timedelta(days=window_days)
