"""A claim's timeline (docs/api.md §14): `GET /api/claims/{id}/timeline`, for whoever may see the claim."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import Field
from sqlalchemy import Row, func, select

from app.api.dependencies import ONE_SNAPSHOT, Pagination, SessionDep, VisibleClaimById
from app.api.openapi import errors
from app.api.pagination import JsonList, Page, list_json
from app.api.schemas import IsoUtc, ResponseModel
from app.models import ClaimEvent, User
from app.models.user import DELETED_USER
from app.timeline.record import ActorRole, TimelineKind

router = APIRouter(prefix="/api", tags=["claims"])


class TimelineActor(ResponseModel):
    id: int | None = Field(description="null for a deleted user")
    name: str
    role: ActorRole = Field(description="what the actor was to the claim: customer, supplier or admin")


class TimelineEntry(ResponseModel):
    id: int
    type: TimelineKind
    created_at: IsoUtc
    actor: TimelineActor | None = Field(
        description="null for the service's own doings and for unknown senders"
    )
    data: dict[str, Any]


TIMELINE_JSON = JsonList(TimelineEntry)
_COLUMNS = (
    ClaimEvent.id,
    ClaimEvent.kind,
    ClaimEvent.created_at,
    ClaimEvent.actor_id,
    ClaimEvent.actor_role,
    ClaimEvent.data,
    User.name.label("actor_name"),
)


def _entry(row: Row[Any]) -> TimelineEntry:
    actor = None
    if row.actor_role != ActorRole.SYSTEM:
        name = row.actor_name if row.actor_id is not None else DELETED_USER
        actor = TimelineActor(id=row.actor_id, name=name, role=row.actor_role)
    return TimelineEntry(id=row.id, type=row.kind, created_at=row.created_at, actor=actor, data=row.data)


@router.get(
    "/claims/{id}/timeline",
    response_model=list[TimelineEntry] | Page[TimelineEntry],
    responses=errors(400, 401, 404),
    dependencies=[ONE_SNAPSHOT],
)
async def claim_timeline(
    claim: VisibleClaimById, params: Pagination, session: SessionDep, request: Request
) -> Response:
    """Everything that happened to the claim, oldest first, with who did it and when: its creation,
    supplier assignments, status changes, messages (id and sender, not the text), the notification
    emails and pushes sent, failed or skipped, and the inbound emails accepted or ignored (with the
    reason). A bare array of every entry, or the envelope when `page`, `limit` or `cursor` is given.
    404 for a claim the caller may not see."""
    statement = (
        select(*_COLUMNS)
        .outerjoin(User, User.id == ClaimEvent.actor_id)
        .where(ClaimEvent.claim_id == claim.id)
        .order_by(ClaimEvent.id)
    )
    total = None
    if params.requested:
        total = await session.scalar(select(func.count()).where(ClaimEvent.claim_id == claim.id)) or 0
        after = params.after_key(("int",))
        if after is not None:
            statement = statement.where(ClaimEvent.id > after[0])
        statement = statement.offset(params.offset).limit(params.fetch)
    rows = list(await session.execute(statement))
    next_cursor = None
    if params.requested:
        rows, next_cursor = params.window(rows, lambda row: (row.id,))
    items = [_entry(row) for row in rows]
    body = list_json(TIMELINE_JSON(items), len(items), total, params, request, next_cursor)
    return Response(body, media_type="application/json")
