"""Mercure tokens and publishing, as a Mercure publisher or subscriber would do them (contract 20)."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlencode

import httpx
import jwt

HUB = "/.well-known/mercure"
PUBLISHER_KEY = "publisher-key-of-the-tests-0123456789abcdef"
SUBSCRIBER_KEY = "subscriber-key-of-the-tests-0123456789abcdef"
MERCURE = {"mercure_publisher_key": PUBLISHER_KEY, "mercure_subscriber_key": SUBSCRIBER_KEY}
DETAIL = "https://mercure.rocks/authorization-detail"


def released_token(key: str = PUBLISHER_KEY, publish: list[str] | None = None, **claims: Any) -> str:
    """A token of the released protocol: the `mercure` claim (publish and subscribe `*` by default)."""
    mercure = {"publish": publish if publish is not None else ["*"], "subscribe": ["*"]}
    return jwt.encode({"mercure": mercure, **claims}, key, algorithm="HS256")


def detail_token(
    key: str,
    actions: list[str],
    topics: list[dict[str, str]],
    *,
    detail_type: str = DETAIL,
    typ: str = "at+jwt",
    **claims: Any,
) -> str:
    """A draft token (RFC 9068 access token with `authorization_details`), valid for an hour."""
    detail = {"type": detail_type, "actions": actions, "topics": topics}
    payload = {"authorization_details": [detail], "exp": int(time.time()) + 3600, **claims}
    return jwt.encode(payload, key, algorithm="HS256", headers={"typ": typ})


async def post_update(
    http: httpx.AsyncClient, fields: list[tuple[str, str]], token: str | None = None, **kwargs: Any
) -> httpx.Response:
    """POST /.well-known/mercure with a form (Bearer `token` when given; a publisher `*` by default)."""
    headers = {
        "Authorization": f"Bearer {token or released_token()}",
        "Content-Type": "application/x-www-form-urlencoded",
        **kwargs.pop("headers", {}),
    }
    kwargs.setdefault("content", urlencode(fields))
    return await http.post(HUB, headers=headers, **kwargs)
