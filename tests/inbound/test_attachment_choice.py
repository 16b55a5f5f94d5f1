"""The one attachment an email may bring into a claim (app/inbound/attachment_choice.py): the first of an
allowed kind by its bytes (jpg, png, gif, pdf: no webp by email) within the size limit, named by its
bytes when its name has no extension, refused when its name or declared type says otherwise; the rest
ignored. Called directly, and through the webhook in each format."""

from __future__ import annotations

import base64

import httpx
import pytest
from fastapi import FastAPI

from app.inbound.attachment_choice import PickedAttachment, pick_attachment
from app.inbound.formats import InboundAttachment
from tests.conftest import SettingsFactory
from tests.factories.inbound import FORMATS, REPLY_TEXT, SECRETS, attachment_item, post_standard
from tests.inbound.support import CUSTOMER, build, make_claim, messages_of
from tests.support.images import image_bytes
from tests.support.pdf import PDF_BYTES

pytestmark = pytest.mark.settings(**SECRETS)
PNG = image_bytes()


def _item(name: str, data: bytes, content_type: str | None = None) -> InboundAttachment:
    return InboundAttachment(name, content_type, base64.encodebytes(data).decode())  # with line breaks


async def test_the_first_allowed_one_is_picked_named_and_typed_by_its_bytes(
    make_settings: SettingsFactory,
) -> None:
    items = [
        _item("notes.txt", b"plain text", "text/plain"),
        _item("photo.webp", image_bytes("WEBP"), "image/webp"),  # not by email
        InboundAttachment("scan.pdf", "application/pdf", None),  # metadata only: nothing to read
        InboundAttachment("broken.png", "image/png", "%%% not base64 %%%"),
        _item("empty.png", b"", "image/png"),
        _item("scan", PDF_BYTES, "application/octet-stream"),  # no extension, a generic type
        _item("photo.png", PNG, "image/png"),
    ]

    picked = await pick_attachment(items, make_settings())

    assert picked == PickedAttachment(PDF_BYTES, "scan.pdf", "application/pdf")


@pytest.mark.parametrize(
    ("name", "content_type"),
    [("invoice.pdf", "image/png"), ("photo.png", "application/pdf"), ("photo.jpg", None)],
    ids=["name lies", "type lies", "extension lies"],
)
async def test_a_name_or_type_that_contradicts_the_bytes_is_passed_over(
    make_settings: SettingsFactory, name: str, content_type: str | None
) -> None:
    liar = _item(name, PDF_BYTES if name.endswith("pdf") else PNG, content_type)
    # One is truthful about the other kind's bytes: it is picked instead.
    truthful = _item("photo.png", PNG, "image/png") if name.endswith("pdf") else _item("a.pdf", PDF_BYTES)

    picked = await pick_attachment([liar, truthful], make_settings())

    assert picked is not None and picked.file_name == truthful.file_name


async def test_one_over_the_limit_is_passed_over_and_fetched_bytes_are_judged_alike(
    make_settings: SettingsFactory,
) -> None:
    fetched = InboundAttachment("from-resend.png", "image/png", None, provider_id="att_1", data=PNG)
    exact = make_settings(max_inbound_attachment_size=len(PNG))
    smaller = make_settings(max_inbound_attachment_size=len(PNG) - 1)

    assert await pick_attachment([fetched], exact) == PickedAttachment(PNG, "from-resend.png", "image/png")
    assert await pick_attachment([fetched, _item("photo.png", PNG)], smaller) is None
    assert await pick_attachment([], exact) is None


@pytest.mark.parametrize("fmt", FORMATS)
async def test_the_first_allowed_attachment_is_kept(
    app: FastAPI, client: httpx.AsyncClient, fmt: str
) -> None:
    _customer, _supplier, claim = await make_claim(app)
    item_format = "postmark" if fmt == "postmark" else "provider"
    bad_base64 = attachment_item("broken.png", b"", "image/png", item_format)
    bad_base64["Content" if fmt == "postmark" else "content"] = "%%% not base64 %%%"
    attachments = [
        attachment_item("photo.webp", image_bytes("WEBP"), "image/webp", item_format),  # webp: not by email
        attachment_item("notes.txt", b"plain text", "text/plain", item_format),
        bad_base64,
        attachment_item(
            "liar.pdf", image_bytes(), "application/pdf", item_format
        ),  # name says pdf, bytes png
        attachment_item("crack.png", image_bytes(), "image/png", item_format),
        attachment_item("invoice.pdf", PDF_BYTES, "application/pdf", item_format),
    ]

    response = await post_standard(client, build(fmt, CUSTOMER, claim.id, attachments=attachments))

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.attachment_name, message.attachment_mime) == ("crack.png", "image/png")
    assert message.attachment_size == len(image_bytes())
    stored = await app.state.storage.read(message.attachment_key)
    assert stored == image_bytes()


async def test_an_attachment_alone_is_a_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)
    payload = build(
        "generic",
        CUSTOMER,
        claim.id,
        text="> only a quote\n",
        attachments=[
            {
                "filename": "scan",
                "contentType": "application/octet-stream",
                "content": base64.b64encode(PDF_BYTES).decode(),
            }
        ],
    )

    response = await post_standard(client, payload)

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_name, message.attachment_mime) == (
        "",
        "scan.pdf",
        "application/pdf",
    )


@pytest.mark.settings(**SECRETS, max_inbound_attachment_size=len(PDF_BYTES) - 1)
async def test_an_attachment_over_the_limit_is_ignored(app: FastAPI, client: httpx.AsyncClient) -> None:
    _customer, _supplier, claim = await make_claim(app)
    payload = build(
        "provider", CUSTOMER, claim.id, attachments=[attachment_item("a.pdf", PDF_BYTES, "application/pdf")]
    )

    response = await post_standard(client, payload)

    assert response.json()["status"] == "processed", response.text
    [message] = await messages_of(app, claim.id)
    assert (message.body, message.attachment_key) == (REPLY_TEXT, None)
