"""Requests to a provider: bounded in time (WARRANTY_OIDC_TIMEOUT) and in size, JSON answers only."""

from __future__ import annotations

import json
from typing import Any

import httpx

from app.errors import ServiceUnavailable
from app.observability.url_secrets import origin_of

MAX_ANSWER_BYTES = 512 * 1024  # a discovery document, a key set or a token answer is a few KiB
RETRY_AFTER = 30


class ProviderUnreachable(ServiceUnavailable):
    """503 with Retry-After: the provider did not answer, or answered what is no JSON object."""

    summary = "The identity provider cannot be reached"

    def __init__(self, reason: str) -> None:
        super().__init__(f"{self.summary}: {reason}", retry_after=RETRY_AFTER)
        self.reason = reason


async def fetch_json(
    client: httpx.AsyncClient, method: str, url: str, **request: Any
) -> tuple[int, dict[str, Any]]:
    """(status, JSON object) of one request; ProviderUnreachable when there is no usable answer."""
    where = origin_of(url)
    try:
        async with client.stream(method, url, **request) as response:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_ANSWER_BYTES:
                    raise ProviderUnreachable(f"{where} answered more than {MAX_ANSWER_BYTES} bytes")
            status = response.status_code
    except httpx.HTTPError as exc:
        raise ProviderUnreachable(f"{where} did not answer ({type(exc).__name__})") from None
    try:
        document = json.loads(body)
    except ValueError:
        raise ProviderUnreachable(f"{where} answered {status} without JSON") from None
    if not isinstance(document, dict):
        raise ProviderUnreachable(f"{where} answered {status} with JSON that is no object")
    return status, document
