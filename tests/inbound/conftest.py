from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.inbound.resend_server import ResendApi, tls_contexts
from tests.inbound.support import RESEND_PORT


@pytest.fixture
def resend(monkeypatch: pytest.MonkeyPatch) -> Iterator[ResendApi]:
    """Resend's stand-in on RESEND_PORT (the settings in `support.RESEND` point there), its files on https."""
    server_tls, client_tls = tls_contexts()
    monkeypatch.setattr("app.inbound.downloads._tls", lambda: client_tls)
    server = ResendApi(RESEND_PORT, files_tls=server_tls)
    server.start()
    yield server
    server.stop()
