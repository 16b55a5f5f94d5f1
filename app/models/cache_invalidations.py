from __future__ import annotations

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import BigIntPK
from app.models.base import Base, CreatedAt


class CacheInvalidation(CreatedAt, Base):
    """Append-only log of page-cache scopes that changed. A cached page remembers the newest id of its
    scopes; a newer row means the page is stale. Inserts only, so writers never contend on a counter row,
    and every process sharing the database sees the change on its very next request."""

    __tablename__ = "cache_invalidations"
    __table_args__ = (Index("ix_cache_invalidations_scope_id", "scope", "id"),)

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True)
    scope: Mapped[str] = mapped_column(String(100))
