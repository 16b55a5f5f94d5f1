"""What the steps of a change carry (app/changes/build.py): timeline entries (none where a step has
nothing to say), the participants to notify (never the one who acted), a resolution's outcome where it is
told (read once per change), expiry notices as each owner's settings say, and the page-cache scopes a
change makes stale."""

from __future__ import annotations

from datetime import UTC, date, datetime
from types import SimpleNamespace
from typing import Any

from fastapi import FastAPI

from app.changes import build
from app.changes.consequences import Entry, Notice, Recording
from app.changes.events import (
    ClaimOpened,
    ClaimStatusChanged,
    InboundAccepted,
    InboundIgnored,
    MessagePosted,
    MessagesRead,
    ProductsChanged,
    SupplierAssigned,
    WarrantiesExpiring,
    WarrantyAlert,
)
from app.models import Claim, Message, User, WarrantyExtension
from app.models.enums import ClaimStatus
from app.products import extensions
from tests.factories.claims import Cast, claim_cast, create_message
from tests.helpers import count_queries

AT = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)


def _user(user_id: int, *roles: str) -> User:
    return User(
        id=user_id, email=f"u{user_id}@example.com", name=f"U{user_id}", password_hash="x", roles=[*roles]
    )


def _claim(supplier_id: int | None = 3) -> Claim:
    return Claim(
        id=10, product_id=1, customer_id=2, supplier_id=supplier_id, status="open", description="x",
        created_at=AT, updated_at=AT,
    )  # fmt: skip


def _recording(change: Any) -> Recording[Any]:
    """For the steps that read nothing: no session."""
    return Recording(None, change)  # type: ignore[arg-type]


async def _resolve(app: FastAPI, cast: Cast, outcome: str | None, *, extended: bool) -> Claim:
    async with app.state.sessionmaker() as session, session.begin():
        claim = await session.get_one(Claim, cast.claim.id)
        claim.status, claim.outcome = ClaimStatus.RESOLVED, outcome
        claim.outcome_note = "New pump." if outcome else None
        if extended:
            session.add(
                WarrantyExtension(
                    product_id=claim.product_id, claim_id=claim.id, months=12,
                    starts_on=date(2026, 5, 1), ends_on=date(2027, 5, 1),
                )
            )  # fmt: skip
    return claim


async def test_a_resolution_tells_its_outcome_without_a_read(app: FastAPI) -> None:
    cast = await claim_cast(app, status="in_progress")
    claim = await _resolve(app, cast, "repaired", extended=True)
    async with app.state.sessionmaker() as session:
        extension = await extensions.of_claim(session, claim.id)  # the service reads it with the change
    change = ClaimStatusChanged(claim, ClaimStatus.IN_PROGRESS, cast.supplier, extension)
    resolution = {
        "outcome": "repaired",
        "outcomeNote": "New pump.",
        "warrantyExtension": {"months": 12, "startsOn": "2026-05-01", "endsOn": "2027-05-01"},
    }

    async with app.state.sessionmaker() as session:
        recording = Recording(session, change)
        with count_queries(app) as read:
            entry = await build.status_moved(recording)
            news = await build.status_news(recording)
            data = await build.status_changed_data(recording)

    assert read == []  # the change carries its extension
    assert entry == Entry(claim, cast.supplier, {"from": "in_progress", "to": "resolved", **resolution})
    assert news == {"claimId": claim.id, "status": "resolved", **resolution}
    assert data["claim"].items() >= resolution.items()
    assert (data["claim"]["id"], data["previousStatus"], data["actorId"]) == (
        claim.id,
        "in_progress",
        cast.supplier.id,
    )


async def test_other_moves_tell_no_outcome_to_people_and_an_empty_one_to_webhooks(app: FastAPI) -> None:
    cast = await claim_cast(app, status="in_progress")
    no_outcome = await _resolve(app, cast, None, extended=False)
    reopened = ClaimStatusChanged(
        _claim(), ClaimStatus.RESOLVED, cast.customer, None
    )  # open again: nothing to tell

    async with app.state.sessionmaker() as session:
        for change in (ClaimStatusChanged(no_outcome, ClaimStatus.IN_PROGRESS, cast.admin, None), reopened):
            recording = Recording(session, change)
            entry = await build.status_moved(recording)
            news = await build.status_news(recording)
            data = await build.status_changed_data(recording)

            assert entry is not None and set(entry.data) == {"from", "to"}
            assert news == {"claimId": change.claim.id, "status": change.claim.status}
            assert (data["claim"]["outcome"], data["claim"]["warrantyExtension"]) == (None, None)


async def test_the_one_who_acted_is_not_notified(app: FastAPI) -> None:
    cast = await claim_cast(app)
    message = await create_message(app, cast.claim, cast.customer)

    async def told(change: ClaimStatusChanged | MessagePosted) -> set[int]:
        async with app.state.sessionmaker() as session:
            recording: Recording[Any] = Recording(session, change)
            return {user.id for user in await build.other_participants(recording)}

    assert await told(ClaimStatusChanged(cast.claim, ClaimStatus.OPEN, cast.supplier, None)) == {
        cast.customer.id
    }
    assert await told(ClaimStatusChanged(cast.claim, ClaimStatus.OPEN, cast.admin, None)) == {
        cast.customer.id,
        cast.supplier.id,
    }
    assert await told(MessagePosted(message, cast.claim, cast.customer)) == {cast.supplier.id}
    assert await build.message_news(_recording(MessagePosted(message, cast.claim, cast.customer))) == {
        "messageId": message.id,
        "claimId": cast.claim.id,
    }


