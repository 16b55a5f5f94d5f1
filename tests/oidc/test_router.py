"""Sign-in through a real OpenID Connect provider on 127.0.0.1 (contract 18), the browser driven by HTTP:
the happy path to tokens that work on the API and the hub, accounts linked and created, roles mapped, and
every failure of 18.4 as the browser or the app sees it."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from app.models import OidcLoginCode, User
from tests.auth.support import login
from tests.factories.users import create_user
from tests.helpers import assert_error
from tests.oidc import browser
from tests.oidc.conftest import APP_REDIRECT
from tests.support.oidc_provider import Provider


async def _exchange(client: httpx.AsyncClient, code: str) -> httpx.Response:
    return await client.post("/api/auth/oidc/exchange", json={"code": code})


async def test_the_providers_are_listed_by_name_only(client: httpx.AsyncClient) -> None:
    answer = await client.get("/api/auth/providers")

    assert answer.json() == {"providers": [{"name": "mock"}, {"name": "invite-only"}, {"name": "down"}]}
    assert "s3cret" not in answer.text


async def test_start_sends_the_browser_to_the_provider_with_pkce_state_and_nonce(
    client: httpx.AsyncClient, provider: Provider
) -> None:
    started = await client.get("/api/auth/oidc/mock/start", params={"redirect": APP_REDIRECT})

    assert started.status_code == 302
    url = urlsplit(started.headers["location"])
    params = {key: values[0] for key, values in parse_qs(url.query).items()}
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"{provider.issuer}/oauth2/authorize"
    assert params["response_type"] == "code" and params["client_id"] == "warranty"
    assert params["redirect_uri"] == "http://testserver/api/auth/oidc/mock/callback"
    assert params["code_challenge_method"] == "S256" and len(params["code_challenge"]) == 43
    assert (
        len(params["state"]) >= 32
        and len(params["nonce"]) >= 32
        and params["scope"] == "openid email profile"
    )
    cookie = started.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/api/auth/oidc/mock/callback" in cookie
    assert params["state"] not in cookie and params["nonce"] not in cookie  # encrypted


async def test_a_new_user_signs_in_and_uses_the_api_and_the_hub(
    client: httpx.AsyncClient, provider: Provider
) -> None:
    provider.set_user("new-1", email="New.One@example.com", email_verified=True, name="New One")

    landing = await browser.sign_in(client, "new-1")

    assert landing.url.startswith(APP_REDIRECT + "?code=") and set(landing.params) == {"code"}
    signed_in = await _exchange(client, landing.code)
    assert signed_in.status_code == 200, signed_in.text
    body = signed_in.json()
    assert set(body) == {"token", "refreshToken", "user"}
    assert body["user"]["email"] == "new.one@example.com" and body["user"]["roles"] == ["ROLE_USER"]
    assert signed_in.cookies["mercureAuthorization"] == body["token"]
    me = await client.get("/api/me", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.status_code == 200 and me.json()["identities"] == [{"provider": "mock", "subject": "new-1"}]
    refreshed = await client.post("/api/token/refresh", json={"refreshToken": body["refreshToken"]})
    assert refreshed.status_code == 200
    # The hub takes the token (a topic the user may not see is 403, not 401: the token was accepted).
    hub = await client.get(
        "/.well-known/mercure",
        params={"topic": "claims/999/status"},
        headers={"Authorization": f"Bearer {body['token']}"},
    )
    assert hub.status_code in (403, 404), hub.text


async def test_the_one_time_code_works_once(client: httpx.AsyncClient, provider: Provider) -> None:
    provider.set_user("once", email="once@example.com", email_verified=True)
    landing = await browser.sign_in(client, "once")

    assert (await _exchange(client, landing.code)).status_code == 200
    body = assert_error(await _exchange(client, landing.code), 400, "VALIDATION_FAILED")
    assert "code" in body["details"]["fields"]


async def test_an_expired_one_time_code_is_refused(
    app: FastAPI, client: httpx.AsyncClient, provider: Provider
) -> None:
    provider.set_user("late", email="late@example.com", email_verified=True)
    landing = await browser.sign_in(client, "late")
    async with app.state.sessionmaker() as session, session.begin():
        stored = (await session.scalars(select(OidcLoginCode))).one()
        assert stored.code_hash != landing.code  # stored hashed
        await session.execute(update(OidcLoginCode).values(expires_at=stored.created_at))

    assert_error(await _exchange(client, landing.code), 400, "VALIDATION_FAILED")


async def test_a_verified_email_links_the_existing_account_which_keeps_its_password(
    app: FastAPI, client: httpx.AsyncClient, provider: Provider
) -> None:
    user = await create_user(app, email="linked@example.com", roles=["ROLE_SUPPLIER"])
    provider.set_user("kc-linked", email="Linked@Example.com", email_verified=True)

    first = await _exchange(client, (await browser.sign_in(client, "kc-linked", "invite-only")).code)

    assert first.json()["user"]["id"] == user.id and first.json()["user"]["roles"] == [
        "ROLE_USER",
        "ROLE_SUPPLIER",
    ]
    # Linked now: found by (issuer, sub) even after the provider's email changes.
    provider.set_user("kc-linked", email="renamed@example.com", email_verified=False)
    again = await _exchange(client, (await browser.sign_in(client, "kc-linked", "invite-only")).code)
    assert again.json()["user"]["id"] == user.id
    assert (await login(client, "linked@example.com")).status_code == 200


async def test_an_unverified_email_links_nothing(
    app: FastAPI, client: httpx.AsyncClient, provider: Provider
) -> None:
    await create_user(app, email="victim@example.com")
    provider.set_user("attacker", email="victim@example.com", email_verified=False)

    landing = await browser.sign_in(client, "attacker")

    assert landing.params == {"error": "email_unverified"}


async def test_a_provider_that_creates_no_accounts_refuses_a_stranger(
    client: httpx.AsyncClient, provider: Provider
) -> None:
    provider.set_user("stranger", email="stranger@example.com", email_verified=True)

    landing = await browser.sign_in(client, "stranger", "invite-only")

    assert landing.url == f"{APP_REDIRECT}?error=not_registered"


async def test_roles_come_from_the_role_map_and_never_admin_unless_mapped(
    app: FastAPI, client: httpx.AsyncClient, provider: Provider
) -> None:
    provider.set_user(
        "sup", email="sup@example.com", email_verified=True, groups=["warranty-suppliers", "admins"]
    )
    provider.set_user("adm", email="adm@example.com", email_verified=True, groups="warranty-admins")

    supplier = await _exchange(client, (await browser.sign_in(client, "sup")).code)
    admin = await _exchange(client, (await browser.sign_in(client, "adm")).code)

    assert supplier.json()["user"]["roles"] == ["ROLE_USER", "ROLE_SUPPLIER"]
    assert admin.json()["user"]["roles"] == ["ROLE_USER", "ROLE_ADMIN"]


async def test_an_account_without_password_cannot_sign_in_with_one(
    app: FastAPI, client: httpx.AsyncClient, provider: Provider
) -> None:
    provider.set_user("nopass", email="nopass@example.com", email_verified=True)
    await _exchange(client, (await browser.sign_in(client, "nopass")).code)

    for password in ("", "anything at all"):
        assert_error(await login(client, "nopass@example.com", password), 401, "AUTH_INVALID_CREDENTIALS")
    async with app.state.sessionmaker() as session:
        user = (await session.scalars(select(User).where(User.email == "nopass@example.com"))).one()
    assert user.password_hash == ""


async def test_denied_consent_comes_back_as_an_error(client: httpx.AsyncClient, provider: Provider) -> None:
    callback = await browser.at_provider(await browser.start(client), deny=True)

    landing = await browser.back_at_service(client, callback)

    assert landing.params == {"error": "access_denied"}


async def test_a_state_that_is_not_this_browsers_is_refused(
    client: httpx.AsyncClient, provider: Provider
) -> None:
    callback = await browser.at_provider(await browser.start(client), "someone")
    forged = callback.replace("state=", "state=x")

    landing = await browser.back_at_service(client, forged)

    assert landing.params == {"error": "invalid_state"}


async def test_a_callback_without_the_browsers_cookie_is_a_400(
    app: FastAPI, client: httpx.AsyncClient, provider: Provider
) -> None:
    callback = await browser.at_provider(await browser.start(client), "someone")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other_browser:
        answer = await other_browser.get(browser.path_of(callback))

    assert "state" in assert_error(answer, 400, "VALIDATION_FAILED")["details"]["fields"]


async def test_a_replayed_provider_code_is_refused(client: httpx.AsyncClient, provider: Provider) -> None:
    provider.set_user("replayer", email="replayer@example.com", email_verified=True)
    callback = await browser.at_provider(await browser.start(client), "replayer")
    flow_cookie = client.cookies.get("warranty_oidc")
    assert "code" in (await browser.back_at_service(client, callback)).params

    client.cookies.set("warranty_oidc", flow_cookie or "", path="/api/auth/oidc/mock/callback")
    replayed = await browser.back_at_service(client, callback)

    assert replayed.params == {"error": "invalid_code"}


async def test_an_id_token_that_does_not_verify_is_refused(
    client: httpx.AsyncClient, provider: Provider
) -> None:
    provider.tamper_id_tokens(True)

    landing = await browser.sign_in(client, "forged")

    assert landing.params == {"error": "invalid_id_token"}


async def test_an_unreachable_provider_is_a_503_with_retry_after(client: httpx.AsyncClient) -> None:
    answer = await client.get("/api/auth/oidc/down/start", params={"redirect": APP_REDIRECT})

    assert_error(answer, 503, "SERVICE_UNAVAILABLE")
    assert int(answer.headers["retry-after"]) > 0
    ready = await client.get("/health/ready")
    assert ready.status_code == 200 and set(ready.json()["oidc"]) == {"down"}


@pytest.mark.parametrize(
    "redirect",
    [
        "https://app.example.com.evil.test/",
        "https://app.example.com@evil.test/",
        "http://localhost:3000/signed-in-elsewhere",
        "https://evil.test/?next=https://app.example.com/",
        "javascript:alert(1)",
    ],
)
async def test_a_redirect_outside_the_allow_list_is_a_400(client: httpx.AsyncClient, redirect: str) -> None:
    answer = await client.get("/api/auth/oidc/mock/start", params={"redirect": redirect})

    assert "redirect" in assert_error(answer, 400, "VALIDATION_FAILED")["details"]["fields"]


async def test_an_unknown_provider_is_a_404(client: httpx.AsyncClient) -> None:
    assert_error(
        await client.get("/api/auth/oidc/nope/start", params={"redirect": APP_REDIRECT}), 404, "NOT_FOUND"
    )


async def test_no_secret_reaches_the_log(
    client: httpx.AsyncClient, provider: Provider, caplog: pytest.LogCaptureFixture
) -> None:
    provider.set_user("quiet", email="quiet@example.com", email_verified=True)
    callback = await browser.at_provider(await browser.start(client), "quiet")
    landing = await browser.back_at_service(client, callback)
    tokens = (await _exchange(client, landing.code)).json()

    secrets = [browser.query_of(callback)["code"], browser.query_of(callback)["state"], landing.code]
    secrets += [tokens["token"], tokens["refreshToken"], "s3cret-of-the-client"]
    logged = caplog.text
    assert not [secret for secret in secrets if secret in logged]


async def test_two_first_sign_ins_of_one_user_at_once_make_one_account(
    app: FastAPI, client: httpx.AsyncClient, provider: Provider
) -> None:
    provider.set_user("twice", email="twice@example.com", email_verified=True)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        callbacks = [
            await browser.at_provider(await browser.start(each), "twice") for each in (client, other)
        ]

        landings = await asyncio.gather(
            browser.back_at_service(client, callbacks[0]), browser.back_at_service(other, callbacks[1])
        )

    users = [(await _exchange(client, landing.code)).json()["user"]["id"] for landing in landings]
    assert users[0] == users[1]
