"""Who may see a claim (app.access.claims): its customer, its assigned supplier and admins. Anyone else gets
the same 404 on every endpoint of the claim as for a claim that does not exist; the statements, the rule
for loaded parties and a user's roles in a claim agree with each other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.access.claims import (
    ADMIN,
    CUSTOMER,
    SUPPLIER,
    Parties,
    claim_roles,
    is_participant,
    may_see,
    participating_claims,
    visible_claims,
)
from app.models import Claim, User
from tests.factories.claims import Cast, claim_cast, create_claim, create_message
from tests.factories.products import create_product
from tests.factories.users import auth_headers
from tests.helpers import assert_error
from tests.support.pdf import PDF_BYTES

Request = Callable[[int, int], tuple[str, str, dict[str, Any] | None]]

ENDPOINTS: dict[str, Request] = {
    "detail": lambda c, m: ("GET", f"/api/claims/{c}", None),
    "status": lambda c, m: ("POST", f"/api/claims/{c}/status", {"status": "in_progress"}),
    "close": lambda c, m: ("POST", f"/api/claims/{c}/close", None),
    "supplier": lambda c, m: ("PUT", f"/api/claims/{c}/supplier", {"supplierId": None}),
    "organization": lambda c, m: ("PUT", f"/api/claims/{c}/organization", {"organizationId": None}),
    "messages": lambda c, m: ("GET", f"/api/claims/{c}/messages", None),
    "messages, paged": lambda c, m: ("GET", f"/api/claims/{c}/messages?page=1", None),
    "messages, other path": lambda c, m: ("GET", f"/api/claims/messages/{c}", None),
    "one message": lambda c, m: ("GET", f"/api/claims/{c}/messages/{m}", None),
    "send": lambda c, m: ("POST", f"/api/claims/{c}/messages", {"message": "hello"}),
    "read": lambda c, m: ("POST", f"/api/claims/{c}/messages/read", None),
    "attachment": lambda c, m: ("GET", f"/api/claims/{c}/messages/{m}/attachment", None),
}


async def _setup(app: FastAPI) -> tuple[Cast, int]:
    cast = await claim_cast(app)
    message = await create_message(
        app,
        cast.claim,
        cast.customer,
        attachment_name="bill.pdf",
        attachment_mime="application/pdf",
        attachment_size=len(PDF_BYTES),
        attachment_key=await app.state.storage.save("attachments", PDF_BYTES, "pdf"),
    )
    return cast, message.id


async def _call(
    client: httpx.AsyncClient, request: tuple[str, str, dict[str, Any] | None], headers: dict[str, str]
) -> httpx.Response:
    method, path, body = request
    return await client.request(method, path, json=body, headers=headers)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("who", ["outsider", "other_supplier"])
async def test_non_participants_get_404_everywhere(
    app: FastAPI, client: httpx.AsyncClient, endpoint: str, who: str
) -> None:
    cast, message_id = await _setup(app)
    headers = auth_headers(app, getattr(cast, who))

    hidden = await _call(client, ENDPOINTS[endpoint](cast.claim.id, message_id), headers)
    missing = await _call(client, ENDPOINTS[endpoint](999_999, message_id), headers)

    assert hidden.status_code == 404, hidden.text
    assert (
        hidden.json()
        == missing.json()
        == {"error": "NotFound", "message": "No such claim.", "code": "NOT_FOUND"}
    )


@pytest.mark.parametrize("who", ["customer", "supplier", "admin"])
async def test_participants_and_admins_see_everything(
    app: FastAPI, client: httpx.AsyncClient, who: str
) -> None:
    cast, message_id = await _setup(app)
    headers = auth_headers(app, getattr(cast, who))
    for endpoint in (
        "detail",
        "messages",
        "messages, paged",
        "messages, other path",
        "one message",
        "attachment",
    ):
        response = await _call(client, ENDPOINTS[endpoint](cast.claim.id, message_id), headers)
        assert response.status_code == 200, (endpoint, response.text)


async def test_a_message_of_another_claim_is_not_found_through_this_one(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    _, message_id = await _setup(app)
    mine = await claim_cast(app)
    headers = auth_headers(app, mine.customer)
    for endpoint in ("one message", "attachment"):
        response = await _call(client, ENDPOINTS[endpoint](mine.claim.id, message_id), headers)
        assert response.status_code == 404


async def test_a_missing_token_is_401(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast, message_id = await _setup(app)
    for endpoint in ENDPOINTS.values():
        response = await _call(client, endpoint(cast.claim.id, message_id), {})
        assert response.status_code == 401


@pytest.mark.parametrize("bad_id", ["0", "-1", str(2**31), str(2**63)])
async def test_ids_out_of_range_are_not_found(app: FastAPI, client: httpx.AsyncClient, bad_id: str) -> None:
    cast, message_id = await _setup(app)
    headers = auth_headers(app, cast.admin)
    for endpoint in ENDPOINTS.values():
        response = await _call(client, endpoint(int(bad_id), message_id), headers)
        assert response.status_code == 404, response.text
    for endpoint in ("one message", "attachment"):
        response = await _call(client, ENDPOINTS[endpoint](cast.claim.id, int(bad_id)), headers)
        assert response.status_code == 404, response.text


async def test_missing_claims_are_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    headers = auth_headers(app, cast.admin)
    for claim_id in (999_999, 2**40):
        assert_error(
            await client.post(f"/api/claims/{claim_id}/status", json={"status": "closed"}, headers=headers),
            404,
            "NOT_FOUND",
        )
        assert_error(await client.post(f"/api/claims/{claim_id}/close", headers=headers), 404, "NOT_FOUND")


PEOPLE = ("customer", "supplier", "admin", "outsider", "other_supplier")


async def _ids(session: AsyncSession, statement: Select[Claim]) -> set[int]:
    return set(await session.scalars(statement.with_only_columns(Claim.id)))


async def test_the_statements_and_the_loaded_rule_agree(
    app: FastAPI, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """`visible_claims` selects what `may_see` allows, for every kind of user; `participating_claims` only
    what the user takes part in, an admin's own claims included and no one else's."""
    cast = await claim_cast(app)
    unassigned = await create_claim(app, await create_product(app, cast.outsider))
    admins_own = await create_claim(app, await create_product(app, cast.admin), supplier=cast.other_supplier)
    claims = (cast.claim, unassigned, admins_own)
    everyone = {claim.id for claim in claims}

    async with sessionmaker() as session:
        visible = {who: await _ids(session, visible_claims(getattr(cast, who))) for who in PEOPLE}
        taking_part = {who: await _ids(session, participating_claims(getattr(cast, who))) for who in PEOPLE}

    assert visible == {
        "customer": {cast.claim.id},
        "supplier": {cast.claim.id},
        "admin": everyone,
        "outsider": {unassigned.id},
        "other_supplier": {admins_own.id},
    }
    assert taking_part == visible | {"admin": {admins_own.id}}
    async with sessionmaker() as session:
        for who, seen in visible.items():
            user = getattr(cast, who)
            for claim in claims:
                parties = Parties(claim.customer_id, claim.supplier_id, None, None)
                assert may_see(user, parties, set(), None) is (claim.id in seen), (who, claim.id)
                participant = await is_participant(session, user, claim)
                assert participant is (claim.id in taking_part[who]), (who, claim.id)


async def test_a_user_may_be_several_things_to_one_claim(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    claim = Claim(id=1, product_id=1, customer_id=10, supplier_id=20, status="open", description="x")

    def user(user_id: int, *roles: str) -> User:
        return User(id=user_id, email=f"u{user_id}@example.com", name="U", password_hash="x", roles=[*roles])

    async with sessionmaker() as session:  # nobody here is in a household or an organisation
        assert await claim_roles(session, user(10, "ROLE_USER"), claim) == {CUSTOMER}
        assert await claim_roles(session, user(20, "ROLE_SUPPLIER"), claim) == {SUPPLIER}
        assert await claim_roles(session, user(10, "ROLE_ADMIN"), claim) == {CUSTOMER, ADMIN}
        assert await claim_roles(session, user(30, "ROLE_ADMIN"), claim) == {ADMIN}
        assert await claim_roles(session, user(30, "ROLE_SUPPLIER"), claim) == set()
