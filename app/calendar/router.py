"""Calendar feeds (docs/api.md §12): an owner's warranty expiry dates as an iCalendar subscription, opened
by a secret token in the URL (calendar apps send no bearer token)."""

from __future__ import annotations

import functools
from typing import Annotated

import anyio
from fastapi import APIRouter, Path, Request, Response
from pydantic import Field

from app.api.dependencies import CurrentUser, SettingsDep
from app.api.openapi import errors
from app.api.schemas import ResponseModel
from app.calendar.dependencies import CalendarRepo
from app.calendar.feed import render_feed, style_of
from app.calendar.repository import CalendarRepository
from app.config import Settings
from app.core.clock import utc_today
from app.errors import NotFound

router = APIRouter(prefix="/api", tags=["calendar"])

MAX_TOKEN_LENGTH = 64  # issued tokens are shorter
ICS_TYPE = "text/calendar; charset=utf-8"
ICS_EXAMPLE = {
    "schema": {"type": "string"},
    "example": "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Warranty//Warranty expiry dates//EN\r\n"
    "BEGIN:VEVENT\r\nSUMMARY:Warranty ends: Espresso machine\r\nDTSTART;VALUE=DATE:20280115\r\n"
    "DTEND;VALUE=DATE:20280116\r\nUID:product-1@warranty.example.com\r\n...\r\nEND:VEVENT\r\n"
    "END:VCALENDAR\r\n",
}


@functools.cache
def _renderers() -> anyio.CapacityLimiter:
    """At most two feeds are rendered at once per process: a big feed takes a thread for a second or
    so, and a burst of fetches must not take every thread."""
    return anyio.CapacityLimiter(2)


class CalendarFeedOut(ResponseModel):
    """Where a calendar app subscribes to the signed-in user's warranty expiry dates."""

    url: str = Field(examples=["https://warranty.example.com/api/calendar/3q2-7wK...Zk.ics"])
    webcal_url: str = Field(examples=["webcal://warranty.example.com/api/calendar/3q2-7wK...Zk.ics"])


def _feed_out(settings: Settings, token: str) -> CalendarFeedOut:
    url = f"{settings.base_url.rstrip('/')}/api/calendar/{token}.ics"
    return CalendarFeedOut(url=url, webcal_url="webcal://" + url.split("://", 1)[1])


@router.get("/me/calendar", response_model=CalendarFeedOut, responses=errors(401))
async def get_calendar(
    request: Request, user: CurrentUser, feeds: CalendarRepo, settings: SettingsDep
) -> CalendarFeedOut:
    """The URL of the signed-in user's calendar feed (issued on first use). Anyone holding it can read
    the feed: treat it like a password, and rotate it when it leaks."""
    token = await feeds.token_of(user, settings)
    if token is None:  # first use: issued in a short write transaction (a GET's own session only reads)
        async with request.app.state.sessionmaker() as session, session.begin():
            token = await CalendarRepository(session).issue(user, settings)
    return _feed_out(settings, token)


@router.post("/me/calendar/rotate", response_model=CalendarFeedOut, responses=errors(401))
async def rotate_calendar(user: CurrentUser, feeds: CalendarRepo, settings: SettingsDep) -> CalendarFeedOut:
    """Replace the feed URL: the old one answers 404 from now on."""
    return _feed_out(settings, await feeds.rotate(user, settings))


@router.get(
    "/calendar/{token}.ics",
    response_class=Response,
    responses={
        200: {"content": {"text/calendar": ICS_EXAMPLE}, "description": "RFC 5545 text."},
        **errors(404),
    },
)
async def calendar_feed(
    token: Annotated[str, Path(description="The feed's secret token.")],
    feeds: CalendarRepo,
    settings: SettingsDep,
) -> Response:
    """The owner's warranty expiry dates (RFC 5545): one all-day event per product on the last day its
    warranty covers, with an alarm at each expiry-alert threshold. No bearer token: the URL is the
    secret. An unknown or rotated token is a 404."""
    # A token longer than any issued is unknown like any other (404), checked before it is hashed.
    owner_id = await feeds.owner_of(token, settings) if len(token) <= MAX_TOKEN_LENGTH else None
    if owner_id is None:
        raise NotFound("No such calendar feed.")
    entries = await feeds.entries(owner_id, utc_today(), settings.calendar_max_events)
    style = style_of(settings.base_url, settings.frontend_url, settings.expiry_thresholds)
    # CPU work, off the event loop and bounded: about 1.4 ms per event.
    body = await anyio.to_thread.run_sync(render_feed, entries, style, limiter=_renderers())
    return Response(
        body,
        media_type=ICS_TYPE,
        headers={
            "Cache-Control": "private, max-age=300",
            "Content-Disposition": 'inline; filename="warranty.ics"',
        },
    )
