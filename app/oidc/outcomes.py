"""How a sign-in through a provider fails: the `error` the browser is sent back with (docs/api.md)."""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    ACCESS_DENIED = "access_denied"  # the user refused, or the provider answered the request with an error
    INVALID_STATE = "invalid_state"  # the callback is not the one this browser's sign-in started
    INVALID_CODE = "invalid_code"  # the provider refused the code: replayed, expired or not ours
    INVALID_ID_TOKEN = "invalid_id_token"  # the ID token does not verify (signature, iss, aud, exp, nonce)
    EMAIL_UNVERIFIED = "email_unverified"  # an account has the email, which the provider does not vouch for
    NOT_REGISTERED = "not_registered"  # no account is linked and the provider does not create accounts


class SignInFailed(Exception):
    """A failure the browser is redirected back with, as `error=<outcome>`; `reason` is for the log only."""

    def __init__(self, outcome: Outcome, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason
