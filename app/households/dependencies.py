"""The households routes' own request dependencies: the repositories and the ids a path names. Only route
modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path

from app.api.dependencies import repository
from app.core.ids import DIGITS_ONLY
from app.households.repository import HouseholdRepository, InvitationRepository

HouseholdRepo = Annotated[HouseholdRepository, Depends(repository(HouseholdRepository))]
InvitationRepo = Annotated[InvitationRepository, Depends(repository(InvitationRepository))]

# Ids outside the tables' range name nothing: 404 (the service checks); only non-digits are a 400.
HouseholdId = Annotated[int, Path(alias="id", description="The household's id."), DIGITS_ONLY]
MemberId = Annotated[int, Path(alias="userId", description="The member's user id."), DIGITS_ONLY]
InvitationId = Annotated[int, Path(alias="invitationId", description="The invitation's id."), DIGITS_ONLY]
InvitationToken = Annotated[str, Path(description="The token of the invitation's link (its last segment).")]
