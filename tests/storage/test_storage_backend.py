"""Which storage a process uses (app.storage.storage_backend): the bucket of WARRANTY_STORAGE_URL, else the
data folder's `files`."""

from __future__ import annotations

from app.storage.s3_storage import S3Storage
from app.storage.storage import LocalStorage
from app.storage.storage_backend import create_storage
from tests.conftest import SettingsFactory
from tests.support.object_store import Bucket


async def test_without_a_storage_url_files_stay_in_the_data_folder(make_settings: SettingsFactory) -> None:
    settings = make_settings()
    storage = create_storage(settings)
    assert isinstance(storage, LocalStorage) and storage.root == settings.data_dir / "files"
    key = await storage.save("receipts", b"%PDF-1.4", "pdf")
    assert (settings.data_dir / "files" / key).read_bytes() == b"%PDF-1.4"


async def test_with_a_storage_url_files_go_to_its_bucket(
    make_settings: SettingsFactory, bucket: Bucket
) -> None:
    settings = make_settings(**bucket.settings())
    storage = create_storage(settings)
    try:
        assert isinstance(storage, S3Storage)
        key = await storage.save("receipts", b"%PDF-1.4", "pdf")
        assert bucket.objects() == [f"{bucket.prefix}/{key}"] and bucket.get(key) == b"%PDF-1.4"
        assert not (settings.data_dir / "files").exists()
    finally:
        await storage.close()
