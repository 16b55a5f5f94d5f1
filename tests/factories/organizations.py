"""Supplier organisations, their brands and members, written straight to the database."""

from __future__ import annotations

from collections.abc import Iterable

from fastapi import FastAPI

from app.core.clock import utc_now
from app.models import Organization, OrganizationBrand, OrganizationMember, User
from app.models.enums import OrganizationRole


async def create_organization(
    app: FastAPI, name: str, brands: Iterable[str] = (), email: str | None = None
) -> Organization:
    """An organisation handling `brands` (keyed trimmed and lower-cased, as the API keys them; the first
    spelling of a brand is kept)."""
    async with app.state.sessionmaker() as session, session.begin():
        organization = Organization(name=name, email=email)
        session.add(organization)
        await session.flush()
        names: dict[str, str] = {}
        for brand in brands:  # the first spelling of a brand wins
            names.setdefault(brand.strip().lower(), brand.strip())
        for key, brand_name in names.items():
            session.add(OrganizationBrand(key=key, organization_id=organization.id, name=brand_name))
    return organization


async def add_org_member(
    app: FastAPI, organization: Organization, user: User, role: OrganizationRole = OrganizationRole.AGENT
) -> None:
    """`user` (who should hold ROLE_SUPPLIER) joins `organization` as `role`."""
    async with app.state.sessionmaker() as session, session.begin():
        session.add(
            OrganizationMember(
                organization_id=organization.id, user_id=user.id, role=role, joined_at=utc_now()
            )
        )
