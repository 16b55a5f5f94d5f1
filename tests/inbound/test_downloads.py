"""Reading what an email provider answers, and fetching the files it points to, within limits
(app/inbound/downloads.py): an answer dropped as soon as it passes its limit (or says it will, or comes
encoded), never read whole first; a file link followed only when it is https on an address the outbound
rules allow, connected at the checked address with the host name kept; a gone link skipped, a failing
host a retry."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.inbound.downloads import Unavailable, download, read_at_most
from tests.factories.inbound import SECRETS, post_standard
from tests.inbound.resend_server import Flood, ResendApi
from tests.inbound.support import HUNG_UP_BY, RESEND, SMALL, emailed_bill, messages_of, new_claim
from tests.support.pdf import PDF_BYTES
from tests.support.ports import free_port

SETTINGS: dict[str, Any] = {**SECRETS, **RESEND, "resend_timeout": 5.0}
pytestmark = pytest.mark.settings(**SETTINGS)


class _Unread(httpx.AsyncByteStream):
    """A body that fails the test if anyone reads it."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        raise AssertionError("the body was read")
        yield b""  # pragma: no cover


class _Chunks(httpx.AsyncByteStream):
    """A body sent in chunks, with no Content-Length (as a chunked answer comes)."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks
        self.taken = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            self.taken += 1
            yield chunk


async def test_an_answer_within_its_limit_is_read_whole() -> None:
    chunks = httpx.Response(200, content=b"x" * 10)

    assert await read_at_most(chunks, 10) == b"x" * 10
    assert await read_at_most(httpx.Response(200, content=b""), 0) == b""


async def test_an_answer_over_its_limit_is_dropped_while_it_is_read() -> None:
    chunked = _Chunks(b"x" * 6, b"x" * 6, b"never taken")

    assert await read_at_most(httpx.Response(200, stream=chunked), 10) is None
    assert chunked.taken == 2  # dropped at the chunk that passed the limit
    assert await read_at_most(httpx.Response(200, stream=_Chunks(b"x" * 5, b"x" * 5)), 10) == b"x" * 10


@pytest.mark.parametrize(
    "headers",
    [
        {"Content-Length": "11"},
        {"Content-Encoding": "gzip"},
        {"Content-Encoding": " Deflate "},
    ],
    ids=["declared over", "gzip", "deflate"],
)
async def test_an_answer_that_says_it_is_over_its_limit_or_encoded_is_dropped_unread(
    headers: dict[str, str],
) -> None:
    assert await read_at_most(httpx.Response(200, headers=headers, stream=_Unread()), 10) is None


async def test_a_length_longer_than_any_limit_is_not_converted_and_the_body_is_read_up_to_the_limit() -> None:
    absurd = {"Content-Length": "9" * 5000}  # int() would refuse it; it is no number worth converting

    assert await read_at_most(httpx.Response(200, headers=absurd, content=b"x" * 11), 10) is None


async def test_identity_encoding_and_a_length_within_the_limit_are_read() -> None:
    headers = {"Content-Encoding": "identity", "Content-Length": "3"}

    assert await read_at_most(httpx.Response(200, headers=headers, content=b"abc"), 10) == b"abc"


@pytest.mark.parametrize(
    ("url", "allow_private"),
    [
        ("http://127.0.0.1:9/files/a", True),  # not https
        ("ftp://127.0.0.1/files/a", True),
        ("https://127.0.0.1:9/files/a", False),  # loopback, not allowed
        ("https://10.0.0.7/files/a", False),
        ("https://169.254.169.254/latest", False),
    ],
)
async def test_a_link_that_is_not_https_or_not_allowed_is_not_followed(
    url: str, allow_private: bool, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="warranty.inbound"):
        assert await download(url, max_size=1000, allow_private=allow_private, seconds=2) is None

    assert "an attachment link was not followed" in caplog.text
    assert url not in caplog.text  # a link carries its signature: never logged


async def test_a_file_is_fetched_and_one_over_the_limit_dropped(resend: ResendApi) -> None:
    resend.files["bill"] = PDF_BYTES
    url = f"{resend.files_url}/files/bill"

    assert await download(url, max_size=len(PDF_BYTES), allow_private=True, seconds=5) == PDF_BYTES
    assert await download(url, max_size=len(PDF_BYTES) - 1, allow_private=True, seconds=5) is None


@pytest.mark.parametrize(
    ("status", "gone"), [(403, True), (404, True), (410, True), (500, False), (401, False)]
)
async def test_a_gone_link_is_skipped_and_a_failing_host_is_a_retry(
    resend: ResendApi, status: int, gone: bool
) -> None:
    resend.fail_with = status
    url = f"{resend.files_url}/files/unknown"

    if gone:
        assert await download(url, max_size=1000, allow_private=True, seconds=5) is None
    else:
        with pytest.raises(Unavailable, match=f"HTTP {status}"):
            await download(url, max_size=1000, allow_private=True, seconds=5)


async def test_a_host_that_accepts_no_connection_is_a_retry() -> None:
    with pytest.raises(Unavailable):
        await download(
            f"https://127.0.0.1:{free_port()}/files/a", max_size=1000, allow_private=True, seconds=2
        )


@pytest.fixture
def dialled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hosts the service's HTTP clients connect to; anything beyond this machine is refused unsent."""
    hosts: list[str] = []
    send = httpx.AsyncHTTPTransport.handle_async_request

    async def guarded(transport: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
        hosts.append(request.url.host)
        if request.url.host not in ("127.0.0.1", "::1", "localhost"):
            raise httpx.ConnectError("the test lets no request leave this machine", request=request)
        return await send(transport, request)

    monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", guarded)
    return hosts


async def test_an_https_download_url_on_an_allowed_address_is_fetched_with_the_host_name_kept(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, dialled: list[str]
) -> None:
    claim = await new_claim(app)

    response = await post_standard(client, resend.event(emailed_bill(resend, claim)))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert await app.state.storage.read(message.attachment_key) == PDF_BYTES
    assert "localhost" not in dialled  # the checked address is connected, the name kept for TLS


STRICT = pytest.mark.settings(**{**SETTINGS, "webhook_allow_private": False})


REFUSED = [
    pytest.param("http://127.0.0.1:{api_port}", id="http on an allowed address"),
    pytest.param("ftp://127.0.0.1:{api_port}", id="not http"),
    pytest.param("https://localhost:{files_port}", id="loopback", marks=STRICT),
    pytest.param("https://127.0.0.1:{files_port}", id="loopback by address", marks=STRICT),
    pytest.param("https://[::ffff:127.0.0.1]:{files_port}", id="IPv4-mapped loopback", marks=STRICT),
    pytest.param("https://169.254.169.254", id="metadata service", marks=STRICT),
    pytest.param("https://10.0.0.7", id="private", marks=STRICT),
]


@pytest.mark.parametrize("base", REFUSED)
async def test_a_refused_download_url_is_not_requested_and_the_text_is_posted(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, dialled: list[str], base: str
) -> None:
    claim = await new_claim(app)
    resend.download_base = base.format(api_port=resend.port, files_port=resend.files_port)

    response = await post_standard(client, resend.event(emailed_bill(resend, claim)))

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_key) == ("Fits.", None)
    assert not [path for path, _auth in resend.requests if path.startswith("/files/")]
    assert set(dialled) == {"127.0.0.1"}  # Resend's API (the stand-in) only


@pytest.mark.settings(**SETTINGS, max_inbound_attachment_size=SMALL)
@pytest.mark.parametrize("flood", ["chunked", "lying"])
async def test_an_oversized_file_is_dropped_and_is_not_read_to_its_end(
    app: FastAPI, client: httpx.AsyncClient, resend: ResendApi, flood: Flood
) -> None:
    claim = await new_claim(app)
    resend.oversized["file"] = flood

    response = await post_standard(client, resend.event(emailed_bill(resend, claim)))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_key) == ("Fits.", None)
    assert resend.sent < HUNG_UP_BY
