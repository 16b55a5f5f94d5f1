from __future__ import annotations

import ssl
from collections.abc import Iterator

import pytest
import trustme

from tests.webhooks.receiver import Receiver, start_receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = start_receiver()
    yield running
    running.stop()


@pytest.fixture
def tls_receiver() -> Iterator[tuple[Receiver, ssl.SSLContext]]:
    """A receiver serving https with a certificate for `localhost` from a test authority, and a client
    context that trusts that authority."""
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(server_context)
    client_context = ssl.create_default_context()
    authority.configure_trust(client_context)
    running = start_receiver(server_context)
    yield running, client_context
    running.stop()
