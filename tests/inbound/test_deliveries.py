from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from sqlalchemy import select

from app.core.clock import frozen_time
from app.inbound.deliveries import content_key, delivery_keys, prune, record, seen
from app.models import InboundDelivery

NOW = datetime(2026, 1, 20, 12, 0, tzinfo=UTC)


def test_keys_name_each_identity_and_hash_absurdly_long_ones() -> None:
    content = content_key("a@x", ["claim+1@y"], "Re", "Hi", "")
    assert delivery_keys("msg_1", "e-1", "m-1@x", content) == ["webhook:msg_1", "email:e-1", "msgid:m-1@x"]
    assert delivery_keys(None, None, None, content) == [content]  # no id: the content's hash
    [long_key] = delivery_keys(None, None, "x" * 2000, content)
    assert long_key.startswith("msgid#sha256:") and len(long_key) < 512


def test_the_content_key_covers_sender_recipients_subject_and_bodies() -> None:
    base = ("a@x", ["claim+1@y"], "Re", "Hi", "<p>Hi</p>")
    key = content_key(*base)
    assert key.startswith("content:") and len(key) == len("content:") + 64
    assert content_key(*base) == key
    for changed in (
        ("b@x", *base[1:]),
        (base[0], ["claim+2@y"], *base[2:]),
        (*base[:2], "Re: other", *base[3:]),
        (*base[:3], "Hi!", base[4]),
        (*base[:4], "<p>Hi!</p>"),
        ("a@x", ["claim+1@y"], "ReHi", "", "<p>Hi</p>"),  # a field boundary moved
    ):
        assert content_key(*changed) != key


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
