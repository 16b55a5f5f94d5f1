"""Mercure tokens (app.realtime.mercure_tokens): both shapes, each check, and no partial grant."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest

from app.errors import Unauthorized
from app.realtime.mercure_tokens import MAX_DETAILS, decode_grants
from tests.factories.mercure import PUBLISHER_KEY, detail_token, released_token

HUB = "https://hub.example/.well-known/mercure"


def grants(token: str) -> Any:
    return decode_grants(token, PUBLISHER_KEY, HUB, HUB)


def test_the_released_claim() -> None:
    granted = grants(released_token(publish=["https://x/{id}", "plain"]))
    assert [m.matches("https://x/1") for m in granted.publish] == [True, False]
    assert [m.matches("anything") for m in granted.subscribe] == [True]
    assert granted.expires_at is None


def test_authorization_details_of_both_type_names() -> None:
    topics = [{"match": "https://x/:id", "matchType": "URLPattern"}, {"match": "a"}]
    for detail_type in ("mercure", "https://mercure.rocks/authorization-detail"):
        granted = grants(detail_token(PUBLISHER_KEY, ["subscribe"], topics, detail_type=detail_type))
        assert granted.publish == ()
        assert [m.matches("https://x/1") for m in granted.subscribe] == [True, False]
        assert granted.expires_at is not None and granted.expires_at > time.time()


def test_details_of_another_type_grant_nothing() -> None:
    token = detail_token(PUBLISHER_KEY, ["publish"], [{"match": "*"}], detail_type="payment_initiation")
    assert grants(token).publish == ()


def _details(*details: Any) -> str:
    payload = {"authorization_details": list(details), "exp": int(time.time()) + 60}
    return jwt.encode(payload, PUBLISHER_KEY, algorithm="HS256", headers={"typ": "at+jwt"})


GOOD = {"type": "mercure", "actions": ["publish"], "topics": [{"match": "*"}]}


@pytest.mark.parametrize(
    "token",
    [
        _details(GOOD, {"type": "mercure", "actions": [], "topics": [{"match": "a"}]}),
        _details(GOOD, {"type": "mercure", "actions": ["publish"], "topics": []}),
        _details(GOOD, {"type": "mercure", "actions": ["publish"], "topics": ["a"]}),
        _details(
            GOOD,
            {"type": "mercure", "actions": ["publish"], "topics": [{"match": "a", "matchType": "Regex"}]},
        ),
        _details(
            GOOD,
            {
                "type": "mercure",
                "actions": ["publish"],
                "topics": [{"match": "/(?=x)", "matchType": "URLPattern"}],
            },
        ),
        _details(GOOD, "not an object"),
        _details(*[GOOD] * (MAX_DETAILS + 1)),
        jwt.encode(
            {"authorization_details": [GOOD]}, PUBLISHER_KEY, algorithm="HS256", headers={"typ": "at+jwt"}
        ),
        jwt.encode({"mercure": ["*"]}, PUBLISHER_KEY, algorithm="HS256"),
        jwt.encode({"mercure": {"publish": "*"}}, PUBLISHER_KEY, algorithm="HS256"),
        jwt.encode({"mercure": {"publish": ["*"]}}, PUBLISHER_KEY * 2, algorithm="HS384"),
        jwt.encode({"mercure": {"publish": ["*"]}}, None, algorithm="none"),
        released_token(aud=["https://other.example/.well-known/mercure"]),
    ],
)
def test_a_faulty_token_grants_nothing_at_all(token: str) -> None:
    """One faulty detail (or a missing exp, another algorithm, another audience) rejects the whole token."""
    with pytest.raises(Unauthorized) as refused:
        grants(token)
    assert refused.value.headers["WWW-Authenticate"] == 'Bearer error="invalid_token"'


def test_the_audience_may_be_a_list_naming_the_hub() -> None:
    assert grants(released_token(aud=[HUB, "https://other.example"])).publish
    assert grants(released_token(aud=HUB)).publish
