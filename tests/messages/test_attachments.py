"""An attachment as the send endpoint receives it (app/messages/attachments.py): a base64 data URL or bare
base64, decoded and checked against the `size` and `mimeType` the client declares (400, 415), and refused
by the length of its text alone when it cannot fit (413); through the endpoint and called directly."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.errors import PayloadTooLarge, UnsupportedMediaType, ValidationFailed
from app.messages.attachments import decode_attachment
from app.messages.schemas import AttachmentIn
from tests.factories.claims import attachment, claim_cast
from tests.factories.users import auth_headers
from tests.helpers import assert_error
from tests.support.pdf import PDF_BYTES

DATA = b"\x89PNG\r\n\x1a\n any bytes: the kind is checked when posting"
ENCODED = base64.b64encode(DATA).decode()


def _decoded(
    data_url: str, *, max_size: int = 1000, mime_type: str | None = None, size: int | None = None
) -> Any:
    sent = {"dataUrl": data_url, "fileName": "photo.png", "mimeType": mime_type, "size": size}
    return decode_attachment(AttachmentIn.model_validate(sent), max_size)


def test_a_data_url_gives_its_bytes_and_its_type() -> None:
    upload = _decoded(f"data:image/png;base64,{ENCODED}")

    assert (upload.data, upload.file_name, upload.mime_type) == (DATA, "photo.png", "image/png")


def test_bare_base64_with_line_breaks_is_read_and_the_declared_type_kept() -> None:
    wrapped = "\n".join(ENCODED[i : i + 16] for i in range(0, len(ENCODED), 16))

    upload = _decoded(f"  {wrapped}\r\n", mime_type="image/png", size=len(DATA))

    assert (upload.data, upload.mime_type) == (DATA, "image/png")
    assert _decoded(ENCODED).mime_type is None


def test_the_data_url_and_the_declared_type_may_name_one_type_differently() -> None:
    upload = _decoded(f"DATA:Image/JPG;charset=x;BASE64,{ENCODED}", mime_type="image/pjpeg")

    assert upload.data == DATA and upload.mime_type == "image/pjpeg"


@pytest.mark.parametrize(
    ("data_url", "fields", "field"),
    [
        (f"data:image/png,{ENCODED}", {}, "attachment.dataUrl"),  # not base64
        (f"data:image/png;base64{ENCODED}", {}, "attachment.dataUrl"),  # no comma
        ("not base64!", {}, "attachment.dataUrl"),
        ("QUJD!", {}, "attachment.dataUrl"),  # a lax decoder would drop the "!" and answer b"ABC"
        ("data:image/png;base64,", {}, "attachment.dataUrl"),  # empty
        (ENCODED, {"size": len(DATA) + 1}, "attachment.size"),
    ],
    ids=["not base64 url", "no comma", "not base64", "stray character", "empty", "wrong size"],
)
def test_what_cannot_be_read_or_is_not_the_declared_size_is_400(
    data_url: str, fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationFailed) as refused:
        _decoded(data_url, **fields)

    assert field in str(refused.value.details)


def test_a_data_url_and_a_declared_type_that_disagree_are_415() -> None:
    with pytest.raises(UnsupportedMediaType):
        _decoded(f"data:application/pdf;base64,{ENCODED}", mime_type="image/png")


def test_text_longer_than_the_limit_can_encode_is_413_before_decoding() -> None:
    limit = len(DATA) - 1

    with pytest.raises(PayloadTooLarge) as refused:
        _decoded("!" * (len(ENCODED) + 8), max_size=limit)  # not even base64: refused by its length

    assert refused.value.details == {"maxBytes": limit}
    assert _decoded(ENCODED, max_size=len(DATA)).data == DATA


async def test_bare_base64_and_text_with_attachment(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    body = {
        "message": "See the bill",
        "attachment": {"dataUrl": base64.b64encode(PDF_BYTES).decode(), "fileName": "bill.pdf"},
    }
    sent = await client.post(
        f"/api/claims/{cast.claim.id}/messages", json=body, headers=auth_headers(app, cast.customer)
    )
    assert sent.status_code == 201, sent.text
    download = await client.get(
        f"/api/claims/{cast.claim.id}/messages/{sent.json()['id']}/attachment",
        headers=auth_headers(app, cast.customer),
    )
    assert download.content == PDF_BYTES and download.headers["content-type"] == "application/pdf"


@pytest.mark.settings(max_attachment_size=100)
async def test_too_large_attachment_is_413(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"attachment": attachment(PDF_BYTES + b"%" * 200, "big.pdf", "application/pdf")},
        headers=auth_headers(app, cast.customer),
    )
    assert_error(response, 413, "PAYLOAD_TOO_LARGE")
