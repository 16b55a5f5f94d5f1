"""Receipts' records (app.products.receipt_records): a receipt as the API shows it, and the repository that
reaches a receipt only through its own product."""

from __future__ import annotations

from fastapi import FastAPI

from app.core.clock import iso_utc
from app.core.ids import MAX_ID
from app.models import Receipt
from app.products.receipt_records import ReceiptRepository, receipt_out
from tests.factories.products import create_product, create_receipt
from tests.factories.users import create_user
from tests.helpers import count_queries
from tests.support.pdf import PDF_BYTES


async def test_a_receipt_is_shown_with_the_url_of_its_file(app: FastAPI) -> None:
    owner = await create_user(app)
    await create_product(app, owner)
    product = await create_product(app, owner)  # another id than its first receipt's
    receipt = await create_receipt(app, product, file_name="bon d'achat.pdf")
    assert product.id != receipt.id

    assert receipt_out(receipt).model_dump(mode="json", by_alias=True) == {
        "id": receipt.id,
        "fileName": "bon d'achat.pdf",
        "fileType": "pdf",
        "mimeType": "application/pdf",
        "size": len(PDF_BYTES),
        "createdAt": iso_utc(receipt.created_at),
        "url": f"/api/products/{product.id}/receipts/{receipt.id}/file",
    }


async def test_a_receipt_is_found_only_through_its_own_product(app: FastAPI) -> None:
    owner = await create_user(app)
    first, second = await create_product(app, owner), await create_product(app, owner)
    older, newer = await create_receipt(app, first), await create_receipt(app, first)
    theirs = await create_receipt(app, second)

    async with app.state.sessionmaker() as session:
        receipts = ReceiptRepository(session)
        assert [receipt.id for receipt in await receipts.of_product(first.id)] == [older.id, newer.id]
        found = await receipts.get(second.id, theirs.id)
        assert found is not None and found.storage_key == theirs.storage_key
        assert await receipts.get(first.id, theirs.id) is None
        with count_queries(app) as statements:
            for out_of_range in (0, -1, MAX_ID + 1):
                assert await receipts.get(first.id, out_of_range) is None
        assert statements == []  # not even asked


async def test_a_receipt_is_added_to_a_product_and_deleted(app: FastAPI) -> None:
    product = await create_product(app, await create_user(app))
    fields = {"file_name": "r.pdf", "file_type": "pdf", "mime_type": "application/pdf", "size": 3}

    async with app.state.sessionmaker() as session, session.begin():
        added = await ReceiptRepository(session).add(product, storage_key="receipts/r.pdf", **fields)
        assert added.id is not None and added.product_id == product.id

    async with app.state.sessionmaker() as session, session.begin():
        receipts = ReceiptRepository(session)
        await receipts.delete(await session.get_one(Receipt, added.id))
        assert await receipts.of_product(product.id) == []
