"""The failure vocabulary the browser is sent back with (docs/api.md)."""

from __future__ import annotations

from app.oidc.outcomes import Outcome, SignInFailed


def test_a_failure_carries_its_outcome_and_its_reason_for_the_log() -> None:
    failed = SignInFailed(Outcome.INVALID_STATE, "the state is not this browser's")
    assert (failed.outcome.value, failed.reason) == ("invalid_state", "the state is not this browser's")


def test_the_vocabulary_is_the_documented_one() -> None:
    assert {outcome.value for outcome in Outcome} == {
        "access_denied",
        "invalid_state",
        "invalid_code",
        "invalid_id_token",
        "email_unverified",
        "not_registered",
    }
