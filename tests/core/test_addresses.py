"""Where a request the service makes may go (app.core.addresses): every address a host resolves to must be
public, the URL http(s) with a host, and the request connects to the address that was checked."""

from __future__ import annotations

import ipaddress

import httpx
import pytest

from app.core.addresses import (
    MAX_URL_LENGTH,
    Refused,
    Target,
    check,
    check_addresses,
    is_public,
    request_to,
    resolve,
)

PUBLIC = ["8.8.8.8", "203.0.114.7", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]
NOT_PUBLIC = [
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "169.254.169.254",  # cloud metadata (AWS, GCP, Azure)
    "169.254.1.1",
    "100.64.0.1",  # carrier-grade NAT
    "100.127.255.254",
    "0.0.0.0",
    "224.0.0.251",
    "239.255.255.250",
    "255.255.255.255",
    "240.0.0.1",
    "::1",
    "::",
    "fd00:ec2::254",  # AWS metadata over IPv6
    "fc00::1",
    "fe80::1",
    "fec0::1",
    "ff02::1",
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:169.254.169.254",
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
]


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_addresses_that_are_not_public(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))


def test_one_private_address_among_public_ones_refuses_the_host() -> None:
    addresses = [ipaddress.ip_address(a) for a in ("8.8.8.8", "2606:4700:4700::1111", "10.0.0.7")]
    with pytest.raises(Refused, match=r"10\.0\.0\.7"):
        check_addresses(addresses, allow_private=False)
    check_addresses(addresses, allow_private=True)
    check_addresses(addresses[:2], allow_private=False)


async def test_localhost_resolves_to_loopback_and_is_refused() -> None:
    found = await resolve(httpx.URL("http://localhost:8080/"))
    assert found and all(address.is_loopback for address in found)
    with pytest.raises(Refused, match="not a public address"):
        await check("http://localhost:8080/", allow_private=False)


@pytest.mark.parametrize(
    "url", ["ftp://8.8.8.8/", "file:///etc/passwd", "gopher://8.8.8.8/", "http://", "//8.8.8.8/x", "8.8.8.8"]
)
async def test_only_http_urls_with_a_host(url: str) -> None:
    with pytest.raises(Refused):
        await check(url, allow_private=True)


def test_a_host_that_resolves_to_nothing_is_refused_even_when_private_ones_are_allowed() -> None:
    with pytest.raises(Refused, match="does not resolve to any address"):
        check_addresses([], allow_private=True)


async def test_a_url_longer_than_the_limit_is_refused_before_anything_else() -> None:
    longest = "http://8.8.8.8/" + "a" * (MAX_URL_LENGTH - len("http://8.8.8.8/"))
    assert (await check(longest, allow_private=False)).url == httpx.URL(longest)
    with pytest.raises(Refused, match=f"at most {MAX_URL_LENGTH} characters"):
        await check(longest + "a", allow_private=False)


async def test_an_address_in_the_url_is_checked_as_it_is_without_a_lookup() -> None:
    target = await check("https://[2606:4700:4700::1111]:8443/hook", allow_private=False)
    assert target == Target(
        httpx.URL("https://[2606:4700:4700::1111]:8443/hook"),
        (ipaddress.ip_address("2606:4700:4700::1111"),),
    )
    private = await check("http://10.0.0.7/hook", allow_private=True)  # allowed: the labs' setting
    assert private.addresses == (ipaddress.ip_address("10.0.0.7"),)


async def test_a_request_connects_to_the_checked_address_and_names_the_host() -> None:
    url = httpx.URL("https://hooks.example.com:8443/services/x?y=1")
    async with httpx.AsyncClient() as client:
        request = request_to(
            client, "POST", url, ipaddress.ip_address("203.0.114.7"), {"X-Test": "1"}, content=b"{}"
        )
        to_v6 = request_to(client, "GET", url, ipaddress.ip_address("2606:4700:4700::1111"), {})
        by_address = request_to(
            client, "GET", httpx.URL("https://203.0.114.7/x"), ipaddress.ip_address("203.0.114.7"), {}
        )

    assert request.method == "POST" and request.content == b"{}"
    assert str(request.url) == "https://203.0.114.7:8443/services/x?y=1"
    assert request.headers["Host"] == "hooks.example.com:8443" and request.headers["X-Test"] == "1"
    assert request.extensions["sni_hostname"] == "hooks.example.com"  # TLS and its certificate: the name
    assert to_v6.url.host == "2606:4700:4700::1111" and to_v6.headers["Host"] == "hooks.example.com:8443"
    assert "sni_hostname" not in by_address.extensions  # no name to send: the address is the host
