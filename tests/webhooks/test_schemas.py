"""Webhook endpoints on the wire (app/webhooks/schemas.py): the event types an endpoint may choose, each once
and in the order given, and a change that leaves out what it does not name but may not null a URL or
the events."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from app.webhooks.recording import EVENT_TYPES
from app.webhooks.schemas import WebhookCreate, WebhookUpdate

URL = "https://203.0.114.7/hooks"


def test_repeated_events_are_kept_once_in_the_order_given() -> None:
    events = ["message.created", "claim.created", "message.created", "claim.created"]

    assert WebhookCreate.model_validate({"url": URL, "events": events}).events == [
        "message.created",
        "claim.created",
    ]
    assert WebhookUpdate.model_validate({"events": events}).events == ["message.created", "claim.created"]


def test_every_recorded_event_type_may_be_chosen_and_no_other() -> None:
    assert WebhookCreate.model_validate({"url": URL, "events": list(EVENT_TYPES)}).events == list(EVENT_TYPES)
    for refused in ([], ["webhook.test"], ["claim.deleted"], ["Claim.Created"]):
        with pytest.raises(ValidationError):
            WebhookCreate.model_validate({"url": URL, "events": refused})


@pytest.mark.parametrize(
    "body",
    [
        {"events": ["claim.created"]},
        {"url": "", "events": ["claim.created"]},
        {"url": "x" * 2049, "events": ["claim.created"]},
        {"url": URL, "events": ["claim.created"], "description": "d" * 501},
        {"url": URL, "events": ["claim.created"], "secret": "whsec_mine"},
    ],
    ids=["no url", "empty url", "url too long", "description too long", "unknown field"],
)
def test_a_registration_is_refused_without_a_url_or_with_too_much(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        WebhookCreate.model_validate(body)


def test_a_change_names_only_what_it_changes_and_may_clear_the_description() -> None:
    nothing = WebhookUpdate.model_validate({})
    cleared = WebhookUpdate.model_validate({"description": None})

    assert (nothing.url, nothing.events, nothing.description) == (None, None, None)
    assert nothing.model_fields_set == set()
    assert cleared.description is None and cleared.model_fields_set == {"description"}


@pytest.mark.parametrize("field", ["url", "events"])
def test_a_change_may_not_null_the_url_or_the_events(field: str) -> None:
    with pytest.raises(ValidationError, match="may not be null"):
        WebhookUpdate.model_validate({field: None})
