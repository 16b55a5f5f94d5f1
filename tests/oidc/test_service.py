"""The flow's steps (app.oidc.service) where the router's tests do not reach them."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from app.config import Settings
from app.errors import ValidationFailed
from app.oidc import service
from app.oidc.flow_cookie import Flow, new_expiry
from app.oidc.outcomes import Outcome, SignInFailed


def test_the_callback_url_is_under_the_base_url(settings: Settings) -> None:
    assert service.redirect_uri(settings, "mock") == "http://testserver/api/auth/oidc/mock/callback"


async def test_a_redirect_outside_the_list_is_refused_before_the_provider_is_asked(
    app: FastAPI, settings: Settings
) -> None:
    with pytest.raises(ValidationFailed):
        await service.start(app.state.oidc_providers, settings, "down", "https://evil.test/")


@pytest.mark.parametrize(
    ("params", "outcome"),
    [
        (service.CallbackParams(code="c", state=None, error=None), Outcome.INVALID_STATE),
        (service.CallbackParams(code=None, state="st", error=None), Outcome.INVALID_CODE),
        (service.CallbackParams(code=None, state="st", error="login_required"), Outcome.ACCESS_DENIED),
    ],
)
async def test_a_callback_without_its_parts_fails_before_the_provider_is_asked(
    app: FastAPI, settings: Settings, params: service.CallbackParams, outcome: Outcome
) -> None:
    flow = Flow("down", "st", "n", "v" * 64, "http://localhost:3000/signed-in", new_expiry())
    with pytest.raises(SignInFailed) as failed:
        await service.callback(app.state.oidc_providers, settings, app.state.sessionmaker, flow, params)
    assert failed.value.outcome is outcome


async def test_the_providers_error_is_logged_on_one_line(app: FastAPI, settings: Settings) -> None:
    flow = Flow("down", "st", "n", "v" * 64, "http://localhost:3000/signed-in", new_expiry())
    params = service.CallbackParams(code=None, state=None, error="denied\nFAKE log line")
    with pytest.raises(SignInFailed) as failed:
        await service.callback(app.state.oidc_providers, settings, app.state.sessionmaker, flow, params)
    assert failed.value.reason == "the provider answered error=denied FAKE log line"
