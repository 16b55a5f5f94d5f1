"""Streams whose user lost access to a claim stop receiving it: one sweep over every open stream per
WARRANTY_SSE_REAUTHORIZE_INTERVAL, in a fixed number of queries per 1,000 users and claims.

One sweep for the whole hub, not a timer per stream: thousands of streams opened together would
otherwise re-check together, each with a session of its own, and starve the connection pool.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.access.claims import Parties, may_see
from app.core.background import pause
from app.models import Claim, HouseholdMember, OrganizationMember, Product, User
from app.realtime.hub import Hub
from app.realtime.publishing import StoredEvent
from app.realtime.topics import ACCESS_TOPIC, claim_id_of, is_claim_name

logger = logging.getLogger("warranty.realtime")

CHUNK = 1000  # ids per IN (...) list


def _chunks(ids: Iterable[int]) -> Iterator[list[int]]:
    ordered = sorted(ids)
    for start in range(0, len(ordered), CHUNK):
        yield ordered[start : start + CHUNK]


async def _users(session: AsyncSession, ids: set[int]) -> dict[int, tuple[User, int | None]]:
    """Each user with the organisation they work for (a user belongs to at most one), in one read."""
    users: dict[int, tuple[User, int | None]] = {}
    for chunk in _chunks(ids):
        rows = await session.execute(
            select(User, OrganizationMember.organization_id)
            .outerjoin(OrganizationMember, OrganizationMember.user_id == User.id)
            .where(User.id.in_(chunk))
        )
        users.update((user.id, (user, organization_id)) for user, organization_id in rows)
    return users


async def _parties(session: AsyncSession, claim_ids: set[int]) -> dict[int, Parties]:
    parties: dict[int, Parties] = {}
    for chunk in _chunks(claim_ids):
        rows = await session.execute(
            select(
                Claim.id, Claim.customer_id, Claim.supplier_id, Product.household_id, Claim.organization_id
            )
            .join(Product, Product.id == Claim.product_id)
            .where(Claim.id.in_(chunk))
        )
        parties.update((row.id, Parties(*row[1:])) for row in rows)
    return parties


async def _households(session: AsyncSession, user_ids: set[int]) -> dict[int, set[int]]:
    households: dict[int, set[int]] = defaultdict(set)
    for chunk in _chunks(user_ids):
        member = select(HouseholdMember.user_id, HouseholdMember.household_id)
        for row in await session.execute(member.where(HouseholdMember.user_id.in_(chunk))):
            households[row.user_id].add(row.household_id)
    return households


async def sweep_access(
    hub: Hub, sessionmaker: async_sessionmaker[AsyncSession], only_users: set[int] | None = None
) -> int:
    """Revokes the topics each open stream's user may no longer see (of `only_users`' streams, when
    given: an access change just committed); answers how many streams lost one."""
    # A Mercure subscriber (no user: its own token, or anonymous) has no claim topic to lose.
    subscribers = [
        s
        for s in hub.subscribers()
        if s.user_id is not None and (only_users is None or s.user_id in only_users)
    ]
    if not subscribers:
        return 0
    claim_ids = {
        claim_id_of(topic)
        for subscriber in subscribers
        for topic in subscriber.topics
        if is_claim_name(topic)
    }
    user_ids = {subscriber.user_id for subscriber in subscribers if subscriber.user_id is not None}
    async with sessionmaker() as session:
        users = await _users(session, user_ids)
        parties = await _parties(session, claim_ids)
        households = await _households(session, user_ids)
    changed = 0
    for subscriber in subscribers:
        user, organization_id = users.get(subscriber.user_id or 0, (None, None))
        if user is None or user.credential_version != subscriber.credential_version:
            # The account is gone or its password changed: the token no longer holds, the stream ends.
            logger.info("hub: the token of a stream of user %s no longer holds", subscriber.user_id)
            hub.close_subscriber(subscriber, "credentials")
            changed += 1
            continue
        lost = {
            topic
            for topic in subscriber.topics
            if is_claim_name(topic)
            and (
                (claim := parties.get(claim_id_of(topic))) is None
                or not may_see(user, claim, households[user.id], organization_id)
            )
        }
        if lost:
            logger.info("hub: user %s lost access to %s", subscriber.user_id, sorted(lost))
            hub.revoke(subscriber, lost)
            changed += 1
    return changed


class AccessWatch:
    """Hands committed events to the hub, and re-checks at once the open streams of the users an event on
    the internal access topic names (a member who left a household, a product unshared): in every
    process, since each one's tail sees every event. The periodic sweep remains the backstop."""

    def __init__(self, hub: Hub, sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        self.hub = hub
        self.sessionmaker = sessionmaker
        self.rechecks: set[asyncio.Task[None]] = set()

    def deliver(self, events: list[StoredEvent]) -> None:
        self.hub.deliver(events)
        users = {
            user_id
            for event in events
            if event.topic == ACCESS_TOPIC
            for user_id in json.loads(event.payload).get("userIds", [])
        }
        if users and self.hub.subscribers():
            task = asyncio.create_task(self._recheck(users), name="hub-access-recheck")
            self.rechecks.add(task)
            task.add_done_callback(self.rechecks.discard)

    async def _recheck(self, users: set[int]) -> None:
        try:
            await sweep_access(self.hub, self.sessionmaker, users)
        except Exception:
            logger.warning(
                "hub: could not re-check the streams of %s; the sweep will", sorted(users), exc_info=True
            )

    def stop(self) -> None:
        for task in self.rechecks:
            task.cancel()


async def sweep_forever(
    hub: Hub, sessionmaker: async_sessionmaker[AsyncSession], interval: float, stop: asyncio.Event
) -> None:
    while await pause(stop, interval):
        try:
            await sweep_access(hub, sessionmaker)
        except Exception:
            # Streams go on; the next sweep checks again, and token expiry bounds every stream anyway.
            logger.warning("hub: could not re-check stream access; trying again next time", exc_info=True)
