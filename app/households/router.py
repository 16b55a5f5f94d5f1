"""Households (docs/api.md, "Households"): a household and its members, invitations by email, and
accepting one. Members see a household; owners manage it (403 for the others); anyone else gets 404."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status

from app.api.dependencies import CurrentUser, Pagination
from app.api.openapi import errors
from app.api.pagination import Page, build_page
from app.core.clock import utc_now
from app.households import service
from app.households.dependencies import (
    HouseholdId,
    HouseholdRepo,
    InvitationId,
    InvitationRepo,
    InvitationToken,
    MemberId,
)
from app.households.repository import HouseholdRepository, Member
from app.households.schemas import (
    HouseholdCreate,
    HouseholdInvitationCreate,
    HouseholdInvitationOut,
    HouseholdMemberOut,
    HouseholdMembership,
    HouseholdOut,
    HouseholdRoleChange,
    HouseholdUpdate,
)
from app.models import Household, HouseholdInvitation
from app.models.enums import HouseholdRole

router = APIRouter(prefix="/api", tags=["households"])


def _member_out(member: Member) -> HouseholdMemberOut:
    return HouseholdMemberOut.model_validate(member)


async def _household_out(household: Household, households: HouseholdRepository) -> HouseholdOut:
    [members] = (await households.members_of([household.id])).values()
    return HouseholdOut(id=household.id, name=household.name, members=[_member_out(m) for m in members])


def _invitation_out(invitation: HouseholdInvitation) -> HouseholdInvitationOut:
    return HouseholdInvitationOut(
        id=invitation.id,
        email=invitation.email,
        role=invitation.role,
        invited_by_id=invitation.invited_by,
        created_at=invitation.created_at,
        expires_at=invitation.expires_at,
        expired=invitation.expires_at <= utc_now(),
    )


@router.post(
    "/households",
    status_code=status.HTTP_201_CREATED,
    response_model=HouseholdOut,
    responses=errors(400, 401),
)
async def create_household(
    body: HouseholdCreate, user: CurrentUser, households: HouseholdRepo, response: Response
) -> HouseholdOut:
    """Create a household; the caller is its `owner`. A user may belong to several households."""
    household = await service.create(user, body.name, households=households)
    response.headers["Location"] = f"/api/households/{household.id}"
    return await _household_out(household, households)


@router.get("/households", response_model=Page[HouseholdOut], responses=errors(400, 401))
async def list_households(
    request: Request, user: CurrentUser, page: Pagination, households: HouseholdRepo
) -> dict[str, object]:
    """The households the caller belongs to, in any role, oldest first, each with its members; always
    paged (the envelope, `cursor` too)."""
    after = page.after_key(("int",))
    found, total = await households.page_of(user.id, page.fetch, page.offset, after[0] if after else None)
    shown, next_cursor = page.window(found, lambda household: (household.id,))
    members = await households.members_of([household.id for household in shown])
    items = [
        HouseholdOut(id=item.id, name=item.name, members=[_member_out(m) for m in members[item.id]])
        for item in shown
    ]
    return build_page(items, total, page, request, next_cursor)


@router.get("/households/{id}", response_model=HouseholdOut, responses=errors(400, 401, 404))
async def get_household(id: HouseholdId, user: CurrentUser, households: HouseholdRepo) -> HouseholdOut:
    """A household with its members, for its members in any role (404 for anyone else)."""
    household = await service.visible(user, id, households=households)
    return await _household_out(household, households)


@router.patch("/households/{id}", response_model=HouseholdOut, responses=errors(400, 401, 403, 404))
async def update_household(
    id: HouseholdId, body: HouseholdUpdate, user: CurrentUser, households: HouseholdRepo
) -> HouseholdOut:
    """Rename the household (owners; 403 for members and viewers)."""
    household = await service.rename(user, id, body.name, households=households)
    return await _household_out(household, households)


@router.delete(
    "/households/{id}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(400, 401, 403, 404)
)
async def delete_household(id: HouseholdId, user: CurrentUser, households: HouseholdRepo) -> None:
    """Delete the household (owners): its memberships and invitations go with it, and the products shared
    with it are unshared (their owners keep them)."""
    await service.delete(user, id, households=households)


@router.post(
    "/households/{id}/invitations",
    status_code=status.HTTP_201_CREATED,
    response_model=HouseholdInvitationOut,
    responses=errors(400, 401, 403, 404, 409),
)
async def create_household_invitation(
    id: HouseholdId,
    body: HouseholdInvitationCreate,
    user: CurrentUser,
    households: HouseholdRepo,
    invitations: InvitationRepo,
    response: Response,
) -> HouseholdInvitationOut:
    """Invite an email address as `member` or `viewer` (owners). An email with a link to
    `{WARRANTY_FRONTEND_URL}/invitations/{token}` goes to it; the link works once, for 7 days, for the
    account with that email. 409 ALREADY_MEMBER, INVITATION_PENDING (delete it first to send a new one) or
    HOUSEHOLD_FULL (100 members and open invitations)."""
    role = HouseholdRole(body.role)
    invitation = await service.invite(
        user, id, body.email, role, households=households, invitations=invitations
    )
    response.headers["Location"] = f"/api/households/{id}/invitations/{invitation.id}"
    return _invitation_out(invitation)


@router.get(
    "/households/{id}/invitations",
    response_model=Page[HouseholdInvitationOut],
    responses=errors(400, 401, 403, 404),
)
async def list_household_invitations(
    id: HouseholdId, request: Request, user: CurrentUser, page: Pagination, invitations: InvitationRepo
) -> dict[str, object]:
    """The household's invitations not yet accepted or deleted, expired ones included (`expired`), oldest
    first; always paged (owners; 403 for members and viewers)."""
    await service.ensure_owner(invitations.session, user, id)
    after = page.after_key(("int",))
    found, total = await invitations.page(id, page.fetch, page.offset, after[0] if after else None)
    shown, next_cursor = page.window(found, lambda invitation: (invitation.id,))
    return build_page([_invitation_out(item) for item in shown], total, page, request, next_cursor)


@router.delete(
    "/households/{id}/invitations/{invitationId}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(400, 401, 403, 404),
)
async def delete_household_invitation(
    id: HouseholdId, invitation_id: InvitationId, user: CurrentUser, invitations: InvitationRepo
) -> None:
    """Withdraw an invitation (owners): its link answers 404 from now on."""
    await service.cancel_invitation(user, id, invitation_id, invitations=invitations)


@router.post(
    "/invitations/{token}/accept", response_model=HouseholdMembership, responses=errors(401, 403, 404)
)
async def accept_household_invitation(
    token: InvitationToken, user: CurrentUser, households: HouseholdRepo, invitations: InvitationRepo
) -> HouseholdMembership:
    """Join the household with the invitation's role. Only the account whose email is the invited one
    (ignoring case) may accept: 403 for any other. A used, expired, withdrawn or unknown token: 404. A
    member already keeps their role, and the invitation is used up."""
    household, member = await service.accept(user, token, households=households, invitations=invitations)
    return HouseholdMembership(
        **_member_out(member).model_dump(), household_id=household.id, household_name=household.name
    )


@router.patch(
    "/households/{id}/members/{userId}",
    response_model=HouseholdMemberOut,
    responses=errors(400, 401, 403, 404, 409),
)
async def update_household_member(
    id: HouseholdId,
    user_id: MemberId,
    body: HouseholdRoleChange,
    user: CurrentUser,
    households: HouseholdRepo,
) -> HouseholdMemberOut:
    """Change a member's role (owners; their own too). 409 LAST_OWNER when it would leave no owner."""
    role = HouseholdRole(body.role)
    member = await service.change_role(user, id, user_id, role, households=households)
    return _member_out(member)


@router.delete(
    "/households/{id}/members/{userId}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(400, 401, 403, 404, 409),
)
async def remove_household_member(
    id: HouseholdId, user_id: MemberId, user: CurrentUser, households: HouseholdRepo
) -> None:
    """Remove a member (owners), or leave (anyone, on their own id). 409 LAST_OWNER for the last owner.
    The products the member shared with the household are unshared."""
    await service.remove_member(user, id, user_id, households=households)
