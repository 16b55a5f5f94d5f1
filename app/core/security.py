"""Password hashing, access tokens (JWT, HS256 only), opaque token hashing and HMAC checks."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

import anyio
import jwt
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from app.config import Settings
from app.core.clock import utc_now
from app.errors import Unauthorized

ALGORITHM = "HS256"


class PasswordHasher:
    """Argon2id through pwdlib. Hashing runs in a worker thread (never on the event loop), at most
    `WARRANTY_HASH_CONCURRENCY` at once per process: each takes `WARRANTY_ARGON2_MEMORY_COST` KiB, so a
    login flood queues here instead of growing the process's memory."""

    def __init__(self, settings: Settings) -> None:
        self._hash = PasswordHash(
            (
                Argon2Hasher(
                    time_cost=settings.argon2_time_cost,
                    memory_cost=settings.argon2_memory_cost,
                    parallelism=settings.argon2_parallelism,
                ),
            )
        )
        self._concurrency = settings.hash_concurrency
        self._limiter: anyio.CapacityLimiter | None = None  # made in the event loop, at first use
        # Verified against when the email is unknown, so both paths do the same work.
        self._dummy = self._hash.hash(secrets.token_hex(16))

    async def hash(self, password: str) -> str:
        return await anyio.to_thread.run_sync(self._hash.hash, password, limiter=self._threads())

    async def verify(self, password: str, hashed: str | None) -> bool:
        valid, _ = await self.verify_and_update(password, hashed)
        return valid

    async def verify_and_update(self, password: str, hashed: str | None) -> tuple[bool, str | None]:
        """Whether the password matches, and a new hash when the stored one has other parameters than
        the configured ones (None otherwise): to be stored, so old hashes move to the current cost."""
        valid, updated = await anyio.to_thread.run_sync(
            self._hash.verify_and_update, password, hashed or self._dummy, limiter=self._threads()
        )
        return valid, updated if hashed else None

    def hash_sync(self, password: str) -> str:
        return self._hash.hash(password)

    def _threads(self) -> anyio.CapacityLimiter:
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self._concurrency)
        return self._limiter


@dataclass(frozen=True)
class AccessTokenPayload:
    user_id: int
    roles: list[str]
    expires_at: datetime
    jti: str
    session_family: str | None
    credential_version: int = 0


def create_access_token(
    settings: Settings,
    user_id: int,
    roles: list[str],
    session_family: str | None = None,
    credential_version: int = 0,
) -> str:
    """`sid` names the refresh-token family the token was issued with, so a password change can keep the
    caller's own session and end the others; `cv` is the user's credential version, so a password change
    or reset ends every token issued before it."""
    now = utc_now()
    payload: dict[str, object] = {
        "sub": str(user_id),
        "roles": roles,
        "iat": int(now.timestamp()),
        "exp": int((now + timedelta(seconds=settings.access_token_ttl)).timestamp()),
        "jti": uuid.uuid4().hex,
    }
    if session_family:
        payload["sid"] = session_family
    if credential_version:
        payload["cv"] = credential_version
    return jwt.encode(payload, signing_key(settings), algorithm=ALGORITHM)


# Tokens verified already, by secret and token: PyJWT's checks run once per token, not on every request
# (they were a tenth of a small request's CPU). The expiry is checked again at every use.
_VERIFIED_MAX = 10_000
_verified: OrderedDict[tuple[bytes, str], AccessTokenPayload] = OrderedDict()


def decode_access_token(settings: Settings, token: str) -> AccessTokenPayload:
    """The token's payload; 401 AUTH_TOKEN_INVALID or AUTH_TOKEN_EXPIRED."""
    key = (signing_key(settings), token)
    payload = _verified.get(key)
    if payload is None:
        payload = _verify(settings, token)
        _verified[key] = payload
        if len(_verified) > _VERIFIED_MAX:
            _verified.popitem(last=False)
    else:
        _verified.move_to_end(key)
    if payload.expires_at <= utc_now():
        raise Unauthorized("The access token has expired.", code="AUTH_TOKEN_EXPIRED")
    return payload


def verified_token_payload(settings: Settings, token: str) -> AccessTokenPayload | None:
    """The payload of a token verified before and not expired since; None otherwise (never verifies)."""
    payload = _verified.get((signing_key(settings), token))
    return payload if payload is not None and payload.expires_at > utc_now() else None


def _verify(settings: Settings, token: str) -> AccessTokenPayload:
    try:
        payload = jwt.decode(
            token,
            signing_key(settings),
            algorithms=[ALGORITHM],
            options={"require": ["exp", "iat", "sub"]},
            leeway=0,
        )
        # The expiry against the service's clock is decode_access_token's, at every use.
        expires_at = datetime.fromtimestamp(int(payload["exp"]), tz=utc_now().tzinfo)
        roles = payload.get("roles", [])
        return AccessTokenPayload(
            user_id=int(payload["sub"]),
            roles=[str(role) for role in roles] if isinstance(roles, list) else [],
            expires_at=expires_at,
            jti=str(payload.get("jti", "")),
            session_family=str(payload["sid"]) if payload.get("sid") else None,
            credential_version=int(payload.get("cv", 0)),
        )
    except jwt.ExpiredSignatureError:
        raise Unauthorized("The access token has expired.", code="AUTH_TOKEN_EXPIRED") from None
    except (jwt.InvalidTokenError, ValueError, TypeError, KeyError):
        raise Unauthorized("The access token is not valid.", code="AUTH_TOKEN_INVALID") from None


def signing_key(settings: Settings) -> bytes:
    if settings.secret_key is None:  # never a default: create_app gives every app a key first
        raise RuntimeError("no signing key: call ensure_signing_key(settings) first")
    return settings.secret_key.get_secret_value().encode()


def new_opaque_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """Opaque tokens (refresh, password reset) are stored as SHA-256: high-entropy, so no salt needed."""
    return hashlib.sha256(token.encode()).hexdigest()


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    return hmac.new(key, message, hashlib.sha256).digest()


def standard_webhook_mac(key: bytes, webhook_id: str, timestamp: str, body: bytes) -> bytes:
    """Standard Webhooks' signature bytes: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`
    (inbound deliveries are checked with it, outbound ones signed)."""
    return hmac_sha256(key, f"{webhook_id}.{timestamp}.".encode() + body)


def constant_time_equals(a: str | bytes, b: str | bytes) -> bool:
    a_bytes = a.encode() if isinstance(a, str) else a
    b_bytes = b.encode() if isinstance(b, str) else b
    return hmac.compare_digest(a_bytes, b_bytes)
