"""Reading what an email provider answers, and fetching the files it points to, within limits.

Every answer is read in chunks and dropped as soon as it passes its limit (a declared Content-Length over
it is dropped unread): never read whole first. Answers are asked for as they are (`Accept-Encoding:
identity`), and an encoded one is refused, so no decompression can turn a small answer into a large one.

A file link (Resend's pre-signed `download_url`) is followed only when it is https and every address its
host resolves to passes the outbound address rules (app/core/addresses.py, the rules webhooks obey); the
connection goes to the checked address, redirects are not followed and no proxy from the environment is
used. The link itself is never logged: it carries its signature.
"""

from __future__ import annotations

import logging
import ssl
from functools import cache

import httpx

from app.core.addresses import IPAddress, Refused, check, parse, request_to
from app.core.numbers import digits_value, max_digits_of

logger = logging.getLogger("warranty.inbound")

AS_SENT = {"Accept-Encoding": "identity"}
_GONE = (403, 404, 410)  # an expired or removed link: that file is skipped


class Unavailable(Exception):
    """The file's host failed (an error, a timeout, a status other than 200 or gone): a retry may work."""


@cache
def _tls() -> ssl.SSLContext:
    return httpx.create_ssl_context()


async def read_at_most(response: httpx.Response, limit: int) -> bytes | None:
    """The answer's body, or None when it is (or says it is) over `limit` bytes, or comes encoded."""
    if response.headers.get("content-encoding", "identity").strip().lower() not in ("", "identity"):
        return None
    declared = digits_value(response.headers.get("content-length", "").strip(), max_digits_of(limit))
    if declared is not None and declared > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def download(url: str, *, max_size: int, allow_private: bool, seconds: float) -> bytes | None:
    """The file at `url`; None when the link is refused, gone, or the file over `max_size` bytes. Raises
    Unavailable when its host fails. `seconds` bounds each step (connect, each read), as for Resend's API."""
    try:
        if parse(url).scheme != "https":
            raise Refused("must be an https URL")
        target = await check(url, allow_private)
    except Refused as reason:
        logger.warning("an attachment link was not followed: %s", reason)
        return None
    async with httpx.AsyncClient(
        verify=_tls(), timeout=seconds, follow_redirects=False, trust_env=False
    ) as client:
        for address in target.addresses:
            try:
                return await _get(client, target.url, address, max_size)
            except httpx.ConnectError:  # that address is down; the next one may not be
                continue
            except httpx.HTTPError as error:
                raise Unavailable(type(error).__name__) from None
    raise Unavailable("no address of the file's host accepts connections")


async def _get(client: httpx.AsyncClient, url: httpx.URL, address: IPAddress, max_size: int) -> bytes | None:
    response = await client.send(request_to(client, "GET", url, address, AS_SENT), stream=True)
    try:
        if response.status_code in _GONE:
            return None
        if response.status_code != 200:
            raise Unavailable(f"HTTP {response.status_code}")
        return await read_at_most(response, max_size)
    finally:
        await response.aclose()
