"""What the organisations API takes and answers on the wire: names of 1 to 200 characters and brands of 1
to 100 once trimmed (limits counting the text as sent), at most 200 brands, repeats counted once, an
optional email, roles by their names, nothing else in a body; and the OpenAPI document saying so with
examples."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.users import create_admin, create_supplier
from tests.helpers import assert_error
from tests.organizations.steps import ADMIN_PATH, call, create, created_id


async def test_names_and_brands_are_trimmed_and_repeats_count_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)

    response = await create(
        app,
        client,
        admin,
        name="  Gaggia Service\t",
        brands=[" Saeco ", "gaggia", "GAGGIA ", "saeco", "Krups"],
    )

    assert response.status_code == 201, response.text
    body = response.json()
    # The first spelling of each brand is kept; the answer lists them alphabetically, ignoring case.
    assert (body["name"], body["brands"]) == ("Gaggia Service", ["gaggia", "Krups", "Saeco"])


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("x" * 100, "x" * 100), ("Caffè ☕", "Caffè ☕"), ("De'Longhi", "De'Longhi"), ("Ä" * 100, "Ä" * 100)],
)
async def test_brands_of_up_to_100_characters_are_kept_as_written(
    app: FastAPI, client: httpx.AsyncClient, sent: str, kept: str
) -> None:
    response = await create(app, client, await create_admin(app), brands=[sent])
    assert response.status_code == 201 and response.json()["brands"] == [kept]


@pytest.mark.parametrize(
    "body",
    [
        {"brands": []},  # no name
        {"name": "Acme"},  # no brands: the list is required (it may be empty)
        {"name": "", "brands": []},
        {"name": "   ", "brands": []},
        {"name": "x" * 201, "brands": []},
        {"name": " " + "x" * 200, "brands": []},  # the limit counts the name as sent
        {"name": "Acme", "brands": None},
        {"name": "Acme", "brands": "Acme"},
        {"name": "Acme", "brands": [""]},
        {"name": "Acme", "brands": ["   "]},
        {"name": "Acme", "brands": ["x" * 101]},
        {"name": "Acme", "brands": [" " + "x" * 100]},
        {"name": "Acme", "brands": ["İ" * 100]},  # lower-cased, it would not fit its key
        {"name": "Acme", "brands": [f"b{n}" for n in range(201)]},
        {"name": "Acme", "brands": [42]},
        {"name": "Acme", "brands": ["a\x00b"]},
        {"name": "Acme", "brands": [], "email": "not an email"},
        {"name": "Acme", "brands": [], "email": ""},
        {"name": "Acme", "brands": [], "members": []},
    ],
)
async def test_bad_organizations_are_400(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object]
) -> None:
    admin = await create_admin(app)
    organization_id = await created_id(app, client, admin)

    created = await call(app, client, admin, "POST", ADMIN_PATH, body)
    changed = await call(app, client, admin, "PATCH", f"{ADMIN_PATH}/{organization_id}", body)

    assert_error(created, 400, "VALIDATION_FAILED")
    if len(body) > 1:  # a name alone or brands alone are a good PATCH
        assert_error(changed, 400, "VALIDATION_FAILED")
    else:
        assert changed.status_code == 200, changed.text


async def test_200_brands_are_accepted(app: FastAPI, client: httpx.AsyncClient) -> None:
    brands = [f"Brand {n:03}" for n in range(200)]
    response = await create(app, client, await create_admin(app), brands=brands)
    assert response.status_code == 201 and response.json()["brands"] == brands


async def test_the_email_is_optional_and_lower_cased(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    without = await create(app, client, admin, name="A")
    with_email = await create(app, client, admin, name="B", email=" Service@Gaggia.Example.COM ")
    assert without.json()["email"] is None
    assert with_email.json()["email"] == "service@gaggia.example.com"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"userId": 1},
        {"role": "agent"},
        {"userId": "x", "role": "agent"},
        {"userId": 0, "role": "agent"},
        {"userId": 2**31, "role": "agent"},
        {"userId": 1, "role": "owner"},
        {"userId": 1, "role": "agent", "x": 1},
    ],
)
async def test_bad_member_bodies_are_400(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object]
) -> None:
    admin = await create_admin(app)
    organization_id = await created_id(app, client, admin)

    response = await call(app, client, admin, "POST", f"{ADMIN_PATH}/{organization_id}/members", body)

    assert_error(response, 400, "VALIDATION_FAILED")


@pytest.mark.parametrize("body", [{}, {"role": "owner"}, {"role": None}, {"role": "agent", "userId": 3}])
async def test_bad_role_changes_are_400(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object]
) -> None:
    admin = await create_admin(app)
    organization_id = await created_id(app, client, admin)
    sam = await create_supplier(app)
    path = f"{ADMIN_PATH}/{organization_id}/members"
    assert (
        await call(app, client, admin, "POST", path, {"userId": sam.id, "role": "agent"})
    ).status_code == 201

    assert_error(await call(app, client, admin, "PATCH", f"{path}/{sam.id}", body), 400, "VALIDATION_FAILED")


@pytest.mark.parametrize(
    "path",
    [f"{ADMIN_PATH}/abc", f"{ADMIN_PATH}/1.0", f"{ADMIN_PATH}/1/members/x", "/api/organizations/x/members"],
)
async def test_ids_that_are_not_digits_are_400(app: FastAPI, client: httpx.AsyncClient, path: str) -> None:
    response = await call(app, client, await create_admin(app), "GET", path)
    assert_error(response, 400, "VALIDATION_FAILED")


async def test_the_document_shows_the_organizations_api_with_examples(client: httpx.AsyncClient) -> None:
    document = (await client.get("/api/openapi.json")).json()
    paths = document["paths"]

    assert set(paths[ADMIN_PATH]) == {"get", "post"}
    assert set(paths[f"{ADMIN_PATH}/{{id}}"]) == {"get", "patch", "delete"}
    for prefix in (ADMIN_PATH, "/api/organizations"):
        assert set(paths[f"{prefix}/{{id}}/members"]) == {"get", "post"}
        assert set(paths[f"{prefix}/{{id}}/members/{{userId}}"]) == {"get", "patch", "delete"}
    assert set(paths["/api/organizations/mine"]) == {"get"}
    assert paths[f"{ADMIN_PATH}/{{id}}/members"]["post"]["operationId"] == "adminAddOrganizationMember"
    assert paths["/api/organizations/{id}/members"]["post"]["operationId"] == "addOrganizationMember"
    created = paths[ADMIN_PATH]["post"]["responses"]["201"]["content"]["application/json"]["example"]
    assert created["brands"] == ["Gaggia", "Saeco"] and created["memberCount"] == 12
    mine = paths["/api/organizations/mine"]["get"]["responses"]["200"]["content"]["application/json"]
    assert mine["example"]["role"] == "manager"
    schemas = document["components"]["schemas"]
    assert schemas["MemberAdd"]["properties"]["role"]["enum"] == ["manager", "agent"]
    assert schemas["OrganizationCreate"]["properties"]["brands"]["maxItems"] == 200
    assert schemas["OrganizationCreate"]["properties"]["brands"]["items"]["maxLength"] == 100
    assert schemas["OrganizationCreate"]["required"] == ["name", "brands"]
    update = schemas["OrganizationUpdate"]["properties"]
    assert update["name"]["type"] == "string" and update["brands"]["type"] == "array"  # null is refused
    assert {"type": "null"} in update["email"]["anyOf"]  # null removes the email
