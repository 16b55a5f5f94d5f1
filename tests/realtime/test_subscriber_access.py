"""Who may subscribe (app.realtime.subscriber_access): credentials in Mercure's order (header, query
parameter, login cookie, the draft's `mercureAccessToken` cookie), 401 without valid ones (RFC 6750
challenges), 403 for a claim the user may not see, a token in the query string never logged, the draft's
`access_token` parameter never a credential; Mercure subscriber tokens and anonymous subscribers
(contract 20.1, 20.3)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from app.realtime.publishing import messages_topic
from tests.conftest import SettingsFactory, _empty_all_tables
from tests.factories.mercure import MERCURE, SUBSCRIBER_KEY, detail_token, post_update, released_token
from tests.factories.realtime import new_message, publish_event
from tests.factories.users import DEFAULT_PASSWORD, create_user
from tests.helpers import assert_error
from tests.realtime.support import HUB, LiveServer, live_server, scene, subscribe, token_for


async def test_query_parameter_credentials(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), params=[("authorization", s.token)]) as stream:
        sent = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))
        assert await stream.events(1) == [sent]


async def test_cookie_from_login_opens_the_stream(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    login = await http.post("/api/login", json={"email": s.supplier.email, "password": DEFAULT_PASSWORD})
    assert login.status_code == 200 and "mercureAuthorization" in http.cookies

    async with subscribe(http, messages_topic(s.claim.id)) as stream:
        sent = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))
        assert await stream.events(1) == [sent]


async def test_header_wins_over_query_parameter_and_cookie(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    http.cookies.set("mercureAuthorization", s.token)
    response = await http.get(
        HUB,
        params={"topic": messages_topic(s.claim.id), "authorization": s.token},
        headers={"Authorization": "Bearer not-a-token"},
    )
    assert_error(response, 401, "AUTH_TOKEN_INVALID")


async def test_no_or_bad_credentials_are_401(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topic = {"topic": messages_topic(s.claim.id)}

    missing = await http.get(HUB, params=topic)
    assert_error(missing, 401, "AUTH_REQUIRED")
    assert missing.headers["www-authenticate"] == "Bearer"
    bad = await http.get(HUB, params={**topic, "authorization": "garbage"})
    assert_error(bad, 401, "AUTH_TOKEN_INVALID")
    assert bad.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    http.cookies.set("mercureAuthorization", "garbage")
    assert_error(await http.get(HUB, params=topic), 401, "AUTH_TOKEN_INVALID")


async def test_the_drafts_cookie_and_a_header_that_wins_over_cookies(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    http.cookies.set("mercureAccessToken", s.token)
    async with subscribe(http, topic) as stream:
        sent = await publish_event(live.app, topic, new_message(s.claim.id, 1))
        assert await stream.events(1) == [sent]
    # With a header, the cookie is never read: a bad header is a 401 however good the cookie.
    response = await http.get(HUB, params={"topic": topic}, headers={"Authorization": "Bearer x.y.z"})
    assert_error(response, 401, "AUTH_TOKEN_INVALID")
    http.cookies.set("mercureAccessToken", "garbage")
    async with subscribe(http, topic, token=s.token):
        pass


async def test_access_token_in_the_query_is_not_a_credential(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    response = await http.get(HUB, params={"topic": messages_topic(s.claim.id), "access_token": s.token})
    assert_error(response, 401, "AUTH_REQUIRED")
    assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.settings(access_token_ttl=-5)
async def test_expired_token_is_401(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    response = await http.get(HUB, params={"topic": messages_topic(s.claim.id), "authorization": s.token})
    assert_error(response, 401, "AUTH_TOKEN_EXPIRED")


async def test_a_claim_the_user_may_not_see_is_403(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    stranger = token_for(live.app, await create_user(live.app))
    own = {"Authorization": f"Bearer {stranger}"}

    other = await http.get(HUB, params={"topic": messages_topic(s.claim.id)}, headers=own)
    assert_error(other, 403, "FORBIDDEN")
    missing = await http.get(HUB, params={"topic": messages_topic(s.claim.id + 1000)}, headers=own)
    assert_error(missing, 403, "FORBIDDEN")


# The test's own HTTP client logs the URLs it requests: that is the client's log, not the service's.
CLIENT_LOGGERS = ("httpx", "httpcore")


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(CLIENT_LOGGERS):
            self.lines.append(f"{record.name}: {self.format(record)}")


@contextmanager
def _every_log() -> Iterator[_Records]:
    """Every record of every logger, uvicorn's access log (which does not propagate) included."""
    records = _Records()
    loggers = [logging.getLogger(), logging.getLogger("uvicorn.access"), logging.getLogger("uvicorn.error")]
    levels = [each.level for each in loggers]
    for each in loggers:
        each.addHandler(records)
        each.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        for each, level in zip(loggers, levels, strict=True):
            each.removeHandler(records)
            each.setLevel(level)


