"""Which address a request comes from (contract 12.3): X-Forwarded-For read right to left, skipping
WARRANTY_TRUSTED_PROXIES; a forged left-most entry changes nothing."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.api.client_address import client_address
from app.config import parse_networks
from tests.conftest import SettingsFactory
from tests.factories.users import DEFAULT_PASSWORD, create_user

PROXIES = parse_networks(["10.0.0.0/8", "192.0.2.7", "2001:db8::/32"])


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "expected"),
    [
        # No trusted proxy in front: the header is the client's own words and is ignored.
        ("203.0.113.9", ["198.51.100.1"], "203.0.113.9"),
        # One trusted proxy: the entry it appended is the client; whatever the client sent before is not.
        ("192.0.2.7", ["198.51.100.1"], "198.51.100.1"),
        ("192.0.2.7", ["6.6.6.6, 198.51.100.1"], "198.51.100.1"),
        # A chain of trusted proxies (a CIDR range), the header split over two lines.
        ("10.1.2.3", ["6.6.6.6, 198.51.100.1", "10.9.9.9"], "198.51.100.1"),
        ("2001:db8::5", ["[2001:db8::6]:4711, 198.51.100.1:1234, 2001:db8::7"], "198.51.100.1"),
        # Only trusted hops: the left-most is as far as anyone knows.
        ("10.1.2.3", ["10.0.0.1, 10.0.0.2"], "10.0.0.1"),
        # No header, or an entry that is no address: the last hop known for sure.
        ("192.0.2.7", [], "192.0.2.7"),
        ("192.0.2.7", ["6.6.6.6, not-an-address"], "192.0.2.7"),
        ("10.1.2.3", ["198.51.100.1, , 10.0.0.1"], "198.51.100.1"),
        # IPv4 peers seen through an IPv6 socket are the same clients.
        ("::ffff:192.0.2.7", ["::ffff:198.51.100.1"], "198.51.100.1"),
        (None, ["198.51.100.1"], "unknown"),
    ],
)
def test_reads_forwarded_for_right_to_left_past_trusted_proxies(
    peer: str | None, forwarded_for: list[str], expected: str
) -> None:
    assert client_address(peer, forwarded_for, PROXIES) == expected


def test_trusts_no_proxy_by_default(make_settings: SettingsFactory) -> None:
    assert client_address("10.1.2.3", ["198.51.100.1"], make_settings().trusted_proxy_networks) == "10.1.2.3"


@pytest.mark.settings(trusted_proxies="127.0.0.1")  # the test client's peer address
async def test_forged_left_most_entries_do_not_escape_the_login_throttle(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await create_user(app, email="ann@example.com")
    statuses = []
    for number in range(30):
        response = await client.post(
            "/api/login",
            json={"email": "ann@example.com", "password": "wrong password"},
            headers={"X-Forwarded-For": f"203.0.113.{number}, 198.51.100.1"},
        )
        statuses.append(response.status_code)

    assert statuses == [401] * 5 + [429] * 25
    # The address the proxy saw is the client: another one behind the same proxy still signs in.
    other = await client.post(
        "/api/login",
        json={"email": "ann@example.com", "password": DEFAULT_PASSWORD},
        headers={"X-Forwarded-For": "198.51.100.2"},
    )
    assert other.status_code == 200


async def test_without_trusted_proxies_the_header_is_ignored(app: FastAPI, client: httpx.AsyncClient) -> None:
    await create_user(app, email="ann@example.com")
    statuses = []
    for number in range(6):
        response = await client.post(
            "/api/login",
            json={"email": "ann@example.com", "password": "wrong password"},
            headers={"X-Forwarded-For": f"198.51.100.{number}"},
        )
        statuses.append(response.status_code)

    assert statuses == [401] * 5 + [429]
