"""Requests to a provider are bounded and answer JSON objects or a 503 that says why (app.oidc.fetch)."""

from __future__ import annotations

import httpx
import pytest

from app.oidc.fetch import MAX_ANSWER_BYTES, ProviderUnreachable, fetch_json
from tests.support.ports import free_port


async def _fetch(handler: httpx.MockTransport) -> tuple[int, dict[str, object]]:
    async with httpx.AsyncClient(transport=handler) as client:
        return await fetch_json(client, "GET", "https://id.example.com/secret/path?x=1")


async def test_a_json_object_is_answered_with_its_status() -> None:
    answer = await _fetch(httpx.MockTransport(lambda _: httpx.Response(400, json={"error": "invalid_grant"})))
    assert answer == (400, {"error": "invalid_grant"})


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (httpx.Response(200, content=b"x" * (MAX_ANSWER_BYTES + 1)), "more than"),
        (httpx.Response(200, content=b"<html>"), "without JSON"),
        (httpx.Response(200, json=[1, 2]), "no object"),
    ],
)
async def test_an_oversized_or_unusable_answer_is_a_503(response: httpx.Response, reason: str) -> None:
    with pytest.raises(ProviderUnreachable) as failed:
        await _fetch(httpx.MockTransport(lambda _: response))

    assert reason in failed.value.reason and "secret" not in failed.value.reason
    assert failed.value.status == 503 and int(failed.value.headers["Retry-After"]) > 0


async def test_a_provider_that_does_not_answer_is_a_503() -> None:
    async with httpx.AsyncClient(timeout=2) as client:
        with pytest.raises(ProviderUnreachable) as failed:
            await fetch_json(
                client, "GET", f"http://127.0.0.1:{free_port()}/.well-known/openid-configuration"
            )
    assert "ConnectError" in failed.value.reason
