"""Supplier organisations (docs/api.md, "Supplier organisations"): admins create and manage them under
/api/admin/organizations; members read their own (`/api/organizations/mine`) and its members; managers
add, change and remove its members under /api/organizations/{id}/members, as admins do under the admin
path."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import APIRouter, Depends, Request, Response, status
from starlette.convertors import StringConvertor, register_url_convertor

from app.api.dependencies import AdminUser, CurrentUser, Pagination, admin_user
from app.api.openapi import errors
from app.api.pagination import Page, build_page
from app.models import Organization
from app.models.enums import OrganizationRole
from app.organizations import service
from app.organizations.dependencies import MemberId, MemberRepo, OrganizationId, OrganizationRepo
from app.organizations.repository import Member, OrganizationRepository
from app.organizations.schemas import (
    DeadlineSettings,
    MemberAdd,
    MemberOut,
    MemberRoleChange,
    MyOrganization,
    OrganizationCreate,
    OrganizationOut,
    OrganizationUpdate,
)

router = APIRouter(prefix="/api", tags=["organizations"])


class OrganizationIdSegment(StringConvertor):
    """The `{id}` of /organizations/{id}: any text (a non-integer is a 400, like every path id) except
    `mine`, the sibling resource: PATCH /organizations/mine is then a 405 naming GET in `Allow`, not a 400
    for an organisation id "mine"."""

    regex = "(?!mine$)[^/]+"


register_url_convertor("organization_id", OrganizationIdSegment())


async def _outs(
    items: Sequence[Organization], organizations: OrganizationRepository
) -> list[OrganizationOut]:
    """The organisations as answered, with their brands and member counts: two statements for any number."""
    ids = [item.id for item in items]
    brands, counts = await organizations.brands_of(ids), await organizations.member_counts(ids)
    return [
        OrganizationOut(
            id=item.id,
            name=item.name,
            email=item.email,
            brands=list(brands[item.id].values()),
            member_count=counts[item.id],
            first_response_minutes=item.first_response_minutes,
            resolution_minutes=item.resolution_minutes,
            business_hours=item.business_hours,
            created_at=item.created_at,
            updated_at=item.updated_at,
        )
        for item in items
    ]


async def _out(organization: Organization, organizations: OrganizationRepository) -> OrganizationOut:
    [out] = await _outs([organization], organizations)
    return out


def _member_out(member: Member) -> MemberOut:
    return MemberOut.model_validate(member)


# --- Organisations (admins only: 403 for anyone else)


@router.post(
    "/admin/organizations",
    status_code=status.HTTP_201_CREATED,
    response_model=OrganizationOut,
    responses=errors(400, 401, 403, 409),
)
async def create_organization(
    body: OrganizationCreate, _admin: AdminUser, organizations: OrganizationRepo, response: Response
) -> OrganizationOut:
    """Create a supplier organisation with its brands (new claims on products of those brands go to it).
    409 BRAND_TAKEN when another organisation handles one of them (`details.brands` names them)."""
    organization = await service.create(body.name, body.brands, body.email, organizations=organizations)
    response.headers["Location"] = f"/api/admin/organizations/{organization.id}"
    return await _out(organization, organizations)


@router.get("/admin/organizations", response_model=Page[OrganizationOut], responses=errors(400, 401, 403))
async def list_organizations(
    request: Request, _admin: AdminUser, page: Pagination, organizations: OrganizationRepo
) -> dict[str, object]:
    """Every organisation, oldest first, with its brands and member count; always paged (the envelope,
    `cursor` too)."""
    after = page.after_key(("int",))
    found, total = await organizations.page(page.fetch, page.offset, after[0] if after else None)
    shown, next_cursor = page.window(found, lambda organization: (organization.id,))
    return build_page(await _outs(shown, organizations), total, page, request, next_cursor)


@router.get("/admin/organizations/{id}", response_model=OrganizationOut, responses=errors(400, 401, 403, 404))
async def get_organization(
    id: OrganizationId, _admin: AdminUser, organizations: OrganizationRepo
) -> OrganizationOut:
    """One organisation with its brands and member count (its members: `.../members`)."""
    return await _out(await service.get(id, organizations=organizations), organizations)


@router.patch(
    "/admin/organizations/{id}", response_model=OrganizationOut, responses=errors(400, 401, 403, 404, 409)
)
async def update_organization(
    id: OrganizationId, body: OrganizationUpdate, _admin: AdminUser, organizations: OrganizationRepo
) -> OrganizationOut:
    """Change any of `name`, `brands` (replaces the list: brands left out are released), `email` (null
    removes it), and the deadlines: `firstResponseMinutes`, `resolutionMinutes`, `businessHours` (null
    removes them; docs/api.md, "Deadlines"), which re-computes its open claims' deadlines. 409 BRAND_TAKEN
    as at creation."""
    organization = await service.update(
        id,
        name=body.name,
        brands=body.brands,
        email=body.email,
        set_email="email" in body.model_fields_set,
        organizations=organizations,
        deadline_change=_deadline_change(body),
    )
    return await _out(organization, organizations)


def _deadline_change(body: DeadlineSettings) -> service.DeadlineChange:
    hours = body.business_hours
    return service.DeadlineChange(
        first_response_minutes=body.first_response_minutes,
        resolution_minutes=body.resolution_minutes,
        business_hours=None if hours is None else hours.stored(),
        set_hours="business_hours" in body.model_fields_set,
    )


@router.patch(
    "/organizations/{id:organization_id}",
    response_model=OrganizationOut,
    responses=errors(400, 401, 403, 404),
)
async def update_my_organization(
    id: OrganizationId, body: DeadlineSettings, user: CurrentUser, organizations: OrganizationRepo
) -> OrganizationOut:
    """The organization's managers (and admins) set its deadlines: `firstResponseMinutes`,
    `resolutionMinutes`, `businessHours` (null removes them); its open claims' deadlines are re-computed
    (docs/api.md, "Deadlines"). 403 for its agents, 404 for anyone else; its name, brands and email are
    the admins' (`PATCH /api/admin/organizations/{id}`)."""
    organization = await service.set_deadlines(user, id, _deadline_change(body), organizations=organizations)
    return await _out(organization, organizations)


