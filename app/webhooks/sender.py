"""One webhook attempt: check where the URL leads, connect to the checked address (keeping the host name
for the Host header, TLS SNI and certificate checks), post, and read the status line. Redirects are not
followed (a 3xx is a failed attempt) and no proxy from the environment is used. The whole attempt,
resolution included, runs under one timeout: a receiver that never answers holds it no longer."""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass, field
from functools import cache

import httpx

from app.core import addresses

USER_AGENT = "Warranty-Webhooks/1.0"
_SNIPPET = 512  # bytes of a failed answer kept to show the admin


@dataclass(frozen=True)
class Answer:
    status: int
    snippet: str
    retry_after: str | None = field(default=None, compare=False)  # the receiver's Retry-After, if any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class Unsuccessful(Exception):
    """The receiver answered, but not with a 2xx."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(f"HTTP {answer.status}: {answer.snippet}".rstrip(": "))
        self.answer = answer


@cache
def _tls() -> ssl.SSLContext:
    # Built once: loading the trust store costs milliseconds of CPU per client otherwise.
    return httpx.create_ssl_context()


async def post(
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    allow_private: bool,
    seconds: float,
    tls: ssl.SSLContext | None = None,
) -> Answer:
    """Post `body` to `url` within `seconds`; answers the receiver's 2xx, raises Unsuccessful for any other
    status, addresses.Refused for a forbidden destination, TimeoutError or an httpx error otherwise."""
    async with asyncio.timeout(seconds):
        target = await addresses.check(url, allow_private)
        async with httpx.AsyncClient(
            verify=tls or _tls(), timeout=seconds, follow_redirects=False, trust_env=False
        ) as client:
            last_error: httpx.TransportError | None = None
            for address in target.addresses:
                try:
                    answer = await _post_to(client, target.url, address, body, headers)
                except httpx.ConnectError as exc:  # that address is down; the next one may not be
                    last_error = exc
                    continue
                if not answer.ok:
                    raise Unsuccessful(answer)
                return answer
            assert last_error is not None
            raise last_error


async def _post_to(
    client: httpx.AsyncClient,
    url: httpx.URL,
    address: addresses.IPAddress,
    body: bytes,
    headers: dict[str, str],
) -> Answer:
    # The caller's headers win (Web Push sends its own Content-Type and User-Agent).
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers}
    request = addresses.request_to(client, "POST", url, address, headers, body)
    response = await client.send(request, stream=True)
    try:
        read = b""
        async for chunk in response.aiter_raw():
            read += chunk
            if len(read) >= _SNIPPET:
                break
    finally:
        await response.aclose()
    snippet = read[:_SNIPPET].decode("utf-8", "replace").strip()
    return Answer(response.status_code, snippet, response.headers.get("retry-after"))
