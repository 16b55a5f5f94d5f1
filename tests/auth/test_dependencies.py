"""The auth routes' own dependencies (app/auth/dependencies.py): refresh tokens on the request's session
with the configured lifetime, and a throttle with the configured limits on the app's sessions."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.api.dependencies import SessionDep
from app.auth.dependencies import RefreshTokenRepo, ThrottleDep


@pytest.mark.settings(refresh_token_ttl_days=3, register_max_per_client=4)
async def test_refresh_tokens_and_throttle_come_from_the_request(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async def parts(session: SessionDep, tokens: RefreshTokenRepo, throttle: ThrottleDep) -> dict[str, Any]:
        return {
            "tokens on the request's session": tokens.session is session,
            "token lifetime": tokens.ttl == timedelta(days=3),
            "throttle on the app's sessions": throttle.sessionmaker is app.state.sessionmaker,
            "throttle limits": throttle.limits.register.limit == 4,
        }

    app.router.add_api_route("/api/test-auth-parts", parts, methods=["GET"])

    answer = (await client.get("/api/test-auth-parts")).json()

    assert answer == dict.fromkeys(answer, True) and len(answer) == 4
