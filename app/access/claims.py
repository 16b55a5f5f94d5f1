"""Who may see a claim: its customer, its assigned supplier, the members of the household its product is
shared with (contract 17.3), the members of the supplier organisation it is routed to (17.7), and admins.
The one place that says so; every read of claims, messages and attachments goes through these statements.
On the customer side, household owners and members write (post, move the claim as its customer may) and
viewers read; on the supplier side, every member of the claim's organisation acts as its supplier."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, exists, false, or_, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.households import WRITERS
from app.access.organizations import Membership, membership_of, organization_ids_of
from app.access.products import shared_with
from app.core.driver_reads import DriverRead
from app.core.ids import MAX_ID
from app.errors import Forbidden, NotFound
from app.models import Claim, ClaimMute, HouseholdMember, OrganizationMember, Product, User
from app.models.enums import HouseholdRole, Role

CUSTOMER = "customer"
SUPPLIER = "supplier"
ADMIN = "admin"


def _shared_claim(user_id: Any) -> ColumnElement[bool]:
    """The claim's product is shared with a household the user belongs to (`user_id` may be a bindparam)."""
    return exists().where(Product.id == Claim.product_id, shared_with(user_id))


def _organization_claim(user_id: Any) -> ColumnElement[bool]:
    """The claim is routed to the organisation the user works for (`user_id` may be a bindparam)."""
    return Claim.organization_id.in_(organization_ids_of(user_id))


def _party_or_shared(user_id: Any) -> ColumnElement[bool]:
    return or_(
        Claim.customer_id == user_id,
        Claim.supplier_id == user_id,
        _shared_claim(user_id),
        _organization_claim(user_id),
    )


def visible_claims(user: User) -> Select[Claim]:
    statement = select(Claim)
    if Role.ADMIN in user.effective_roles:
        return statement
    return statement.where(_party_or_shared(user.id))


def participating_claims(user: User) -> Select[Claim]:
    """The claims the user takes part in (customer, assigned supplier, or member of the household the
    product is shared with), whatever their role: the user's own claim list, for admins too. The claims of
    an organisation the user works for are not here unless assigned to them: they are its queue
    (app.claims.queue). Each side is read through its own indexes: as one OR, the planner may walk every
    claim newest first looking for a customer's few."""
    as_customer = select(Claim.id).where(Claim.customer_id == user.id)
    as_supplier = select(Claim.id).where(Claim.supplier_id == user.id)
    as_household = (
        select(Claim.id)
        .join(Product, Product.id == Claim.product_id)
        .join(HouseholdMember, HouseholdMember.household_id == Product.household_id)
        .where(HouseholdMember.user_id == user.id)
    )
    return select(Claim).where(Claim.id.in_(union_all(as_customer, as_supplier, as_household)))


@dataclass(frozen=True)
class Parties:
    """Who a claim is to, loaded for many claims at once (the hub's sweep): its customer, its supplier, the
    household its product is shared with and the organisation it is routed to."""

    customer_id: int
    supplier_id: int | None
    household_id: int | None
    organization_id: int | None


def may_see(user: User, claim: Parties, households: set[int], organization_id: int | None) -> bool:
    """The rule of `visible_claims`, for a claim whose parties are already loaded (the hub's sweep):
    `households` are the user's, `organization_id` the organisation the user works for (or None)."""
    if Role.ADMIN in user.effective_roles or user.id in (claim.customer_id, claim.supplier_id):
        return True
    if claim.household_id is not None and claim.household_id in households:
        return True
    return claim.organization_id is not None and claim.organization_id == organization_id


# The user's role in the household the claim's product is shared with: parameters product_id, user_id.
_HOUSEHOLD_ROLE: DriverRead[Any] = DriverRead(
    select(HouseholdMember.role)
    .join(Product, Product.household_id == HouseholdMember.household_id)
    .where(Product.id == bindparam("product_id"), HouseholdMember.user_id == bindparam("user_id"))
)


async def household_role(session: AsyncSession, user: User, claim: Claim) -> HouseholdRole | None:
    """The user's role in the household the claim's product is shared with (None: not shared with them)."""
    rows = await _HOUSEHOLD_ROLE.all(session, product_id=claim.product_id, user_id=user.id)
    return HouseholdRole(rows[0].role) if rows else None


async def is_participant(session: AsyncSession, user: User, claim: Claim) -> bool:
    """Customer, assigned supplier, or a household owner or member of the claim's product: the people
    whose reading is a read receipt. Reads the household only for someone else."""
    if user.id in (claim.customer_id, claim.supplier_id):
        return True
    return await household_role(session, user, claim) in WRITERS


async def organization_membership(session: AsyncSession, user: User, claim: Claim) -> Membership | None:
    """The user's membership of the organisation the claim is routed to (None: it is not routed, or they
    do not work for it). One read of the user's membership, only for a routed claim; kept for the
    request's session, since a claim write asks several times."""
    if claim.organization_id is None:
        return None
    key = ("organization_membership", user.id)
    if key not in session.info:
        session.info[key] = await membership_of(session, user)
    membership: Membership | None = session.info[key]
    if membership is None or membership.organization_id != claim.organization_id:
        return None
    return membership


