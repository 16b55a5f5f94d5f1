"""The application server's VAPID identity (RFC 8292) for Web Push: one P-256 key pair, and the
`Authorization: vapid t=<JWT>, k=<public key>` header each push request carries.

The private key comes from `WARRANTY_VAPID_PRIVATE_KEY` (the base64url 32-byte scalar that `web-push
generate-vapid-keys` and py-vapid print, or a PEM); unset, one is generated once into the data folder
(`vapid_private_key.pem`, mode 0600) and every process using that folder shares it. Browsers subscribe
with the public key (`GET /api/push/web/key`): a new key orphans every subscription (push services answer
403), so keep the file, or set the variable, in production.
"""

from __future__ import annotations

import base64
import logging
from dataclasses import dataclass
from email.utils import parseaddr
from functools import lru_cache
from pathlib import Path

import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from app.config import Settings
from app.core.private_files import create_private_once

KEY_FILE = "vapid_private_key.pem"
TOKEN_LIFETIME = 12 * 3600  # seconds; push services refuse an `exp` more than 24 hours ahead

log = logging.getLogger(__name__)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Base64url with or without padding (browsers send it without); ValueError when it is none."""
    if not text or any(ch not in _B64URL for ch in text.rstrip("=")):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class VapidKey:
    private: ec.EllipticCurvePrivateKey
    public_key: str  # base64url of the uncompressed point (65 bytes), the browser's applicationServerKey

    def authorization(self, endpoint: str, subject: str, now: int) -> str:
        """The header value for a push to `endpoint`: a JWT for the endpoint's origin, valid 12 hours."""
        url = httpx.URL(endpoint)
        audience = f"{url.scheme}://{url.netloc.decode('ascii')}"
        claims = {"aud": audience, "exp": now + TOKEN_LIFETIME, "sub": subject}
        token = jwt.encode(claims, self.private, algorithm="ES256", headers={"typ": "JWT"})
        return f"vapid t={token}, k={self.public_key}"


def parse_private_key(text: str) -> ec.EllipticCurvePrivateKey:
    """A P-256 private key from a PEM or a base64url raw 32-byte scalar; ValueError otherwise."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_private_key(text.encode("ascii"), password=None)
    else:
        key = ec.derive_private_key(int.from_bytes(b64url_decode(text), "big"), ec.SECP256R1())
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError("the VAPID key must be a P-256 (prime256v1) key")
    return key


def public_key_of(key: ec.EllipticCurvePrivateKey) -> str:
    point = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def vapid_key(settings: Settings) -> VapidKey:
    """The configured key, else the data folder's (generated the first time)."""
    configured = settings.vapid_private_key.get_secret_value() if settings.vapid_private_key else None
    return _load(configured, str(settings.data_dir / KEY_FILE))


@lru_cache(maxsize=4)
def _load(configured: str | None, path: str) -> VapidKey:
    if configured is not None:
        try:
            key = parse_private_key(configured)
        except ValueError as exc:
            raise ValueError(f"WARRANTY_VAPID_PRIVATE_KEY is not a P-256 private key: {exc}") from None
        return VapidKey(key, public_key_of(key))
    file = Path(path)
    generated = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    if create_private_once(file, generated):
        log.warning("WARRANTY_VAPID_PRIVATE_KEY is not set: generated a VAPID key in %s", file)
    key = parse_private_key(file.read_text(encoding="ascii"))
    return VapidKey(key, public_key_of(key))


def vapid_subject(settings: Settings) -> str:
    """`WARRANTY_VAPID_SUBJECT`, else `mailto:` the sender address of the service's emails."""
    if settings.vapid_subject:
        return settings.vapid_subject
    address = parseaddr(settings.mail_from)[1] or f"notifications@{settings.mail_domain}"
    return f"mailto:{address}"
