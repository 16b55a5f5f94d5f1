"""Which storage a process uses: the bucket of `WARRANTY_STORAGE_URL`, else the data folder."""

from __future__ import annotations

from app.config import Settings
from app.storage.s3_storage import S3Storage, s3_store
from app.storage.storage import LocalStorage, Storage


def create_storage(settings: Settings) -> Storage:
    if settings.storage_url:
        return S3Storage(s3_store(settings))
    return LocalStorage(settings.data_dir / "files")
