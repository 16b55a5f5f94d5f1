"""Message reads (app/messages/repository.py): a claim's messages with the caller's read state (their own read
of what they received, the other participant's receipt of what they sent), paged or after a cursor's key,
one message, an attachment's message, and the admin's list of every message with its filters."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from app.messages.repository import MessageRepository
from tests.factories.claims import claim_cast, create_message, mark_read_by
from tests.factories.users import auth_headers
from tests.messages.support import READ_AT, mark_read_as, read_state_seen_by


async def test_admin_list_filters(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    other = await claim_cast(app)
    question = await create_message(app, cast.claim, cast.customer, "question")
    answer = await create_message(app, cast.claim, cast.supplier, "answer")
    elsewhere = await create_message(app, other.claim, other.customer, "elsewhere")
    await mark_read_by(app, question, cast.supplier)  # read by its recipient
    await mark_read_by(app, answer, cast.admin)  # an admin looking on is not a recipient
    headers = auth_headers(app, cast.admin)

    async def ids(query: str = "") -> list[str]:
        response = await client.get(f"/api/messages{query}", headers=headers)
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["data"]]

    assert await ids() == [str(elsewhere.id), str(answer.id), str(question.id)]
    assert await ids(f"?claimId={cast.claim.id}") == [str(answer.id), str(question.id)]
    assert await ids(f"?senderId={cast.supplier.id}") == [str(answer.id)]
    assert await ids("?unread=true") == [str(elsewhere.id), str(answer.id)]
    assert await ids(f"?unread=false&claimId={cast.claim.id}") == [str(question.id)]
    page = (await client.get("/api/messages?limit=2&page=2", headers=headers)).json()
    assert [item["id"] for item in page["data"]] == [str(question.id)]
    assert page["meta"]["total"] == 3
    first = (await client.get(f"/api/messages?senderId={cast.customer.id}", headers=headers)).json()
    [item] = first["data"]
    assert item["claimId"] == cast.claim.id and item["isRead"] is True and item["readAt"].endswith("+00:00")
    assert first["links"]["first"] == f"/api/messages?senderId={cast.customer.id}&page=1&limit=20"


async def test_the_reader_sees_read_and_the_sender_sees_the_receipt(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    await create_message(app, cast.claim, cast.customer, "question")
    await create_message(app, cast.claim, cast.supplier, "answer")
    read_at = READ_AT.isoformat()
    # Before anyone reads: nothing is read, from either side.
    assert await read_state_seen_by(app, client, cast, "customer") == {
        "question": (False, None),
        "answer": (False, None),
    }
    assert await read_state_seen_by(app, client, cast, "supplier") == {
        "question": (False, None),
        "answer": (False, None),
    }

    await mark_read_as(app, client, cast, "supplier")

    # The supplier read the question; the customer's receipt says so; the answer is still unread.
    assert await read_state_seen_by(app, client, cast, "supplier") == {
        "question": (True, read_at),
        "answer": (False, None),
    }
    assert await read_state_seen_by(app, client, cast, "customer") == {
        "question": (True, read_at),
        "answer": (False, None),
    }


async def test_an_admins_own_message_gets_a_receipt_from_a_participant(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    await create_message(app, cast.claim, cast.admin, "from support")
    await mark_read_by(app, (await create_message(app, cast.claim, cast.admin, "second")), cast.admin)
    await mark_read_as(app, client, cast, "customer")
    assert await read_state_seen_by(app, client, cast, "admin") == {
        "from support": (True, READ_AT.isoformat()),
        "second": (True, READ_AT.isoformat()),
    }


async def test_a_claims_messages_all_paged_after_a_key_and_one_by_one(app: FastAPI) -> None:
    cast, other = await claim_cast(app), await claim_cast(app)
    made = [await create_message(app, cast.claim, cast.customer, f"m{n}") for n in range(4)]
    attached = await create_message(
        app, cast.claim, cast.supplier, "file", attachment_key="attachments/a.pdf",
        attachment_name="a.pdf", attachment_mime="application/pdf", attachment_size=3,
    )  # fmt: skip
    elsewhere = await create_message(app, other.claim, other.customer, "elsewhere")
    ids = [message.id for message in made] + [attached.id]

    async with app.state.sessionmaker() as session:
        messages = MessageRepository(session)
        everything, total = await messages.list_for_claim(cast.claim, cast.supplier.id)
        page, page_total = await messages.list_for_claim(cast.claim, cast.supplier.id, offset=1, limit=2)
        key = (made[1].created_at, made[1].id)
        after, _ = await messages.list_for_claim(cast.claim, cast.supplier.id, limit=10, after=key)
        one = await messages.one_for_claim(cast.claim, cast.customer.id, made[2].id)
        foreign = await messages.one_for_claim(cast.claim, cast.customer.id, elsewhere.id)
        with_file = await messages.attachment_of(cast.claim.id, attached.id)
        without = await messages.attachment_of(cast.claim.id, made[0].id)
        in_another_claim = await messages.attachment_of(other.claim.id, attached.id)

    assert ([row.id for row in everything], total) == (ids, 5)
    assert ([row.id for row in page], page_total) == (ids[1:3], 5)
    assert [row.id for row in after] == ids[2:]
    assert (one.id, one.body, one.sender_name, one.read_at) == (made[2].id, "m2", cast.customer.name, None)
    assert foreign is None
    assert with_file is not None and with_file.id == attached.id
    assert without is None and in_another_claim is None
