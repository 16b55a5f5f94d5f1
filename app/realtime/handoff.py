"""The hand-off from a REST read to the stream (Mercure's discovery and reconciliation): a read of a claim
or of its messages answers

    Link: <{base_url}/.well-known/mercure>; rel="mercure"; last-event-id="<id>",
          <{base_url}/api/claims/{id}/messages>; rel="self"

where `<id>` is the newest event id the read's own snapshot saw (app.realtime.resume), so a client that
subscribes with `lastEventID=<id>` to the `self` topic (and `claims/{id}/status`) receives exactly what
happened after its read. Both links go in one header field (RFC 8288 allows a list), which is also how
browsers' `fetch` hands several fields to a script."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.realtime.resume import resume_point

HUB_PATH = "/.well-known/mercure"


def handoff_link(base_url: str, claim_id: int, last_event_id: str) -> str:
    base = base_url.rstrip("/")
    return (
        f'<{base}{HUB_PATH}>; rel="mercure"; last-event-id="{last_event_id}", '
        f'<{base}/api/claims/{claim_id}/messages>; rel="self"'
    )


async def read_handoff(session: AsyncSession, settings: Settings, claim_id: int) -> str:
    """The `Link` header value for a read of this claim, in the read's snapshot."""
    return handoff_link(settings.base_url, claim_id, await resume_point(session))
