"""File storage behind a small interface: receipts, message attachments and profile pictures.

`LocalStorage` keeps files under the data folder (the default); `app.storage.s3_storage.S3Storage` keeps them
in an S3-compatible bucket, so that processes on several hosts serve each other's files. Names are
generated here, never taken from the client. Files are removed after the commit that dropped their rows,
and a file saved for a transaction that rolls back goes again.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

import anyio
from fastapi import Request
from fastapi.responses import StreamingResponse
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.db import on_commit, on_rollback
from app.core.private_files import write_private
from app.errors import NotFound

_KEY = re.compile(r"[a-z0-9_-]+/[a-f0-9]{32}\.[a-z0-9]{1,8}")  # the whole key: see is_key
CHUNK_SIZE = 256 * 1024  # bytes read at a time while a download streams


@dataclass
class Download:
    """A stored file being read: its size is known before the first byte is sent."""

    size: int
    chunks: AsyncIterator[bytes]


class Storage(Protocol):
    async def save(self, folder: str, data: bytes, extension: str) -> str: ...
    async def read(self, key: str) -> bytes: ...
    async def open(self, key: str) -> Download: ...
    async def exists(self, key: str) -> bool: ...
    def discard(self, keys: list[str]) -> None:
        """Remove files without waiting (called from commit and rollback hooks, which cannot await)."""
        ...

    async def drain(self) -> None:
        """Wait for the removals `discard` started."""
        ...

    async def close(self) -> None: ...


def new_key(folder: str, extension: str) -> str:
    return f"{folder}/{uuid.uuid4().hex}.{extension}"


def is_key(key: str) -> bool:
    return _KEY.fullmatch(key) is not None


def checked(key: str) -> str:
    """Only names this module generates reach a store: a stored key that is anything else is a 404."""
    if not is_key(key):
        raise NotFound("No such file.")
    return key


class LocalStorage:
    def __init__(self, root: Path) -> None:
        self.root = root

    async def save(self, folder: str, data: bytes, extension: str) -> str:
        """Store `data`; answer its key, `folder/<random>.<extension>`."""
        key = new_key(folder, extension)
        await anyio.to_thread.run_sync(write_private, self.path(key), data)  # 0600, whole or not at all
        return key

    async def read(self, key: str) -> bytes:
        try:
            return await anyio.Path(self.path(key)).read_bytes()
        except FileNotFoundError:
            raise NotFound("The file is gone.") from None

    async def open(self, key: str) -> Download:
        try:
            file, size = await anyio.to_thread.run_sync(_open, self.path(key))
        except FileNotFoundError:
            raise NotFound("The file is gone.") from None
        return Download(size, _chunks_of(file))

    async def exists(self, key: str) -> bool:
        return await anyio.Path(self.path(key)).exists()

    def path(self, key: str) -> Path:
        return self.root / checked(key)

    def discard(self, keys: list[str]) -> None:
        for key in keys:
            self.path(key).unlink(missing_ok=True)  # a few unlinks: quicker than a thread hop

    async def drain(self) -> None:
        return None  # `discard` is done when it returns

    async def close(self) -> None:
        return None


def _open(path: Path) -> tuple[IO[bytes], int]:
    file = path.open("rb")
    return file, os.fstat(file.fileno()).st_size


async def _chunks_of(file: IO[bytes]) -> AsyncIterator[bytes]:
    try:
        while chunk := await anyio.to_thread.run_sync(file.read, CHUNK_SIZE):
            yield chunk
    finally:
        file.close()


def streamed(download: Download, media_type: str, headers: dict[str, str]) -> StreamingResponse:
    """A download as a response that streams it, with its Content-Length."""
    headers = {**headers, "Content-Length": str(download.size)}
    return StreamingResponse(download.chunks, media_type=media_type, headers=headers)


async def get_storage(request: Request) -> Storage:
    storage: Storage = request.app.state.storage
    return storage


def delete_after_commit(session: AsyncSession, storage: Storage, keys: list[str]) -> None:
    """Remove files once the transaction that dropped their rows has committed (kept on rollback)."""
    if keys:
        on_commit(session, lambda: storage.discard(keys))


def discard_on_rollback(session: AsyncSession, storage: Storage, key: str) -> None:
    """A file saved for a row of this transaction goes again if the transaction rolls back."""
    on_rollback(session, lambda: storage.discard([key]))
