"""The hub's errors in the words of RFC 6750 (contract 20.1, as the Mercure draft says): a 401 without a
token carries a bare `WWW-Authenticate: Bearer` challenge; a 401 for a token that does not hold,
`error="invalid_token"`; a 403, `error="insufficient_scope"`; a 400, `error="invalid_request"`. The body
stays the service's error body (contract 1)."""

from __future__ import annotations

from app.errors import AppError

NO_TOKEN = "AUTH_REQUIRED"  # app.errors.Unauthorized's code when no credentials were sent
HEADER = "WWW-Authenticate"


def with_challenge(error: AppError) -> AppError:
    """`error` with the challenge its status calls for (set on the error, which is answered once)."""
    if error.status == 401:
        plain = error.code == NO_TOKEN
        error.headers[HEADER] = "Bearer" if plain else 'Bearer error="invalid_token"'
    elif error.status == 403:
        error.headers[HEADER] = 'Bearer error="insufficient_scope"'
    elif error.status == 400:
        error.headers[HEADER] = 'Bearer error="invalid_request"'
    return error
