"""One webhook attempt (app/webhooks/sender.py), against a real receiver on 127.0.0.1: the body and headers
posted, a 2xx answered, any other status (a redirect too, never followed) unsuccessful with the start of
the answer, a silent receiver a timeout, a destination that is not public refused before any connection,
and the checked address connected with the host name kept (Host, TLS SNI and certificate)."""

from __future__ import annotations

import asyncio
import ssl

import httpx
import pytest
from fastapi import FastAPI

from app.core.addresses import Refused
from app.webhooks.sender import USER_AGENT, Answer, Unsuccessful, post
from tests.factories.webhooks import register, verified, webhook_worker
from tests.webhooks.receiver import Receiver, start_receiver
from tests.webhooks.support import deliveries_of, send_test

pytestmark = pytest.mark.settings(
    webhook_allow_private=True, outbox_backoff_base=0.05, worker_poll_interval=0.05
)
BODY = b'{"type":"webhook.test","data":{}}'


async def _post(url: str, *, allow_private: bool = True, seconds: float = 5.0) -> Answer:
    return await post(url, BODY, {"webhook-id": "msg_1"}, allow_private=allow_private, seconds=seconds)


async def test_a_2xx_is_the_answer_and_the_receiver_gets_the_body_and_headers(receiver: Receiver) -> None:
    answer = await _post(receiver.url("/ok"))

    assert answer == Answer(200, "ok") and answer.ok
    [arrived] = receiver.at("/ok")
    assert arrived.body == BODY
    assert arrived.headers["webhook-id"] == "msg_1"
    assert arrived.headers["content-type"] == "application/json"
    assert arrived.headers["user-agent"] == USER_AGENT


async def test_the_caller_s_headers_win_and_a_retry_after_is_kept(receiver: Receiver) -> None:
    await post(
        receiver.url("/ok"), b"x", {"Content-Type": "application/octet-stream"}, allow_private=True, seconds=5
    )
    assert receiver.at("/ok")[0].headers["content-type"] == "application/octet-stream"
    with pytest.raises(Unsuccessful) as failed:
        await _post(receiver.url("/flaky/1"))
    assert failed.value.answer.retry_after == "7"


async def test_any_other_status_is_unsuccessful_with_the_start_of_the_answer(receiver: Receiver) -> None:
    with pytest.raises(Unsuccessful) as failed:
        await _post(receiver.url("/flaky/1"))
    with pytest.raises(Unsuccessful) as redirected:
        await _post(receiver.url("/redirect"))
    with pytest.raises(Unsuccessful) as long:
        await _post(receiver.url("/big"))

    assert failed.value.answer == Answer(503, "down for maintenance") and not failed.value.answer.ok
    assert str(failed.value) == "HTTP 503: down for maintenance"
    assert (redirected.value.answer.status, str(redirected.value)) == (302, "HTTP 302")
    assert receiver.at("/ok") == []  # the redirect was not followed
    assert long.value.answer == Answer(500, "x" * 512)  # of 4,096 bytes, the first 512 are kept


async def test_a_receiver_that_never_answers_is_a_timeout_within_the_seconds_given(
    receiver: Receiver,
) -> None:
    started = asyncio.get_running_loop().time()

    with pytest.raises(TimeoutError):
        await _post(receiver.url("/hang"), seconds=0.5)

    assert asyncio.get_running_loop().time() - started < 3
    assert len(receiver.at("/hang")) == 1


async def test_a_destination_that_is_not_public_is_refused_before_any_connection(receiver: Receiver) -> None:
    for host in ("127.0.0.1", "localhost"):
        with pytest.raises(Refused):
            await _post(receiver.url("/ok", host=host), allow_private=False)

    assert receiver.received == []


async def test_a_port_nobody_listens_on_is_a_connect_error() -> None:
    closed = start_receiver()
    url = closed.url("/ok")
    closed.stop()

    with pytest.raises(httpx.ConnectError):
        await _post(url)


async def test_redirects_are_not_followed(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/redirect"))
    await send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    assert receiver.at("/redirect")  # tried (and retried), never followed
    assert receiver.at("/ok") == []
    [listed] = await deliveries_of(app, client, endpoint["id"])
    assert listed["responseStatus"] == 302 and listed["status"] == "pending"


async def test_the_checked_address_is_connected_with_the_host_name_kept(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/ok", host="localhost"))
    await send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    [arrived] = receiver.at("/ok")
    assert arrived.headers["host"] == f"localhost:{receiver.port}"
    verified(endpoint["secret"], arrived)


async def test_https_keeps_the_server_name_for_sni_and_the_certificate(
    app: FastAPI, client: httpx.AsyncClient, tls_receiver: tuple[Receiver, ssl.SSLContext]
) -> None:
    receiver, trust = tls_receiver
    endpoint = await register(app, client, receiver.url("/ok", host="localhost"))
    await send_test(app, client, endpoint["id"])
    await webhook_worker(app, tls=trust).run_until_idle()
    [arrived] = receiver.at("/ok")
    assert receiver.server_names == ["localhost"]
    assert arrived.headers["host"] == f"localhost:{receiver.port}"
    verified(endpoint["secret"], arrived)
