"""A real OpenID Connect provider on 127.0.0.1 for the sign-in tests: `oidc-provider-mock` (Authlib's
authorization server behind Flask, served by werkzeug in a thread). It serves discovery, a JWKS, the
authorization endpoint (a form: `sub` signs that user in, `action=deny` refuses), the token endpoint
(RS256 ID tokens with the request's `nonce`, `aud` the client id) and `PUT /users/{sub}` to set a user's
claims. Any client id and secret are accepted.

It runs in a process of its own (`python -m tests.support.oidc_provider PORT`): Authlib's server code warns
about its own deprecations, which this suite turns into errors. `tamper_id_tokens(True)` makes the token
endpoint's answers carry an ID token whose signature no longer matches (one byte of the signature changed),
as a token forged or altered on the way would be.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.support.ports import free_port

StartResponse = Callable[..., Any]
TAMPER_PATH = "/_test/tamper"


@dataclass
class Provider:
    issuer: str

    def set_user(self, sub: str, **claims: Any) -> None:
        answer = httpx.put(f"{self.issuer}/users/{sub}", json=claims)
        assert answer.status_code == 204, answer.text

    def tamper_id_tokens(self, on: bool) -> None:
        answer = httpx.put(f"{self.issuer}{TAMPER_PATH}", content=b"on" if on else b"off")
        assert answer.status_code == 204, answer.text


class _Tampering:
    """WSGI middleware: when the provider says so, the token answer's ID token gets a wrong signature."""

    def __init__(self, app: Any) -> None:
        self.app, self.tampering = app, False

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == TAMPER_PATH:
            self.tampering = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)) == b"on"
            start_response("204 No Content", [])
            return []
        if not (self.tampering and environ.get("PATH_INFO") == "/oauth2/token"):
            return self.app(environ, start_response)  # type: ignore[no-any-return]
        captured: dict[str, Any] = {}

        def keep(status: str, headers: list[tuple[str, str]], *_: Any) -> None:
            captured.update(status=status, headers=headers)

        body = b"".join(self.app(environ, keep))
        answer = json.loads(body)
        header, payload, signature = answer["id_token"].split(".")
        raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
        raw[0] ^= 0xFF
        answer["id_token"] = ".".join([header, payload, base64.urlsafe_b64encode(raw).rstrip(b"=").decode()])
        body = json.dumps(answer).encode()
        headers = [(k, v) for k, v in captured["headers"] if k.lower() != "content-length"]
        start_response(captured["status"], [*headers, ("Content-Length", str(len(body)))])
        return [body]


@pytest.fixture(scope="session")
def oidc_provider() -> Iterator[Provider]:
    port = free_port()
    command = [sys.executable, "-W", "ignore", "-m", "tests.support.oidc_provider", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    provider = Provider(issuer=f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 30
        while not _answers(provider):
            assert process.poll() is None and time.monotonic() < deadline, "the provider did not start"
            time.sleep(0.1)
        yield provider
    finally:
        process.terminate()
        process.wait(10)


def _answers(provider: Provider) -> bool:
    try:
        return httpx.get(f"{provider.issuer}/.well-known/openid-configuration").status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture
def provider(oidc_provider: Provider) -> Iterator[Provider]:
    """The session's provider, as a test found it (no tampering)."""
    oidc_provider.tamper_id_tokens(False)
    yield oidc_provider
    oidc_provider.tamper_id_tokens(False)


def serve(port: int) -> None:
    import oidc_provider_mock
    import werkzeug.serving

    app = _Tampering(oidc_provider_mock.app(require_nonce=True))
    werkzeug.serving.make_server("127.0.0.1", port, app, threaded=True).serve_forever()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
