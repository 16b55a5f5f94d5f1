"""Moving to object storage (app.storage.storage_copy): the files of the data folder copied into the bucket
under the same keys, what the bucket has already left alone, and anything not named by the service
skipped. (The `warranty copy-files-to-bucket` command: test_s3_storage.py.)"""

from __future__ import annotations

from pathlib import Path

from app.storage.s3_storage import S3Storage, s3_store
from app.storage.storage import LocalStorage
from app.storage.storage_copy import AT_ONCE, Copied, copy_folder
from tests.conftest import SettingsFactory
from tests.support.object_store import Bucket


async def test_the_folders_files_are_copied_once_under_their_keys(
    make_settings: SettingsFactory, bucket: Bucket, tmp_path: Path
) -> None:
    folder = tmp_path / "files"
    local = LocalStorage(folder)
    keys = [
        await local.save(kind, f"{kind} {n}".encode(), "pdf")
        for n in range(AT_ONCE + 3)
        for kind in ("receipts", "attachments")
    ]
    (folder / "receipts" / f"{'0' * 32}.pdf.part").write_bytes(b"an upload cut short")
    (folder / "notes.txt").write_text("put there by hand")
    bucket_storage = S3Storage(s3_store(make_settings(**bucket.settings())))
    try:
        await bucket_storage.put(keys[0], b"already there")

        first = await copy_folder(folder, bucket_storage)
        again = await copy_folder(folder, bucket_storage)
    finally:
        await bucket_storage.close()

    assert first == Copied(copied=len(keys) - 1, present=1, skipped=2)
    assert again == Copied(copied=0, present=len(keys), skipped=2)
    assert bucket.objects() == sorted(f"{bucket.prefix}/{key}" for key in keys)
    assert bucket.get(keys[0]) == b"already there"  # what the bucket had is not overwritten
    assert all(bucket.get(key) == (folder / key).read_bytes() for key in keys[1:])


async def test_an_empty_folder_copies_nothing(
    make_settings: SettingsFactory, bucket: Bucket, tmp_path: Path
) -> None:
    storage = S3Storage(s3_store(make_settings(**bucket.settings())))
    try:
        assert await copy_folder(tmp_path, storage) == Copied()
    finally:
        await storage.close()
    assert bucket.objects() == []
