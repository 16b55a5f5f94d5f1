"""Outbox rows to deliver, what arrived, and a stand-in for the worker's wake-up: shared by the outbox's
tests."""

from __future__ import annotations

from collections import Counter

from fastapi import FastAPI

from tests.factories.claims import create_claim, create_message
from tests.factories.notifications import notify_message
from tests.factories.products import create_product
from tests.factories.users import create_supplier, create_user
from tests.support.smtp import Inbox


async def messages_for(app: FastAPI, count: int) -> list[int]:
    """`count` messages from a supplier, each notifying the customer (email and push)."""
    customer = await create_user(app, email="ann@example.com")
    supplier = await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    ids = []
    for number in range(count):
        message = await create_message(app, claim, supplier, body=f"message {number}")
        await notify_message(app, message, [customer])
        ids.append(message.id)
    return ids


def bodies(inbox: Inbox) -> Counter[str]:
    """How often each `message N` line arrived in the inbox's plain-text bodies."""
    found: Counter[str] = Counter()
    for email in inbox.messages:
        text = email.get_body(preferencelist=("plain",))
        assert text is not None
        found.update(line for line in text.get_content().splitlines() if line.startswith("message "))
    return found


class Wakes:
    """Stands in for the worker's wake-up: counts how often a commit woke it."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1
