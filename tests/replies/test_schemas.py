"""Saved replies as sent: limits counted as sent, placeholders checked, nulls refused on change."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.replies.schemas import ReplyCreate, ReplyUpdate


def test_a_reply_is_trimmed_and_its_placeholders_kept() -> None:
    reply = ReplyCreate.model_validate({"title": " Hi ", "body": " Dear {{ customer.name }} "})
    assert (reply.title, reply.body) == ("Hi", "Dear {{ customer.name }}")


@pytest.mark.parametrize("body", ["{{customer}}", "{{claim.id", "{{product.serial_number}}"])
def test_an_unknown_placeholder_is_a_field_error(body: str) -> None:
    with pytest.raises(ValidationError) as raised:
        ReplyCreate.model_validate({"title": "t", "body": body})
    assert raised.value.errors()[0]["loc"] == ("body",)
    with pytest.raises(ValidationError):
        ReplyUpdate.model_validate({"body": body})


def test_a_change_names_what_it_changes_and_refuses_null() -> None:
    assert ReplyUpdate.model_validate({"title": "New"}).model_fields_set == {"title"}
    for field in ("title", "body"):
        with pytest.raises(ValidationError):
            ReplyUpdate.model_validate({field: None})