async def claim_roles(session: AsyncSession, user: User, claim: Claim) -> set[str]:
    """What the user is to this claim: customer (its customer, or a household owner or member of its
    product), supplier (its assigned supplier, or a member of the organisation it is routed to), admin
    (several at once is possible). The customer side wins for someone on both."""
    roles = set()
    if user.id == claim.customer_id:
        roles.add(CUSTOMER)
    if user.id == claim.supplier_id:
        roles.add(SUPPLIER)
    if Role.ADMIN in user.effective_roles:
        roles.add(ADMIN)
    if not roles and await household_role(session, user, claim) in WRITERS:
        roles.add(CUSTOMER)
    if not roles and await organization_membership(session, user, claim) is not None:
        roles.add(SUPPLIER)
    return roles


async def acts_unassigned(session: AsyncSession, user: User, claim: Claim) -> Membership | None:
    """The user's membership when they act on the claim as its organisation's supplier side while it has
    no agent: the actor its first supplier-side action assigns (contract 17.7). Never its customer."""
    if claim.supplier_id is not None or user.id == claim.customer_id:
        return None
    return await organization_membership(session, user, claim)


async def require_writer(session: AsyncSession, user: User, claim: Claim) -> None:
    """A household viewer sees the claim but may not write in it (post, read receipts aside): 403."""
    if not await claim_roles(session, user, claim):
        raise Forbidden("Viewers of a household may only read its claims.")


def notified_users(
    claim_id: Any, product_id: Any, user_ids: Any, organization_id: Any = None
) -> ColumnElement[bool]:
    """Whom a change in the claim concerns, as a condition on users: its customer and supplier
    (`user_ids`), the household owners and members of its product, and the members of the organisation
    `organization_id` (the claim's while it has no agent, else None: contract 17.7), less everyone who
    muted the claim; a household viewer only after unmuting it (contract 17.4)."""
    chose = select(ClaimMute.muted).where(ClaimMute.claim_id == claim_id, ClaimMute.user_id == User.id)
    household = (
        select(HouseholdMember.user_id)
        .join(Product, Product.household_id == HouseholdMember.household_id)
        .where(Product.id == product_id)
    )
    party = User.id.in_(user_ids)
    concerned = [party, User.id.in_(household)]
    if organization_id is not None:
        agents = select(OrganizationMember.user_id).where(
            OrganizationMember.organization_id == organization_id
        )
        concerned.append(User.id.in_(agents))
    viewer = exists().where(
        HouseholdMember.user_id == User.id,
        HouseholdMember.role == HouseholdRole.VIEWER,
        HouseholdMember.household_id
        == select(Product.household_id).where(Product.id == product_id).scalar_subquery(),
    )
    return and_(
        or_(*concerned),
        or_(
            chose.exists().where(ClaimMute.muted == false()),
            and_(~chose.exists(), or_(party, ~viewer)),
        ),
    )


def unassigned_organization(claim: Claim) -> int | None:
    """The organisation whose members hear of the claim: its own while no agent is assigned."""
    return claim.organization_id if claim.supplier_id is None else None


# Whether a change in a claim still concerns one user (the outbox worker, at send time): parameters
# recipient_id, claim_id, product_id, user_ids (customer and supplier), organization_id.
_CONCERNED = select(User.id).where(
    User.id == bindparam("recipient_id"),
    notified_users(
        bindparam("claim_id"),
        bindparam("product_id"),
        bindparam("user_ids", expanding=True),
        bindparam("organization_id"),
    ),
)


async def still_notified(session: AsyncSession, claim: Claim, user_id: int) -> bool:
    """Whether a change in the claim would notify `user_id` now: a recipient chosen earlier may have
    left the claim since (a replaced supplier, a member who left, a muted claim). One statement."""
    parties = [party for party in (claim.customer_id, claim.supplier_id) if party is not None]
    found = await session.scalar(
        _CONCERNED,
        {
            "recipient_id": user_id,
            "claim_id": claim.id,
            "product_id": claim.product_id,
            "user_ids": parties,
            "organization_id": unassigned_organization(claim),
        },
    )
    return found is not None


def not_found() -> NotFound:
    return NotFound("No such claim.")


# `visible_claims` for one claim, built once: parameters claim_id (and user_id for a non-admin).
# Every read of one claim starts here: on the driver's connection (app.core.driver_reads).
_ANY_CLAIM = select(Claim).where(Claim.id == bindparam("claim_id"))
_PARTY_CLAIM = _ANY_CLAIM.where(_party_or_shared(bindparam("user_id")))
_ANY_CLAIM_READ = DriverRead(_ANY_CLAIM, Claim)
_PARTY_CLAIM_READ = DriverRead(_PARTY_CLAIM, Claim)


async def get_visible_claim(session: AsyncSession, user: User, claim_id: int) -> Claim:
    """The claim, if the user may see it; 404 alike for a missing claim and one of other people."""
    if not 1 <= claim_id <= MAX_ID:
        raise not_found()
    read = _ANY_CLAIM_READ if Role.ADMIN in user.effective_roles else _PARTY_CLAIM_READ
    claim = await read.one(session, claim_id=claim_id, user_id=user.id)
    if claim is None:
        raise not_found()
    return claim
