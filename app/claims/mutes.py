"""A participant's choice to hear a claim or not (contract 17.4): one row per (claim, user), kept by its
last word. Whom a change then notifies is the access layer's `notified_users`."""

from __future__ import annotations

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Claim, ClaimMute, User


async def set_muted(session: AsyncSession, user: User, claim: Claim, muted: bool) -> None:
    """Mute or unmute the claim for `user` (one statement; concurrent calls: the last one wins)."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = dialect.insert(ClaimMute).values(claim_id=claim.id, user_id=user.id, muted=muted)
    await session.execute(
        statement.on_conflict_do_update(index_elements=["claim_id", "user_id"], set_={"muted": muted})
    )
