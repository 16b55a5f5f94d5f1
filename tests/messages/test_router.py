"""The messages API's routes (app/messages/router.py): sending (201, its `Location`, what a body may hold),
404 for a claim the caller may not see, a claim's list on both its paths, one message, an attachment's
download with its headers, and the admin's list for admins only."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from tests.factories.claims import attachment, claim_cast, create_message
from tests.factories.users import auth_headers
from tests.helpers import assert_error
from tests.messages.support import SENT_AT, SENT_ISO, events, outbox, stored_messages
from tests.support.images import image_bytes
from tests.support.pdf import PDF_BYTES


async def test_customer_sends_a_message(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    headers = auth_headers(app, cast.customer)
    with frozen_time(SENT_AT):
        response = await client.post(
            f"/api/claims/{cast.claim.id}/messages", json={"message": "  It still leaks.  "}, headers=headers
        )

    assert response.status_code == 201, response.text
    body = response.json()
    [stored] = await stored_messages(app)
    assert body == {
        "id": str(stored.id),
        "senderId": str(cast.customer.id),
        "senderName": "Ann Customer",
        "senderEmail": cast.customer.email,
        "message": "It still leaks.",
        "createdAt": SENT_ISO,
        "isRead": False,
        "readAt": None,
    }
    assert response.headers["location"] == f"/api/claims/{cast.claim.id}/messages/{stored.id}"
    one = await client.get(response.headers["location"], headers=auth_headers(app, cast.customer))
    assert one.json()["message"] == "It still leaks."


async def test_outsiders_cannot_send_and_learn_nothing(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    for user in (cast.outsider, cast.other_supplier):
        response = await client.post(
            f"/api/claims/{cast.claim.id}/messages", json={"message": "Hi"}, headers=auth_headers(app, user)
        )
        assert_error(response, 404, "NOT_FOUND")
    missing = await client.post(
        "/api/claims/999999/messages", json={"message": "Hi"}, headers=auth_headers(app, cast.outsider)
    )
    assert missing.json() == response.json()
    assert await stored_messages(app) == [] and await events(app) == [] and await outbox(app) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "message"),
        ({"message": None, "attachment": None}, "message"),
        ({"message": "   "}, "message"),
        ({"message": "x" * 10_001}, "message"),
        ({"message": "hi", "colour": "red"}, "colour"),
        ({"attachment": {"dataUrl": "not base64!", "fileName": "a.png"}}, "attachment.dataUrl"),
        ({"attachment": {"dataUrl": "data:image/png,abc", "fileName": "a.png"}}, "attachment.dataUrl"),
        ({"attachment": attachment(image_bytes(), "a.png", "image/png", size=3)}, "attachment.size"),
    ],
)
async def test_invalid_messages_are_400(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages", json=body, headers=auth_headers(app, cast.customer)
    )
    error = assert_error(response, 400, "VALIDATION_FAILED")
    assert field in error["details"]["fields"], error
    assert await stored_messages(app) == [] and await events(app) == []


@pytest.mark.parametrize(
    ("data", "name", "mime"),
    [
        (image_bytes(), "photo.png", "image/png"),
        (image_bytes("JPEG"), "Foto ä.JPEG", "image/jpeg"),
        (PDF_BYTES, "bill.pdf", "application/pdf"),
    ],
)
async def test_attachment_round_trip(
    app: FastAPI, client: httpx.AsyncClient, data: bytes, name: str, mime: str
) -> None:
    cast = await claim_cast(app)
    sent = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"attachment": attachment(data, name, mime)},
        headers=auth_headers(app, cast.customer),
    )
    assert sent.status_code == 201, sent.text
    assert "attachment" not in sent.json()
    url = f"/api/claims/{cast.claim.id}/messages/{sent.json()['id']}/attachment"
    [listed] = (
        await client.get(f"/api/claims/{cast.claim.id}/messages", headers=auth_headers(app, cast.supplier))
    ).json()
    assert listed["message"] == ""
    assert listed["attachment"] == {"filename": name, "mimeType": mime, "size": len(data), "url": url}

    for user in (cast.customer, cast.supplier, cast.admin):
        download = await client.get(url, headers=auth_headers(app, user))
        assert download.status_code == 200
        assert download.content == data
        assert download.headers["content-type"] == mime
        assert download.headers["content-disposition"].startswith("attachment;")
        assert download.headers["x-content-type-options"] == "nosniff"
    for user in (cast.outsider, cast.other_supplier):
        assert_error(await client.get(url, headers=auth_headers(app, user)), 404, "NOT_FOUND")


async def test_attachment_of_a_message_without_one_is_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    sent = await client.post(
        f"/api/claims/{cast.claim.id}/messages",
        json={"message": "text only"},
        headers=auth_headers(app, cast.customer),
    )
    url = f"/api/claims/{cast.claim.id}/messages/{sent.json()['id']}/attachment"
    assert_error(await client.get(url, headers=auth_headers(app, cast.customer)), 404, "NOT_FOUND")


async def test_null_message_with_an_attachment(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    body = {"message": None, "attachment": attachment(PDF_BYTES, "bill.pdf", "application/pdf")}
    response = await client.post(
        f"/api/claims/{cast.claim.id}/messages", json=body, headers=auth_headers(app, cast.customer)
    )
    assert response.status_code == 201, response.text
    assert response.json()["message"] == ""


async def test_the_list_is_oldest_first_with_pages_on_both_paths(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_cast(app)
    ids = [(await create_message(app, cast.claim, cast.customer, f"m{n}")).id for n in range(5)]
    headers = auth_headers(app, cast.supplier)
    for path in (f"/api/claims/{cast.claim.id}/messages", f"/api/claims/messages/{cast.claim.id}"):
        everything = (await client.get(path, headers=headers)).json()
        assert [item["id"] for item in everything] == [str(i) for i in ids]
        page = (await client.get(f"{path}?page=2&limit=2", headers=headers)).json()
        assert [item["id"] for item in page["data"]] == [str(ids[2]), str(ids[3])]
        assert page["meta"]["total"] == 5 and page["meta"]["last_page"] == 3
        assert page["links"]["next"] == f"{path}?page=3&limit=2"
        assert_error(await client.get(f"{path}?limit=0", headers=headers), 400, "VALIDATION_INVALID_LIMIT")


async def test_admin_list_is_for_admins(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_cast(app)
    for user in (cast.customer, cast.supplier):
        assert_error(await client.get("/api/messages", headers=auth_headers(app, user)), 403, "FORBIDDEN")
    assert_error(await client.get("/api/messages"), 401, "AUTH_REQUIRED")
