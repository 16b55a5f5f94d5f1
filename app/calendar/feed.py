"""The iCalendar (RFC 5545) text of a calendar feed: one all-day event per product on its warranty's last
covered day, with an alarm at each expiry-alert threshold.

Written by the icalendar library (escaping, folding, CRLF). It escapes what RFC 5545 escapes but passes
other control characters through, which RFC 5545 forbids in a text value and strict calendar apps answer
by dropping the whole feed: what users wrote is put on one line first (app.core.one_line)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from urllib.parse import urlsplit

from icalendar import Alarm, Calendar, Event, vDuration

from app.core.one_line import one_line

PRODID = "-//Warranty//Warranty expiry dates//EN"
CALENDAR_NAME = "Warranty expiry dates"
REFRESH = timedelta(hours=12)  # how often a calendar app should fetch the feed again


@dataclass(frozen=True)
class ExpiryEntry:
    """What one event shows about a product."""

    id: int
    name: str
    brand: str
    category: str
    purchase_date: date
    warranty_expires_on: date
    updated_at: datetime


@dataclass(frozen=True)
class FeedStyle:
    """What every event of a deployment shares."""

    uid_domain: str  # UIDs are `product-<id>@<domain>`: the same product keeps its UID across fetches
    frontend_url: str
    alarm_days: Sequence[int]


def style_of(base_url: str, frontend_url: str, alarm_days: Sequence[int]) -> FeedStyle:
    return FeedStyle(urlsplit(base_url).hostname or "warranty", frontend_url.rstrip("/"), alarm_days)


def product_event(entry: ExpiryEntry, style: FeedStyle) -> Event:
    name, brand, category = one_line(entry.name), one_line(entry.brand), one_line(entry.category)
    event = Event()
    event.add("uid", f"product-{entry.id}@{style.uid_domain}")
    # The row's last change, not the time of the fetch: an unchanged product reads the same every time.
    event.add("dtstamp", entry.updated_at)
    event.add("last-modified", entry.updated_at)
    event.add("dtstart", entry.warranty_expires_on)
    event.add("dtend", entry.warranty_expires_on + timedelta(days=1))
    event.add("summary", f"Warranty ends: {name}")
    event.add(
        "description",
        f"{brand} {name} ({category}), bought {entry.purchase_date.isoformat()}. "
        f"The warranty covers this day and ends after it.",
    )
    event.add("url", f"{style.frontend_url}/products/{entry.id}")
    event.add("transp", "TRANSPARENT")
    for days in style.alarm_days:
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("trigger", timedelta(days=-days))
        alarm.add("description", f"The warranty of {name} ends in {days} days")
        event.add_component(alarm)
    return event


def render_feed(entries: Sequence[ExpiryEntry], style: FeedStyle) -> bytes:
    """The whole feed as RFC 5545 text (CRLF lines, folded at 75 octets, UTF-8)."""
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", CALENDAR_NAME)
    calendar.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", vDuration(REFRESH))
    for entry in entries:
        calendar.add_component(product_event(entry, style))
    return calendar.to_ical()
