"""The base schemas (app/api/schemas.py): requests in camelCase with unknown fields refused, texts stripped
yet held to their length as sent, no NUL in any text; emails lower-cased and checked; answers in camelCase
with UTC timestamps."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Annotated

import pytest
from pydantic import Field, StringConstraints, ValidationError

from app.api.schemas import Email, IsoUtc, Password, RequestModel, ResponseModel


class Note(RequestModel):
    short_text: str = Field(max_length=5)
    tags: list[str] = []
    bounded: Annotated[str, StringConstraints(max_length=10)] = Field(default="", max_length=4)


class Signup(RequestModel):
    email: Email
    password: Password


class Answer(ResponseModel):
    claim_id: int
    created_at: IsoUtc


def _fields(model: type[RequestModel], body: dict[str, object]) -> dict[str, str]:
    with pytest.raises(ValidationError) as raised:
        model.model_validate(body)
    return {".".join(map(str, error["loc"])): error["msg"] for error in raised.value.errors()}


def test_requests_are_camel_case_stripped_and_closed() -> None:
    assert Note.model_validate({"shortText": " abc "}).short_text == "abc"
    assert _fields(Note, {"short_text": "abc"}) == {
        "shortText": "Field required",
        "short_text": "Extra inputs are not permitted",
    }


@pytest.mark.parametrize(
    ("text", "fits"), [("abcde", True), (" abc ", True), ("  abc  ", False), ("abcdef", False)]
)
def test_a_text_is_held_to_its_length_as_sent(text: str, fits: bool) -> None:
    """Padding that stripping would remove still counts: the document's maxLength is about what is sent."""
    if fits:
        assert Note.model_validate({"shortText": text}).short_text == text.strip()
    else:
        assert "shortText" in _fields(Note, {"shortText": text})


def test_the_smallest_of_several_limits_holds_and_a_field_without_one_is_free() -> None:
    assert Note.model_validate({"shortText": "a", "bounded": " ab "}).bounded == "ab"
    assert "bounded" in _fields(Note, {"shortText": "a", "bounded": "  abc  "})  # 7 sent: over 4, not 10
    assert Note.model_validate({"shortText": "a", "tags": ["y" * 10_000]}).tags == ["y" * 10_000]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"shortText": "a\x00b"}, "shortText"),
        ({"shortText": "a", "tags": ["fine", "not\x00fine"]}, "tags"),
        ({"shortText": "a", "bounded": "\x00"}, "bounded"),
    ],
)
def test_no_text_holds_a_nul(body: dict[str, object], field: str) -> None:
    assert _fields(Note, body) == {field: "Value error, must not contain NUL characters"}


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("Ann@Example.COM", "ann@example.com"),
        ("  ann+tag@mail.example.com ", "ann+tag@mail.example.com"),
        ("ann@bücher.example", "ann@bücher.example"),
        ("a.b-c@x-y.example.org", "a.b-c@x-y.example.org"),
    ],
)
def test_emails_are_lower_cased(given: str, stored: str) -> None:
    assert Signup.model_validate({"email": given, "password": "long enough"}).email == stored


@pytest.mark.parametrize(
    "given",
    [
        "ann",
        "ann@",
        "@example.com",
        "ann@example",
        "ann@-example.com",
        "ann@example-.com",
        "ann@exa_mple.com",
        "an n@example.com",
        "<ann@example.com>",
        "ann@@example.com",
        "a" * 250 + "@example.com",
    ],
)
def test_what_is_no_email_is_refused(given: str) -> None:
    assert _fields(Signup, {"email": given, "password": "long enough"}) == {
        "email": "Value error, not a valid email address"
    }


def test_a_password_keeps_its_spaces_and_needs_eight_characters() -> None:
    assert Signup.model_validate({"email": "a@b.example", "password": "  spaced  "}).password == "  spaced  "
    assert "password" in _fields(Signup, {"email": "a@b.example", "password": "short"})


def test_answers_are_camel_case_with_utc_timestamps() -> None:
    brussels = timezone(timedelta(hours=2))
    row = SimpleNamespace(claim_id=7, created_at=datetime(2026, 5, 1, 12, 30, 15, 999, tzinfo=brussels))

    answer = Answer.model_validate(row)

    assert answer.model_dump(by_alias=True, mode="json") == {
        "claimId": 7,
        "createdAt": "2026-05-01T10:30:15+00:00",
    }
    assert Answer(claim_id=1, created_at=row.created_at).claim_id == 1  # by name too
