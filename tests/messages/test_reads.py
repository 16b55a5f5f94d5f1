"""Marking messages read (app/messages/reads.py): per user, only the messages the reader received, each at
most once (exactly the newly marked ones are answered, an event only then, none for an admin looking on),
and two marks at once splitting the messages between them."""

from __future__ import annotations

import asyncio

import httpx
from fastapi import FastAPI

from tests.factories.claims import claim_cast, create_message
from tests.factories.users import auth_headers
from tests.messages.support import READ_AT, events, mark_read_as, read_state_seen_by


async def test_marking_read_answers_exactly_the_newly_marked_messages(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    first = await create_message(app, cast.claim, cast.customer, "first")
    await create_message(app, cast.claim, cast.supplier, "reply")
    second = await create_message(app, cast.claim, cast.customer, "second")

    marked = await mark_read_as(app, client, cast, "supplier")

    assert marked == {"markedAsRead": 2, "messageIds": [str(first.id), str(second.id)]}
    assert await events(app) == [
        (
            f"claims/{cast.claim.id}/messages",
            {
                "type": "messages_read",
                "messageIds": [str(first.id), str(second.id)],
                "readAt": READ_AT.strftime("%Y-%m-%dT%H:%M:%SZ"),
            },
        )
    ]
    assert await mark_read_as(app, client, cast, "supplier") == {"markedAsRead": 0, "messageIds": []}
    assert len(await events(app)) == 1  # nothing marked, nothing published

    third = await create_message(app, cast.claim, cast.customer, "third")
    assert await mark_read_as(app, client, cast, "supplier") == {
        "markedAsRead": 1,
        "messageIds": [str(third.id)],
    }


async def test_an_admin_reading_is_no_receipt_and_publishes_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    message = await create_message(app, cast.claim, cast.customer, "question")

    marked = await mark_read_as(app, client, cast, "admin")

    assert marked == {"markedAsRead": 1, "messageIds": [str(message.id)]}
    assert await read_state_seen_by(app, client, cast, "admin") == {"question": (True, READ_AT.isoformat())}
    assert await read_state_seen_by(app, client, cast, "customer") == {"question": (False, None)}
    assert await events(app) == []


async def test_two_simultaneous_marks_split_the_messages(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    ids = [str((await create_message(app, cast.claim, cast.customer, f"m{n}")).id) for n in range(3)]
    headers = auth_headers(app, cast.supplier)
    url = f"/api/claims/{cast.claim.id}/messages/read"

    first, second = await asyncio.gather(client.post(url, headers=headers), client.post(url, headers=headers))

    answers = [first.json(), second.json()]
    assert sorted(id_ for answer in answers for id_ in answer["messageIds"]) == sorted(ids)
    assert sum(answer["markedAsRead"] for answer in answers) == 3
    published = [payload for _, payload in await events(app)]
    assert sorted(id_ for payload in published for id_ in payload["messageIds"]) == sorted(ids)
    assert len(published) == sum(1 for answer in answers if answer["markedAsRead"])
