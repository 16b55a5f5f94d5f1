"""Where a request the service makes may go (no server-side request forgery): outbound webhooks, and the
files an email provider points to (an inbound attachment's `download_url`).

A URL is http(s) with a host. Its host is resolved, and every address it resolves to must be a public
unicast address: loopback, private, link-local (the cloud metadata services at 169.254.169.254 and
fd00:ec2::254 among them), carrier-grade NAT, unique-local, multicast, unspecified and reserved ranges are
refused, also when they hide inside an IPv6 address (IPv4-mapped, NAT64, 6to4). The check runs right
before the request, and the request connects to the address that was checked (`request_to`), so a DNS
answer that changes in between reaches nothing it should not. Webhooks are also checked at registration.
`WARRANTY_WEBHOOK_ALLOW_PRIVATE=true` lifts the address rule (tests, labs), never the scheme rule.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 2048
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIXTO4 = ipaddress.IPv6Network("2002::/16")
_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")


class Refused(ValueError):
    """The URL, or an address its host resolves to, may not be requested (the reason is the text)."""


@dataclass(frozen=True)
class Target:
    """A checked URL, and the addresses its host resolved to (all allowed)."""

    url: httpx.URL
    addresses: tuple[IPAddress, ...]


def parse(url: str) -> httpx.URL:
    """The URL if it is an absolute http(s) URL with a host, else Refused."""
    if len(url) > MAX_URL_LENGTH:
        raise Refused(f"at most {MAX_URL_LENGTH} characters")
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        raise Refused("not a valid URL") from None
    if parsed.scheme not in ("http", "https"):
        raise Refused("must be an http or https URL")
    if not parsed.host:
        raise Refused("must name a host")
    return parsed


def is_public(address: IPAddress) -> bool:
    """A public unicast address (an IPv4 address inside an IPv6 one is judged as itself)."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return is_public(embedded)
        if address.is_site_local:
            return False
    elif address in _CGNAT:
        return False
    return address.is_global and not (
        address.is_multicast or address.is_reserved or address.is_unspecified or address.is_loopback
    )


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _SIXTO4:
        return address.sixtofour
    return None


def check_addresses(addresses: list[IPAddress], allow_private: bool) -> None:
    """Refused unless every address is public (or private ones are allowed)."""
    if not addresses:
        raise Refused("the host does not resolve to any address")
    if allow_private:
        return
    for address in addresses:
        if not is_public(address):
            raise Refused(f"resolves to {address}, which is not a public address")


async def resolve(url: httpx.URL) -> list[IPAddress]:
    """Every address the URL's host stands for (the host itself when it is an address)."""
    host = url.host
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        found = await asyncio.get_running_loop().getaddrinfo(
            url.raw_host.decode("ascii"), port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except (OSError, UnicodeError):
        raise Refused("the host does not resolve") from None
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in found:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])  # no IPv6 zone
        if address not in addresses:
            addresses.append(address)
    return addresses


async def check(url: str, allow_private: bool) -> Target:
    """Parse, resolve and check `url`; Refused with the reason when it may not be requested."""
    parsed = parse(url)
    addresses = await resolve(parsed)
    check_addresses(addresses, allow_private)
    return Target(parsed, tuple(addresses))


def request_to(
    client: httpx.AsyncClient,
    method: str,
    url: httpx.URL,
    address: IPAddress,
    headers: dict[str, str],
    content: bytes | None = None,
) -> httpx.Request:
    """A request for `url` that connects to `address` (one its host was checked to resolve to), the host
    name kept for the Host header, TLS SNI and the certificate check."""
    extensions = {}
    if url.scheme == "https" and not _is_address(url.host):
        extensions["sni_hostname"] = url.raw_host.decode("ascii")
    return client.build_request(
        method,
        url.copy_with(host=str(address)),
        content=content,
        headers={**headers, "Host": url.netloc.decode("ascii")},
        extensions=extensions,
    )


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
