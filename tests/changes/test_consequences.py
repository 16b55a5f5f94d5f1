"""The kinds of consequence a change has (app/changes/consequences.py), each run on its own: a recording
reads what its steps share once; a timeline entry unless the step says none; a hub event only when its
condition holds; an email and a push per recipient as their settings allow, the push also to each of
the recipient's browsers and notification URLs; webhooks to subscribers only;
page-cache invalidations once per scope."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from app.changes.consequences import (
    Cache,
    Entry,
    Hub,
    Notice,
    Notify,
    NotifyEach,
    Recording,
    Timeline,
    Webhook,
    WebhookEach,
)
from app.changes.dispatch import CLAIM_STATUS, EXPIRY_ALERT
from app.models import (
    CacheInvalidation,
    Claim,
    ClaimEvent,
    Event,
    NotificationTarget,
    OutboxItem,
    User,
    WebhookDelivery,
    WebhookEndpoint,
    WebPushSubscription,
)
from app.timeline.record import TimelineKind
from tests.changes.support import apply, rows
from tests.factories.claims import claim_cast, create_claim
from tests.factories.products import create_product
from tests.factories.users import create_user
from tests.helpers import count_queries


@dataclass(frozen=True)
class Happened:
    """A change of the tests' own: what happened to which claim, and who did it."""

    claim: Claim
    actor: User
    flag: bool = True


async def test_a_recording_reads_once_what_its_steps_share(app: FastAPI) -> None:
    cast = await claim_cast(app)
    unassigned = await create_claim(app, await create_product(app, cast.customer))
    reads: list[str] = []

    async def read() -> str:
        reads.append("read")
        return "value"

    async with app.state.sessionmaker() as session:
        recording: Recording[None] = Recording(session, None)
        assert [await recording.once("name", read) for _ in range(3)] == ["value"] * 3
        with count_queries(app) as first:
            parties = await recording.participants(cast.claim)
        with count_queries(app) as again:
            assert await recording.participants(cast.claim) is parties
        alone = await Recording(session, None).participants(unassigned)

    assert reads == ["read"]
    assert [user.id for user in parties] == sorted([cast.customer.id, cast.supplier.id])
    assert (len(first), len(again)) == (1, 0)
    assert [user.id for user in alone] == [cast.customer.id]


async def test_a_timeline_step_adds_its_entry_unless_there_is_none(app: FastAPI) -> None:
    cast = await claim_cast(app)

    async def entry(recording: Recording[Happened]) -> Entry | None:
        change = recording.change
        return Entry(change.claim, change.actor, {"said": "hello"}) if change.flag else None

    step: Timeline[Happened] = Timeline(TimelineKind.STATUS_CHANGED, entry)
    await apply(app, Happened(cast.claim, cast.supplier, flag=False), step)
    await apply(app, Happened(cast.claim, cast.supplier), step)

    [added] = await rows(app, ClaimEvent)
    assert (added.claim_id, added.kind, added.actor_id, added.actor_role, added.data) == (
        cast.claim.id,
        "status.changed",
        cast.supplier.id,
        "supplier",
        {"said": "hello"},
    )


async def test_a_hub_step_publishes_only_when_its_condition_holds(app: FastAPI) -> None:
    cast = await claim_cast(app)
    step: Hub[Happened] = Hub(
        topic=lambda change: f"claims/{change.claim.id}/status",
        payload=lambda change: {"type": "test", "by": change.actor.id},
        when=lambda change: change.flag,
    )

    await apply(app, Happened(cast.claim, cast.admin, flag=False), step)
    await apply(app, Happened(cast.claim, cast.admin), step)

    [event] = await rows(app, Event)
    assert (event.topic, json.loads(event.payload)) == (
        f"claims/{cast.claim.id}/status",
        {"type": "test", "by": cast.admin.id},
    )


async def test_each_recipient_gets_what_their_settings_allow(app: FastAPI) -> None:
    both = await create_user(app)
    push_only = await create_user(app, email_notifications_enabled=False)
    email_only = await create_user(app, notifications_enabled=False)
    neither = await create_user(app, notifications_enabled=False, email_notifications_enabled=False)
    cast = await claim_cast(app)
    payloads: list[str] = []

    async def payload(recording: Recording[Happened]) -> dict[str, Any]:
        payloads.append("built")
        return {"claimId": recording.change.claim.id}

    async def to(_: Recording[Happened]) -> list[User]:
        return [both, push_only, email_only, neither]

    await apply(app, Happened(cast.claim, cast.admin), Notify(CLAIM_STATUS, payload, to))

    sent = [(row.kind, row.payload) for row in await rows(app, OutboxItem)]
    assert sent == [
        ("email.claim_status", {"claimId": cast.claim.id, "recipientId": both.id}),
        ("push.claim_status", {"claimId": cast.claim.id, "recipientId": both.id}),
        ("push.claim_status", {"claimId": cast.claim.id, "recipientId": push_only.id}),
        ("email.claim_status", {"claimId": cast.claim.id, "recipientId": email_only.id}),
    ]
    assert payloads == ["built"]  # one payload for every recipient


