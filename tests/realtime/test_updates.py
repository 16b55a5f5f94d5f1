"""A publisher's form and its framing (app.realtime.updates)."""

from __future__ import annotations

import pytest

from app.errors import AppError, Forbidden, PayloadTooLarge, ValidationFailed
from app.realtime.publishing import StoredEvent
from app.realtime.updates import (
    MAX_BODY,
    UPDATE_PREFIX,
    Update,
    decode,
    encode,
    frame_update,
    is_service_topic,
    parse_form,
    read_update,
)

HUB = "https://hub.example/.well-known/mercure"


def test_a_form_read_field_by_field() -> None:
    fields = parse_form(b"topic=a&data=x%0Ay&private=&id=u1&type=t&retry=007&other=1")
    update = read_update(fields, HUB)
    assert update == Update(topic="a", data="x\ny", id="u1", private=True, type="t", retry=7)
    generated = read_update(parse_form(b"topic=a"), HUB)
    assert generated.id.startswith("urn:uuid:") and not generated.private and generated.data == ""


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"data=x", ValidationFailed),
        (b"topic=a&topic=b", ValidationFailed),
        (b"topic=a&data=1&data=2", ValidationFailed),
        (b"topic=%ff", ValidationFailed),
        (b"topic=a&id=%23x", ValidationFailed),
        (b"topic=a&id=earliest", ValidationFailed),
        (b"topic=a&retry=1e3", ValidationFailed),
        (b"topic=a&type=x%0Dy", ValidationFailed),
        (b"topic=claims%2F1%2Fmessages", Forbidden),
        (b"topic=a&retry=" + b"9" * 10, PayloadTooLarge),
        (b"topic=a&data=" + b"x" * MAX_BODY, PayloadTooLarge),
    ],
)
def test_what_the_form_may_not_hold(body: bytes, error: type[AppError]) -> None:
    with pytest.raises(error):
        read_update(parse_form(body), HUB)


@pytest.mark.parametrize(
    ("topic", "reserved"),
    [
        ("claims/1/messages", True),
        ("https://any.example/claims/1", True),
        ("access/changed", True),
        ("/.well-known/mercure", True),
        ("https://other.example/.well-known/mercure/subscriptions", True),
        ("mercure/x", True),  # relative: /.well-known/mercure/x
        ("https://shop.example/claimsx", False),
        ("/.well-known/mercurex", False),
        ("urn:isbn:1", False),
        ("https://[broken", False),
    ],
)
def test_the_services_own_topics(topic: str, reserved: bool) -> None:
    assert is_service_topic(topic, HUB) is reserved


def test_framing_one_data_line_per_line() -> None:
    update = Update(topic="a", data="1\r\n2\r3\n\n4", id="u", private=False, type="t", retry=10)
    assert (
        frame_update(update) == b"id: u\nevent: t\nretry: 10\ndata: 1\ndata: 2\ndata: 3\ndata: \ndata: 4\n\n"
    )
    bare = Update(topic="a", data="", id="u", private=False, type=None, retry=None)
    assert frame_update(bare) == b"id: u\ndata: \n\n"


def test_stored_and_read_back() -> None:
    update = Update(topic="a", data="\u2028x", id="u", private=True, type=None, retry=None)
    assert decode(StoredEvent(1, UPDATE_PREFIX + "a", encode(update))) == update
    assert decode(StoredEvent(1, "claims/1/messages", "{}")) is None
