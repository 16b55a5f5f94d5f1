"""12.2: a stream whose token no longer holds (password changed, account deleted) ends."""

from __future__ import annotations

import httpx
import pytest

from app.realtime.publishing import messages_topic
from tests.factories.users import DEFAULT_PASSWORD
from tests.realtime.support import LiveServer, scene, subscribe


@pytest.mark.settings(sse_reauthorize_interval=0.2)
async def test_a_password_change_ends_the_streams_of_older_tokens(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    login = await http.post("/api/login", json={"email": s.customer.email, "password": DEFAULT_PASSWORD})
    token = login.json()["token"]

    async with subscribe(http, messages_topic(s.claim.id), token=token) as stream:
        changed = await http.post(
            "/api/me/password",
            json={"currentPassword": DEFAULT_PASSWORD, "newPassword": "brand new secret"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert changed.status_code == 204
        await stream.end(within=10)

    again = await http.get(
        "/.well-known/mercure",
        params={"topic": messages_topic(s.claim.id)},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert again.status_code == 401 and again.json()["code"] == "AUTH_TOKEN_INVALID"
