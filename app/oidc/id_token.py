"""An ID token verified in full (OpenID Connect Core 3.1.3.7) through joserfc: the signature by one of
the provider's keys with an asymmetric algorithm it announces, then `iss`, `aud`, `exp`, `iat`, `sub`,
`nonce`, and `azp` when there are several audiences (or when it is given)."""

from __future__ import annotations

from typing import Any

from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet

from app.oidc.outcomes import Outcome, SignInFailed

MAX_ID_TOKEN_LENGTH = 16 * 1024
LEEWAY = 30  # seconds of clock difference with the provider


class UnknownKey(Exception):
    """The token names a key the cached set does not hold: fetch the set again, then verify once more."""


def verify_id_token(
    raw: str,
    keys: KeySet,
    *,
    issuer: str,
    client_id: str,
    nonce: str,
    algorithms: tuple[str, ...],
) -> dict[str, Any]:
    """The token's claims; SignInFailed(INVALID_ID_TOKEN) naming what failed, UnknownKey for a new key."""
    if len(raw) > MAX_ID_TOKEN_LENGTH:
        raise _invalid("it is longer than 16 KiB")
    try:
        token = jwt.decode(raw, keys, algorithms=list(algorithms))
    except InvalidKeyIdError:
        raise UnknownKey from None
    except (JoseError, ValueError, TypeError) as exc:
        raise _invalid(f"its signature does not verify ({type(exc).__name__})") from None
    claims = token.claims
    registry = jwt.JWTClaimsRegistry(
        leeway=LEEWAY,
        iss={"essential": True, "value": issuer},
        aud={"essential": True, "value": client_id},
        sub={"essential": True},
        exp={"essential": True},
        iat={"essential": True},
        nonce={"essential": True, "value": nonce},
    )
    try:
        registry.validate(claims)
    except JoseError as exc:
        raise _invalid(f"a claim does not hold ({exc})") from None
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if (len(audiences) > 1 or "azp" in claims) and claims.get("azp") != client_id:
        raise _invalid("it has several audiences and its azp is not this client")
    if not isinstance(claims["sub"], str) or not 0 < len(claims["sub"]) <= 255:
        raise _invalid("its sub is not a string of 1 to 255 characters")
    return claims


def _invalid(reason: str) -> SignInFailed:
    return SignInFailed(Outcome.INVALID_ID_TOKEN, f"the ID token is refused: {reason}")
