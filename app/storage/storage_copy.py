"""Moving to object storage: the files of the data folder copied into the bucket under the same keys, so
the rows that name them need no change (`warranty copy-files-to-bucket`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import anyio

from app.storage.s3_storage import S3Storage
from app.storage.storage import is_key

AT_ONCE = 8  # uploads in flight


@dataclass
class Copied:
    copied: int = 0
    present: int = 0  # already in the bucket: a second run copies nothing again
    skipped: int = 0  # not a name the service makes (a half-written .part file, something put there by hand)


async def copy_folder(folder: Path, storage: S3Storage) -> Copied:
    """Copies every stored file under `folder` (the local storage's root) that the bucket lacks."""
    keys = await anyio.to_thread.run_sync(_relative_files, folder)
    tally = Copied(skipped=sum(not is_key(key) for key in keys))
    queue = [key for key in keys if is_key(key)]

    async def copy_some() -> None:
        while queue:
            key = queue.pop()
            if await storage.exists(key):
                tally.present += 1
            else:
                await storage.put(key, await anyio.Path(folder / key).read_bytes())
                tally.copied += 1

    async with asyncio.TaskGroup() as group:
        for _ in range(AT_ONCE):
            group.create_task(copy_some())
    return tally


def _relative_files(folder: Path) -> list[str]:
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())
