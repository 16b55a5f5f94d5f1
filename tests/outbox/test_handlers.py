"""The handler protocol's outcomes (app/outbox/handlers.py): a receiver's "later" carries its delay; the
worker's use of it is tested with the worker (tests/outbox/test_worker.py)."""

from __future__ import annotations

from app.outbox.handlers import RetryLater


def test_retry_later_carries_the_receiver_s_delay_or_none() -> None:
    assert RetryLater("HTTP 429", 30.0).seconds == 30.0 and str(RetryLater("HTTP 503")) == "HTTP 503"
    assert RetryLater("HTTP 503").seconds is None
