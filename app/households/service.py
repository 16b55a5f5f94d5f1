"""The rules of households (contract 17.1, 17.2; docs/api.md, "Households"): members see, owners manage, a
household keeps at least one owner, an invitation is spent once by the account it names. Every change of
the members locks the household first, so the checks below hold under concurrent requests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from app.access.households import member_ids, not_found, owner_count, require_role, role_in
from app.changes.dispatch import record
from app.changes.events import HouseholdAccessChanged
from app.core.clock import utc_now
from app.core.ids import MAX_ID
from app.core.security import hash_token
from app.errors import Conflict, Forbidden, NotFound
from app.households.repository import HouseholdRepository, InvitationRepository, Member
from app.models import Household, HouseholdInvitation, User
from app.models.enums import HouseholdRole, OutboxKind
from app.outbox.enqueue import enqueue

OWNER = HouseholdRole.OWNER
INVITATION_TTL = timedelta(days=7)
MAX_SEATS = 100  # members and open invitations together
MAX_TOKEN_LENGTH = 128  # issued tokens are 43 characters; anything longer is unknown without hashing it


def last_owner() -> Conflict:
    return Conflict(
        "A household keeps at least one owner; make another member owner first.", code="LAST_OWNER"
    )


def no_invitation() -> NotFound:
    return NotFound("No such invitation: it is unknown, expired or already used.")


def _is_id(value: int) -> bool:
    """Within the ids the tables hold: anything else names nothing (404), and is never sent to SQL."""
    return 1 <= value <= MAX_ID


async def record_access_changed(session: AsyncSession, household_id: int, user_ids: Sequence[int]) -> None:
    """What these users see of the household changed: they joined it, left it or were removed, or it was
    deleted. Their cached lists go and their open hub streams are re-checked at once (app.changes)."""
    if user_ids:
        await record(session, HouseholdAccessChanged(household_id, tuple(user_ids)))


async def _locked(
    households: HouseholdRepository,
    user: User,
    household_id: int,
    *allowed: HouseholdRole,
    to_delete: bool = False,
) -> tuple[Household, HouseholdRole]:
    """The household, locked, and the caller's role there (404 for a non-member, 403 outside `allowed`)."""
    household = await households.lock(household_id, to_delete=to_delete) if _is_id(household_id) else None
    if household is None:
        raise not_found()
    return household, await require_role(households.session, user.id, household_id, *allowed)


async def ensure_owner(session: AsyncSession, user: User, household_id: int) -> None:
    """404 for a non-member, 403 for a member who is not an owner."""
    await require_role(session, user.id, household_id, OWNER)


async def create(user: User, name: str, *, households: HouseholdRepository) -> Household:
    """A new household with the caller as its owner."""
    return await households.add(name, user.id, utc_now())


async def visible(user: User, household_id: int, *, households: HouseholdRepository) -> Household:
    """The household, for its members (404 for anyone else)."""
    await require_role(households.session, user.id, household_id)
    household = await households.get(household_id)
    if household is None:  # deleted between the two reads
        raise not_found()
    return household


async def rename(
    user: User, household_id: int, name: str | None, *, households: HouseholdRepository
) -> Household:
    await require_role(households.session, user.id, household_id, OWNER)
    household = await households.get(household_id)
    if household is None:
        raise not_found()
    if name is not None:
        household.name = name
        await households.session.flush()
    return household


async def delete(user: User, household_id: int, *, households: HouseholdRepository) -> None:
    """Members and invitations go with it; its products are unshared, their owners keep them."""
    household, _ = await _locked(households, user, household_id, OWNER, to_delete=True)
    members = await member_ids(households.session, household_id)
    await households.delete(household)
    await record_access_changed(households.session, household_id, members)


async def change_role(
    user: User, household_id: int, target_id: int, role: HouseholdRole, *, households: HouseholdRepository
) -> Member:
    """An owner sets a member's role (their own too); the last owner cannot step down."""
    await _locked(households, user, household_id, OWNER)
    current = await role_in(households.session, target_id, household_id) if _is_id(target_id) else None
    if current is None:
        raise NotFound("No such member.")
    if current == OWNER and role != OWNER and await owner_count(households.session, household_id) <= 1:
        raise last_owner()
    if role != current:
        await households.set_role(household_id, target_id, role)
    return await _member(households, household_id, target_id)


