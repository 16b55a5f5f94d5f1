"""The sign-in in progress, kept by the browser that started it: a short-lived HttpOnly cookie, encrypted
and authenticated (JWE, `dir` + A256GCM) with a key derived from WARRANTY_SECRET_KEY, scoped to the
provider's callback path. It holds the `state`, the `nonce`, the PKCE verifier and the redirect."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import asdict, dataclass

from joserfc import jwe
from joserfc.errors import JoseError
from joserfc.jwk import OctKey

from app.config import Settings
from app.core.security import signing_key

COOKIE = "warranty_oidc"
LIFETIME = 600  # seconds from start to callback: a sign-in page left open longer starts again
_ENCRYPTION = {"alg": "dir", "enc": "A256GCM"}


@dataclass(frozen=True)
class Flow:
    provider: str
    state: str
    nonce: str
    verifier: str
    redirect: str
    expires: int


def callback_path(provider: str) -> str:
    return f"/api/auth/oidc/{provider}/callback"


def _key(settings: Settings) -> OctKey:
    derived = hmac.new(signing_key(settings), b"warranty oidc flow cookie", hashlib.sha256).digest()
    return OctKey.import_key(derived)


def seal(settings: Settings, flow: Flow) -> str:
    return jwe.encrypt_compact(_ENCRYPTION, json.dumps(asdict(flow)).encode(), _key(settings))


def open_flow(settings: Settings, sealed: str | None, provider: str) -> Flow | None:
    """The flow in the cookie, when it is ours, unexpired and for this provider; None otherwise."""
    if not sealed or len(sealed) > 4096:
        return None
    try:
        flow = Flow(**json.loads(jwe.decrypt_compact(sealed, _key(settings)).plaintext or b""))
    except (JoseError, ValueError, TypeError):
        return None
    if flow.provider != provider or flow.expires < time.time():
        return None
    return flow


def new_expiry() -> int:
    return int(time.time()) + LIFETIME
