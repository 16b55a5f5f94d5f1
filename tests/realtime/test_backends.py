"""The backends' interface (app.realtime.backends.Backend): the lifespan starts and stops either backend
alike, so each offers the interface's coroutines with its parameters."""

from __future__ import annotations

import inspect

import pytest

from app.realtime.backends import Backend
from app.realtime.backends.memory import MemoryBackend
from app.realtime.backends.postgres import PostgresBackend


@pytest.mark.parametrize("backend", [MemoryBackend, PostgresBackend])
@pytest.mark.parametrize("name", ["start", "stop"])
def test_each_backend_offers_the_interfaces_coroutines(backend: type, name: str) -> None:
    wanted, offered = getattr(Backend, name), getattr(backend, name)
    assert inspect.iscoroutinefunction(offered)
    assert list(inspect.signature(offered).parameters) == list(inspect.signature(wanted).parameters)
