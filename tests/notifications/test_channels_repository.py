"""Web Push subscriptions and notification URLs in the database (app/notifications/channels_repository.py):
an endpoint moves to whoever registers it last, the newest are kept, a URL added twice is one target."""

from __future__ import annotations

from fastapi import FastAPI

from app.notifications.channels_repository import NotificationTargetRepository, WebPushRepository
from app.notifications.notify_urls import CheckedUrl, target_cipher
from tests.factories.users import create_user


async def test_an_endpoint_registered_by_another_user_moves_to_them(app: FastAPI) -> None:
    ann, bob = await create_user(app), await create_user(app)
    async with app.state.sessionmaker() as session, session.begin():
        repo = WebPushRepository(session)
        first = await repo.subscribe(ann.id, "https://push.example/1", "a" * 87, "b" * 22, None, keep=20)
        moved = await repo.subscribe(bob.id, "https://push.example/1", "c" * 87, "d" * 22, None, keep=20)
        assert moved.id == first.id and (moved.user_id, moved.p256dh, moved.auth) == (
            bob.id,
            "c" * 87,
            "d" * 22,
        )
        assert await repo.list_for(ann.id) == []
        assert [row.endpoint for row in await repo.list_for(bob.id)] == ["https://push.example/1"]


async def test_the_newest_subscriptions_are_kept(app: FastAPI) -> None:
    ann = await create_user(app)
    async with app.state.sessionmaker() as session, session.begin():
        repo = WebPushRepository(session)
        for number in range(4):
            await repo.subscribe(ann.id, f"https://push.example/{number}", "a" * 87, "b" * 22, None, keep=3)
        await repo.subscribe(ann.id, "https://push.example/1", "a" * 87, "b" * 22, None, keep=3)  # renewed
        await repo.subscribe(ann.id, "https://push.example/4", "a" * 87, "b" * 22, None, keep=3)
        kept = sorted(row.endpoint for row in await repo.list_for(ann.id))
    assert kept == ["https://push.example/1", "https://push.example/3", "https://push.example/4"]


async def test_the_same_url_twice_is_one_target_per_user(app: FastAPI) -> None:
    ann, bob = await create_user(app), await create_user(app)
    cipher = target_cipher(app.state.settings)
    url = CheckedUrl(
        "ntfys://ntfy.example.com/t", "ntfys", "ntfys://ntfy.example.com/****", "ntfy.example.com"
    )
    async with app.state.sessionmaker() as session, session.begin():
        repo = NotificationTargetRepository(session)
        first = await repo.add(ann.id, url, cipher, limit=10)
        again = await repo.add(ann.id, url, cipher, limit=10)
        bobs = await repo.add(bob.id, url, cipher, limit=10)
        assert again.id == first.id != bobs.id
        assert cipher.decrypt(first.secret) == url.url
        assert [row.id for row in await repo.list_for(ann.id)] == [first.id]
