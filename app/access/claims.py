"""Who may see a claim: its customer, its assigned supplier, the members of the household its product is
shared with (contract 17.3), and admins. The one place that says so; every read of claims, messages and
attachments goes through these statements. On the customer side, household owners and members write (post,
move the claim as its customer may) and viewers read."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, exists, false, or_, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.households import WRITERS
from app.access.products import shared_with
from app.core.driver_reads import DriverRead
from app.core.ids import MAX_ID
from app.errors import Forbidden, NotFound
from app.models import Claim, ClaimMute, HouseholdMember, Product, User
from app.models.enums import HouseholdRole, Role

CUSTOMER = "customer"
SUPPLIER = "supplier"
ADMIN = "admin"


def _shared_claim(user_id: Any) -> ColumnElement[bool]:
    """The claim's product is shared with a household the user belongs to (`user_id` may be a bindparam)."""
    return exists().where(Product.id == Claim.product_id, shared_with(user_id))


def _party_or_shared(user_id: Any) -> ColumnElement[bool]:
    return or_(Claim.customer_id == user_id, Claim.supplier_id == user_id, _shared_claim(user_id))


def visible_claims(user: User) -> Select[Claim]:
    statement = select(Claim)
    if Role.ADMIN in user.effective_roles:
        return statement
    return statement.where(_party_or_shared(user.id))


def participating_claims(user: User) -> Select[Claim]:
    """The claims the user takes part in (customer, assigned supplier, or member of the household the
    product is shared with), whatever their role: the user's own claim list, for admins too. Each side is
    read through its own indexes: as one OR, the planner may walk every claim newest first looking for a
    customer's few."""
    as_customer = select(Claim.id).where(Claim.customer_id == user.id)
    as_supplier = select(Claim.id).where(Claim.supplier_id == user.id)
    as_household = (
        select(Claim.id)
        .join(Product, Product.id == Claim.product_id)
        .join(HouseholdMember, HouseholdMember.household_id == Product.household_id)
        .where(HouseholdMember.user_id == user.id)
    )
    return select(Claim).where(Claim.id.in_(union_all(as_customer, as_supplier, as_household)))


def may_see(
    user: User, customer_id: int, supplier_id: int | None, household_id: int | None, households: set[int]
) -> bool:
    """The rule of `visible_claims`, for a claim whose parties are already loaded (the hub's sweep):
    `household_id` is the claim's product's, `households` the user's."""
    if Role.ADMIN in user.effective_roles or user.id in (customer_id, supplier_id):
        return True
    return household_id is not None and household_id in households


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


async def claim_roles(session: AsyncSession, user: User, claim: Claim) -> set[str]:
    """What the user is to this claim: customer (its customer, or a household owner or member of its
    product), supplier, admin (several at once is possible)."""
    roles = set()
    if user.id == claim.customer_id:
        roles.add(CUSTOMER)
    if user.id == claim.supplier_id:
        roles.add(SUPPLIER)
    if Role.ADMIN in user.effective_roles:
        roles.add(ADMIN)
    if not roles and await household_role(session, user, claim) in WRITERS:
        roles.add(CUSTOMER)
    return roles


async def require_writer(session: AsyncSession, user: User, claim: Claim) -> None:
    """A household viewer sees the claim but may not write in it (post, read receipts aside): 403."""
    if not await claim_roles(session, user, claim):
        raise Forbidden("Viewers of a household may only read its claims.")


def notified_users(claim_id: Any, product_id: Any, user_ids: Any) -> ColumnElement[bool]:
    """Whom a change in the claim concerns, as a condition on users: its customer and supplier
    (`user_ids`) and the household owners and members of its product, less everyone who muted the
    claim; a household viewer only after unmuting it (contract 17.4)."""
    chose = select(ClaimMute.muted).where(ClaimMute.claim_id == claim_id, ClaimMute.user_id == User.id)
    household = (
        select(HouseholdMember.user_id)
        .join(Product, Product.household_id == HouseholdMember.household_id)
        .where(Product.id == product_id)
    )
    viewer = exists().where(
        HouseholdMember.user_id == User.id,
        HouseholdMember.role == HouseholdRole.VIEWER,
        HouseholdMember.household_id
        == select(Product.household_id).where(Product.id == product_id).scalar_subquery(),
    )
    party = User.id.in_(user_ids)
    return and_(
        or_(party, User.id.in_(household)),
        or_(
            chose.exists().where(ClaimMute.muted == false()),
            and_(~chose.exists(), or_(party, ~viewer)),
        ),
    )


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
