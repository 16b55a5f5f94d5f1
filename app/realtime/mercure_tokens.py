"""Mercure tokens (contract 20): HS256 JWTs signed with WARRANTY_MERCURE_PUBLISHER_KEY (publishers) or
WARRANTY_MERCURE_SUBSCRIBER_KEY (subscribers of private updates), each checked with its own key only.

What a token grants, in either shape:
- the draft's `authorization_details` (RFC 9396): objects of type `mercure` (or
  `https://mercure.rocks/authorization-detail`) with `actions` (`publish`, `subscribe`) and `topics`
  (`{"match": ..., "matchType": "Exact" | "URLPattern"}`). Such a token is a JWT access token (RFC 9068):
  header `typ` `at+jwt` and an `exp`. A detail that does not parse, or over the limits, makes the whole
  token invalid (never a partial grant); details of other types grant nothing here.
- the released protocol's `mercure` claim: `{"publish": [...], "subscribe": [...]}`, topic selectors
  that are URI templates, exact topics or `*`.
`exp` and `nbf` are enforced when present; `aud`, when present, must name WARRANTY_MERCURE_RESOURCE.
Every failure is the same 401 `invalid_token`: which check failed is not told.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jwt

from app.errors import Unauthorized
from app.realtime.matchers import (
    EXACT,
    TEMPLATE,
    URL_PATTERN,
    InvalidMatcher,
    Matcher,
    compile_matcher,
)

ALGORITHMS = ["HS256"]
DETAIL_TYPES = frozenset({"mercure", "https://mercure.rocks/authorization-detail"})
ACTIONS = ("publish", "subscribe")
MAX_DETAILS = 32
MAX_TOPICS = 64  # per detail, and per list of the `mercure` claim
MAX_TOKEN = 16 * 1024  # characters
ACCESS_TOKEN_TYPES = frozenset({"at+jwt", "application/at+jwt"})


@dataclass(frozen=True)
class Grants:
    publish: tuple[Matcher, ...] = ()
    subscribe: tuple[Matcher, ...] = ()
    expires_at: float | None = None  # the token's `exp` (seconds since the epoch), if it has one


class _Invalid(Exception):
    pass


def invalid_token(message: str = "The token is not valid.") -> Unauthorized:
    return Unauthorized(
        message, code="AUTH_TOKEN_INVALID", headers={"WWW-Authenticate": 'Bearer error="invalid_token"'}
    )


def decode_grants(token: str, key: str, resource: str, base: str) -> Grants:
    """What `token` (signed with `key`) grants; 401 invalid_token for any fault of the token."""
    try:
        if len(token) > MAX_TOKEN:
            raise _Invalid
        header = jwt.get_unverified_header(token)
        claims = jwt.decode(token, key, algorithms=ALGORITHMS, options={"verify_aud": False})
        _check_audience(claims.get("aud"), resource)
        return _grants(header, claims, base)
    except (jwt.PyJWTError, _Invalid, InvalidMatcher, TypeError, ValueError):
        raise invalid_token() from None


def _check_audience(audience: Any, resource: str) -> None:
    if audience is None:
        return
    audiences = [audience] if isinstance(audience, str) else audience
    if not isinstance(audiences, list) or resource not in audiences:
        raise _Invalid


def _grants(header: dict[str, Any], claims: dict[str, Any], base: str) -> Grants:
    publish: list[Matcher] = []
    subscribe: list[Matcher] = []
    granted = {"publish": publish, "subscribe": subscribe}
    if "authorization_details" in claims:
        if str(header.get("typ", "")).lower() not in ACCESS_TOKEN_TYPES or "exp" not in claims:
            raise _Invalid
        for actions, matchers in _details(claims["authorization_details"], base):
            for action in actions:
                granted[action].extend(matchers)
    released = claims.get("mercure")
    if released is not None:
        if not isinstance(released, dict):
            raise _Invalid
        for action in ACTIONS:
            granted[action].extend(_selectors(released.get(action, []), base))
    expires = claims.get("exp")
    return Grants(tuple(publish), tuple(subscribe), float(expires) if expires is not None else None)


def _details(details: Any, base: str) -> list[tuple[list[str], list[Matcher]]]:
    if not isinstance(details, list) or len(details) > MAX_DETAILS:
        raise _Invalid
    parsed = []
    for detail in details:
        if not isinstance(detail, dict) or not isinstance(detail.get("type"), str):
            raise _Invalid
        if detail["type"] not in DETAIL_TYPES:
            continue  # another resource's detail
        actions, topics = detail.get("actions"), detail.get("topics")
        if not isinstance(actions, list) or not actions or not set(actions) <= set(ACTIONS):
            raise _Invalid
        if not isinstance(topics, list) or not topics or len(topics) > MAX_TOPICS:
            raise _Invalid
        parsed.append((actions, [_topic_matcher(topic, base) for topic in topics]))
    return parsed


def _topic_matcher(topic: Any, base: str) -> Matcher:
    if not isinstance(topic, dict) or not isinstance(topic.get("match"), str):
        raise _Invalid
    kind = topic.get("matchType", EXACT)
    if kind not in (EXACT, URL_PATTERN):
        raise _Invalid
    return compile_matcher(kind, topic["match"], base)


def _selectors(selectors: Any, base: str) -> list[Matcher]:
    if not isinstance(selectors, list) or len(selectors) > MAX_TOPICS:
        raise _Invalid
    if not all(isinstance(selector, str) for selector in selectors):
        raise _Invalid
    return [compile_matcher(TEMPLATE, selector, base) for selector in selectors]
