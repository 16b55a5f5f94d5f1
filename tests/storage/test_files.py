"""Uploaded files are typed by their bytes (app.storage.files): the magic numbers name the kind, the name
and the declared type must agree with it, images are decoded to prove they are images, and a download
names its file in ASCII and exactly. (The names the service shows: tests/products/routes/test_receipts.py.)"""

from __future__ import annotations

import io

import pytest
from fastapi import UploadFile
from starlette.datastructures import Headers

from app.errors import PayloadTooLarge, UnsupportedMediaType
from app.storage.files import (
    GIF,
    JPG,
    PDF,
    PNG,
    WEBP,
    check_file,
    content_disposition,
    extension_of,
    read_upload,
    sniff,
)
from tests.support.images import image_bytes
from tests.support.pdf import PDF_BYTES

ALL = {"pdf", "jpg", "png", "gif", "webp"}
LIMITS = {"max_size": 1_000_000, "max_pixels": 1_000_000}


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (PDF_BYTES, PDF),
        (image_bytes("JPEG"), JPG),
        (image_bytes("PNG"), PNG),
        (image_bytes("GIF"), GIF),
        (image_bytes("WEBP"), WEBP),
        (b"GIF87a", GIF),
        (b"RIFF\x00\x00\x00\x00WAVE", None),  # RIFF, but sound
        (b"%PDF", None),
        (b"\x89PNG", None),
        (b"", None),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", None),
    ],
)
def test_the_kind_is_read_from_the_magic_numbers(data: bytes, kind: object) -> None:
    assert sniff(data) == kind


@pytest.mark.parametrize(
    ("name", "extension"),
    [("scan.PNG", "png"), ("photo.jpeg", "jpg"), ("photo.JPE", "jpg"), ("a.tar.gz", "gz"), ("blob", "")],
)
def test_the_extension_of_a_name_is_its_canonical_one(name: str, extension: str) -> None:
    assert extension_of(name) == extension


async def test_a_file_that_is_what_it_says_is_accepted() -> None:
    assert (
        await check_file(
            PDF_BYTES, allowed=ALL, file_name="Invoice.PDF", declared_mime="application/pdf", **LIMITS
        )
        == PDF
    )
    jpeg = image_bytes("JPEG")
    assert (
        await check_file(jpeg, allowed=ALL, file_name="me.jpeg", declared_mime="image/jpg", **LIMITS) == JPG
    )
    assert await check_file(jpeg, allowed={"jpg"}, declared_mime="IMAGE/PJPEG; q=1", **LIMITS) == JPG
    assert await check_file(PDF_BYTES, allowed={"pdf"}, **LIMITS) == PDF  # nothing said: the bytes decide


async def test_a_file_over_the_size_is_too_large_before_anything_else() -> None:
    with pytest.raises(PayloadTooLarge) as refused:
        await check_file(b"x" * 101, allowed=ALL, max_size=100, max_pixels=1)
    assert refused.value.details == {"maxBytes": 100}
    assert await check_file(PDF_BYTES, allowed=ALL, max_size=len(PDF_BYTES), max_pixels=1) == PDF


@pytest.mark.parametrize(
    ("data", "allowed", "name", "mime", "says"),
    [
        (image_bytes("GIF"), {"jpg", "png"}, None, None, "Allowed file types: jpg, png."),
        (b"plain text", ALL, None, None, "Allowed file types"),
        (PDF_BYTES, ALL, "photo.png", None, "The file name says .png but the file is pdf."),
        (image_bytes("PNG"), ALL, "scan", None, "The file name says . but the file is png."),
        (image_bytes("PNG"), ALL, None, "image/jpeg", "does not match the file (image/png)"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, ALL, None, None, "not a readable image"),  # a header, no image
    ],
)
async def test_a_file_that_is_not_what_it_says_is_unsupported(
    data: bytes, allowed: set[str], name: str | None, mime: str | None, says: str
) -> None:
    with pytest.raises(UnsupportedMediaType) as refused:
        await check_file(data, allowed=allowed, file_name=name, declared_mime=mime, **LIMITS)
    assert says in refused.value.message


async def test_an_image_over_the_pixels_is_too_large() -> None:
    with pytest.raises(PayloadTooLarge):
        await check_file(
            image_bytes("PNG", size=(100, 100)), allowed=ALL, max_size=1_000_000, max_pixels=9_999
        )


def _upload(data: bytes, name: str | None, mime: str | None) -> UploadFile:
    headers = Headers({"content-type": mime}) if mime else None
    return UploadFile(io.BytesIO(data), filename=name, headers=headers)


async def test_an_upload_holds_its_name_and_part_type_against_its_bytes_only_when_they_say_something() -> (
    None
):
    png = image_bytes("PNG")
    for name, mime in (
        ("blob", "application/octet-stream"),
        (None, None),
        ("x.png", ""),
        ("x.png", "image/png"),
    ):
        assert await read_upload(_upload(png, name, mime), allowed=ALL, **LIMITS) == (png, PNG)
    for name, mime in (("x.pdf", None), ("blob", "application/pdf")):
        with pytest.raises(UnsupportedMediaType):
            await read_upload(_upload(png, name, mime), allowed=ALL, **LIMITS)


async def test_an_upload_is_read_one_byte_past_the_limit_at_most() -> None:
    upload = _upload(PDF_BYTES + b"\n" * 10_000, "big.pdf", "application/pdf")
    with pytest.raises(PayloadTooLarge):
        await read_upload(upload, allowed=ALL, max_size=len(PDF_BYTES), max_pixels=1)
    assert upload.file.tell() == len(PDF_BYTES) + 1


@pytest.mark.parametrize(
    ("name", "header"),
    [
        ("receipt.pdf", "attachment; filename=\"receipt.pdf\"; filename*=UTF-8''receipt.pdf"),
        (
            "Rechnung März.pdf",
            "attachment; filename=\"Rechnung M_rz.pdf\"; filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf",
        ),
        ('a"b;c\\d.pdf', "attachment; filename=\"a_b_c_d.pdf\"; filename*=UTF-8''a%22b%3Bc%5Cd.pdf"),
    ],
)
def test_a_download_names_its_file_in_ascii_and_exactly(name: str, header: str) -> None:
    assert content_disposition(name) == header
