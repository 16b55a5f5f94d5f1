"""Reads on the driver's connection (app.core.driver_reads) answer what the ORM answers: the same values,
instances the session tracks and flushes, the session's own copy when it holds one, statements that
the engine's events see, the request's snapshot, and SQLAlchemy's own errors when the driver fails."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import bindparam, func, inspect, select
from sqlalchemy.exc import DBAPIError

from app.core.db import use_one_snapshot
from app.core.driver_reads import DriverRead, driver_read
from app.models import Claim, Event, Message, Product, User
from app.realtime.publishing import publish
from tests.factories.claims import claim_cast, create_message
from tests.helpers import count_queries

USER = DriverRead(select(User).where(User.id == bindparam("user_id")), User)
PRODUCT = DriverRead(select(Product).where(Product.id == bindparam("product_id")), Product)
CLAIM = DriverRead(select(Claim).where(Claim.id == bindparam("claim_id")), Claim)
MESSAGES: DriverRead[Any] = DriverRead(
    select(Message.id, Message.body.label("text"), Message.created_at)
    .where(Message.claim_id == bindparam("claim_id"))
    .order_by(Message.id)
    .limit(2)
)
NEWEST_EVENT: DriverRead[Any] = DriverRead(select(func.max(Event.id)))
AMONG: DriverRead[Any] = DriverRead(select(User.id).where(User.id.in_(bindparam("ids", expanding=True))))
OUTSIDE: DriverRead[Any] = DriverRead(select(User.id).where(User.id.not_in(bindparam("ids", expanding=True))))


def _values(instance: Any) -> dict[str, Any]:
    return {
        attribute.key: getattr(instance, attribute.key) for attribute in inspect(instance).mapper.column_attrs
    }


async def test_entities_equal_the_orm_and_flush(app: FastAPI) -> None:
    cast = await claim_cast(app)
    for read, entity, ident, params in (
        (USER, User, cast.customer.id, {"user_id": cast.customer.id}),
        (PRODUCT, Product, cast.product.id, {"product_id": cast.product.id}),
        (CLAIM, Claim, cast.claim.id, {"claim_id": cast.claim.id}),
    ):
        async with app.state.sessionmaker() as orm_session:
            expected = _values(await orm_session.get(entity, ident))
        async with app.state.sessionmaker() as session:
            found = await read.one(session, **params)
            assert found is not None and inspect(found).persistent
            assert _values(found) == expected
            assert await read.one(session, **params) is found  # the session's own copy, as the ORM answers
    async with app.state.sessionmaker() as session:
        user = await USER.one(session, user_id=cast.customer.id)
        assert user is not None
        user.name = "Renamed Through A Driver Read"
        await session.commit()
    async with app.state.sessionmaker() as session:
        assert (await session.get(User, cast.customer.id)).name == "Renamed Through A Driver Read"  # type: ignore[union-attr]


async def test_rows_scalars_and_missing_rows(app: FastAPI) -> None:
    cast = await claim_cast(app)
    first = await create_message(app, cast.claim, cast.customer, "first")
    await create_message(app, cast.claim, cast.supplier, "second")
    await create_message(app, cast.claim, cast.customer, "third")
    async with app.state.sessionmaker() as session:
        rows = await MESSAGES.all(session, claim_id=cast.claim.id)
        assert [(row.id, row.text) for row in rows] == [(first.id, "first"), (first.id + 1, "second")]
        assert rows[0].created_at.tzinfo is not None  # the column type's own conversion ran
        assert await USER.one(session, user_id=cast.customer.id + 1000) is None
        assert await MESSAGES.all(session, claim_id=cast.claim.id + 1000) == []
        orm_newest = await session.scalar(select(func.max(Event.id)))
        assert await NEWEST_EVENT.scalar(session) == orm_newest


async def test_get_answers_the_held_copy_without_a_statement(app: FastAPI) -> None:
    cast = await claim_cast(app)
    async with app.state.sessionmaker() as session:
        held = await session.get(User, cast.customer.id)
        with count_queries(app) as statements:
            assert await USER.get(session, cast.customer.id, user_id=cast.customer.id) is held
        assert statements == []


async def test_the_engine_events_see_each_statement(app: FastAPI) -> None:
    cast = await claim_cast(app)
    async with app.state.sessionmaker() as session:
        with count_queries(app) as statements:
            await USER.one(session, user_id=cast.customer.id)
            await NEWEST_EVENT.scalar(session)
    assert len(statements) == 2
    assert "FROM users" in statements[0] and "max(events.id)" in statements[1]


@pytest.mark.postgres_only
async def test_reads_stay_in_the_request_snapshot(app: FastAPI) -> None:
    """The session's transaction begins before the first driver read, so a snapshot (ONE_SNAPSHOT) holds."""
    cast = await claim_cast(app)
    async with app.state.read_sessionmaker() as reader:
        await use_one_snapshot(reader)
        before = await NEWEST_EVENT.scalar(reader)
        async with app.state.sessionmaker() as writer, writer.begin():
            await publish(writer, f"claims/{cast.claim.id}/messages", {"type": "committed_meanwhile"})
        assert await NEWEST_EVENT.scalar(reader) == before
    async with app.state.read_sessionmaker() as fresh:
        assert await NEWEST_EVENT.scalar(fresh) != before


