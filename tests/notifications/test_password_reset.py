"""POST /api/password/forgot and /api/password/reset, with the email that arrives."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time, utc_now
from app.outbox.worker import OutboxWorker
from tests.factories.notifications import outbox_rows
from tests.factories.users import DEFAULT_PASSWORD, create_user
from tests.helpers import assert_error
from tests.support.smtp import Inbox

NEW_PASSWORD = "a brand new passphrase"


async def _reset_token(client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox, email: str) -> str:
    assert (await client.post("/api/password/forgot", json={"email": email})).status_code == 202
    await worker.run_until_idle()
    text = inbox.to(email.lower())[-1].get_body(preferencelist=("plain",))
    assert text is not None
    match = re.search(r"http://localhost:3000/reset-password\?token=([\w-]+)", text.get_content())
    assert match, text.get_content()
    return match.group(1)


async def _login(client: httpx.AsyncClient, password: str) -> httpx.Response:
    return await client.post("/api/login", json={"email": "ann@example.com", "password": password})


async def test_forgot_then_reset_sets_the_password_and_ends_sign_ins(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await create_user(app, email="ann@example.com", name="Ann", email_notifications_enabled=False)
    refresh = (await _login(client, DEFAULT_PASSWORD)).json()["refreshToken"]

    token = await _reset_token(client, worker, inbox, "Ann@Example.com")

    [email] = inbox.messages  # sent although Ann turned notification emails off
    assert email["Subject"] == "Reset your Warranty password" and email["Auto-Submitted"] == "auto-generated"
    html = email.get_body(preferencelist=("html",))
    assert html is not None and f"reset-password?token={token}" in html.get_content()
    response = await client.post("/api/password/reset", json={"token": token, "password": NEW_PASSWORD})
    assert response.status_code == 204
    assert (await _login(client, NEW_PASSWORD)).status_code == 200
    assert_error(await _login(client, DEFAULT_PASSWORD), 401, "AUTH_INVALID_CREDENTIALS")
    stale = await client.post("/api/token/refresh", json={"refreshToken": refresh})
    assert_error(stale, 401, "AUTH_TOKEN_INVALID")
    # The raw token is nowhere in the outbox (the worker minted it at send time).
    assert all(token not in str(row.payload) for row in await outbox_rows(app))


async def test_a_reset_token_works_once(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await create_user(app, email="ann@example.com")
    token = await _reset_token(client, worker, inbox, "ann@example.com")
    assert (
        await client.post("/api/password/reset", json={"token": token, "password": NEW_PASSWORD})
    ).status_code == 204

    again = await client.post("/api/password/reset", json={"token": token, "password": "yet another one"})

    body = assert_error(again, 400, "VALIDATION_FAILED")
    assert "token" in body["details"]["fields"]


async def test_a_reset_token_expires_after_an_hour(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await create_user(app, email="ann@example.com")
    token = await _reset_token(client, worker, inbox, "ann@example.com")

    with frozen_time(utc_now() + timedelta(minutes=61)):
        late = await client.post("/api/password/reset", json={"token": token, "password": NEW_PASSWORD})

    assert_error(late, 400, "VALIDATION_FAILED")
    assert (await _login(client, DEFAULT_PASSWORD)).status_code == 200


async def test_a_new_password_voids_the_other_reset_links(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await create_user(app, email="ann@example.com")
    first = await _reset_token(client, worker, inbox, "ann@example.com")
    with frozen_time(utc_now() + timedelta(minutes=2)):
        second = await _reset_token(client, worker, inbox, "ann@example.com")
        assert first != second

        assert (
            await client.post("/api/password/reset", json={"token": second, "password": NEW_PASSWORD})
        ).status_code == 204
        older = await client.post("/api/password/reset", json={"token": first, "password": "yet another one"})

    assert_error(older, 400, "VALIDATION_FAILED")


async def test_unknown_email_gets_the_same_answer_and_no_email(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await create_user(app, email="ann@example.com")

    unknown = await client.post("/api/password/forgot", json={"email": "nobody@example.com"})
    known = await client.post("/api/password/forgot", json={"email": "ann@example.com"})
    await worker.run_until_idle()

    assert unknown.status_code == known.status_code == 202
    assert unknown.content == known.content
    assert [email["To"] for email in inbox.messages] == ["ann@example.com"]
    assert {row.status for row in await outbox_rows(app)} == {"done"}


async def test_bad_reset_input_is_400(app: FastAPI, client: httpx.AsyncClient) -> None:
    bogus = await client.post("/api/password/reset", json={"token": "nope", "password": NEW_PASSWORD})
    assert_error(bogus, 400, "VALIDATION_FAILED")
    short = await client.post("/api/password/reset", json={"token": "nope", "password": "short"})
    assert_error(short, 400, "VALIDATION_FAILED")
    not_email = await client.post("/api/password/forgot", json={"email": "not an email"})
    assert_error(not_email, 400, "VALIDATION_FAILED")
    extra = await client.post("/api/password/forgot", json={"email": "a@example.com", "admin": True})
    assert_error(extra, 400, "VALIDATION_FAILED")


@pytest.mark.settings(password_forgot_max_per_client=100)  # the per-account rule, not the per-address one
async def test_a_flood_of_requests_sends_one_email_a_minute(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await create_user(app, email="ann@example.com")
    for _ in range(5):
        assert (
            await client.post("/api/password/forgot", json={"email": "ann@example.com"})
        ).status_code == 202
    await worker.run_until_idle()
    assert len(inbox.messages) == 1

    with frozen_time(utc_now() + timedelta(minutes=2)):
        await client.post("/api/password/forgot", json={"email": "ann@example.com"})
        await worker.run_until_idle()
    assert len(inbox.messages) == 2


async def test_access_tokens_from_before_a_reset_are_refused(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    await create_user(app, email="ann@example.com")
    old = (await _login(client, DEFAULT_PASSWORD)).json()["token"]
    token = await _reset_token(client, worker, inbox, "ann@example.com")

    assert (
        await client.post("/api/password/reset", json={"token": token, "password": NEW_PASSWORD})
    ).status_code == 204

    assert_error(
        await client.get("/api/me", headers={"Authorization": f"Bearer {old}"}), 401, "AUTH_TOKEN_INVALID"
    )
    new = (await _login(client, NEW_PASSWORD)).json()["token"]
    assert (await client.get("/api/me", headers={"Authorization": f"Bearer {new}"})).status_code == 200
