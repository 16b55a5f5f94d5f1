"""Calendar feeds in the database: a user's feed token, and the products a feed shows."""

from __future__ import annotations

import base64
import re
import secrets
from datetime import date

from sqlalchemy import case, delete, select
from sqlalchemy.exc import IntegrityError

from app.calendar.feed import ExpiryEntry
from app.config import Settings
from app.core.repository import Repository
from app.core.security import constant_time_equals, hash_token, hmac_sha256, signing_key
from app.models import CalendarFeed, Product, User

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{43}$")  # 32 bytes, base64url without padding


def feed_token(settings: Settings, secret: str) -> str:
    """The URL's token: an HMAC of the feed's random secret under the signing key, so the table alone
    does not give anyone a working URL, and the owner can be shown theirs again."""
    digest = hmac_sha256(signing_key(settings), b"calendar-feed:" + secret.encode())
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _new_feed(user: User, settings: Settings) -> CalendarFeed:
    secret = secrets.token_hex(32)
    return CalendarFeed(user_id=user.id, secret=secret, token_hash=hash_token(feed_token(settings, secret)))


class CalendarRepository(Repository):
    async def token_of(self, user: User, settings: Settings) -> str | None:
        """The user's feed token; None before the first `issue` (or after a change of signing key)."""
        feed = await self.session.get(CalendarFeed, user.id)
        if feed is None:
            return None
        token = feed_token(settings, feed.secret)
        return token if constant_time_equals(feed.token_hash, hash_token(token)) else None

    async def issue(self, user: User, settings: Settings) -> str:
        """The user's feed token, issued if they have none yet (two requests at once agree on one). After
        a change of signing key the token is new: old URLs stop working."""
        feed = await self.session.get(CalendarFeed, user.id)
        if feed is None:
            try:
                async with self.session.begin_nested():
                    self.session.add(_new_feed(user, settings))
            except IntegrityError:  # issued meanwhile by another request of the same user
                pass
            feed = await self.session.get_one(CalendarFeed, user.id, populate_existing=True)
        token = feed_token(settings, feed.secret)
        feed.token_hash = hash_token(token)
        await self.session.flush()
        return token

    async def rotate(self, user: User, settings: Settings) -> str:
        """A new token for the user's feed; the old one stops working in the same transaction."""
        await self.session.execute(delete(CalendarFeed).where(CalendarFeed.user_id == user.id))
        feed = _new_feed(user, settings)
        self.session.add(feed)
        await self.session.flush()
        return feed_token(settings, feed.secret)

    async def owner_of(self, token: str, settings: Settings) -> int | None:
        """The id of the user whose feed `token` opens, or None."""
        if not _TOKEN.match(token):
            return None
        feed = await self.session.scalar(
            select(CalendarFeed).where(CalendarFeed.token_hash == hash_token(token))
        )
        if feed is None or not constant_time_equals(feed_token(settings, feed.secret), token):
            return None
        return feed.user_id

    async def entries(self, owner_id: int, today: date, limit: int) -> list[ExpiryEntry]:
        """The owner's products for the feed, on their effective expiry day (extensions included), voided
        warranties left out; at most `limit`: when there are more, the warranties that end soonest from
        today on, then the ones that ended most recently."""
        expires = Product.warranty_expires_on
        ended = case((expires < today, 1), else_=0)
        statement = (
            select(
                Product.id,
                Product.name,
                Product.brand,
                Product.category,
                Product.purchase_date,
                expires,
                Product.updated_at,
            )
            .where(Product.owner_id == owner_id, Product.warranty_voided_at.is_(None))  # void: no end to mark
            .order_by(ended, case((expires >= today, expires)), expires.desc(), Product.id)
            .limit(limit)
        )
        return [ExpiryEntry(*row) for row in await self.session.execute(statement)]
