from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.inbound.deliveries import delivery_keys, prune, record, seen
from app.models import InboundDelivery

NOW = datetime(2026, 1, 20, 12, 0, tzinfo=UTC)


def test_keys_name_each_identity_and_hash_absurdly_long_ones() -> None:
    assert delivery_keys("msg_1", "e-1", "m-1@x") == ["webhook:msg_1", "email:e-1", "msgid:m-1@x"]
    assert delivery_keys(None, None, None) == []
    [long_key] = delivery_keys(None, None, "x" * 2000)
    assert long_key.startswith("msgid#sha256:") and len(long_key) < 512


async def test_recorded_keys_are_seen_and_a_second_record_is_refused(app: FastAPI) -> None:
    async with app.state.sessionmaker() as session, session.begin():
        assert await record(session, ["email:e-1", "msgid:m-1"]) is not None

    async with app.state.sessionmaker() as session, session.begin():
        assert await seen(session, ["msgid:m-1"])
        assert not await seen(session, ["msgid:m-2"])
        # One of the keys is taken: nothing is recorded, and the transaction goes on.
        assert await record(session, ["email:e-2", "msgid:m-1"]) is None
        assert await record(session, ["email:e-3"]) is not None

    async with app.state.sessionmaker() as session:
        keys = set(await session.scalars(select(InboundDelivery.key)))
    assert keys == {"email:e-1", "msgid:m-1", "email:e-3"}


async def test_prune_forgets_keys_older_than_the_dedup_window(app: FastAPI) -> None:
    for age_days, key in ((8, "email:old"), (6, "email:recent")):
        with frozen_time(NOW - timedelta(days=age_days)):
            async with app.state.sessionmaker() as session, session.begin():
                await record(session, [key])

    with frozen_time(NOW):
        async with app.state.sessionmaker() as session, session.begin():
            removed = await prune(session, keep_days=7)
            assert not await seen(session, ["email:old"])
            assert await seen(session, ["email:recent"])
    assert removed == 1
