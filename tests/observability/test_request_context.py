"""The request being served (app.observability.request_context): bound for a request and unbound after it,
its user set once known and seen through every copy of the context the request's tasks run in."""

from __future__ import annotations

import asyncio
import contextvars

from app.observability import request_context


def test_outside_a_request_there_is_none_and_setting_a_user_is_nothing() -> None:
    assert request_context.current() is None and request_context.request_id() is None
    request_context.set_user(7)
    assert request_context.current() is None


def test_a_request_is_bound_until_unbound_and_bindings_nest() -> None:
    outer = request_context.bind("req-outer")
    try:
        assert request_context.request_id() == "req-outer"
        assert request_context.current() == request_context.RequestContext("req-outer", None)
        inner = request_context.bind("req-inner")  # a worker delivering a row inside a command
        assert request_context.request_id() == "req-inner"
        request_context.unbind(inner)
        assert request_context.request_id() == "req-outer"
    finally:
        request_context.unbind(outer)
    assert request_context.current() is None


async def test_a_user_found_in_a_copy_of_the_context_is_seen_by_the_request() -> None:
    bound = request_context.bind("req-me")
    try:

        async def dependency() -> None:  # runs in a task: a copy of the context
            request_context.set_user(42)

        await asyncio.create_task(dependency())
        contextvars.copy_context().run(request_context.set_user, 43)
        assert request_context.current() == request_context.RequestContext("req-me", 43)
    finally:
        request_context.unbind(bound)


async def test_concurrent_requests_keep_their_own() -> None:
    async def serve(request_id: str, user_id: int) -> tuple[str | None, int | None]:
        bound = request_context.bind(request_id)
        try:
            await asyncio.sleep(0.01)
            request_context.set_user(user_id)
            await asyncio.sleep(0.01)
            context = request_context.current()
            return request_context.request_id(), context.user_id if context else None
        finally:
            request_context.unbind(bound)

    answers = await asyncio.gather(*(serve(f"req-{n}", n) for n in range(5)))
    assert answers == [(f"req-{n}", n) for n in range(5)]
