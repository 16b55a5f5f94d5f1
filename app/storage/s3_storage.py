"""Files in an S3-compatible bucket (docs/operations.md, "Object storage"), through obstore.

One store (one HTTP connection pool) serves the whole process. Downloads stream from the bucket to the
client. What the bucket answers is mapped once, here: a missing object is a 404; a bucket that cannot be
reached (or refuses our credentials) is a 503 with Retry-After, logged in one line, never a 500.
Removals after a commit or rollback run in the background: a failed one is logged and leaves an orphan
object, never an error for the request that caused it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import TYPE_CHECKING

import obstore
from obstore.exceptions import BaseError, NotFoundError, PermissionDeniedError, UnauthenticatedError
from obstore.store import S3Store

from app.config import Settings
from app.core.background import finish
from app.errors import NotFound, ServiceUnavailable
from app.storage.storage import CHUNK_SIZE, Download, checked, is_key, new_key

if TYPE_CHECKING:
    from obstore import GetResult
    from obstore.store import ClientConfig, RetryConfig, S3Config

log = logging.getLogger("warranty.storage")

# A bucket that does not answer fails the request within seconds instead of holding it; a slow client
# may take its time over a download (the read timeout only bounds a stalled bucket).
CLIENT: ClientConfig = {
    "connect_timeout": timedelta(seconds=5),
    "read_timeout": timedelta(seconds=60),
    "timeout": timedelta(minutes=10),
}
RETRY: RetryConfig = {"max_retries": 2, "retry_timeout": timedelta(seconds=10)}
UNAVAILABLE = "File storage cannot be reached right now; try again shortly."


def s3_store(settings: Settings) -> S3Store:
    """The bucket and prefix of `WARRANTY_STORAGE_URL`; credentials and region from the AWS variables
    (the environment or .env), else from obstore's own chain (the environment, web identity, instance
    metadata)."""
    assert settings.storage_url is not None
    config: S3Config = {}
    if settings.s3_endpoint_url:
        config["endpoint"] = settings.s3_endpoint_url
    if settings.aws_access_key_id and settings.aws_secret_access_key:
        config["access_key_id"] = settings.aws_access_key_id
        config["secret_access_key"] = settings.aws_secret_access_key.get_secret_value()
        if settings.aws_session_token:
            config["session_token"] = settings.aws_session_token.get_secret_value()
    if settings.aws_region:
        config["region"] = settings.aws_region
    client: ClientConfig = {**CLIENT, "allow_http": (settings.s3_endpoint_url or "").startswith("http:")}
    return S3Store.from_url(settings.storage_url, config=config, client_options=client, retry_config=RETRY)


class S3Storage:
    def __init__(self, store: S3Store) -> None:
        self.store = store
        self._removals: set[asyncio.Task[None]] = set()

    async def save(self, folder: str, data: bytes, extension: str) -> str:
        key = new_key(folder, extension)
        await self.put(key, data)
        return key

    async def put(self, key: str, data: bytes) -> None:
        """Stores `data` under a key made by `new_key` (here or, before, by the local storage)."""
        with _answers("store", key):
            await obstore.put_async(self.store, checked(key), data)

    async def read(self, key: str) -> bytes:
        with _answers("read", key):
            result = await obstore.get_async(self.store, checked(key))
            return bytes(await result.bytes_async())

    async def open(self, key: str) -> Download:
        with _answers("read", key):
            result = await obstore.get_async(self.store, checked(key))
        return Download(result.meta["size"], _chunks(result, key))

    async def exists(self, key: str) -> bool:
        try:
            with _answers("look up", key):
                await obstore.head_async(self.store, checked(key))
        except NotFound:
            return False
        return True

    def discard(self, keys: list[str]) -> None:
        task = asyncio.get_running_loop().create_task(self._remove([key for key in keys if is_key(key)]))
        self._removals.add(task)
        task.add_done_callback(self._removals.discard)

    async def _remove(self, keys: list[str]) -> None:
        try:
            await obstore.delete_async(self.store, keys)  # one request per 1,000 keys
        except (BaseError, OSError) as error:
            log.warning("files left in the bucket, remove them by hand: %s (%s)", keys, _first_line(error))

    async def drain(self) -> None:
        """Waits for the removals started so far."""
        await asyncio.gather(*self._removals)

    async def close(self) -> None:
        if self._removals:
            await finish(list(self._removals), within=10.0)


async def _chunks(result: GetResult, key: str) -> AsyncIterator[bytes]:
    try:
        async for chunk in result.stream(min_chunk_size=CHUNK_SIZE):
            yield chunk
    except (BaseError, OSError) as error:
        # The status line has gone out: the client sees the body end short of Content-Length.
        log.warning("download of %s broke off: %s", key, _first_line(error))
        raise


@contextmanager
def _answers(action: str, key: str) -> Iterator[None]:
    """The bucket's failures as the service's errors."""
    try:
        yield
    except (FileNotFoundError, NotFoundError):
        raise NotFound("The file is gone.") from None
    except (PermissionDeniedError, UnauthenticatedError) as error:
        log.error("the bucket refused to %s %s (check the credentials): %s", action, key, _first_line(error))
        raise ServiceUnavailable(UNAVAILABLE) from None
    except (BaseError, OSError) as error:
        log.warning("could not %s %s in the bucket: %s", action, key, _first_line(error))
        raise ServiceUnavailable(UNAVAILABLE) from None


def _first_line(error: BaseException) -> str:
    """obstore's messages go on with a debug dump of the whole exchange."""
    return str(error).split("\n", 1)[0]
