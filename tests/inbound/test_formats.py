"""The three inbound formats (app/inbound/formats.py): provider events, Postmark's inbound JSON and the
generic shape, read into one email; the claim a reply is for, from its recipients or Postmark's
MailboxHash, its id refused by its length rather than converted; and what is not a readable email."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.ids import MAX_ID
from app.errors import ValidationFailed
from app.inbound.formats import NotAnEmail, claim_id_from, parse_payload
from tests.factories.inbound import SECRETS, attachment_item, generic, post_provider, postmark, provider_event
from tests.inbound.support import CUSTOMER, LONG, bodies_of, new_claim


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


# --- Claim ids: refused by their length, never converted past the largest id


def test_a_claim_id_longer_than_the_largest_id_is_out_of_range_without_converting_it() -> None:
    address = f"claim+{LONG}@warranty.local"

    found = claim_id_from([address], "warranty.local")

    assert found is not None and found > MAX_ID
    assert claim_id_from([f"claim+{MAX_ID}@warranty.local"], "warranty.local") == MAX_ID
    assert claim_id_from(["claim+0000000042@warranty.local"], "warranty.local") == 42
    assert claim_id_from([], "warranty.local", mailbox_hash=LONG) == found


def test_a_claim_id_in_other_digits_than_ascii_is_no_claim_address() -> None:
    assert claim_id_from(["claim+\u0664\u0662@warranty.local"], "warranty.local") is None  # Arabic-Indic 42
    assert claim_id_from([], "warranty.local", mailbox_hash="\u0664\u0662") is None


@pytest.mark.settings(**SECRETS)
@pytest.mark.parametrize("digits", [LONG, "9" * 20])
@pytest.mark.parametrize("where", ["recipient", "mailbox-hash"])
async def test_a_claim_id_of_too_many_digits_is_an_unknown_claim_over_http(
    app: FastAPI, client: httpx.AsyncClient, digits: str, where: str
) -> None:
    claim = await new_claim(app)
    if where == "recipient":
        payload = postmark(CUSTOMER, f"claim+{digits}@warranty.local")
    else:
        payload = postmark(CUSTOMER, "inbound@example.com") | {"MailboxHash": digits}

    response = await post_provider(client, payload, provider="postmark")

    assert response.status_code == 404, response.text
    assert response.json()["code"] == "NOT_FOUND"
    assert await bodies_of(app, claim.id) == []
