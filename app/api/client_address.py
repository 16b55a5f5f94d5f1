"""Which address a request comes from: the peer, or, behind trusted proxies, the first untrusted hop.

`X-Forwarded-For` is read right to left: each trusted proxy appends the address it was reached from, so the
right-most entries are the ones a trusted proxy wrote, and everything left of the first untrusted entry is
whatever the client chose to send. A forged left-most entry therefore changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from ipaddress import IPv4Address, IPv6Address, ip_address

from app.config import Network

Address = IPv4Address | IPv6Address


def client_address(peer: str | None, forwarded_for: Sequence[str], trusted: Sequence[Network]) -> str:
    """The client's address. `forwarded_for` is every X-Forwarded-For header line, in order; it is read
    only when the peer itself is a trusted proxy."""
    client = _address(peer)
    if client is None:
        return (peer or "unknown")[:64]  # not an IP peer (a Unix socket, a test client): as given
    hops = [hop.strip() for line in forwarded_for for hop in line.split(",")]
    for raw in reversed([hop for hop in hops if hop]):
        if not _trusted(client, trusted):
            break
        hop = _address(raw)
        if hop is None:  # not an address: the proxy that passed it on is the last hop known for sure
            break
        client = hop
    return str(client)


def _trusted(address: Address, trusted: Sequence[Network]) -> bool:
    return any(address in network for network in trusted)


def _address(value: str | None) -> Address | None:
    """An address, also as `[v6]:port` or `v4:port` (some proxies add the port); IPv4-mapped IPv6 as IPv4."""
    if not value:
        return None
    if value.startswith("["):
        value = value[1 : value.find("]")] if "]" in value else value
    elif value.count(":") == 1:
        value = value.split(":", 1)[0]
    try:
        address = ip_address(value)
    except ValueError:
        return None
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address