async def test_a_token_in_the_query_string_is_never_logged(
    make_settings: SettingsFactory, database_url: str
) -> None:
    await _empty_all_tables(database_url)
    async with live_server(make_settings(), access_log=True) as live:
        s = await scene(live.app)
        topic = messages_topic(s.claim.id)
        expired_or_bad = s.token[:-4] + "AAAA"
        with _every_log() as logs:
            async with httpx.AsyncClient(base_url=live.url, timeout=10) as http:
                async with subscribe(http, topic, params=[("authorization", s.token)]) as stream:
                    assert stream.response.status_code == 200
                refused = await http.get(HUB, params={"topic": topic, "authorization": expired_or_bad})
                assert_error(refused, 401, "AUTH_TOKEN_INVALID")
                ignored = await http.get(HUB, params={"topic": topic, "access_token": s.token})
                assert_error(ignored, 401, "AUTH_REQUIRED")
                # Any path: a token pasted onto an API URL is not logged either.
                await http.get("/api/products", params={"Authorization": s.token, "page": "1"})
            await live.stop()
    access = [line for line in logs.lines if "GET " in line]
    assert any("/.well-known/mercure?" in line and "authorization=REDACTED" in line for line in access), (
        logs.lines
    )
    assert any("/api/products?" in line and "page=1" in line for line in access), logs.lines
    assert any("access_token=REDACTED" in line for line in access), logs.lines
    for secret in (s.token, expired_or_bad, s.token.split(".")[2]):
        assert not [line for line in logs.lines if secret in line]


@pytest.mark.settings(**MERCURE)
async def test_without_anonymous_subscribers_no_credentials_is_401(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    response = await http.get(HUB, params={"topic": "https://shop.example/a"})
    assert_error(response, 401, "AUTH_REQUIRED")


@pytest.mark.settings(**MERCURE, mercure_anonymous=True)
async def test_anonymous_subscribers_receive_public_updates_only(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    async with subscribe(http, "https://shop.example/{id}") as stream:
        await post_update(http, [("topic", "https://shop.example/1"), ("private", "on"), ("data", "secret")])
        public = await post_update(http, [("topic", "https://shop.example/2"), ("data", "news")])
        message = await stream.event()
    assert (message.id, message.data) == (public.text, "news")
    claims = await http.get(HUB, params={"topic": messages_topic(s.claim.id)})
    assert_error(claims, 401, "AUTH_REQUIRED")  # the service's own topics still need its token


@pytest.mark.settings(**MERCURE)
async def test_a_subscriber_token_receives_the_private_updates_it_grants(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    inbox = {"match": "https://shop.example/users/3/:box", "matchType": "URLPattern"}
    token = detail_token(SUBSCRIBER_KEY, ["subscribe"], [inbox])
    async with subscribe(http, "https://shop.example/users/{user}/{box}", token=token) as stream:
        await post_update(http, [("topic", "https://shop.example/users/4/inbox"), ("private", "")])
        mine = await post_update(http, [("topic", "https://shop.example/users/3/inbox"), ("private", "")])
        message = await stream.event()
    assert message.id == mine.text
    # A Mercure token never subscribes to the service's own topics.
    refused = await http.get(
        HUB, params={"topic": messages_topic(s.claim.id)}, headers={"Authorization": f"Bearer {token}"}
    )
    assert_error(refused, 403, "FORBIDDEN")
    assert refused.headers["www-authenticate"] == 'Bearer error="insufficient_scope"'
    released = released_token(key=SUBSCRIBER_KEY)  # `mercure.subscribe: ["*"]`
    async with subscribe(http, "https://shop.example/users/5/inbox", token=released) as stream:
        update = await post_update(http, [("topic", "https://shop.example/users/5/inbox"), ("private", "")])
        assert (await stream.event()).id == update.text
