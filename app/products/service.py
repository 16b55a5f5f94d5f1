"""The rules of a product's warranty that span fields: it ends after a number of months or on a day given
directly (exactly one of the two), that day within the purchase day's reach; and voiding it. The functions
that change products and receipts record the change (app.changes) in its transaction."""

from __future__ import annotations

from datetime import date
from typing import Any

from app.changes.dispatch import record
from app.changes.events import ProductDeleted, ProductsChanged
from app.core.clock import utc_now
from app.errors import ValidationFailed
from app.models import Product, Receipt, User
from app.products.receipt_records import ReceiptRepository
from app.products.repository import ProductRepository
from app.products.schemas import WARRANTY_LENGTH_REQUIRED, ProductCreate, ProductUpdate
from app.products.warranty import MAX_MONTHS, expiry_date

MONTHS, ENDS_ON = "warranty_period_months", "warranty_ends_on"


def create_fields(body: ProductCreate) -> dict[str, Any]:
    """The attributes of a new product (from the API or a CSV row), once the rules that span fields
    hold (400 VALIDATION_FAILED otherwise)."""
    fields = body.model_dump(exclude={MONTHS, ENDS_ON}) | _warranty_end(body, creating=True)
    _check_end_day(fields["purchase_date"], fields[ENDS_ON])
    return fields


async def create(owner: User, body: ProductCreate, *, products: ProductRepository) -> Product:
    product = await products.add(owner, create_fields(body))
    await record(products.session, ProductsChanged(owner.id))
    return product


async def import_rows(owner: User, rows: list[dict[str, Any]], *, products: ProductRepository) -> None:
    """Create the products of a CSV import (each row's fields as `create_fields` gives them)."""
    await products.add_many(owner, rows)
    await record(products.session, ProductsChanged(owner.id))


async def update(product: Product, body: ProductUpdate, *, products: ProductRepository) -> Product:
    """Only the fields sent change; sending the months or the end day switches the warranty to it."""
    changes = {name: value for name, value in body.changes().items() if name not in (MONTHS, ENDS_ON)}
    changes |= _warranty_end(body, creating=False)
    ends_on = changes.get(ENDS_ON, product.warranty_ends_on)
    _check_end_day(changes.get("purchase_date", product.purchase_date), ends_on)
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
    product = await products.update(product, changes)
    await record(products.session, ProductsChanged(product.owner_id))
    return product


async def delete(product: Product, *, products: ProductRepository) -> None:
    """Delete the product with everything attached to it. Its claims and messages leave every kind of
    page, so every cached page goes (ProductDeleted)."""
    await products.delete(product)
    await record(products.session, ProductDeleted(product.id))


async def add_receipt(product: Product, *, receipts: ReceiptRepository, **fields: object) -> Receipt:
    receipt = await receipts.add(product, **fields)
    await record(receipts.session, ProductsChanged(product.owner_id))
    return receipt


async def delete_receipt(product: Product, receipt: Receipt, *, receipts: ReceiptRepository) -> None:
    await receipts.delete(receipt)
    await record(receipts.session, ProductsChanged(product.owner_id))


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
