"""What the households API takes and answers on the wire: names of 1 to 200 characters once trimmed,
roles by their names, nothing else in a body, and the OpenAPI document saying so with examples."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.users import auth_headers, create_user
from tests.helpers import assert_error
from tests.households.steps import create_household


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("Home", "Home"), ("  Home \t", "Home"), ("x" * 200, "x" * 200), ("Chez nous ☕", "Chez nous ☕")],
)
async def test_names_are_trimmed_and_up_to_200_characters(
    app: FastAPI, client: httpx.AsyncClient, sent: str, kept: str
) -> None:
    ann = await create_user(app)
    created = await client.post("/api/households", json={"name": sent}, headers=auth_headers(app, ann))
    assert created.status_code == 201 and created.json()["name"] == kept
    path = f"/api/households/{created.json()['id']}"
    renamed = await client.patch(path, json={"name": sent}, headers=auth_headers(app, ann))
    assert renamed.status_code == 200 and renamed.json()["name"] == kept


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 201},
        {"name": " " + "x" * 200},  # the limit counts the name as sent
        {"name": "a\x00b"},
        {"name": 42},
        {"name": None},
        {"name": "Home", "ownerId": 1},
    ],
)
async def test_bad_names_are_400(app: FastAPI, client: httpx.AsyncClient, body: dict[str, object]) -> None:
    ann = await create_user(app)
    household_id = await create_household(app, client, ann)

    created = await client.post("/api/households", json=body, headers=auth_headers(app, ann))
    renamed = await client.patch(f"/api/households/{household_id}", json=body, headers=auth_headers(app, ann))

    assert_error(created, 400, "VALIDATION_FAILED")
    if body:  # an empty PATCH changes nothing and is fine
        assert_error(renamed, 400, "VALIDATION_FAILED")


async def test_malformed_json_is_400(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await create_user(app)
    headers = {**auth_headers(app, ann), "Content-Type": "application/json"}

    response = await client.post("/api/households", content=b'{"name": ', headers=headers)

    assert_error(response, 400, "MALFORMED_JSON")


async def test_the_document_shows_the_households_api_with_examples(client: httpx.AsyncClient) -> None:
    document = (await client.get("/api/openapi.json")).json()
    paths = document["paths"]

    assert set(paths["/api/households"]) == {"get", "post"}
    assert set(paths["/api/households/{id}"]) == {"get", "patch", "delete"}
    assert set(paths["/api/households/{id}/invitations"]) == {"get", "post"}
    assert set(paths["/api/households/{id}/invitations/{invitationId}"]) == {"delete"}
    assert set(paths["/api/households/{id}/members/{userId}"]) == {"patch", "delete"}
    assert set(paths["/api/invitations/{token}/accept"]) == {"post"}
    created = paths["/api/households"]["post"]["responses"]["201"]["content"]["application/json"]
    assert created["example"]["name"] == "The Smiths" and created["example"]["members"][0]["role"] == "owner"
    schemas = document["components"]["schemas"]
    assert schemas["HouseholdInvitationCreate"]["properties"]["role"]["enum"] == ["member", "viewer"]
    assert schemas["HouseholdRoleChange"]["properties"]["role"]["enum"] == ["owner", "member", "viewer"]
    assert schemas["HouseholdCreate"]["properties"]["name"]["maxLength"] == 200
    assert "409" in paths["/api/households/{id}/members/{userId}"]["delete"]["responses"]
