from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.types import UtcDateTime
from app.models.base import Base


class ReturnAuthorization(Base):
    """A claim's return authorisation (contract 17.10): at most one per claim (the claim is the key, so
    two issued at once cannot both be written: 409 RMA_EXISTS), its number unique across the service.
    The label's bytes are in the file storage under `label_key`, never in a row."""

    __tablename__ = "return_authorizations"

    claim_id: Mapped[int] = mapped_column(ForeignKey("claims.id", ondelete="CASCADE"), primary_key=True)
    number: Mapped[str] = mapped_column(String(32), unique=True)
    issued_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # Null once the issuer's account is deleted.
    issued_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    instructions: Mapped[str | None] = mapped_column(Text)
    label_key: Mapped[str | None] = mapped_column(String(255))
    label_name: Mapped[str | None] = mapped_column(String(255))
    label_size: Mapped[int | None] = mapped_column(Integer)


class RmaCounter(Base):
    """The last RMA number given in a year. Never lowered and referenced by nothing, so a number stays
    given when its claim (and its return authorisation) is deleted: numbers are never reused."""

    __tablename__ = "rma_counters"

    year: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    last: Mapped[int] = mapped_column(Integer)
