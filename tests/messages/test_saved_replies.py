"""Sending a saved reply in a claim (`POST /api/claims/{id}/messages` {replyId}): the claim's supplier side
and admins send a reply of the claim's organisation, rendered as plain text for the claim, with `message`
appended; anything else is refused and nothing is posted."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from app.models import Product, User
from tests.claims.routed import Routed, routed_claim
from tests.factories.users import auth_headers
from tests.helpers import assert_error
from tests.replies.support import save_reply

EVERY = (
    "Hi {{customer.name}}: {{product.brand}} {{product.name}} [{{product.serialNumber}}], claim {{claim.id}},"
    " return {{ claim.rma }}. {{agent.name}}"
)


async def _send(
    app: FastAPI, client: httpx.AsyncClient, cast: Routed, user: User, **body: Any
) -> httpx.Response:
    return await client.post(f"{cast.path}/messages", json=body, headers=auth_headers(app, user))


async def _messages(app: FastAPI, client: httpx.AsyncClient, cast: Routed) -> list[str]:
    listed = await client.get(f"{cast.path}/messages", headers=auth_headers(app, cast.customer))
    return [item["message"] for item in listed.json()]


async def test_an_agent_sends_a_reply_rendered_for_the_claim(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    reply = await save_reply(app, client, cast.manager, cast.organization, EVERY)

    sent = await _send(app, client, cast, cast.agent, replyId=reply["id"], message="  We ship it tomorrow.  ")

    assert sent.status_code == 201, sent.text
    expected = (
        f"Hi Ann Customer: Acme Washer [], claim {cast.claim_id}, return . Acme Service agent 1\n\n"
        "We ship it tomorrow."
    )
    assert sent.json()["message"] == expected
    assert await _messages(app, client, cast) == [expected]
    detail = await client.get(cast.path, headers=auth_headers(app, cast.customer))
    assert detail.json()["supplierId"] == cast.agent.id  # answering first took the claim, as a message does


async def test_values_are_inserted_as_text(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(
            update(Product)
            .where(Product.id == cast.product.id)
            .values(name="{{claim.id}} <b>Washer</b>", serial_number="{{agent.name}}")
        )
    reply = await save_reply(
        app, client, cast.manager, cast.organization, "{{product.name}} / {{product.serialNumber}}"
    )

    sent = await _send(app, client, cast, cast.manager, replyId=reply["id"])

    assert sent.status_code == 201, sent.text
    assert sent.json()["message"] == "{{claim.id}} <b>Washer</b> / {{agent.name}}"


async def test_the_rma_number_fills_in_once_issued(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    agent = auth_headers(app, cast.agent)
    assert (
        await client.post(f"{cast.path}/status", json={"status": "in_progress"}, headers=agent)
    ).status_code == 200
    issued = await client.post(f"{cast.path}/rma", json={}, headers=agent)
    assert issued.status_code == 201, issued.text
    reply = await save_reply(app, client, cast.manager, cast.organization, "Return number: {{claim.rma}}")

    sent = await _send(app, client, cast, cast.agent, replyId=reply["id"])

    assert sent.json()["message"] == f"Return number: {issued.json()['number']}"


async def test_an_admin_may_send_one(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    reply = await save_reply(app, client, cast.manager, cast.organization, "From {{agent.name}}")

    sent = await _send(app, client, cast, cast.admin, replyId=reply["id"])

    assert sent.status_code == 201 and sent.json()["message"] == "From Ada Admin"


async def test_another_organizations_reply_or_an_unknown_one_is_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    rival = await save_reply(app, client, cast.rival_manager, cast.rival, "Rival text {{claim.id}}")

    for reply_id in (rival["id"], rival["id"] + 1000):
        refused = assert_error(
            await _send(app, client, cast, cast.agent, replyId=reply_id), 400, "VALIDATION_FAILED"
        )
        assert "replyId" in refused["details"]["fields"]
    assert_error(await _send(app, client, cast, cast.agent, replyId=0), 400, "VALIDATION_FAILED")
    assert await _messages(app, client, cast) == []


async def test_the_customer_side_may_not_send_one(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    reply = await save_reply(app, client, cast.manager, cast.organization, "Internal wording")

    assert_error(await _send(app, client, cast, cast.customer, replyId=reply["id"]), 403, "FORBIDDEN")
    assert_error(await _send(app, client, cast, cast.outsider, replyId=reply["id"]), 404, "NOT_FOUND")
    assert await _messages(app, client, cast) == []


async def test_the_rendered_text_keeps_the_message_limit(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await routed_claim(app, client)
    reply = await save_reply(app, client, cast.manager, cast.organization, "{{customer.name}}" + "x" * 9_980)

    refused = assert_error(
        await _send(app, client, cast, cast.agent, replyId=reply["id"], message="y" * 100),
        400,
        "VALIDATION_FAILED",
    )

    assert "message" in refused["details"]["fields"]
    assert await _messages(app, client, cast) == []
