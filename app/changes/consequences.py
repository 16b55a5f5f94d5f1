"""The kinds of consequence a change has, each a step of a row of `app.changes.dispatch.CONSEQUENCES`, run
in the change's transaction: a timeline entry, a hub event (delivered after commit), notifications (outbox
rows, sent after commit by the worker), an outbound webhook, page-cache invalidations."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from sqlalchemy import bindparam, literal, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.claims import notified_users, unassigned_organization
from app.access.households import members_sharing
from app.core.driver_reads import DriverRead
from app.models import Claim, NotificationTarget, Organization, User, WebPushSubscription
from app.models.enums import OutboxKind
from app.outbox.enqueue import enqueue
from app.pagecache.cache import invalidate
from app.pagecache.scopes import people_pages
from app.realtime.publishing import publish
from app.timeline.record import TimelineKind, add_to_timeline
from app.webhooks import recording as webhooks

C = TypeVar("C")

# Whom a claim's change concerns (app.access.claims.notified_users): on the driver's connection
# (app.core.driver_reads).
_NOTIFIED = DriverRead(
    select(User)
    .where(
        notified_users(
            bindparam("claim_id"),
            bindparam("product_id"),
            bindparam("user_ids", expanding=True),
            bindparam("organization_id"),
        )
    )
    .order_by(User.id),
    User,
)
# The address of the organisation a claim is routed to (parameter organization_id).
_ORGANIZATION_EMAIL: DriverRead[Any] = DriverRead(
    select(Organization.email).where(Organization.id == bindparam("organization_id"))
)
# Where each user is pushed besides their phones (contract 19): their browsers' subscriptions ("w") and
# notification URLs ("t"), for a set of users in one query.
_PUSHED_ELSEWHERE = union_all(
    select(literal("w").label("channel"), WebPushSubscription.id, WebPushSubscription.user_id).where(
        WebPushSubscription.user_id.in_(bindparam("user_ids", expanding=True))
    ),
    select(literal("t").label("channel"), NotificationTarget.id, NotificationTarget.user_id).where(
        NotificationTarget.user_id.in_(bindparam("user_ids", expanding=True))
    ),
)


class NotificationKinds(NamedTuple):
    """The outbox kinds of one notification, one per channel."""

    email: OutboxKind
    push: OutboxKind  # phones (gorush)
    web_push: OutboxKind  # one row per browser subscription
    url: OutboxKind  # one row per notification URL


async def push_elsewhere(
    session: AsyncSession, kinds: NotificationKinds, pushed: list[dict[str, Any]]
) -> None:
    """Each pushed payload (with its `recipientId`) also as a Web Push to each of the recipient's browser
    subscriptions and a notice to each of their notification URLs (one query for all): one row per (event,
    subscription) and (event, URL), so each is delivered, and retried, on its own."""
    pushed = [payload for payload in pushed if isinstance(payload.get("recipientId"), int)]
    if not pushed:
        return
    recipients = sorted({int(payload["recipientId"]) for payload in pushed})
    found: dict[int, list[tuple[str, int]]] = {}
    for channel, row_id, user_id in await session.execute(_PUSHED_ELSEWHERE, {"user_ids": recipients}):
        found.setdefault(user_id, []).append((channel, row_id))
    for payload in pushed:
        for channel, row_id in sorted(found.get(int(payload["recipientId"]), [])):
            if channel == "w":
                enqueue(session, kinds.web_push, {**payload, "subscriptionId": row_id})
            else:
                enqueue(session, kinds.url, {**payload, "targetId": row_id})


class Recording(Generic[C]):
    """One change being recorded: its session, and what its steps read from the database, read once."""

    def __init__(self, session: AsyncSession, change: C) -> None:
        self.session = session
        self.change = change
        self._known: dict[str, Any] = {}

    async def once(self, name: str, read: Callable[[], Awaitable[Any]]) -> Any:
        if name not in self._known:
            self._known[name] = await read()
        return self._known[name]

    async def participants(self, claim: Claim) -> list[User]:
        """Whom a change in the claim concerns: its customer and supplier, the household members of its
        product and, while it has no agent, the members of its organisation, who have not muted it (one
        query)."""

        async def read() -> list[User]:
            ids = [user_id for user_id in (claim.customer_id, claim.supplier_id) if user_id is not None]
            return await _NOTIFIED.all(
                self.session,
                claim_id=claim.id,
                product_id=claim.product_id,
                user_ids=ids,
                organization_id=unassigned_organization(claim),
            )

        users: list[User] = await self.once("participants", read)
        return users

    async def household_members(self, claim: Claim) -> list[int]:
        """The members of the household the claim's product is shared with (one query)."""

        async def read() -> list[int]:
            return await members_sharing(self.session, claim.product_id)

        members: list[int] = await self.once("household_members", read)
        return members


class Consequence(Protocol[C]):
    async def apply(self, recording: Recording[C]) -> None: ...


@dataclass(frozen=True)
class Entry:
    claim: Claim | int
    actor: User | None
    data: dict[str, Any]


@dataclass(frozen=True)
class Timeline(Generic[C]):
    """An entry of `kind` on the claim's timeline; `entry` may answer None (no entry for this change)."""

    kind: TimelineKind
    entry: Callable[[Recording[C]], Awaitable[Entry | None]]

    async def apply(self, recording: Recording[C]) -> None:
        entry = await self.entry(recording)
        if entry is not None:
            add_to_timeline(recording.session, entry.claim, self.kind, entry.actor, **entry.data)


