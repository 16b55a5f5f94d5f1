"""Organisations, their brands and members as stored. Who may read or change them is decided before
(app.access.organizations, the service); these statements read and write what they are told."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, delete, func, select, tuple_, update
from sqlalchemy.exc import IntegrityError

from app.core.repository import Repository
from app.models import Organization, OrganizationBrand, OrganizationMember, User
from app.models.enums import OrganizationRole


@dataclass(frozen=True)
class Member:
    """One member as the API shows them: the membership with the user's name and email."""

    organization_id: int
    user_id: int
    name: str
    email: str
    role: OrganizationRole
    joined_at: datetime


_MEMBERS = select(
    OrganizationMember.organization_id,
    OrganizationMember.user_id,
    User.name,
    User.email,
    OrganizationMember.role,
    OrganizationMember.joined_at,
).join(User, User.id == OrganizationMember.user_id)


class OrganizationRepository(Repository):
    async def add(self, name: str, email: str | None) -> Organization:
        organization = Organization(name=name, email=email)
        self.session.add(organization)
        await self.session.flush()
        return organization

    async def get(self, organization_id: int) -> Organization | None:
        return await self.session.get(Organization, organization_id)

    async def lock(self, organization_id: int) -> Organization | None:
        """The organisation, locked until the transaction ends (PostgreSQL; SQLite serialises writers):
        every change of its brands or members takes this lock first, so their checks hold."""
        statement = select(Organization).where(Organization.id == organization_id).with_for_update()
        return (await self.session.scalars(statement)).one_or_none()

    async def delete(self, organization: Organization) -> None:
        """Its brands and memberships go with it; its claims lose their organisation (foreign keys)."""
        await self.session.delete(organization)
        await self.session.flush()

    async def page(self, limit: int, offset: int, after_id: int | None) -> tuple[list[Organization], int]:
        """Every organisation, oldest first; `after_id`: those after it (a cursor's key)."""
        total = int(await self.session.scalar(select(func.count()).select_from(Organization)) or 0)
        query = select(Organization).order_by(Organization.id).limit(limit).offset(offset)
        if after_id is not None:
            query = query.where(Organization.id > after_id)
        return list(await self.session.scalars(query)), total

    async def brands_of(self, organization_ids: Sequence[int]) -> dict[int, dict[str, str]]:
        """Each organisation's brands (key -> name as written), in key order, in one statement."""
        statement = (
            select(OrganizationBrand.organization_id, OrganizationBrand.key, OrganizationBrand.name)
            .where(OrganizationBrand.organization_id.in_(organization_ids))
            .order_by(OrganizationBrand.organization_id, OrganizationBrand.key)
        )
        found: dict[int, dict[str, str]] = {organization_id: {} for organization_id in organization_ids}
        for row in await self.session.execute(statement):
            found[row.organization_id][row.key] = row.name
        return found

    async def member_counts(self, organization_ids: Sequence[int]) -> dict[int, int]:
        """How many members each organisation has, in one statement."""
        statement = (
            select(OrganizationMember.organization_id, func.count())
            .where(OrganizationMember.organization_id.in_(organization_ids))
            .group_by(OrganizationMember.organization_id)
        )
        counts = {organization_id: 0 for organization_id in organization_ids}
        counts.update({row[0]: int(row[1]) for row in await self.session.execute(statement)})
        return counts

    async def holders(self, keys: Sequence[str], organization_id: int | None) -> dict[str, int]:
        """Which of these brand keys another organisation than `organization_id` holds: key -> its id."""
        statement = select(OrganizationBrand.key, OrganizationBrand.organization_id).where(
            OrganizationBrand.key.in_(keys)
        )
        if organization_id is not None:
            statement = statement.where(OrganizationBrand.organization_id != organization_id)
        return {row.key: row.organization_id for row in await self.session.execute(statement)}

    async def set_brands(
        self, organization_id: int, held: Mapping[str, str], wanted: Mapping[str, str]
    ) -> bool:
        """Makes the organisation's brands `wanted` (key -> name) where it held `held`. False when the
        brands' key refused one (another organisation took it meanwhile): then nothing changed."""
        gone = [key for key in held if key not in wanted]
        renamed = {key: name for key, name in wanted.items() if key in held and held[key] != name}
        new = [
            OrganizationBrand(key=key, organization_id=organization_id, name=name)
            for key, name in wanted.items()
            if key not in held
        ]
        try:
            # In a savepoint, so a brand taken by a concurrent request is the caller's 409, not a 500.
            async with self.session.begin_nested():
                if gone:
                    await self.session.execute(
                        delete(OrganizationBrand).where(
                            OrganizationBrand.organization_id == organization_id,
                            OrganizationBrand.key.in_(gone),
                        )
                    )
                for key, name in renamed.items():
                    await self.session.execute(
                        update(OrganizationBrand).where(OrganizationBrand.key == key).values(name=name)
                    )
                self.session.add_all(new)
                await self.session.flush()
        except IntegrityError:
            return False
        return True


class MemberRepository(Repository):
    async def page(
        self, organization_id: int, limit: int, offset: int, after: tuple[datetime, int] | None
    ) -> tuple[list[Member], int]:
        """The organisation's members, longest-standing first (ties by user id); `after` (joinedAt,
        userId): those after it (a cursor's key)."""
        where = [OrganizationMember.organization_id == organization_id]
        count = select(func.count()).select_from(OrganizationMember).where(*where)
        total = int(await self.session.scalar(count) or 0)
        if after is not None:
            bound = tuple_(
                bindparam("after_joined", after[0], type_=OrganizationMember.joined_at.type), after[1]
            )
            where.append(tuple_(OrganizationMember.joined_at, OrganizationMember.user_id) > bound)
        query = (
            _MEMBERS.where(*where)
            .order_by(OrganizationMember.joined_at, OrganizationMember.user_id)
            .limit(limit)
            .offset(offset)
        )
        return [Member(*row) for row in await self.session.execute(query)], total

    async def get(self, organization_id: int, user_id: int) -> Member | None:
        statement = _MEMBERS.where(
            OrganizationMember.organization_id == organization_id, OrganizationMember.user_id == user_id
        )
        row = (await self.session.execute(statement)).one_or_none()
        return None if row is None else Member(*row)

    async def add(self, organization_id: int, user_id: int, role: OrganizationRole, now: datetime) -> bool:
        """False when the user's one membership exists already (read before, or added meanwhile by a
        concurrent request: the key is the user), or the user was deleted meanwhile; nothing changed."""
        try:
            async with self.session.begin_nested():
                self.session.add(
                    OrganizationMember(
                        organization_id=organization_id, user_id=user_id, role=role, joined_at=now
                    )
                )
                await self.session.flush()
        except IntegrityError:
            return False
        return True

    async def set_role(self, organization_id: int, user_id: int, role: OrganizationRole) -> None:
        await self.session.execute(
            update(OrganizationMember)
            .where(
                OrganizationMember.organization_id == organization_id, OrganizationMember.user_id == user_id
            )
            .values(role=role)
        )

    async def remove(self, organization_id: int, user_id: int) -> None:
        await self.session.execute(
            delete(OrganizationMember).where(
                OrganizationMember.organization_id == organization_id, OrganizationMember.user_id == user_id
            )
        )

    async def user(self, user_id: int) -> User | None:
        return await self.session.get(User, user_id)
