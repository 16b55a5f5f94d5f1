"""Column types that behave the same on SQLite and PostgreSQL (app.core.types), through the columns that use
them: aware UTC datetimes in and out, enum members stored as their values (unknown ones read back as the
plain string where a column is lenient), and lists of members as JSON arrays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from fastapi import FastAPI
from sqlalchemy import select, text, update
from sqlalchemy.exc import StatementError

from app.models import DeviceToken, OutboxItem, User
from app.models.enums import OutboxKind, Platform, Role
from tests.factories.users import create_user


async def test_a_datetime_comes_back_aware_in_utc_whatever_zone_it_went_in_with(app: FastAPI) -> None:
    at = datetime(2026, 3, 1, 12, 30, 15, tzinfo=timezone(timedelta(hours=2)))
    async with app.state.sessionmaker() as session, session.begin():
        session.add(OutboxItem(kind=OutboxKind.EMAIL_PASSWORD_RESET, payload={}, next_attempt_at=at))
    async with app.state.sessionmaker() as session:
        stored = await session.scalar(select(OutboxItem.next_attempt_at))
        earlier = await session.scalar(select(OutboxItem.id).where(OutboxItem.next_attempt_at < at))
    assert stored == at and stored is not None and stored.tzinfo == UTC
    assert stored.hour == 10
    assert earlier is None  # compared as the same instant, not as a wall-clock time


async def test_a_naive_datetime_is_refused(app: FastAPI) -> None:
    naive = datetime(2026, 3, 1, 12, 30)
    async with app.state.sessionmaker() as session:
        session.add(OutboxItem(kind=OutboxKind.EMAIL_PASSWORD_RESET, payload={}, next_attempt_at=naive))
        with pytest.raises(StatementError, match="naive datetime given to a UTC column"):
            await session.flush()


async def test_an_enum_is_stored_as_its_value_and_read_as_its_member(app: FastAPI) -> None:
    user = await create_user(app)
    async with app.state.sessionmaker() as session, session.begin():
        session.add(DeviceToken(token="t-1", user_id=user.id, platform=Platform.IOS))
        session.add(OutboxItem(kind=OutboxKind.PUSH_CLAIM_MESSAGE, payload={}))
    async with app.state.sessionmaker() as session:
        raw = (await session.execute(text("SELECT platform FROM device_tokens"))).scalar_one()
        platform = await session.scalar(select(DeviceToken.platform))
        kind = await session.scalar(select(OutboxItem.kind))
    assert raw == "ios"
    assert platform is Platform.IOS and kind is OutboxKind.PUSH_CLAIM_MESSAGE


async def test_an_unknown_value_reads_back_as_a_string_only_where_the_column_is_lenient(app: FastAPI) -> None:
    user = await create_user(app)
    async with app.state.sessionmaker() as session, session.begin():
        session.add(DeviceToken(token="t-1", user_id=user.id, platform=Platform.IOS))
        session.add(OutboxItem(kind="fax.claim_message", payload={}))
        await session.flush()
        await session.execute(update(DeviceToken).values(platform="windows"))
    async with app.state.sessionmaker() as session:
        kind = await session.scalar(select(OutboxItem.kind))
        assert kind == "fax.claim_message" and type(kind) is str  # the worker reports it as unknown
        with pytest.raises(ValueError, match="windows"):
            await session.scalar(select(DeviceToken.platform))


async def test_a_list_of_members_is_a_json_array_of_their_values(app: FastAPI) -> None:
    user = await create_user(app)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(User).values(roles=[Role.SUPPLIER, Role.ADMIN]))
    async with app.state.sessionmaker() as session:
        roles = await session.scalar(select(User.roles).where(User.id == user.id))
        as_json = await session.scalar(text("SELECT roles FROM users WHERE id = :id"), {"id": user.id})
    assert roles == [Role.SUPPLIER, Role.ADMIN] and all(type(role) is Role for role in roles)
    assert "ROLE_SUPPLIER" in str(as_json) and "ROLE_ADMIN" in str(as_json)
