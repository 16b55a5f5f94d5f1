"""Households, their members and invitations as stored. Who may read or change them is decided before
(app.access.households, the service); these statements read and write what they are told."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased

from app.core.repository import Repository
from app.models import Household, HouseholdInvitation, HouseholdMember, Product, User
from app.models.enums import HouseholdRole


@dataclass(frozen=True)
class Member:
    """One member as the API shows them: the membership with the user's name and email."""

    household_id: int
    user_id: int
    name: str
    email: str
    role: HouseholdRole
    joined_at: datetime


_MEMBERS = select(
    HouseholdMember.household_id,
    HouseholdMember.user_id,
    User.name,
    User.email,
    HouseholdMember.role,
    HouseholdMember.joined_at,
).join(User, User.id == HouseholdMember.user_id)


def unsent_token_hash() -> str:
    """What an invitation holds until its email mints the token: unique, and never the hash of any token
    (a SHA-256 hex digest has no `:`), so no link opens it."""
    return f"unsent:{secrets.token_hex(24)}"


class HouseholdRepository(Repository):
    async def add(self, name: str, owner_id: int, now: datetime) -> Household:
        household = Household(name=name)
        self.session.add(household)
        await self.session.flush()
        self.session.add(
            HouseholdMember(
                household_id=household.id, user_id=owner_id, role=HouseholdRole.OWNER, joined_at=now
            )
        )
        await self.session.flush()
        return household

    async def get(self, household_id: int) -> Household | None:
        return await self.session.get(Household, household_id)

    async def lock(self, household_id: int, *, to_delete: bool = False) -> Household | None:
        """The household, locked until the transaction ends (PostgreSQL; SQLite serialises writers): every
        change of its members takes this lock first, so their checks (the last owner, the seats) hold. A
        `NO KEY UPDATE` lock, unless to delete it: writes of products that name the household (their foreign
        key's share lock) do not wait for it."""
        statement = (
            select(Household).where(Household.id == household_id).with_for_update(key_share=not to_delete)
        )
        return (await self.session.scalars(statement)).one_or_none()

    async def delete(self, household: Household) -> None:
        """Its members and invitations go with it and its products are unshared (foreign keys)."""
        await self.session.delete(household)
        await self.session.flush()

    async def page_of(
        self, user_id: int, limit: int, offset: int, after_id: int | None
    ) -> tuple[list[Household], int]:
        """The user's households, oldest first; `after_id`: those after it (a cursor's key)."""
        mine = HouseholdMember.household_id == Household.id
        count = select(func.count()).select_from(HouseholdMember).where(HouseholdMember.user_id == user_id)
        total = int(await self.session.scalar(count) or 0)
        query = (
            select(Household)
            .join(HouseholdMember, mine & (HouseholdMember.user_id == user_id))
            .order_by(Household.id)
            .limit(limit)
            .offset(offset)
        )
        if after_id is not None:
            query = query.where(Household.id > after_id)
        return list(await self.session.scalars(query)), total

    async def members_of(self, household_ids: Sequence[int]) -> dict[int, list[Member]]:
        """Every member of these households, oldest first in each, in one statement."""
        statement = _MEMBERS.where(HouseholdMember.household_id.in_(household_ids)).order_by(
            HouseholdMember.household_id, HouseholdMember.joined_at, HouseholdMember.user_id
        )
        found: dict[int, list[Member]] = {household_id: [] for household_id in household_ids}
        for row in await self.session.execute(statement):
            found[row.household_id].append(Member(*row))
        return found

    async def member(self, household_id: int, user_id: int) -> Member | None:
        statement = _MEMBERS.where(
            HouseholdMember.household_id == household_id, HouseholdMember.user_id == user_id
        )
        row = (await self.session.execute(statement)).one_or_none()
        return None if row is None else Member(*row)

    async def add_member(self, household_id: int, user_id: int, role: HouseholdRole, now: datetime) -> None:
        """Adds the membership unless the user has one already (then it stays as it is)."""
        dialect = postgresql if self.session.get_bind().dialect.name == "postgresql" else sqlite
        statement = (
            dialect.insert(HouseholdMember)
            .values(household_id=household_id, user_id=user_id, role=role, joined_at=now)
            .on_conflict_do_nothing()
        )
        await self.session.execute(statement)

    async def set_role(self, household_id: int, user_id: int, role: HouseholdRole) -> None:
        await self.session.execute(
            update(HouseholdMember)
            .where(HouseholdMember.household_id == household_id, HouseholdMember.user_id == user_id)
            .values(role=role)
        )

    async def solely_owned(self, user_id: int) -> list[int]:
        """The households `user_id` is the only owner of."""
        owners = aliased(HouseholdMember)
        other_owner = (
            select(owners.user_id)
            .where(
                owners.household_id == HouseholdMember.household_id,
                owners.role == HouseholdRole.OWNER,
                owners.user_id != user_id,
            )
            .exists()
        )
        statement = select(HouseholdMember.household_id).where(
            HouseholdMember.user_id == user_id, HouseholdMember.role == HouseholdRole.OWNER, ~other_owner
        )
        return list(await self.session.scalars(statement.order_by(HouseholdMember.household_id)))

    async def successor(self, household_id: int, leaving_id: int) -> int | None:
        """Who takes over from a household's last owner: its longest-standing member, else viewer."""
        statement = (
            select(HouseholdMember.user_id)
            .where(HouseholdMember.household_id == household_id, HouseholdMember.user_id != leaving_id)
            .order_by(
                (HouseholdMember.role != HouseholdRole.MEMBER),
                HouseholdMember.joined_at,
                HouseholdMember.user_id,
            )
            .limit(1)
        )
        return await self.session.scalar(statement)

    async def remove_member(self, household_id: int, user_id: int) -> None:
        """Ends the membership; the products they shared with the household are theirs alone again."""
        await self.session.execute(
            delete(HouseholdMember).where(
                HouseholdMember.household_id == household_id, HouseholdMember.user_id == user_id
            )
        )
        await self.session.execute(
            update(Product)
            .where(Product.household_id == household_id, Product.owner_id == user_id)
            .values(household_id=None)
        )

    async def user_id_by_email(self, email: str) -> int | None:
        return await self.session.scalar(select(User.id).where(User.email == email))

    async def member_count(self, household_id: int) -> int:
        statement = select(func.count()).where(HouseholdMember.household_id == household_id)
        return int(await self.session.scalar(statement) or 0)


