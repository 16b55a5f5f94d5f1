"""The organisations routes' own request dependencies: the repositories and the ids a path names. Only route
modules import it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path

from app.api.dependencies import repository
from app.core.ids import DIGITS_ONLY
from app.organizations.repository import MemberRepository, OrganizationRepository

OrganizationRepo = Annotated[OrganizationRepository, Depends(repository(OrganizationRepository))]
MemberRepo = Annotated[MemberRepository, Depends(repository(MemberRepository))]

# Ids outside the tables' range name nothing: 404 (the service checks); only non-digits are a 400.
OrganizationId = Annotated[int, Path(alias="id", description="The organization's id."), DIGITS_ONLY]
MemberId = Annotated[int, Path(alias="userId", description="The member's user id."), DIGITS_ONLY]
