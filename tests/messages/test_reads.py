"""Read state is per user: what the reader sees of messages they received, the sender's read receipt,
marking read (exactly the newly marked ones, an event only then), and the deleted sender."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.models import Event
from tests.factories.claims import Cast, claim_cast, create_message, mark_read_by
from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error

READ_AT = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=5)


async def _events(app: FastAPI) -> list[tuple[str, dict[str, Any]]]:
    async with app.state.sessionmaker() as session:
        rows = await session.scalars(select(Event).order_by(Event.id))
        return [(row.topic, json.loads(row.payload)) for row in rows]


async def _list(app: FastAPI, client: httpx.AsyncClient, cast: Cast, who: str) -> dict[str, tuple[bool, Any]]:
    response = await client.get(
        f"/api/claims/{cast.claim.id}/messages", headers=auth_headers(app, getattr(cast, who))
    )
    assert response.status_code == 200, response.text
    return {item["message"]: (item["isRead"], item["readAt"]) for item in response.json()}


async def _mark(app: FastAPI, client: httpx.AsyncClient, cast: Cast, who: str) -> dict[str, Any]:
    headers = auth_headers(app, getattr(cast, who))
    with frozen_time(READ_AT):
        response = await client.post(f"/api/claims/{cast.claim.id}/messages/read", headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_marking_read_answers_exactly_the_newly_marked_messages(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    first = await create_message(app, cast.claim, cast.customer, "first")
    await create_message(app, cast.claim, cast.supplier, "reply")
    second = await create_message(app, cast.claim, cast.customer, "second")

    marked = await _mark(app, client, cast, "supplier")

    assert marked == {"markedAsRead": 2, "messageIds": [str(first.id), str(second.id)]}
    assert await _events(app) == [
        (
            f"claims/{cast.claim.id}/messages",
            {
                "type": "messages_read",
                "messageIds": [str(first.id), str(second.id)],
                "readAt": READ_AT.strftime("%Y-%m-%dT%H:%M:%SZ"),
            },
        )
    ]
    assert await _mark(app, client, cast, "supplier") == {"markedAsRead": 0, "messageIds": []}
    assert len(await _events(app)) == 1  # nothing marked, nothing published

    third = await create_message(app, cast.claim, cast.customer, "third")
    assert await _mark(app, client, cast, "supplier") == {"markedAsRead": 1, "messageIds": [str(third.id)]}


async def test_the_reader_sees_read_and_the_sender_sees_the_receipt(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    await create_message(app, cast.claim, cast.customer, "question")
    await create_message(app, cast.claim, cast.supplier, "answer")
    read_at = READ_AT.isoformat()
    # Before anyone reads: nothing is read, from either side.
    assert await _list(app, client, cast, "customer") == {"question": (False, None), "answer": (False, None)}
    assert await _list(app, client, cast, "supplier") == {"question": (False, None), "answer": (False, None)}

    await _mark(app, client, cast, "supplier")

    # The supplier read the question; the customer's receipt says so; the answer is still unread.
    assert await _list(app, client, cast, "supplier") == {
        "question": (True, read_at),
        "answer": (False, None),
    }
    assert await _list(app, client, cast, "customer") == {
        "question": (True, read_at),
        "answer": (False, None),
    }


async def test_an_admin_reading_is_no_receipt_and_publishes_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    message = await create_message(app, cast.claim, cast.customer, "question")

    marked = await _mark(app, client, cast, "admin")

    assert marked == {"markedAsRead": 1, "messageIds": [str(message.id)]}
    assert await _list(app, client, cast, "admin") == {"question": (True, READ_AT.isoformat())}
    assert await _list(app, client, cast, "customer") == {"question": (False, None)}
    assert await _events(app) == []


async def test_an_admins_own_message_gets_a_receipt_from_a_participant(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    await create_message(app, cast.claim, cast.admin, "from support")
    await mark_read_by(app, (await create_message(app, cast.claim, cast.admin, "second")), cast.admin)
    await _mark(app, client, cast, "customer")
    assert await _list(app, client, cast, "admin") == {
        "from support": (True, READ_AT.isoformat()),
        "second": (True, READ_AT.isoformat()),
    }


async def test_deleted_sender(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    await create_message(app, cast.claim, cast.supplier, "the part is on its way")
    admin_headers = auth_headers(app, cast.admin)
    assert (await client.delete(f"/api/users/{cast.supplier.id}", headers=admin_headers)).status_code == 204

    [item] = (
        await client.get(f"/api/claims/{cast.claim.id}/messages", headers=auth_headers(app, cast.customer))
    ).json()

    assert item["senderId"] is None and item["senderEmail"] is None
    assert item["senderName"] == "Deleted user" and item["senderProfilePicture"] is None
    assert item["message"] == "the part is on its way"
    detail = (
        await client.get(f"/api/claims/{cast.claim.id}", headers=auth_headers(app, cast.customer))
    ).json()
    assert detail["supplierId"] is None and detail["messages"][0]["senderId"] is None
    # A message of a deleted sender was received by everyone still there.
    assert (await _mark(app, client, cast, "customer"))["markedAsRead"] == 1


async def test_sender_fields_and_profile_picture(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    pictured = await create_user(app, name="Pia", profile_picture="0123456789abcdef0123456789abcdef.png")
    await create_message(app, cast.claim, cast.customer, "one")
    async with app.state.sessionmaker() as session, session.begin():
        claim = await session.merge(cast.claim)
        claim.supplier_id = pictured.id
    await create_message(app, cast.claim, pictured, "two")

    items = (
        await client.get(f"/api/claims/{cast.claim.id}/messages", headers=auth_headers(app, cast.admin))
    ).json()

    assert [(i["senderId"], i["senderName"], i["senderEmail"], i["senderProfilePicture"]) for i in items] == [
        (str(cast.customer.id), "Ann Customer", cast.customer.email, None),
        (
            str(pictured.id),
            "Pia",
            pictured.email,
            "/api/user/profile-picture/0123456789abcdef0123456789abcdef.png",
        ),
    ]
    assert all(isinstance(i["id"], str) and i["attachment"] is None for i in items)


async def test_the_list_is_oldest_first_with_pages_on_both_paths(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    ids = [(await create_message(app, cast.claim, cast.customer, f"m{n}")).id for n in range(5)]
    headers = auth_headers(app, cast.supplier)
    for path in (f"/api/claims/{cast.claim.id}/messages", f"/api/claims/messages/{cast.claim.id}"):
        everything = (await client.get(path, headers=headers)).json()
        assert [item["id"] for item in everything] == [str(i) for i in ids]
        page = (await client.get(f"{path}?page=2&limit=2", headers=headers)).json()
        assert [item["id"] for item in page["data"]] == [str(ids[2]), str(ids[3])]
        assert page["meta"]["total"] == 5 and page["meta"]["last_page"] == 3
        assert page["links"]["next"] == f"{path}?page=3&limit=2"
        assert_error(await client.get(f"{path}?limit=0", headers=headers), 400, "VALIDATION_INVALID_LIMIT")


async def test_two_simultaneous_marks_split_the_messages(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    ids = [str((await create_message(app, cast.claim, cast.customer, f"m{n}")).id) for n in range(3)]
    headers = auth_headers(app, cast.supplier)
    url = f"/api/claims/{cast.claim.id}/messages/read"

    first, second = await asyncio.gather(client.post(url, headers=headers), client.post(url, headers=headers))

    answers = [first.json(), second.json()]
    assert sorted(id_ for answer in answers for id_ in answer["messageIds"]) == sorted(ids)
    assert sum(answer["markedAsRead"] for answer in answers) == 3
    published = [payload for _, payload in await _events(app)]
    assert sorted(id_ for payload in published for id_ in payload["messageIds"]) == sorted(ids)
    assert len(published) == sum(1 for answer in answers if answer["markedAsRead"])
