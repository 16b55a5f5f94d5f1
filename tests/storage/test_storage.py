"""File storage on disk (app.storage.storage): names made here and nothing else reaching a store, files
kept whole under the data folder, streamed back with their size, and removed after the commit that dropped
their rows or the rollback of the transaction they were saved for. (The bucket: test_s3_storage.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI

from app.errors import NotFound
from app.storage.storage import (
    CHUNK_SIZE,
    LocalStorage,
    checked,
    delete_after_commit,
    discard_on_rollback,
    is_key,
    new_key,
    streamed,
)


def test_a_new_key_is_a_random_name_in_its_folder() -> None:
    keys = {new_key("receipts", "pdf") for _ in range(50)}
    assert len(keys) == 50
    assert all(re.fullmatch(r"receipts/[0-9a-f]{32}\.pdf", key) and is_key(key) for key in keys)


@pytest.mark.parametrize(
    "key",
    [
        "../etc/passwd",
        "receipts/../../etc/passwd",
        "/receipts/" + "a" * 32 + ".pdf",
        "receipts/" + "A" * 32 + ".pdf",
        "receipts/" + "a" * 31 + ".pdf",
        "receipts/" + "a" * 32,
        "receipts/" + "a" * 32 + ".pdf.part",
        "receipts/sub/" + "a" * 32 + ".pdf",
        "receipts/" + "a" * 32 + ".pdf\n",  # `$` alone would let a trailing newline through
        "",
    ],
)
def test_only_names_made_here_reach_a_store(key: str, tmp_path: Path) -> None:
    assert not is_key(key)
    with pytest.raises(NotFound):
        checked(key)
    with pytest.raises(NotFound):
        LocalStorage(tmp_path).path(key)


async def test_a_file_is_kept_read_streamed_and_discarded(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path / "files")
    data = bytes(range(256)) * (CHUNK_SIZE // 256 * 2 + 3)  # more than two chunks
    key = await storage.save("attachments", data, "png")

    assert key.startswith("attachments/") and key.endswith(".png")
    assert (tmp_path / "files" / key).read_bytes() == data
    assert await storage.exists(key) and await storage.read(key) == data
    download = await storage.open(key)
    chunks = [chunk async for chunk in download.chunks]
    assert download.size == len(data) and b"".join(chunks) == data and len(chunks) == 3

    storage.discard([key])
    await storage.drain()
    assert not await storage.exists(key)
    with pytest.raises(NotFound, match="gone"):
        await storage.read(key)
    with pytest.raises(NotFound, match="gone"):
        await storage.open(key)
    storage.discard([key])  # gone already: nothing to do


async def test_a_download_is_streamed_with_its_length(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    key = await storage.save("receipts", b"%PDF-1.4 x", "pdf")
    response = streamed(await storage.open(key), "application/pdf", {"Content-Disposition": "attachment"})
    assert response.headers["content-length"] == "10" and response.media_type == "application/pdf"
    assert response.headers["content-disposition"] == "attachment"
    assert b"".join([chunk async for chunk in response.body_iterator]) == b"%PDF-1.4 x"  # type: ignore[misc]


async def test_files_go_after_the_commit_that_dropped_their_rows_and_stay_on_rollback(
    app: FastAPI, tmp_path: Path
) -> None:
    storage = LocalStorage(tmp_path)
    first, second = [await storage.save("receipts", b"%PDF-1.4", "pdf") for _ in range(2)]
    async with app.state.sessionmaker() as session:
        await session.begin()
        delete_after_commit(session, storage, [first])
        assert await storage.exists(first)  # not before the commit
        await session.rollback()
        assert await storage.exists(first)  # the rows are back: so are their files

        await session.begin()
        delete_after_commit(session, storage, [first, second])
        delete_after_commit(session, storage, [])
        await session.commit()
    assert not await storage.exists(first) and not await storage.exists(second)


async def test_a_file_saved_for_a_transaction_that_rolls_back_goes(app: FastAPI, tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    async with app.state.sessionmaker() as session:
        await session.begin()
        dropped = await storage.save("receipts", b"%PDF-1.4", "pdf")
        discard_on_rollback(session, storage, dropped)
        await session.rollback()
        await session.begin()
        kept = await storage.save("receipts", b"%PDF-1.4", "pdf")
        discard_on_rollback(session, storage, kept)
        await session.commit()
        await session.begin()
        await session.rollback()  # a later rollback leaves the committed file alone
    assert not await storage.exists(dropped) and await storage.exists(kept)