async def test_a_supplier_change_is_an_assignment_or_an_unassignment() -> None:
    admin = _user(1, "ROLE_ADMIN")
    assigned = _recording(SupplierAssigned(_claim(supplier_id=3), None, admin))
    replaced = _recording(SupplierAssigned(_claim(supplier_id=3), 4, admin))
    removed = _recording(SupplierAssigned(_claim(supplier_id=None), 3, admin))

    assert await build.supplier_assigned(assigned) == Entry(
        assigned.change.claim, admin, {"supplierId": 3, "previousSupplierId": None}
    )
    replacing = await build.supplier_assigned(replaced)
    assert replacing is not None and replacing.data == {"supplierId": 3, "previousSupplierId": 4}
    assert await build.supplier_unassigned(assigned) is None
    assert await build.supplier_assigned(removed) is None
    assert await build.supplier_unassigned(removed) == Entry(removed.change.claim, admin, {"supplierId": 3})
    data = await build.supplier_data(replaced)
    assert (data["claim"]["supplierId"], data["previousSupplierId"], data["actorId"]) == (3, 4, 1)


async def test_entries_of_messages_and_of_mail() -> None:
    customer, claim = _user(2), _claim()
    message = Message(id=5, claim_id=claim.id, sender_id=2, body="Hi", created_at=AT)

    opened = await build.claim_created(_recording(ClaimOpened(claim, customer)))
    posted = await build.message_posted(_recording(MessagePosted(message, claim, customer)))
    accepted = await build.inbound_accepted(_recording(InboundAccepted(claim, customer, message)))
    ignored = await build.inbound_ignored(
        _recording(InboundIgnored(10, None, "not_a_participant", "x@y.example"))
    )

    assert (opened.actor, opened.data) == (customer, {"status": "open"})
    assert posted.data == {"messageId": 5, "senderId": 2}
    assert accepted.data == {"messageId": 5, "sender": "u2@example.com"}
    assert ignored == Entry(10, None, {"reason": "not_a_participant", "sender": "x@y.example"})


def test_hub_payloads_of_changes() -> None:
    claim, reader = _claim(), _user(2)
    read = MessagesRead(claim, reader, (4, 5), AT, receipt=False)

    assert (
        build.status_update(ClaimStatusChanged(claim, ClaimStatus.OPEN, reader, None))["claimId"] == claim.id
    )
    assert build.messages_read(read) == {
        "type": "messages_read",
        "messageIds": ["4", "5"],
        "readAt": "2026-05-01T10:00:00Z",
    }
    assert (
        build.is_receipt(read),
        build.is_receipt(MessagesRead(claim, reader, (4,), AT, receipt=True)),
    ) == (
        False,
        True,
    )


def test_expiry_notices_follow_each_owner_s_settings() -> None:
    def product(product_id: int, email: bool, push: bool) -> Any:
        return SimpleNamespace(
            id=product_id, name="Kettle", brand="Bosch", category="Kitchen", owner_id=product_id * 10,
            warranty_expires_on=date(2026, 6, 1), email_notifications_enabled=email,
            notifications_enabled=push,
        )  # fmt: skip

    change = WarrantiesExpiring(
        (WarrantyAlert(product(1, True, False), 30, 29), WarrantyAlert(product(2, False, True), 7, 7))
    )

    assert build.expiry_notices(change) == [
        Notice(
            True, False, {"productId": 1, "thresholdDays": 30, "expiresOn": "2026-06-01", "recipientId": 10}
        ),
        Notice(
            False, True, {"productId": 2, "thresholdDays": 7, "expiresOn": "2026-06-01", "recipientId": 20}
        ),
    ]
    assert [
        (p["product"]["id"], p["thresholdDays"], p["daysLeft"]) for p in build.expiring_products(change)
    ] == [
        (1, 30, 29),
        (2, 7, 7),
    ]


def test_the_pages_a_change_makes_stale() -> None:
    claim, someone = _claim(supplier_id=3), _user(2)
    message = Message(id=5, claim_id=claim.id, sender_id=2, body="Hi", created_at=AT)
    claim_lists = {"claims:all", "claims:user:2", "claims:user:3"}

    assert set(build.claim_pages(ClaimOpened(claim, someone))) == claim_lists | {
        "products:user:2",
        "products:all",
    }
    assert set(build.supplier_pages(SupplierAssigned(claim, 4, someone))) == claim_lists | {
        "claims:user:4",
        "products:user:2",
        "products:all",
        "messages:claim:10",
        "messages:all",
    }
    assert set(build.message_pages(MessagePosted(message, claim, someone))) == claim_lists | {
        "messages:claim:10",
        "messages:all",
    }
    assert build.read_pages(MessagesRead(claim, someone, (5,), AT, receipt=True)) == [
        "messages:claim:10",
        "messages:all",
    ]
    assert build.owner_products(ProductsChanged(owner_id=7)) == ["products:user:7", "products:all"]
    assert (build.user_pages(None), build.every_page(None)) == (["users:all"], ["all"])