async def remove_member(
    user: User, household_id: int, target_id: int, *, households: HouseholdRepository
) -> None:
    """An owner removes a member, or a member leaves (their own id); the last owner can do neither. The
    products the member shared with the household are theirs alone again."""
    _, role = await _locked(households, user, household_id)
    if target_id != user.id and role != OWNER:
        raise Forbidden("Only the household's owners may remove other members.")
    current = await role_in(households.session, target_id, household_id) if _is_id(target_id) else None
    if current is None:
        raise NotFound("No such member.")
    if current == OWNER and await owner_count(households.session, household_id) <= 1:
        raise last_owner()
    # Everyone's view changes: the member's, and the others' (the member's shared products leave them).
    members = await member_ids(households.session, household_id)
    await households.remove_member(household_id, target_id)
    await record_access_changed(households.session, household_id, members)


async def _member(households: HouseholdRepository, household_id: int, user_id: int) -> Member:
    member = await households.member(household_id, user_id)
    if member is None:
        raise NotFound("No such member.")
    return member


async def invite(
    user: User,
    household_id: int,
    email: str,
    role: HouseholdRole,
    *,
    households: HouseholdRepository,
    invitations: InvitationRepository,
) -> HouseholdInvitation:
    """An owner invites an email address; the email with the link is sent by the outbox worker, which
    mints the token then (app.notifications.household_invitation)."""
    await _locked(households, user, household_id, OWNER)
    now = utc_now()
    invitee = await households.user_id_by_email(email)
    if invitee is not None and await role_in(households.session, invitee, household_id) is not None:
        raise Conflict("This email's account is a member of the household already.", code="ALREADY_MEMBER")
    earlier = await invitations.for_email(household_id, email)
    if earlier is not None and earlier.expires_at > now:
        raise Conflict(
            "This email has an open invitation; delete it to send a new one.", code="INVITATION_PENDING"
        )
    if earlier is not None:
        await invitations.remove(earlier)  # expired: the new one takes its place
    seats = await households.member_count(household_id) + await invitations.open_count(household_id, now)
    if seats >= MAX_SEATS:
        raise Conflict(
            f"A household has at most {MAX_SEATS} members and open invitations together.",
            code="HOUSEHOLD_FULL",
        )
    invitation = await invitations.add(household_id, email, role, user.id, now, INVITATION_TTL)
    enqueue(invitations.session, OutboxKind.EMAIL_HOUSEHOLD_INVITATION, {"invitationId": invitation.id})
    return invitation


async def cancel_invitation(
    user: User, household_id: int, invitation_id: int, *, invitations: InvitationRepository
) -> None:
    """An owner deletes an invitation: its link answers 404 from now on."""
    await require_role(invitations.session, user.id, household_id, OWNER)
    invitation = await invitations.get(household_id, invitation_id) if _is_id(invitation_id) else None
    if invitation is None:
        raise no_invitation()
    await invitations.remove(invitation)


async def accept(
    user: User, token: str, *, households: HouseholdRepository, invitations: InvitationRepository
) -> tuple[Household, Member]:
    """Spend an invitation: the account whose email it names becomes a member with its role (a member
    already keeps the role they have). Another account: 403, and the invitation stays for its invitee."""
    invitation = (
        await invitations.by_token_hash(hash_token(token)) if len(token) <= MAX_TOKEN_LENGTH else None
    )
    if invitation is None or invitation.expires_at <= utc_now():
        raise no_invitation()
    if invitation.email != user.email.lower():
        raise Forbidden("This invitation is for another email address.")
    household = await households.lock(invitation.household_id)
    if household is None or not await invitations.spend(invitation.id):
        raise no_invitation()  # used (or its household deleted) since it was read
    await households.add_member(household.id, user.id, invitation.role, utc_now())
    await record_access_changed(households.session, household.id, [user.id])
    return household, await _member(households, household.id, user.id)


async def hand_over(user: User, *, households: HouseholdRepository) -> None:
    """Before `user`'s account is deleted: each household they alone own passes to its longest-standing
    member (members before viewers), who becomes its owner; one with nobody else in it is deleted. A
    household never stays without an owner (contract 17.2)."""
    for household_id in await households.solely_owned(user.id):
        household = await households.lock(household_id, to_delete=True)
        if household is None:
            continue
        successor = await households.successor(household_id, user.id)
        if successor is None:
            await households.delete(household)
        else:
            await households.set_role(household_id, successor, OWNER)