async def test_each_notice_goes_as_its_flags_say_with_its_own_payload(app: FastAPI) -> None:
    notices = [
        Notice(email=True, push=True, payload={"n": 1}),
        Notice(email=False, push=True, payload={"n": 2}),
        Notice(email=True, push=False, payload={"n": 3}),
        Notice(email=False, push=False, payload={"n": 4}),
    ]

    await apply(app, None, NotifyEach(EXPIRY_ALERT, lambda _: notices))

    assert [(row.kind, row.payload) for row in await rows(app, OutboxItem)] == [
        ("email.expiry_alert", {"n": 1}),
        ("push.expiry_alert", {"n": 1}),
        ("push.expiry_alert", {"n": 2}),
        ("email.expiry_alert", {"n": 3}),
    ]


async def test_webhooks_go_to_the_endpoints_subscribed_to_their_type(app: FastAPI) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        for events in (
            ["claim.created"],
            ["product.warranty_expiring", "claim.created"],
            ["message.created"],
        ):
            session.add(WebhookEndpoint(url="https://hooks.example.com/", events=events, secret="whsec_x"))
    [first, second, third] = await rows(app, WebhookEndpoint)

    async def data(_: Recording[None]) -> dict[str, Any]:
        return {"claim": {"id": 1}}

    await apply(
        app,
        None,
        Webhook("claim.created", data),
        WebhookEach("product.warranty_expiring", lambda _: [{"product": 1}, {"product": 2}]),
        WebhookEach("product.warranty_expiring", lambda _: []),
    )

    sent = [
        (d.endpoint_id, d.event_type, json.loads(d.body)["data"]) for d in await rows(app, WebhookDelivery)
    ]
    assert sent == [
        (first.id, "claim.created", {"claim": {"id": 1}}),
        (second.id, "claim.created", {"claim": {"id": 1}}),
        (second.id, "product.warranty_expiring", {"product": 1}),
        (second.id, "product.warranty_expiring", {"product": 2}),
    ]
    assert third.id not in {endpoint for endpoint, _, _ in sent}


async def test_a_cache_step_invalidates_each_scope_once(app: FastAPI) -> None:
    await apply(app, None, Cache(lambda _: ["claims:all", "products:user:7", "claims:all"]))

    assert sorted(row.scope for row in await rows(app, CacheInvalidation)) == [
        "claims:all",
        "products:user:7",
    ]


async def test_a_push_also_goes_to_each_browser_and_notification_url_of_its_recipient(app: FastAPI) -> None:
    ann, bob, cid = await create_user(app), await create_user(app), await create_user(app)
    off = await create_user(app, notifications_enabled=False)
    cast = await claim_cast(app)
    async with app.state.sessionmaker() as session, session.begin():
        subscriptions = [
            WebPushSubscription(user_id=user.id, endpoint=f"https://push.example/{n}", p256dh="p", auth="a")
            for n, user in enumerate([ann, ann, bob, off])
        ]
        target = NotificationTarget(user_id=ann.id, scheme="ntfys", redacted="r", secret="s", fingerprint="f")
        session.add_all([*subscriptions, target])
    ids = [subscription.id for subscription in subscriptions]

    async def payload(recording: Recording[Happened]) -> dict[str, Any]:
        return {"claimId": recording.change.claim.id}

    async def to(_: Recording[Happened]) -> list[User]:
        return [ann, bob, cid, off]

    with count_queries(app) as statements:
        await apply(app, Happened(cast.claim, cast.admin), Notify(CLAIM_STATUS, payload, to))
    elsewhere = [statement for statement in statements if "web_push_subscriptions" in statement]
    assert len(elsewhere) == 1  # one query for every recipient's browsers and URLs

    sent = [
        (row.kind, row.payload) for row in await rows(app, OutboxItem) if not row.kind.startswith("email.")
    ]
    claim = {"claimId": cast.claim.id}
    assert sent == [
        ("push.claim_status", claim | {"recipientId": ann.id}),
        ("push.claim_status", claim | {"recipientId": bob.id}),
        ("push.claim_status", claim | {"recipientId": cid.id}),
        ("apprise.claim_status", claim | {"recipientId": ann.id, "targetId": target.id}),
        ("webpush.claim_status", claim | {"recipientId": ann.id, "subscriptionId": ids[0]}),
        ("webpush.claim_status", claim | {"recipientId": ann.id, "subscriptionId": ids[1]}),
        ("webpush.claim_status", claim | {"recipientId": bob.id, "subscriptionId": ids[2]}),
    ]
