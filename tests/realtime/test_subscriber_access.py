from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from sqlalchemy import update

from app.models import Claim
from app.realtime.publishing import messages_topic, status_topic
from tests.factories.realtime import new_message, publish_event
from tests.factories.users import DEFAULT_PASSWORD, create_user
from tests.helpers import assert_error, count_queries, wait_for
from tests.realtime.support import HUB, LiveServer, scene, subscribe, token_for


async def test_stream_delivers_stored_payloads_with_ids(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    before, _ = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))

    async with subscribe(http, messages_topic(s.claim.id), status_topic(s.claim.id), token=s.token) as stream:
        headers = stream.response.headers
        assert headers["content-type"].startswith("text/event-stream")
        assert headers["cache-control"] == "no-cache"
        assert headers["x-accel-buffering"] == "no"
        assert headers["last-event-id"] == str(before)
        first = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 2, "Hi ✓"))
        status = {
            "type": "status_update",
            "claimId": s.claim.id,
            "status": "in_progress",
            "updatedAt": "2026-01-15T10:00:00Z",
        }
        second = await publish_event(live.app, status_topic(s.claim.id), status)

        assert await stream.events(2) == [first, second]
    assert json.loads(second[1]) == status


async def test_an_open_stream_holds_no_database_connection(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    pool = live.app.state.engine.pool
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        assert await stream.next() is not None  # a heartbeat: the route is long done
        await wait_for(lambda: asyncio.sleep(0, pool.checkedout() == 0))
        assert live.app.state.hub.subscriber_count == 1


async def test_full_url_topics_are_accepted(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, f"https://example.com/claims/{s.claim.id}/messages", token=s.token) as stream:
        sent = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))
        assert await stream.events(1) == [sent]


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
    assert_error(await http.get(HUB, params={**topic, "authorization": "garbage"}), 401, "AUTH_TOKEN_INVALID")
    http.cookies.set("mercureAuthorization", "garbage")
    assert_error(await http.get(HUB, params=topic), 401, "AUTH_TOKEN_INVALID")


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


