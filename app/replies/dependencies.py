"""The saved replies routes' own request dependencies: the repository and the ids a path names. Only route
modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path

from app.api.dependencies import repository
from app.core.ids import DIGITS_ONLY
from app.replies.repository import ReplyRepository

ReplyRepo = Annotated[ReplyRepository, Depends(repository(ReplyRepository))]

# Ids outside the tables' range name nothing: 404 (the service checks); only non-digits are a 400.
OrganizationId = Annotated[int, Path(alias="id", description="The organization's id."), DIGITS_ONLY]
ReplyId = Annotated[int, Path(alias="replyId", description="The saved reply's id."), DIGITS_ONLY]
