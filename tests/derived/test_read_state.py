"""A message's first read by a recipient (app.derived.read_state): the first such read sticks, and the column
is computed again from the read rows when a claim's participants change (a reader who is no recipient any
more stops counting, the sender never does); through the admin message list too."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from app.core.clock import utc_now
from app.derived.read_state import recipient_read, recompute
from app.models import Claim, Message, MessageRead, User
from tests.factories.claims import claim_cast, create_message
from tests.factories.users import auth_headers
from tests.helpers import count_queries


async def _read_at(app: FastAPI, *messages: Message) -> list[object]:
    async with app.state.sessionmaker() as session:
        rows = await session.execute(select(Message.id, Message.recipient_read_at))
        found = {message_id: read_at for message_id, read_at in rows}
    return [found[message.id] for message in messages]


async def _reads(app: FastAPI, message: Message, *readers: tuple[User, object]) -> None:
    """Read rows only, as the service writes them before it recomputes."""
    async with app.state.sessionmaker() as session, session.begin():
        session.add_all(
            MessageRead(message_id=message.id, user_id=user.id, read_at=at) for user, at in readers
        )


async def test_the_first_read_by_a_recipient_sticks(app: FastAPI) -> None:
    cast = await claim_cast(app)
    first, second, other = [await create_message(app, cast.claim, cast.customer, f"m{n}") for n in range(3)]
    now = utc_now().replace(microsecond=0)

    async with app.state.sessionmaker() as session, session.begin():
        await recipient_read(session, [first.id, second.id], now)
    async with app.state.sessionmaker() as session, session.begin():
        await recipient_read(session, [first.id], now + timedelta(hours=1))  # a later read: no change

    assert await _read_at(app, first, second, other) == [now, now, None]


async def test_no_message_no_statement(app: FastAPI) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        with count_queries(app) as statements:
            await recipient_read(session, [], utc_now())
            await recompute(session, [])
    assert statements == []


async def test_recomputed_it_is_the_earliest_read_of_a_current_recipient(app: FastAPI) -> None:
    cast = await claim_cast(app)
    to_supplier = await create_message(app, cast.claim, cast.customer, "to the supplier")
    to_customer = await create_message(app, cast.claim, cast.supplier, "to the customer")
    system = await create_message(app, cast.claim, cast.customer, "from no one")
    async with app.state.sessionmaker() as session, session.begin():  # as the service posts its own
        await session.execute(update(Message).where(Message.id == system.id).values(sender_id=None))
    now = utc_now().replace(microsecond=0)
    early, late = now - timedelta(hours=2), now - timedelta(hours=1)
    await _reads(app, to_supplier, (cast.customer, early), (cast.admin, early), (cast.supplier, late))
    await _reads(app, to_customer, (cast.supplier, early), (cast.outsider, early))
    await _reads(app, system, (cast.other_supplier, early), (cast.customer, late))

    async with app.state.sessionmaker() as session, session.begin():
        await recompute(session, [cast.claim.id])
    # The sender's own read and those of people outside the claim do not count.
    assert await _read_at(app, to_supplier, to_customer, system) == [late, None, late]

    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Claim).values(supplier_id=cast.other_supplier.id))
        await recompute(session, [cast.claim.id])
    assert await _read_at(app, to_supplier, to_customer, system) == [None, None, early]


async def test_only_the_claims_named_are_computed_again(app: FastAPI) -> None:
    cast = await claim_cast(app)
    message = await create_message(app, cast.claim, cast.customer, "to the supplier")
    await _reads(app, message, (cast.supplier, utc_now()))
    async with app.state.sessionmaker() as session, session.begin():
        await recompute(session, [cast.claim.id + 1000])
    assert await _read_at(app, message) == [None]


@pytest.mark.settings(cache_ttl=0)
async def test_the_admin_read_state_follows_who_the_recipients_are(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    headers = auth_headers(app, cast.admin)
    await create_message(app, cast.claim, cast.customer, "to the supplier")
    await client.post(f"/api/claims/{cast.claim.id}/messages/read", headers=auth_headers(app, cast.supplier))

    read = (await client.get("/api/messages?unread=false", headers=headers)).json()
    assert [m["message"] for m in read["data"]] == ["to the supplier"] and read["data"][0]["isRead"]

    await client.put(
        f"/api/claims/{cast.claim.id}/supplier", json={"supplierId": cast.other_supplier.id}, headers=headers
    )
    unread = (await client.get("/api/messages?unread=true", headers=headers)).json()
    assert [m["message"] for m in unread["data"]] == ["to the supplier"]
    assert unread["data"][0]["isRead"] is False and unread["meta"]["total"] == 1

    await client.put(
        f"/api/claims/{cast.claim.id}/supplier", json={"supplierId": cast.supplier.id}, headers=headers
    )
    assert (await client.get("/api/messages?unread=true", headers=headers)).json()["meta"]["total"] == 0