class InvitationRepository(Repository):
    async def add(
        self,
        household_id: int,
        email: str,
        role: HouseholdRole,
        invited_by: int,
        now: datetime,
        ttl: timedelta,
    ) -> HouseholdInvitation:
        invitation = HouseholdInvitation(
            household_id=household_id,
            email=email,
            role=role,
            invited_by=invited_by,
            created_at=now,
            expires_at=now + ttl,
            token_hash=unsent_token_hash(),
        )
        self.session.add(invitation)
        await self.session.flush()
        return invitation

    async def get(self, household_id: int, invitation_id: int) -> HouseholdInvitation | None:
        statement = select(HouseholdInvitation).where(
            HouseholdInvitation.id == invitation_id, HouseholdInvitation.household_id == household_id
        )
        return (await self.session.scalars(statement)).one_or_none()

    async def by_token_hash(self, token_hash: str) -> HouseholdInvitation | None:
        statement = select(HouseholdInvitation).where(HouseholdInvitation.token_hash == token_hash)
        return (await self.session.scalars(statement)).one_or_none()

    async def for_email(self, household_id: int, email: str) -> HouseholdInvitation | None:
        statement = select(HouseholdInvitation).where(
            HouseholdInvitation.household_id == household_id, HouseholdInvitation.email == email
        )
        return (await self.session.scalars(statement.limit(1))).first()

    async def open_count(self, household_id: int, now: datetime) -> int:
        statement = select(func.count()).where(
            HouseholdInvitation.household_id == household_id, HouseholdInvitation.expires_at > now
        )
        return int(await self.session.scalar(statement) or 0)

    async def page(
        self, household_id: int, limit: int, offset: int, after_id: int | None
    ) -> tuple[list[HouseholdInvitation], int]:
        """The household's invitations not yet accepted or deleted (expired ones too), oldest first."""
        where = [HouseholdInvitation.household_id == household_id]
        total = int(await self.session.scalar(select(func.count()).where(*where)) or 0)
        if after_id is not None:
            where.append(HouseholdInvitation.id > after_id)
        query = select(HouseholdInvitation).where(*where).order_by(HouseholdInvitation.id)
        return list(await self.session.scalars(query.limit(limit).offset(offset))), total

    async def spend(self, invitation_id: int) -> bool:
        """Deletes the invitation; False when it was gone already (of two concurrent uses, one wins)."""
        result = await self.session.execute(
            delete(HouseholdInvitation).where(HouseholdInvitation.id == invitation_id)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    async def remove(self, invitation: HouseholdInvitation) -> None:
        await self.session.delete(invitation)
        await self.session.flush()
