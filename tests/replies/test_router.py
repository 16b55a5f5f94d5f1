"""Saved replies over HTTP: an organisation's managers write them, its agents read them, admins do both,
anyone else gets 404; bodies are checked for their placeholders when saved; the list is the envelope in a
fixed number of statements."""

from __future__ import annotations

import time

import httpx
import pytest
from fastapi import FastAPI

from app.models import User
from app.models.enums import OrganizationRole
from tests.claims.routed import staffed_organization
from tests.factories.organizations import create_organization
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error, count_queries
from tests.replies.support import replies_path, save_reply

BODY = "Hello {{customer.name}}, your {{ product.name }} is on its way. {{agent.name}}"


async def _call(
    app: FastAPI, client: httpx.AsyncClient, user: User, method: str, path: str, body: object = None
) -> httpx.Response:
    return await client.request(method, path, json=body, headers=auth_headers(app, user))


async def test_a_manager_saves_reads_changes_and_deletes_a_reply(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    organization, manager, _ = await staffed_organization(app, "Acme Service", ["Acme"], agents=0)

    created = await _call(
        app, client, manager, "POST", replies_path(organization), {"title": " Shipped ", "body": BODY}
    )

    assert created.status_code == 201, created.text
    reply = created.json()
    assert reply == {
        "id": reply["id"],
        "organizationId": organization.id,
        "title": "Shipped",
        "body": BODY,
        "createdAt": reply["createdAt"],
        "updatedAt": reply["updatedAt"],
    }
    location = created.headers["Location"]
    assert location == f"{replies_path(organization)}/{reply['id']}"
    assert (await _call(app, client, manager, "GET", location)).json() == reply

    changed = await _call(app, client, manager, "PATCH", location, {"body": "Thanks, {{customer.name}}."})
    assert changed.status_code == 200, changed.text
    assert changed.json()["title"] == "Shipped" and changed.json()["body"] == "Thanks, {{customer.name}}."

    assert (await _call(app, client, manager, "DELETE", location)).status_code == 204
    assert_error(await _call(app, client, manager, "GET", location), 404, "NOT_FOUND")


async def test_agents_read_but_do_not_write(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization, manager, (agent,) = await staffed_organization(app, "Acme Service", ["Acme"], agents=1)
    reply = await save_reply(app, client, manager, organization, BODY)
    one = f"{replies_path(organization)}/{reply['id']}"

    listed = await _call(app, client, agent, "GET", replies_path(organization))
    assert listed.status_code == 200 and [item["id"] for item in listed.json()["data"]] == [reply["id"]]
    assert (await _call(app, client, agent, "GET", one)).status_code == 200
    assert_error(
        await _call(app, client, agent, "POST", replies_path(organization), {"title": "t", "body": "b"}),
        403,
        "FORBIDDEN",
    )
    assert_error(await _call(app, client, agent, "PATCH", one, {"title": "Mine"}), 403, "FORBIDDEN")
    assert_error(await _call(app, client, agent, "DELETE", one), 403, "FORBIDDEN")


@pytest.mark.parametrize(
    ("method", "tail", "body"),
    [
        ("GET", "", None),
        ("POST", "", {"title": "t", "body": "b"}),
        ("GET", "/{reply}", None),
        ("PATCH", "/{reply}", {"title": "t"}),
        ("DELETE", "/{reply}", None),
    ],
)
async def test_another_organizations_members_and_other_users_get_404(
    app: FastAPI, client: httpx.AsyncClient, method: str, tail: str, body: object
) -> None:
    organization, manager, _ = await staffed_organization(app, "Acme Service", ["Acme"], agents=0)
    _, rival_manager, _ = await staffed_organization(app, "Rival Repairs", ["Rival"], agents=0)
    reply = await save_reply(app, client, manager, organization, BODY)
    path = replies_path(organization) + tail.format(reply=reply["id"])

    for stranger in (rival_manager, await create_user(app), await create_supplier(app)):
        assert_error(await _call(app, client, stranger, method, path, body), 404, "NOT_FOUND")
    assert (
        await _call(app, client, manager, "GET", f"{replies_path(organization)}/{reply['id']}")
    ).status_code == 200


async def test_an_admin_manages_any_organizations_replies_and_finds_no_missing_one(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    organization = await create_organization(app, "Acme Service", ["Acme"])
    admin = await create_admin(app)

    created = await _call(
        app, client, admin, "POST", replies_path(organization), {"title": "t", "body": BODY}
    )

    assert created.status_code == 201, created.text
    assert (await _call(app, client, admin, "GET", replies_path(organization))).json()["meta"]["total"] == 1
    assert_error(
        await _call(app, client, admin, "GET", replies_path(organization.id + 1000)), 404, "NOT_FOUND"
    )
    assert_error(
        await _call(app, client, admin, "GET", replies_path(99_999_999_999_999_999)), 404, "NOT_FOUND"
    )
    assert_error(await _call(app, client, admin, "GET", f"{replies_path(organization)}/77"), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("Dear {{customer.firstName}}", "unknown placeholder {{customer.firstName}}"),
        ("Dear {{customer.name}", "the {{ at character 6 is never closed"),
        ("{{ claim.status }} and {{claim.id}}", "unknown placeholder {{claim.status}}"),
    ],
)
async def test_a_body_with_an_unknown_placeholder_is_refused_naming_it(
    app: FastAPI, client: httpx.AsyncClient, body: str, problem: str
) -> None:
    organization, manager, _ = await staffed_organization(app, "Acme Service", ["Acme"], agents=0)
    reply = await save_reply(app, client, manager, organization, "Hello")

    for method, path in (
        ("POST", replies_path(organization)),
        ("PATCH", f"{replies_path(organization)}/{reply['id']}"),
    ):
        refused = assert_error(
            await _call(app, client, manager, method, path, {"title": "t", "body": body}),
            400,
            "VALIDATION_FAILED",
        )
        assert problem in refused["details"]["fields"]["body"], refused
    listed = await _call(app, client, manager, "GET", replies_path(organization))
    assert [item["body"] for item in listed.json()["data"]] == ["Hello"]


@pytest.mark.parametrize(
    "fields",
    [
        {"title": "", "body": "b"},
        {"title": "t" * 201, "body": "b"},
        {"title": "t", "body": "b" * 10_001},
        {"title": "t", "body": "   "},
        {"title": "t"},
        {"title": "t", "body": "b", "shared": True},
    ],
)
async def test_titles_and_bodies_keep_their_limits(
    app: FastAPI, client: httpx.AsyncClient, fields: dict[str, object]
) -> None:
    organization, manager, _ = await staffed_organization(app, "Acme Service", ["Acme"], agents=0)
    assert_error(
        await _call(app, client, manager, "POST", replies_path(organization), fields),
        400,
        "VALIDATION_FAILED",
    )


async def test_null_fields_are_refused_on_change(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization, manager, _ = await staffed_organization(app, "Acme Service", ["Acme"], agents=0)
    reply = await save_reply(app, client, manager, organization, BODY)
    path = f"{replies_path(organization)}/{reply['id']}"
    for fields in ({"title": None}, {"body": None}):
        assert_error(await _call(app, client, manager, "PATCH", path, fields), 400, "VALIDATION_FAILED")


async def test_a_hostile_body_at_the_limit_is_answered_at_once(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    organization, manager, _ = await staffed_organization(app, "Acme Service", ["Acme"], agents=0)
    hostile = [("{{ " + " " * 9_990 + "}", 400), ("{{claim.id}}" * 833, 201), ("{{" * 5_000, 400)]
    for body, status in hostile:
        started = time.perf_counter()
        response = await _call(
            app, client, manager, "POST", replies_path(organization), {"title": "t", "body": body}
        )
        assert response.status_code == status, response.text
        assert time.perf_counter() - started < 5.0  # a backtracking pattern takes minutes on these


async def test_the_list_is_the_envelope_in_a_fixed_number_of_statements(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    organization, manager, (agent,) = await staffed_organization(app, "Acme Service", ["Acme"], agents=1)
    first = await save_reply(app, client, manager, organization, "One", title="First")
    with count_queries(app) as few:
        small = await _call(app, client, agent, "GET", f"{replies_path(organization)}?limit=50")
    for number in range(25):
        await save_reply(app, client, manager, organization, f"Body {number}", title=f"Reply {number}")
    with count_queries(app) as many:
        large = await _call(app, client, agent, "GET", f"{replies_path(organization)}?limit=50")

    assert len(small.json()["data"]) == 1 and len(large.json()["data"]) == 26
    assert len(few) == len(many) <= 4, many  # caller, membership, count, page
    assert large.json()["data"][0]["id"] == first["id"]  # oldest first
    paged = (await _call(app, client, agent, "GET", f"{replies_path(organization)}?limit=10")).json()
    assert paged["meta"]["total"] == 26 and paged["meta"]["next_cursor"]
    after = await _call(
        app,
        client,
        agent,
        "GET",
        f"{replies_path(organization)}?limit=10&cursor={paged['meta']['next_cursor']}",
    )
    assert [item["title"] for item in after.json()["data"]] == [f"Reply {number}" for number in range(9, 19)]


async def test_a_demoted_manager_reads_only(app: FastAPI, client: httpx.AsyncClient) -> None:
    organization, manager, _ = await staffed_organization(app, "Acme Service", ["Acme"], agents=0)
    admin = await create_admin(app)
    other = await create_supplier(app)
    added = await _call(
        app,
        client,
        admin,
        "POST",
        f"/api/admin/organizations/{organization.id}/members",
        {"userId": other.id, "role": OrganizationRole.MANAGER},
    )
    assert added.status_code == 201, added.text
    moved = await _call(
        app,
        client,
        admin,
        "PATCH",
        f"/api/admin/organizations/{organization.id}/members/{manager.id}",
        {"role": "agent"},
    )
    assert moved.status_code == 200, moved.text
    assert_error(
        await _call(app, client, manager, "POST", replies_path(organization), {"title": "t", "body": "b"}),
        403,
        "FORBIDDEN",
    )