@pytest.mark.postgres_only
async def test_a_driver_error_is_sqlalchemys_error(app: FastAPI) -> None:
    """An id out of the column's range fails in the driver; the read answers what the ORM path raises."""
    async with app.state.sessionmaker() as session:
        with pytest.raises(DBAPIError) as orm_error:
            await session.scalar(select(User).where(User.id == bindparam("user_id")), {"user_id": 2**40})
    async with app.state.sessionmaker() as session:
        with pytest.raises(DBAPIError) as driver_error:
            await USER.one(session, user_id=2**40)
    assert type(driver_error.value) is type(orm_error.value)


@pytest.mark.postgres_only
async def test_postgres_reads_skip_the_orm(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    cast = await claim_cast(app)
    async with app.state.sessionmaker() as session:

        def refuse(*_args: Any, **_kwargs: Any) -> None:
            raise AssertionError("this read went through the ORM")

        for name in ("execute", "scalar", "scalars", "get"):
            monkeypatch.setattr(session, name, refuse)
        assert (await USER.one(session, user_id=cast.customer.id)) is not None
        assert await MESSAGES.all(session, claim_id=cast.claim.id) == []
        assert await NEWEST_EVENT.scalar(session) is None
        assert [row.id for row in await AMONG.all(session, ids=[cast.customer.id])] == [cast.customer.id]
        assert cast.customer.id not in [row.id for row in await OUTSIDE.all(session, ids=[cast.customer.id])]


async def test_list_parameters_match_the_orm(app: FastAPI) -> None:
    cast = await claim_cast(app)
    ids = bindparam("ids", expanding=True)
    among = driver_read(select(User.id).where(User.id.in_(ids)).order_by(User.id))
    outside = driver_read(select(User.id).where(User.id.not_in(ids)).order_by(User.id))
    assert driver_read(among.statement) is among  # compiled once per statement shape
    async with app.state.sessionmaker() as session:
        for chosen in ([cast.customer.id, cast.supplier.id], [cast.supplier.id], [], [10**6]):
            for read in (among, outside):
                expected = list((await session.execute(read.statement, {"ids": chosen})).scalars())
                assert [row.id for row in await read.all(session, ids=chosen)] == expected, chosen


async def test_an_expired_held_copy_is_refreshed_as_the_orm_does(app: FastAPI) -> None:
    cast = await claim_cast(app)
    async with app.state.sessionmaker() as session:
        held = await session.get(User, cast.customer.id)
        assert held is not None
        await session.commit()  # the held copy stays in the session (no expiry on commit)
        async with app.state.sessionmaker() as other, other.begin():
            (await other.get(User, cast.customer.id)).name = "Renamed Elsewhere"  # type: ignore[union-attr]
        session.expire(held)
        found = await USER.one(session, user_id=cast.customer.id)
        assert found is held and held.name == "Renamed Elsewhere"
