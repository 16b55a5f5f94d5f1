"""Who may see a claim: its customer, its assigned supplier, and admins. The one place that says so;
every read of claims, messages and attachments goes through these statements."""

from __future__ import annotations

from sqlalchemy import Select, bindparam, or_, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.driver_reads import DriverRead
from app.core.ids import MAX_ID
from app.errors import NotFound
from app.models import Claim, User
from app.models.enums import Role

CUSTOMER = "customer"
SUPPLIER = "supplier"
ADMIN = "admin"


def visible_claims(user: User) -> Select[Claim]:
    statement = select(Claim)
    if Role.ADMIN in user.effective_roles:
        return statement
    return statement.where(or_(Claim.customer_id == user.id, Claim.supplier_id == user.id))


def participating_claims(user: User) -> Select[Claim]:
    """The claims the user takes part in (customer or assigned supplier), whatever their role: the
    user's own claim list, for admins too. The two sides are read through their own indexes: as one OR,
    the planner may walk every claim newest first looking for a customer's few."""
    as_customer = select(Claim.id).where(Claim.customer_id == user.id)
    as_supplier = select(Claim.id).where(Claim.supplier_id == user.id)
    return select(Claim).where(Claim.id.in_(union_all(as_customer, as_supplier)))


def may_see(user: User, customer_id: int, supplier_id: int | None) -> bool:
    """The rule of `visible_claims`, for a claim whose parties are already loaded (the hub's sweep)."""
    return Role.ADMIN in user.effective_roles or user.id in (customer_id, supplier_id)


def is_participant(user: User, claim: Claim) -> bool:
    return user.id in (claim.customer_id, claim.supplier_id)


def claim_roles(user: User, claim: Claim) -> set[str]:
    """What the user is to this claim: customer, supplier, admin (several at once is possible)."""
    roles = set()
    if user.id == claim.customer_id:
        roles.add(CUSTOMER)
    if user.id == claim.supplier_id:
        roles.add(SUPPLIER)
    if Role.ADMIN in user.effective_roles:
        roles.add(ADMIN)
    return roles


def not_found() -> NotFound:
    return NotFound("No such claim.")


# `visible_claims` for one claim, built once: parameters claim_id (and user_id for a non-admin).
# Every read of one claim starts here: on the driver's connection (app.core.driver_reads).
_ANY_CLAIM = select(Claim).where(Claim.id == bindparam("claim_id"))
_PARTY_CLAIM = _ANY_CLAIM.where(
    or_(Claim.customer_id == bindparam("user_id"), Claim.supplier_id == bindparam("user_id"))
)
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
