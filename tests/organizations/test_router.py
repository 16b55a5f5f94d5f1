"""Supplier organisations over HTTP: admins create, list, read, change and delete them (403 for anyone
else), a brand belongs to one organisation whatever its case or padding, members are ROLE_SUPPLIER users
in one organisation each, managers manage their own organisation's members (404 for another's), and a
member finds their organisation at /api/organizations/mine."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, OrganizationBrand
from app.models.enums import OrganizationRole, Role
from tests.factories.claims import create_claim
from tests.factories.organizations import add_org_member, create_organization
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, count_queries
from tests.organizations.steps import ADMIN_PATH, call, create, created_id

MANAGER, AGENT = OrganizationRole.MANAGER, OrganizationRole.AGENT
ORG_PATH = "/api/organizations"


# --- Organisations (admins)


async def test_an_admin_creates_an_organization(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)

    response = await create(
        app, client, admin, brands=["Saeco", "Gaggia"], email="service@gaggia.example.com"
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert response.headers["Location"] == f"{ADMIN_PATH}/{body['id']}"
    assert body == {
        "id": body["id"],
        "name": "Gaggia Service",
        "email": "service@gaggia.example.com",
        "brands": ["Gaggia", "Saeco"],
        "memberCount": 0,
        "firstResponseMinutes": 1440,  # the default deadlines, around the clock (contract 17.8)
        "resolutionMinutes": 7200,
        "businessHours": None,
        "createdAt": body["createdAt"],
        "updatedAt": body["updatedAt"],
    }
    assert body["createdAt"].endswith("+00:00")
    assert (await call(app, client, admin, "GET", response.headers["Location"])).json() == body


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", ADMIN_PATH, {"name": "Acme", "brands": []}),
        ("GET", ADMIN_PATH, None),
        ("GET", f"{ADMIN_PATH}/{{id}}", None),
        ("PATCH", f"{ADMIN_PATH}/{{id}}", {"name": "Mine now"}),
        ("DELETE", f"{ADMIN_PATH}/{{id}}", None),
        ("GET", f"{ADMIN_PATH}/{{id}}/members", None),
        ("POST", f"{ADMIN_PATH}/{{id}}/members", {"userId": 1, "role": "agent"}),
        ("GET", f"{ADMIN_PATH}/{{id}}/members/{{manager}}", None),
        ("PATCH", f"{ADMIN_PATH}/{{id}}/members/{{manager}}", {"role": "agent"}),
        ("DELETE", f"{ADMIN_PATH}/{{id}}/members/{{manager}}", None),
    ],
)
async def test_the_admin_paths_are_403_for_everyone_else(
    app: FastAPI, client: httpx.AsyncClient, method: str, path: str, body: object
) -> None:
    organization = await create_organization(app, "Gaggia Service", ["Gaggia"])
    manager = await create_supplier(app)
    await add_org_member(app, organization, manager, MANAGER)
    url = path.format(id=organization.id, manager=manager.id)

    for caller in (manager, await create_user(app), await create_supplier(app)):
        assert_error(await call(app, client, caller, method, url, body), 403, "FORBIDDEN")
    assert_error(await client.request(method, url), 401, "AUTH_REQUIRED")
    # Nothing changed.
    members = await call(
        app, client, await create_admin(app), "GET", f"{ADMIN_PATH}/{organization.id}/members"
    )
    assert [(m["userId"], m["role"]) for m in members.json()["data"]] == [(manager.id, "manager")]


async def test_the_list_is_every_organization_in_the_envelope(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    first = await create_organization(app, "First", ["b", "A"], email="first@example.com")
    second = await create_organization(app, "Second")
    await add_org_member(app, first, await create_supplier(app), MANAGER)
    await add_org_member(app, first, await create_supplier(app))

    body = (await call(app, client, admin, "GET", ADMIN_PATH)).json()

    assert [(item["id"], item["name"], item["brands"], item["memberCount"]) for item in body["data"]] == [
        (first.id, "First", ["A", "b"], 2),
        (second.id, "Second", [], 0),
    ]
    assert body["meta"]["total"] == 2 and body["meta"]["next_cursor"] is None
    assert body["links"]["first"] == f"{ADMIN_PATH}?page=1&limit=20"


async def test_the_list_pages_by_number_and_by_cursor(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    ids = [(await create_organization(app, f"Org {n}", [f"brand {n}"])).id for n in range(5)]

    second = (await call(app, client, admin, "GET", f"{ADMIN_PATH}?page=2&limit=2")).json()
    first = (await call(app, client, admin, "GET", f"{ADMIN_PATH}?limit=2")).json()
    after = (
        await call(app, client, admin, "GET", f"{ADMIN_PATH}?limit=2&cursor={first['meta']['next_cursor']}")
    ).json()

    assert [item["id"] for item in second["data"]] == ids[2:4] == [item["id"] for item in after["data"]]
    assert second["meta"]["total"] == 5 and second["meta"]["last_page"] == 3
    assert after["meta"]["current_page"] is None
    assert_error(
        await call(app, client, admin, "GET", f"{ADMIN_PATH}?limit=101"), 400, "VALIDATION_LIMIT_EXCEEDED"
    )
    assert_error(
        await call(app, client, admin, "GET", f"{ADMIN_PATH}?cursor=made-up"), 400, "VALIDATION_FAILED"
    )


async def _bulk(app: FastAPI, tag: str, count: int, brands: int, members: int) -> None:
    for n in range(count):
        organization = await create_organization(
            app, f"{tag} {n}", [f"{tag} {n} brand {b}" for b in range(brands)]
        )
        for _ in range(members):
            await add_org_member(app, organization, await create_supplier(app))


async def test_the_list_runs_the_same_statements_whatever_the_organizations_brands_and_members(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    headers = auth_headers(app, await create_admin(app))
    await _bulk(app, "few", 1, 1, 1)
    with count_queries(app) as few:
        small = await client.get(f"{ADMIN_PATH}?limit=100", headers=headers)
    await _bulk(app, "many", 11, 6, 3)
    with count_queries(app) as many:
        large = await client.get(f"{ADMIN_PATH}?limit=100", headers=headers)

    assert len(small.json()["data"]) == 1 and len(large.json()["data"]) == 12
    assert sum(len(item["brands"]) for item in large.json()["data"]) == 67
    assert len(few) == len(many) <= 5, many  # caller, count, page, brands, member counts


async def test_the_members_list_runs_the_same_statements_whatever_the_members(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    organization = await create_organization(app, "Gaggia Service", ["Gaggia"])
    manager = await create_supplier(app)
    await add_org_member(app, organization, manager, MANAGER)
    path = f"{ORG_PATH}/{organization.id}/members?limit=50"
    with count_queries(app) as few:
        small = await call(app, client, manager, "GET", path)
    for _ in range(20):
        await add_org_member(app, organization, await create_supplier(app))
    with count_queries(app) as many:
        large = await call(app, client, manager, "GET", path)

    assert len(small.json()["data"]) == 1 and len(large.json()["data"]) == 21
    assert len(few) == len(many) <= 4, many  # caller, membership, count, page


async def test_an_admin_changes_name_brands_and_email(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    created = (await create(app, client, admin, brands=["Gaggia", "Saeco"], email="a@example.com")).json()
    path = f"{ADMIN_PATH}/{created['id']}"

    renamed = await call(app, client, admin, "PATCH", path, {"name": "Gaggia Milano"})
    rebranded = await call(app, client, admin, "PATCH", path, {"brands": ["SAECO", " Krups "], "email": None})
    unchanged = await call(app, client, admin, "PATCH", path, {})

    assert renamed.status_code == 200 and renamed.json()["name"] == "Gaggia Milano"
    assert renamed.json()["brands"] == ["Gaggia", "Saeco"] and renamed.json()["email"] == "a@example.com"
    assert rebranded.status_code == 200, rebranded.text
    assert (rebranded.json()["brands"], rebranded.json()["email"]) == (["Krups", "SAECO"], None)
    assert rebranded.json()["updatedAt"] >= created["updatedAt"]
    assert unchanged.json() == rebranded.json()
    # A brand let go is free for another organisation.
    assert (await create(app, client, admin, name="Gaggia Spa", brands=["gaggia"])).status_code == 201


async def test_unknown_organizations_are_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    for organization_id in (999, 0, -1, 2**31, 10**30):
        path = f"{ADMIN_PATH}/{organization_id}"
        assert_error(await call(app, client, admin, "GET", path), 404, "NOT_FOUND")
        assert_error(await call(app, client, admin, "PATCH", path, {"name": "x"}), 404, "NOT_FOUND")
        assert_error(await call(app, client, admin, "DELETE", path), 404, "NOT_FOUND")
        assert_error(await call(app, client, admin, "GET", f"{path}/members"), 404, "NOT_FOUND")
        member = {"userId": admin.id, "role": "agent"}
        assert_error(await call(app, client, admin, "POST", f"{path}/members", member), 404, "NOT_FOUND")


async def test_deleting_an_organization_frees_its_brands_and_members_and_keeps_its_claims(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    organization = await create_organization(app, "Gaggia Service", ["Gaggia"])
    sam = await create_supplier(app)
    await add_org_member(app, organization, sam, MANAGER)
    claim = await create_claim(app, await create_product(app, await create_user(app)))
    async with app.state.sessionmaker() as session, session.begin():
        (await session.get(Claim, claim.id)).organization_id = organization.id  # type: ignore[union-attr]

    response = await call(app, client, admin, "DELETE", f"{ADMIN_PATH}/{organization.id}")

    assert response.status_code == 204 and response.content == b""
    assert_error(await call(app, client, admin, "GET", f"{ADMIN_PATH}/{organization.id}"), 404, "NOT_FOUND")
    assert_error(await call(app, client, sam, "GET", f"{ORG_PATH}/mine"), 404, "NOT_FOUND")
    async with app.state.sessionmaker() as session:
        assert (await session.get(Claim, claim.id)).organization_id is None  # type: ignore[union-attr]
        assert list(await session.scalars(select(OrganizationBrand))) == []
    other = await created_id(app, client, admin, name="Next", brands=["GAGGIA"])
    joined = await call(
        app, client, admin, "POST", f"{ADMIN_PATH}/{other}/members", {"userId": sam.id, "role": "agent"}
    )
    assert joined.status_code == 201, joined.text


# --- Brands: one organisation each


@pytest.mark.parametrize("again", ["Gaggia", "gaggia", "  GAGGIA ", "gAgGiA\t"])
async def test_a_brand_belongs_to_one_organization_whatever_its_case_and_padding(
    app: FastAPI, client: httpx.AsyncClient, again: str
) -> None:
    admin = await create_admin(app)
    first = await created_id(app, client, admin, name="First", brands=["Gaggia"])
    second = await created_id(app, client, admin, name="Second", brands=["Krups"])

    created = await create(app, client, admin, name="Third", brands=["Saeco", again])
    changed = await call(app, client, admin, "PATCH", f"{ADMIN_PATH}/{second}", {"brands": ["Krups", again]})

    for response in (created, changed):
        body = assert_error(response, 409, "BRAND_TAKEN")
        assert body["details"] == {"brands": [again.strip()]}
    listed = (await call(app, client, admin, "GET", ADMIN_PATH)).json()["data"]
    assert [(item["id"], item["brands"]) for item in listed] == [(first, ["Gaggia"]), (second, ["Krups"])]


async def test_an_organization_keeps_its_own_brand_in_another_spelling(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    organization_id = await created_id(app, client, admin, brands=["Gaggia", "Saeco"])

    response = await call(
        app, client, admin, "PATCH", f"{ADMIN_PATH}/{organization_id}", {"brands": ["GAGGIA", "Saeco"]}
    )

    assert response.status_code == 200 and response.json()["brands"] == ["GAGGIA", "Saeco"]


async def test_every_taken_brand_is_named(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    await created_id(app, client, admin, name="First", brands=["Gaggia", "Saeco"])

    response = await create(app, client, admin, name="Second", brands=["saeco", "Krups", "GAGGIA"])

    assert assert_error(response, 409, "BRAND_TAKEN")["details"] == {"brands": ["saeco", "GAGGIA"]}


# --- Members


async def test_an_admin_adds_changes_and_removes_members(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    organization_id = await created_id(app, client, admin)
    sam = await create_supplier(app, name="Sam", email="sam@example.com")
    path = f"{ADMIN_PATH}/{organization_id}/members"

    added = await call(app, client, admin, "POST", path, {"userId": sam.id, "role": "manager"})
    demoted = await call(app, client, admin, "PATCH", f"{path}/{sam.id}", {"role": "agent"})
    fetched = await call(app, client, admin, "GET", f"{path}/{sam.id}")
    removed = await call(app, client, admin, "DELETE", f"{path}/{sam.id}")

    assert added.status_code == 201, added.text
    assert added.headers["Location"] == f"{path}/{sam.id}"
    assert added.json() == {
        "userId": sam.id,
        "name": "Sam",
        "email": "sam@example.com",
        "role": "manager",
        "joinedAt": added.json()["joinedAt"],
    }
    assert demoted.status_code == 200 and demoted.json()["role"] == "agent"
    assert fetched.json() == demoted.json()
    assert removed.status_code == 204
    assert_error(await call(app, client, admin, "GET", f"{path}/{sam.id}"), 404, "NOT_FOUND")
    assert (await call(app, client, admin, "GET", path)).json()["data"] == []


async def test_only_users_with_role_supplier_may_be_members(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    organization_id = await created_id(app, client, admin)
    path = f"{ADMIN_PATH}/{organization_id}/members"
    customer = await create_user(app)

    for user_id in (customer.id, 999_999):
        response = await call(app, client, admin, "POST", path, {"userId": user_id, "role": "agent"})
        body = assert_error(response, 400, "NOT_A_SUPPLIER")
        assert body["details"] == {"fields": {"userId": "not a user with ROLE_SUPPLIER"}}
    # An admin holds ROLE_SUPPLIER by the hierarchy.
    other_admin = await create_admin(app)
    added = await call(app, client, admin, "POST", path, {"userId": other_admin.id, "role": "agent"})
    assert added.status_code == 201, added.text


async def test_a_user_belongs_to_one_organization(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    first = await created_id(app, client, admin, name="First")
    second = await created_id(app, client, admin, name="Second")
    sam = await create_supplier(app)
    join = {"userId": sam.id, "role": "agent"}
    assert (await call(app, client, admin, "POST", f"{ADMIN_PATH}/{first}/members", join)).status_code == 201

    again = await call(
        app, client, admin, "POST", f"{ADMIN_PATH}/{first}/members", {**join, "role": "manager"}
    )
    elsewhere = await call(app, client, admin, "POST", f"{ADMIN_PATH}/{second}/members", join)

    assert_error(again, 409, "ALREADY_MEMBER")
    assert_error(elsewhere, 409, "ALREADY_IN_ORGANIZATION")
    mine = (await call(app, client, sam, "GET", f"{ORG_PATH}/mine")).json()
    assert (mine["id"], mine["role"]) == (first, "agent")


async def test_managers_manage_the_members_of_their_own_organization(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    organization = await create_organization(app, "Gaggia Service", ["Gaggia"])
    manager, newcomer = await create_supplier(app), await create_supplier(app)
    await add_org_member(app, organization, manager, MANAGER)
    path = f"{ORG_PATH}/{organization.id}/members"

    added = await call(app, client, manager, "POST", path, {"userId": newcomer.id, "role": "agent"})
    promoted = await call(app, client, manager, "PATCH", f"{path}/{newcomer.id}", {"role": "manager"})
    listed = await call(app, client, manager, "GET", path)
    stepped_down = await call(app, client, manager, "PATCH", f"{path}/{manager.id}", {"role": "agent"})
    removed = await call(app, client, newcomer, "DELETE", f"{path}/{manager.id}")

    assert added.status_code == 201 and added.headers["Location"] == f"{path}/{newcomer.id}"
    assert promoted.status_code == 200 and promoted.json()["role"] == "manager"
    assert [(m["userId"], m["role"]) for m in listed.json()["data"]] == [
        (manager.id, "manager"),
        (newcomer.id, "manager"),
    ]
    assert stepped_down.status_code == 200 and stepped_down.json()["role"] == "agent"
    assert removed.status_code == 204
    assert_error(await call(app, client, manager, "GET", f"{ORG_PATH}/mine"), 404, "NOT_FOUND")


async def test_agents_read_the_members_and_may_change_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    organization = await create_organization(app, "Gaggia Service", ["Gaggia"])
    manager, agent, newcomer = (
        await create_supplier(app),
        await create_supplier(app),
        await create_supplier(app),
    )
    await add_org_member(app, organization, manager, MANAGER)
    await add_org_member(app, organization, agent, AGENT)
    path = f"{ORG_PATH}/{organization.id}/members"

    listed = await call(app, client, agent, "GET", path)
    one = await call(app, client, agent, "GET", f"{path}/{manager.id}")

    assert [m["userId"] for m in listed.json()["data"]] == [manager.id, agent.id]
    assert one.json()["role"] == "manager"
    for method, target, body in [
        ("POST", path, {"userId": newcomer.id, "role": "agent"}),
        ("PATCH", f"{path}/{agent.id}", {"role": "manager"}),
        ("DELETE", f"{path}/{manager.id}", None),
        ("DELETE", f"{path}/{agent.id}", None),  # members do not leave by themselves
    ]:
        assert_error(await call(app, client, agent, method, target, body), 403, "FORBIDDEN")


async def test_another_organization_is_404_to_managers_and_to_everyone_outside(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ours, theirs = (
        await create_organization(app, "Ours", ["A"]),
        await create_organization(app, "Theirs", ["B"]),
    )
    manager, their_agent, newcomer = (
        await create_supplier(app),
        await create_supplier(app),
        await create_supplier(app),
    )
    await add_org_member(app, ours, manager, MANAGER)
    await add_org_member(app, theirs, their_agent)
    path = f"{ORG_PATH}/{theirs.id}/members"

    for caller in (manager, newcomer, await create_user(app)):
        for method, target, body in [
            ("GET", path, None),
            ("POST", path, {"userId": newcomer.id, "role": "agent"}),
            ("GET", f"{path}/{their_agent.id}", None),
            ("PATCH", f"{path}/{their_agent.id}", {"role": "manager"}),
            ("DELETE", f"{path}/{their_agent.id}", None),
        ]:
            assert_error(await call(app, client, caller, method, target, body), 404, "NOT_FOUND")
    # A missing organisation looks the same.
    assert_error(await call(app, client, manager, "GET", f"{ORG_PATH}/999/members"), 404, "NOT_FOUND")
    # And a member of theirs is not one of ours.
    ours_path = f"{ORG_PATH}/{ours.id}/members/{their_agent.id}"
    assert_error(await call(app, client, manager, "PATCH", ours_path, {"role": "agent"}), 404, "NOT_FOUND")
    assert_error(await call(app, client, manager, "DELETE", ours_path), 404, "NOT_FOUND")


async def test_managers_keep_at_least_one_manager_and_admins_may_leave_none(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    organization = await create_organization(app, "Gaggia Service", ["Gaggia"])
    manager, agent = await create_supplier(app), await create_supplier(app)
    await add_org_member(app, organization, manager, MANAGER)
    await add_org_member(app, organization, agent, AGENT)
    path = f"{ORG_PATH}/{organization.id}/members/{manager.id}"

    assert_error(await call(app, client, manager, "PATCH", path, {"role": "agent"}), 409, "LAST_MANAGER")
    assert_error(await call(app, client, manager, "DELETE", path), 409, "LAST_MANAGER")
    same = await call(app, client, manager, "PATCH", path, {"role": "manager"})
    assert same.status_code == 200  # staying manager is no change

    admin = await create_admin(app)
    for prefix in (ADMIN_PATH, ORG_PATH):  # admins may use either path
        demoted = await call(
            app, client, admin, "PATCH", f"{prefix}/{organization.id}/members/{manager.id}", {"role": "agent"}
        )
        assert demoted.status_code == 200 and demoted.json()["role"] == "agent"
        promoted = await call(
            app,
            client,
            admin,
            "PATCH",
            f"{prefix}/{organization.id}/members/{manager.id}",
            {"role": "manager"},
        )
        assert promoted.status_code == 200
    assert (
        await call(app, client, admin, "DELETE", f"{ADMIN_PATH}/{organization.id}/members/{manager.id}")
    ).status_code == 204


async def test_mine_is_the_callers_organization_and_role(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization = await create_organization(
        app, "Gaggia Service", ["Saeco", "Gaggia"], email="s@example.com"
    )
    manager, agent = await create_supplier(app), await create_supplier(app)
    await add_org_member(app, organization, manager, MANAGER)
    await add_org_member(app, organization, agent, AGENT)

    as_manager = (await call(app, client, manager, "GET", f"{ORG_PATH}/mine")).json()
    as_agent = (await call(app, client, agent, "GET", f"{ORG_PATH}/mine")).json()

    assert as_manager == {
        "id": organization.id,
        "name": "Gaggia Service",
        "email": "s@example.com",
        "brands": ["Gaggia", "Saeco"],
        "memberCount": 2,
        "firstResponseMinutes": 1440,
        "resolutionMinutes": 7200,
        "businessHours": None,
        "createdAt": as_manager["createdAt"],
        "updatedAt": as_manager["updatedAt"],
        "role": "manager",
    }
    assert as_agent == {**as_manager, "role": "agent"}
    for outsider in (await create_supplier(app), await create_user(app), await create_admin(app)):
        assert_error(await call(app, client, outsider, "GET", f"{ORG_PATH}/mine"), 404, "NOT_FOUND")
    assert_error(await client.get(f"{ORG_PATH}/mine"), 401, "AUTH_REQUIRED")


async def test_a_member_who_loses_role_supplier_is_still_listed(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """The membership stays as it is when an admin takes ROLE_SUPPLIER away (docs/api.md)."""
    admin = await create_admin(app)
    organization = await create_organization(app, "Gaggia Service")
    sam = await create_supplier(app)
    await add_org_member(app, organization, sam)

    changed = await call(app, client, admin, "PATCH", f"/api/users/{sam.id}", {"roles": [Role.USER]})

    assert changed.status_code == 200, changed.text
    listed = await call(app, client, admin, "GET", f"{ADMIN_PATH}/{organization.id}/members")
    assert [m["userId"] for m in listed.json()["data"]] == [sam.id]


async def test_the_members_list_pages_by_cursor(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)
    organization = await create_organization(app, "Gaggia Service")
    people = [await create_supplier(app) for _ in range(5)]
    for person in people:
        await add_org_member(app, organization, person)
    path = f"{ADMIN_PATH}/{organization.id}/members?limit=2"

    seen, url = [], path
    while url:
        body = (await call(app, client, admin, "GET", url)).json()
        seen += [m["userId"] for m in body["data"]]
        url = body["links"]["next"]
        assert body["meta"]["total"] == 5

    assert seen == [person.id for person in people]