async def test_topics_are_validated(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    auth = {"Authorization": f"Bearer {s.token}"}

    none = assert_error(await http.get(HUB, headers=auth), 400, "VALIDATION_FAILED")
    assert set(none["details"]["fields"]) == {"topic"}
    for bad in (
        "claims/abc/messages",
        "products/1",
        f"claims/{s.claim.id}/other",
        f"x/claims/{s.claim.id}/status",
    ):
        response = await http.get(HUB, params={"topic": bad}, headers=auth)
        assert_error(response, 400, "VALIDATION_FAILED")


async def test_heartbeat_comments_keep_the_stream_alive(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        message = await stream.next()
        assert message is not None and message.comments and message.data is None


async def test_reconnect_with_last_event_id_gets_exactly_the_missed_events(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token) as stream:
        seen = [await publish_event(live.app, topic, new_message(s.claim.id, 1))]
        assert await stream.events(1) == seen
    missed = [await publish_event(live.app, topic, new_message(s.claim.id, n)) for n in (2, 3)]
    await publish_event(live.app, status_topic(s.claim.id), {"type": "status_update"})  # not subscribed

    async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": str(seen[0][0])}) as stream:
        live_one = await publish_event(live.app, topic, new_message(s.claim.id, 4))
        assert await stream.events(3) == [*missed, live_one]
        next_one = await publish_event(live.app, topic, new_message(s.claim.id, 5))
        assert await stream.events(1) == [next_one]  # the next is the new one: no duplicate

    # The query parameter works the same when there is no header.
    async with subscribe(http, topic, token=s.token, params=[("lastEventID", str(missed[1][0]))]) as stream:
        assert (await stream.events(1))[0][0] == live_one[0]


async def test_earliest_and_unknown_ids_replay_all_history(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    history = [await publish_event(live.app, topic, new_message(s.claim.id, n)) for n in (1, 2)]

    for last_id in ("earliest", "999999999", "0"):
        async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": last_id}) as stream:
            assert await stream.events(2) == history


async def test_a_rolled_back_publish_is_never_delivered(live: LiveServer, http: httpx.AsyncClient) -> None:
    from app.realtime.publishing import publish

    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token) as stream:
        async with live.app.state.sessionmaker() as session, session.begin():
            await publish(session, topic, new_message(s.claim.id, 1, "never"))
            await session.rollback()
        committed = await publish_event(live.app, topic, new_message(s.claim.id, 2, "committed"))
        assert await stream.events(1) == [committed]


@pytest.mark.settings(sse_queue_size=2)
async def test_a_subscriber_that_stops_reading_is_cut_off_while_others_keep_receiving(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    big = "x" * 200_000  # enough bytes to fill the socket buffers of the one that does not read
    count = 100
    async with (
        subscribe(http, topic, token=s.token) as slow,
        httpx.AsyncClient(base_url=live.url, timeout=10) as other_client,
        subscribe(other_client, topic, token=s.token) as fast,
    ):
        sent = []
        for n in range(count):
            sent.append(await publish_event(live.app, topic, new_message(s.claim.id, n, big)))
            assert await fast.events(1, within=20) == [sent[-1]]
        ended = await slow.end(within=30)
        got = [message for message in ended if message.data is not None]
        assert 0 < len(got) < count  # it was disconnected part way
        assert ended[-1].retry is not None and 1000 <= ended[-1].retry <= 10000  # when to come back
        assert [(int(m.id or 0), m.data) for m in got] == sent[: len(got)]

    # It resumes where it stopped.
    last = got[-1].id
    async with subscribe(http, topic, token=s.token, headers={"Last-Event-ID": str(last)}) as resumed:
        assert await resumed.events(count - len(got), within=30) == sent[len(got) :]


@pytest.mark.settings(access_token_ttl=2)
async def test_the_stream_ends_when_its_token_expires(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        ended = await stream.end(within=10)
    assert ended[-1].retry is not None and 1000 <= ended[-1].retry <= 10000


@pytest.mark.settings(sse_reauthorize_interval=0.2)
async def test_a_supplier_who_is_unassigned_stops_receiving(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=token_for(live.app, s.supplier)) as stream:
        async with live.app.state.sessionmaker() as session, session.begin():
            await session.execute(update(Claim).where(Claim.id == s.claim.id).values(supplier_id=None))
        await stream.end(within=10)


@pytest.mark.settings(sse_max_streams_per_user=1)
async def test_streams_per_user_are_capped(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    topic = messages_topic(s.claim.id)
    async with subscribe(http, topic, token=s.token):
        response = await http.get(
            HUB, params={"topic": topic}, headers={"Authorization": f"Bearer {s.token}"}
        )
        assert_error(response, 429, "RATE_LIMITED")
        assert int(response.headers["retry-after"]) >= 1

    # Once closed, the slot is free again.

    async def reopened() -> bool:
        async with http.stream(
            "GET", HUB, params={"topic": topic}, headers={"Authorization": f"Bearer {s.token}"}
        ) as r:
            return r.status_code == 200

    await wait_for(reopened)


@pytest.mark.settings(cors_origins="http://app.example")
async def test_cors_headers_with_credentials_on_the_stream(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(
        http, messages_topic(s.claim.id), token=s.token, headers={"Origin": "http://app.example"}
    ) as stream:
        assert stream.response.headers["access-control-allow-origin"] == "http://app.example"
        assert stream.response.headers["access-control-allow-credentials"] == "true"
        assert "last-event-id" in stream.response.headers["access-control-expose-headers"].lower()


async def test_shutdown_ends_open_streams(live: LiveServer, http: httpx.AsyncClient) -> None:
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        stopping = asyncio.create_task(live.stop(within=10))
        await stream.end(within=10)
        await stopping
    assert live.app.state.hub.subscriber_count == 0


async def test_one_process_delivers_without_a_query(
    live: LiveServer, http: httpx.AsyncClient, is_postgres: bool
) -> None:
    if is_postgres:
        pytest.skip("on PostgreSQL the hub reads the rows a NOTIFY announces")
    s = await scene(live.app)
    async with subscribe(http, messages_topic(s.claim.id), token=s.token) as stream:
        with count_queries(live.app, with_hub_reader=True) as statements:
            sent = await publish_event(live.app, messages_topic(s.claim.id), new_message(s.claim.id, 1))
            assert await stream.events(1) == [sent]
    assert len(statements) == 1 and statements[0].startswith("INSERT INTO events")