@router.delete(
    "/admin/organizations/{id}", status_code=status.HTTP_204_NO_CONTENT, responses=errors(400, 401, 403, 404)
)
async def delete_organization(id: OrganizationId, _admin: AdminUser, organizations: OrganizationRepo) -> None:
    """Delete the organisation: its brands are released and its members belong to no organisation; its
    claims stay, without an organisation."""
    await service.delete(id, organizations=organizations)


@router.get("/organizations/mine", response_model=MyOrganization, responses=errors(401, 404))
async def get_my_organization(user: CurrentUser, organizations: OrganizationRepo) -> MyOrganization:
    """The caller's organisation, with their `role` in it; 404 when they belong to none."""
    organization, membership = await service.mine(user, organizations=organizations)
    return MyOrganization(**(await _out(organization, organizations)).model_dump(), role=membership.role)


# --- Members, on two paths: /api/admin/organizations/{id}/members (admins only: 403 for anyone else) and
# /api/organizations/{id}/members (its members read, its managers write; admins may use it too). The same
# operations answer both; each path has its own operation id.


async def list_members(
    id: OrganizationId,
    request: Request,
    user: CurrentUser,
    page: Pagination,
    organizations: OrganizationRepo,
    members: MemberRepo,
) -> dict[str, object]:
    """The organisation's members, longest-standing first; always paged (the envelope, `cursor` too). On
    /api/organizations: for its members in any role (404 for anyone else)."""
    await service.ensure_visible(user, id, organizations=organizations)
    after = page.after_key(("datetime", "int"))
    found, total = await members.page(id, page.fetch, page.offset, after)
    shown, next_cursor = page.window(found, lambda member: (member.joined_at, member.user_id))
    return build_page([_member_out(member) for member in shown], total, page, request, next_cursor)


async def get_member(
    id: OrganizationId,
    user_id: MemberId,
    user: CurrentUser,
    organizations: OrganizationRepo,
    members: MemberRepo,
) -> MemberOut:
    """One member of the organisation (404 when the user is not one). On /api/organizations: for its
    members in any role."""
    return _member_out(await service.member(user, id, user_id, organizations=organizations, members=members))


async def add_member(
    id: OrganizationId,
    body: MemberAdd,
    request: Request,
    response: Response,
    user: CurrentUser,
    organizations: OrganizationRepo,
    members: MemberRepo,
) -> MemberOut:
    """Add a user with ROLE_SUPPLIER (admins hold it too) as `manager` or `agent`. 400 NOT_A_SUPPLIER for
    an unknown user or one without the role; 409 ALREADY_MEMBER, or ALREADY_IN_ORGANIZATION when they
    belong to another organisation (a user belongs to at most one). On /api/organizations: its managers
    (403 for its agents)."""
    role = OrganizationRole(body.role)
    member = await service.add_member(
        user, id, body.user_id, role, organizations=organizations, members=members
    )
    response.headers["Location"] = f"{request.url.path}/{member.user_id}"
    return _member_out(member)


async def update_member(
    id: OrganizationId,
    user_id: MemberId,
    body: MemberRoleChange,
    user: CurrentUser,
    organizations: OrganizationRepo,
    members: MemberRepo,
) -> MemberOut:
    """Change a member's role (a manager's own too). On /api/organizations: its managers, and 409
    LAST_MANAGER when it would leave the organisation without a manager (admins may)."""
    role = OrganizationRole(body.role)
    member = await service.change_role(user, id, user_id, role, organizations=organizations, members=members)
    return _member_out(member)


async def remove_member(
    id: OrganizationId,
    user_id: MemberId,
    user: CurrentUser,
    organizations: OrganizationRepo,
    members: MemberRepo,
) -> None:
    """Remove a member (a manager themselves too): their access to the organisation's claims ends at once.
    On /api/organizations: its managers, and 409 LAST_MANAGER for the last manager (admins may)."""
    await service.remove_member(user, id, user_id, organizations=organizations, members=members)


_MEMBER_ROUTES = (
    ("", "GET", list_members, "list_organization_members", 200, Page[MemberOut], (400, 401, 403, 404)),
    ("", "POST", add_member, "add_organization_member", 201, MemberOut, (400, 401, 403, 404, 409)),
    ("/{userId}", "GET", get_member, "get_organization_member", 200, MemberOut, (400, 401, 403, 404)),
    (
        "/{userId}",
        "PATCH",
        update_member,
        "update_organization_member",
        200,
        MemberOut,
        (400, 401, 403, 404, 409),
    ),
    (
        "/{userId}",
        "DELETE",
        remove_member,
        "remove_organization_member",
        204,
        None,
        (400, 401, 403, 404, 409),
    ),
)

for _tail, _method, _endpoint, _name, _status, _model, _errors in _MEMBER_ROUTES:
    router.add_api_route(
        "/organizations/{id}/members" + _tail,
        _endpoint,
        methods=[_method],
        name=_name,
        status_code=_status,
        response_model=_model,
        responses=errors(*_errors),
    )
    router.add_api_route(
        "/admin/organizations/{id}/members" + _tail,
        _endpoint,
        methods=[_method],
        name="admin_" + _name,
        status_code=_status,
        response_model=_model,
        responses=errors(*_errors),
        dependencies=[Depends(admin_user)],
    )
