"""File storage behind a small interface; the local implementation keeps files under the data folder.
Names are generated here, never taken from the client."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Annotated, Protocol

import anyio
from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import on_commit, on_rollback
from app.errors import NotFound

_KEY = re.compile(r"^[a-z0-9_-]+/[a-f0-9]{32}\.[a-z0-9]{1,8}$")


class Storage(Protocol):
    async def save(self, folder: str, data: bytes, extension: str) -> str: ...
    async def read(self, key: str) -> bytes: ...
    def path(self, key: str) -> Path: ...
    async def delete(self, key: str) -> None: ...


class LocalStorage:
    def __init__(self, root: Path) -> None:
        self.root = root

    async def save(self, folder: str, data: bytes, extension: str) -> str:
        """Store `data`; answer its key, `folder/<random>.<extension>`."""
        key = f"{folder}/{uuid.uuid4().hex}.{extension}"
        path = self.path(key)
        await anyio.to_thread.run_sync(self._write, path, data)
        return key

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(path.suffix + ".part")
        temporary.write_bytes(data)
        temporary.replace(path)  # readers never see half a file

    async def read(self, key: str) -> bytes:
        path = self.path(key)
        try:
            return await anyio.Path(path).read_bytes()
        except FileNotFoundError:
            raise NotFound("The file is gone.") from None

    def path(self, key: str) -> Path:
        if not _KEY.match(key):
            raise NotFound("No such file.")
        return self.root / key

    async def delete(self, key: str) -> None:
        await anyio.Path(self.path(key)).unlink(missing_ok=True)


async def get_storage(request: Request) -> Storage:
    storage: Storage = request.app.state.storage
    return storage


StorageDep = Annotated[Storage, Depends(get_storage)]


def delete_after_commit(session: AsyncSession, storage: Storage, keys: list[str]) -> None:
    """Remove files once the transaction that dropped their rows has committed (kept on rollback)."""

    def remove() -> None:
        for key in keys:
            storage.path(key).unlink(missing_ok=True)

    if keys:
        on_commit(session, remove)


def discard_on_rollback(session: AsyncSession, storage: Storage, key: str) -> None:
    """A file saved for a row of this transaction goes again if the transaction rolls back."""
    on_rollback(session, lambda: storage.path(key).unlink(missing_ok=True))
