from __future__ import annotations

from typing import Any

import pytest

from app.errors import ValidationFailed
from app.inbound.formats import NotAnEmail, claim_id_from, parse_payload
from tests.factories.inbound import attachment_item, generic, postmark, provider_event


def test_provider_event_is_read() -> None:
    payload = provider_event(
        "Ann Example <Ann@Example.com>",
        ['"Claims" <claim+7@warranty.local>', "other@example.com"],
        text="Hello",
        html="<p>Hello</p>",
        email_id="56761188-7520",
        message_id="abc",
        attachments=[attachment_item("a.png", b"\x89PNG", "image/png")],
    )

    email = parse_payload(payload)

    assert email.provider_email_id == "56761188-7520"
    assert email.message_id == "abc@mail.example.com"
    assert email.sender == "ann@example.com"
    assert email.recipients == ["claim+7@warranty.local", "other@example.com"]
    assert (email.subject, email.text, email.html) == (
        "Re: New message on your claim",
        "Hello",
        "<p>Hello</p>",
    )
    assert [(a.file_name, a.content_type, a.content) for a in email.attachments] == [
        ("a.png", "image/png", "iVBORw==")
    ]


def test_provider_event_alternatives_id_message_id_in_headers_and_header_list() -> None:
    payload = provider_event("ann@example.com", ["claim+7@warranty.local"])
    data = payload["data"]
    del data["email_id"], data["message_id"]
    data["id"] = "e-1"
    data["headers"] = [{"name": "Message-ID", "value": "<m-1@x>"}, {"name": "In-Reply-To", "value": "<n@y>"}]
    data["attachments"] = [{"filename": "b.pdf", "contentType": "application/pdf", "content": "JVBERi0="}]

    email = parse_payload(payload)

    assert (email.provider_email_id, email.message_id) == ("e-1", "m-1@x")
    assert email.headers["in-reply-to"] == "<n@y>"
    assert email.attachments[0].content_type == "application/pdf"


def test_resend_metadata_only_event_is_read_without_body() -> None:
    payload = {
        "type": "email.received",
        "created_at": "2026-02-22T23:41:12.126Z",
        "data": {
            "email_id": "56761188-7520-42d8-8898-ff6fc54ce618",
            "created_at": "2026-02-22T23:41:11.894719+00:00",
            "from": "Acme <onboarding@resend.dev>",
            "to": ["claim+3@warranty.local"],
            "bcc": [],
            "cc": [],
            "message_id": "<example+123>",
            "subject": "Sending this example",
            "attachments": [
                {
                    "id": "2a0c9ce0-3112-4728-976e-47ddcd16a318",
                    "filename": "avatar.png",
                    "content_type": "image/png",
                    "content_disposition": "inline",
                    "content_id": "img001",
                }
            ],
        },
    }

    email = parse_payload(payload)

    assert (email.text, email.html, email.message_id) == ("", "", "example+123")
    assert email.attachments[0].content is None


def test_other_provider_events_are_not_emails() -> None:
    with pytest.raises(NotAnEmail):
        parse_payload({"type": "email.delivered", "data": {}})


def test_postmark_is_read() -> None:
    payload = postmark(
        "ann@example.com",
        "claim+9@warranty.local",
        text="Hi",
        message_id="pm",
        attachments=[attachment_item("c.gif", b"GIF89a", "image/gif", fmt="postmark")],
    )

    email = parse_payload(payload)

    assert email.provider_email_id == payload["MessageID"]
    assert email.message_id == "pm@mail.example.com"
    assert (email.sender, email.recipients, email.text) == (
        "ann@example.com",
        ["claim+9@warranty.local"],
        "Hi",
    )
    assert email.headers["x-spam-status"] == "No"
    assert (email.attachments[0].file_name, email.attachments[0].content_type) == ("c.gif", "image/gif")


def test_generic_is_read_with_comma_separated_recipients() -> None:
    payload = generic(
        "Ann <ann@example.com>",
        "Bob <bob@example.com>, Claims <CLAIM+12@Warranty.Local>",
        text="Hi",
        headers={"Message-ID": "<g-1@x>", "Auto-Submitted": "no"},
    )

    email = parse_payload(payload)

    assert email.recipients == ["bob@example.com", "claim+12@warranty.local"]
    assert email.message_id == "g-1@x"
    assert email.headers["auto-submitted"] == "no"


def test_claim_id_comes_from_the_first_matching_recipient_in_any_case() -> None:
    recipients = [
        "bob@example.com",
        "claim+12@warranty.local.evil",
        "claim+5@warranty.local",
        "claim+6@warranty.local",
    ]

    assert claim_id_from(recipients, "warranty.local") == 5
    assert claim_id_from(["CLAIM+8@WARRANTY.LOCAL"], "Warranty.Local") == 8
    assert claim_id_from(["claim+x@warranty.local", "claim@warranty.local"], "warranty.local") is None


UNREADABLE: dict[str, Any] = {
    "array": [1, 2],
    "string": "hello",
    "null": None,
    "unknown-shape": {"subject": "hi"},
    "data-not-object": {"type": "email.received", "data": "x"},
    "to-number": generic("a@example.com", "x") | {"to": 5},
    "to-list-of-objects": generic("a@example.com", "x") | {"to": [{"email": "x"}]},
    "from-object": {"from": {"email": "a@example.com"}, "to": "claim+1@warranty.local"},
    "text-number": generic("a@example.com", "claim+1@warranty.local") | {"text": 5},
    "attachments-string": generic("a@example.com", "claim+1@warranty.local") | {"attachments": "x"},
    "attachments-of-strings": generic("a@example.com", "claim+1@warranty.local") | {"attachments": ["x"]},
    "headers-string": generic("a@example.com", "claim+1@warranty.local") | {"headers": "x"},
    "postmark-fromfull-string": postmark("a@example.com", "claim+1@warranty.local") | {"FromFull": "x"},
    "postmark-tofull-object": postmark("a@example.com", "claim+1@warranty.local")
    | {"ToFull": {"Email": "x"}},
}


@pytest.mark.parametrize("payload", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_unreadable_payloads_are_validation_errors(payload: object) -> None:
    with pytest.raises(ValidationFailed):
        parse_payload(payload)
