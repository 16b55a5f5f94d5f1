"""What the calendar tests share: the signed-in user's feed path, and a feed's events by UID."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from icalendar import Calendar, Event


async def feed_path(client: httpx.AsyncClient, headers: dict[str, str]) -> str:
    response = await client.get("/api/me/calendar", headers=headers)
    assert response.status_code == 200, response.text
    return urlsplit(response.json()["url"]).path


def events_of(body: bytes) -> dict[str, Event]:
    calendar = Calendar.from_ical(body)
    return {str(event["UID"]): event for event in calendar.walk("VEVENT")}
