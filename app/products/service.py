"""The rules of a product's warranty that span fields: it ends after a number of months or on a day given
directly (exactly one of the two), that day within the purchase day's reach; voiding it; and sharing it with
a household of its owner's (contract 17.3). The functions that change products and receipts record the
change (app.changes) in its transaction."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.access.households import member_ids
from app.access.products import ProductAccess, check_owner, may_share_with
from app.changes.dispatch import record
from app.changes.events import HouseholdAccessChanged, ProductDeleted, ProductsChanged
from app.core.clock import utc_now
from app.errors import ValidationFailed
from app.models import Product, Receipt, User
from app.products.receipt_records import ReceiptRepository
from app.products.repository import ProductRepository
from app.products.schemas import WARRANTY_LENGTH_REQUIRED, ProductCreate, ProductUpdate
from app.products.warranty import MAX_MONTHS, expiry_date

MONTHS, ENDS_ON = "warranty_period_months", "warranty_ends_on"
HOUSEHOLD = "household_id"


def create_fields(body: ProductCreate) -> dict[str, Any]:
    """The attributes of a new product (from the API or a CSV row), once the rules that span fields
    hold (400 VALIDATION_FAILED otherwise)."""
    fields = body.model_dump(exclude={MONTHS, ENDS_ON}) | _warranty_end(body, creating=True)
    _check_end_day(fields["purchase_date"], fields[ENDS_ON])
    return fields


async def create(owner: User, body: ProductCreate, *, products: ProductRepository) -> Product:
    """A new product of `owner`, shared with one of their households when `householdId` says so (404 for
    a household they are not a member of)."""
    fields = create_fields(body)
    if fields[HOUSEHOLD] is not None:
        await may_share_with(products.session, owner.id, fields[HOUSEHOLD])
    product = await products.add(owner, fields)
    await changed(products.session, owner.id, product.household_id)
    return product


async def import_rows(owner: User, rows: list[dict[str, Any]], *, products: ProductRepository) -> None:
    """Create the products of a CSV import (each row's fields as `create_fields` gives them; unshared)."""
    await products.add_many(owner, rows)
    await changed(products.session, owner.id)


async def update(
    product: Product, body: ProductUpdate, access: ProductAccess, *, products: ProductRepository
) -> Product:
    """Only the fields sent change; sending the months or the end day switches the warranty to it. A new
    `householdId` (null: unshared) is the owner's and admins' alone (`access`), and a household of the
    owner's; the household it already has is no change."""
    changes = {name: value for name, value in body.changes().items() if name not in (MONTHS, ENDS_ON)}
    changes |= _warranty_end(body, creating=False)
    ends_on = changes.get(ENDS_ON, product.warranty_ends_on)
    _check_end_day(changes.get("purchase_date", product.purchase_date), ends_on)
    if changes.get(HOUSEHOLD, product.household_id) == product.household_id:
        changes.pop(HOUSEHOLD, None)
    else:
        check_owner(access)
        if changes[HOUSEHOLD] is not None:
            await may_share_with(products.session, product.owner_id, changes[HOUSEHOLD])
    return await _change(product, changes, products)


async def void(product: Product, reason: str, *, products: ProductRepository) -> Product:
    """Void the warranty (again: the new reason replaces the old one, the time it was voided stays)."""
    voided_at = product.warranty_voided_at or utc_now()
    changes = {"warranty_voided_at": voided_at, "warranty_void_reason": reason}
    return await _change(product, changes, products)


async def unvoid(product: Product, *, products: ProductRepository) -> Product:
    """Undo a void; a warranty that is not voided stays as it is."""
    return await _change(product, {"warranty_voided_at": None, "warranty_void_reason": None}, products)


async def _change(product: Product, changes: dict[str, Any], products: ProductRepository) -> Product:
    former = product.household_id
    product = await products.update(product, changes)
    members = await changed(products.session, product.owner_id, former, product.household_id)
    if former is not None and former != product.household_id:
        # Unshared (or moved): the former household's members lose the product's claims at once, open
        # hub streams included; their claim lists go stale too.
        await record(products.session, HouseholdAccessChanged(former, tuple(members[former])))
    return product


async def changed(session: AsyncSession, owner_id: int, *household_ids: int | None) -> dict[int, list[int]]:
    """Record that products of `owner_id` changed (what they show, or with whom they are shared).
    `household_ids`: the households they are shared with, before and after: every member's product list
    shows them too (or did), so each member's pages go stale with the owner's. One read of the members per
    household (one, or two when a product moves between households); answers them by household."""
    households = tuple(sorted({household for household in household_ids if household is not None}))
    members = {household: await member_ids(session, household) for household in households}
    everyone = sorted({user_id for ids in members.values() for user_id in ids})
    await record(session, ProductsChanged(owner_id, households, tuple(everyone)))
    return members


async def delete(product: Product, *, products: ProductRepository) -> None:
    """Delete the product with everything attached to it. Its claims and messages leave every kind of
    page, so every cached page goes (ProductDeleted)."""
    await products.delete(product)
    await record(products.session, ProductDeleted(product.id))


async def add_receipt(product: Product, *, receipts: ReceiptRepository, **fields: object) -> Receipt:
    receipt = await receipts.add(product, **fields)
    await changed(receipts.session, product.owner_id, product.household_id)
    return receipt


async def delete_receipt(product: Product, receipt: Receipt, *, receipts: ReceiptRepository) -> None:
    await receipts.delete(receipt)
    await changed(receipts.session, product.owner_id, product.household_id)


def _warranty_end(body: ProductCreate, *, creating: bool) -> dict[str, Any]:
    """The months and end-day attributes to store: the one given, and null for the other."""
    months, ends_on = body.warranty_period_months, body.warranty_ends_on
    if months is not None and ends_on is not None:
        both = "give warrantyPeriodMonths or warrantyEndsOn, not both"
        fields = {"warrantyPeriodMonths": both, "warrantyEndsOn": both}
        raise ValidationFailed(f"Invalid input: {both}.", details={"fields": fields})
    if months is not None:
        return {MONTHS: months, ENDS_ON: None}
    if ends_on is not None:
        return {MONTHS: None, ENDS_ON: ends_on}
    sent = body.model_fields_set & {MONTHS, ENDS_ON}
    if creating:
        raise ValidationFailed.field("warrantyPeriodMonths", WARRANTY_LENGTH_REQUIRED)
    if sent:  # a null for the warranty's only end
        field = "warrantyEndsOn" if sent == {ENDS_ON} else "warrantyPeriodMonths"
        raise ValidationFailed.field(field, "may not be null: give warrantyPeriodMonths or warrantyEndsOn")
    return {}


def _check_end_day(purchase_date: date, ends_on: date | None) -> None:
    if ends_on is None:
        return
    if ends_on < purchase_date:
        raise ValidationFailed.field("warrantyEndsOn", "must not be before purchaseDate")
    if ends_on > expiry_date(purchase_date, MAX_MONTHS):
        problem = f"must be at most {MAX_MONTHS} months after purchaseDate"
        raise ValidationFailed.field("warrantyEndsOn", problem)
