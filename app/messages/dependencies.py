"""The messages routes' own request dependencies: the repository and the list's filter (the claim a path
names is `VisibleClaim`, app.api.dependencies). Only route modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from app.api.dependencies import repository
from app.core.ids import DIGITS_ONLY, MAX_ID
from app.messages.repository import MessageFilter, MessageRepository

MessageRepo = Annotated[MessageRepository, Depends(repository(MessageRepository))]


async def message_filter(
    claim_id: Annotated[int | None, Query(alias="claimId", ge=1, le=MAX_ID), DIGITS_ONLY] = None,
    sender_id: Annotated[int | None, Query(alias="senderId", ge=1, le=MAX_ID), DIGITS_ONLY] = None,
    unread: Annotated[
        bool | None, Query(description="true: not yet read by any recipient; false: read by one.")
    ] = None,
) -> MessageFilter:
    return MessageFilter(claim_id=claim_id, sender_id=sender_id, unread=unread)


MessageQuery = Annotated[MessageFilter, Depends(message_filter)]
