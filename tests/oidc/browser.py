"""The browser's part of a sign-in, by HTTP: the app's client (cookies kept) for the service, a plain
client for the provider's sign-in form, each redirect followed by hand."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.oidc.conftest import APP_REDIRECT


@dataclass
class Landing:
    """Where the service sent the browser back to, and what it carried."""

    url: str
    params: dict[str, str]

    @property
    def code(self) -> str:
        return self.params["code"]


def query_of(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


async def start(client: httpx.AsyncClient, provider: str = "mock", redirect: str = APP_REDIRECT) -> str:
    """The provider's authorization URL the service sends the browser to."""
    started = await client.get(f"/api/auth/oidc/{provider}/start", params={"redirect": redirect})
    assert started.status_code == 302, started.text
    return started.headers["location"]


async def at_provider(authorization_url: str, sub: str | None = None, *, deny: bool = False) -> str:
    """The user signs in as `sub` (or refuses) on the provider's page: the callback URL it sends back."""
    form = {"action": "deny"} if deny else {"sub": sub or "someone"}
    async with httpx.AsyncClient() as browser:
        answer = await browser.post(authorization_url, data=form)
    assert answer.status_code == 302, answer.text
    return answer.headers["location"]


async def back_at_service(client: httpx.AsyncClient, callback_url: str) -> Landing:
    answer = await client.get(path_of(callback_url))
    assert answer.status_code == 302, answer.text
    location = answer.headers["location"]
    return Landing(url=location, params=query_of(location))


async def sign_in(client: httpx.AsyncClient, sub: str, provider: str = "mock") -> Landing:
    """The whole browser round trip: start, the provider's form, back at the service."""
    return await back_at_service(client, await at_provider(await start(client, provider), sub))
