"""The hub's RFC 6750 challenges (app.realtime.challenge): what each error status carries."""

from __future__ import annotations

from app.errors import Forbidden, NotFound, PayloadTooLarge, Unauthorized, ValidationFailed
from app.realtime.challenge import HEADER, with_challenge


def test_each_status_gets_the_drafts_challenge() -> None:
    assert with_challenge(Unauthorized()).headers[HEADER] == "Bearer"  # no token: no error code
    bad_token = Unauthorized("bad", code="AUTH_TOKEN_EXPIRED")
    assert with_challenge(bad_token).headers[HEADER] == 'Bearer error="invalid_token"'
    assert with_challenge(Forbidden()).headers[HEADER] == 'Bearer error="insufficient_scope"'
    assert with_challenge(ValidationFailed()).headers[HEADER] == 'Bearer error="invalid_request"'


def test_other_statuses_carry_no_challenge() -> None:
    for error in (NotFound(), PayloadTooLarge()):
        assert HEADER not in with_challenge(error).headers