def _always(_: Any) -> bool:
    return True


@dataclass(frozen=True)
class Hub(Generic[C]):
    """An event on a hub topic, delivered to its subscribers once the transaction commits."""

    topic: Callable[[C], str]
    payload: Callable[[C], dict[str, Any]]
    when: Callable[[C], bool] = _always

    async def apply(self, recording: Recording[C]) -> None:
        change = recording.change
        if self.when(change):
            await publish(recording.session, self.topic(change), self.payload(change))


@dataclass(frozen=True)
class Notify(Generic[C]):
    """An email and a push (phone, and browsers and notification URLs: `push_elsewhere`) of `kinds` for each
    recipient, each as the recipient's settings allow (outbox rows: the worker sends them after commit). The
    payload gets the recipient's id as `recipientId`."""

    kinds: NotificationKinds
    payload: Callable[[Recording[C]], Awaitable[dict[str, Any]]]
    to: Callable[[Recording[C]], Awaitable[Iterable[User]]]

    async def apply(self, recording: Recording[C]) -> None:
        recipients = await self.to(recording)
        payload = await self.payload(recording)
        pushed = []
        for user in recipients:
            if user.email_notifications_enabled:
                enqueue(recording.session, self.kinds.email, {**payload, "recipientId": user.id})
            if user.notifications_enabled:
                item = enqueue(recording.session, self.kinds.push, {**payload, "recipientId": user.id})
                pushed.append(item.payload)
        await push_elsewhere(recording.session, self.kinds, pushed)


@dataclass(frozen=True)
class NotifyOrganization(Generic[C]):
    """An email of `kind` to the address of the organisation the claim is routed to, while none of its
    agents is assigned and it has one (contract 17.7). The address has no account: the payload names it
    (`recipientEmail`, with `organizationId`) instead of a `recipientId`. Not sent when a user this change
    emails has that address already."""

    kind: OutboxKind
    payload: Callable[[Recording[C]], Awaitable[dict[str, Any]]]
    claim: Callable[[C], Claim]

    async def apply(self, recording: Recording[C]) -> None:
        claim = self.claim(recording.change)
        organization_id = unassigned_organization(claim)
        if organization_id is None:
            return
        rows = await _ORGANIZATION_EMAIL.all(recording.session, organization_id=organization_id)
        address = rows[0].email if rows else None
        if not address:
            return
        participants = await recording.participants(claim)
        emailed = {user.email.lower() for user in participants if user.email_notifications_enabled}
        if address.lower() in emailed:
            return
        payload = await self.payload(recording)
        enqueue(
            recording.session,
            self.kind,
            {**payload, "recipientEmail": address, "organizationId": organization_id},
        )


@dataclass(frozen=True)
class Mail(Generic[C]):
    """One email of `kind` (an outbox row), whatever its recipient's notification settings: a document
    they need, not news (a return authorisation with its label). The payload names the recipient."""

    kind: OutboxKind
    payload: Callable[[C], dict[str, Any]]

    async def apply(self, recording: Recording[C]) -> None:
        enqueue(recording.session, self.kind, self.payload(recording.change))


@dataclass(frozen=True)
class Notice:
    email: bool  # the recipient's settings: whether to send the email, the push
    push: bool
    payload: dict[str, Any]


@dataclass(frozen=True)
class NotifyEach(Generic[C]):
    """An email and a push of `kinds` per notice, each as its recipient's settings allow: for a change with
    a payload per recipient."""

    kinds: NotificationKinds
    notices: Callable[[C], Iterable[Notice]]

    async def apply(self, recording: Recording[C]) -> None:
        pushed = []
        for notice in self.notices(recording.change):
            if notice.email:
                enqueue(recording.session, self.kinds.email, notice.payload)
            if notice.push:
                enqueue(recording.session, self.kinds.push, notice.payload)
                pushed.append(notice.payload)
        await push_elsewhere(recording.session, self.kinds, pushed)


@dataclass(frozen=True)
class Webhook(Generic[C]):
    """An outbound webhook of `type` with `data`, to every endpoint subscribed to it (app.webhooks)."""

    type: str
    data: Callable[[Recording[C]], Awaitable[dict[str, Any]]]

    async def apply(self, recording: Recording[C]) -> None:
        await webhooks.record(recording.session, self.type, await self.data(recording))


@dataclass(frozen=True)
class WebhookEach(Generic[C]):
    """An outbound webhook of `type` per item of `data` (one query for the subscribers)."""

    type: str
    data: Callable[[C], list[dict[str, Any]]]

    async def apply(self, recording: Recording[C]) -> None:
        await webhooks.record(recording.session, self.type, *self.data(recording.change))


@dataclass(frozen=True)
class Cache(Generic[C]):
    """The page-cache scopes (app.pagecache.scopes) whose pages the change makes stale."""

    scopes: Callable[[C], Iterable[str]]

    async def apply(self, recording: Recording[C]) -> None:
        invalidate(recording.session, *self.scopes(recording.change))


@dataclass(frozen=True)
class HouseholdCache(Generic[C]):
    """The pages of the household members who see the change's claim because its product is shared with
    them: their claim lists and product lists (app.pagecache.scopes)."""

    claim: Callable[[C], Claim]

    async def apply(self, recording: Recording[C]) -> None:
        members = await recording.household_members(self.claim(recording.change))
        if members:
            invalidate(recording.session, *people_pages(members))
