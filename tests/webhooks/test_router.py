"""The admin's webhook routes (app/webhooks/router.py): registering, reading, changing and removing endpoints
(admins only), the addresses a URL may not lead to, and the lists of endpoints and of deliveries."""

from __future__ import annotations

import base64

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.factories.webhooks import register, webhook_worker
from tests.helpers import assert_error, count_queries
from tests.webhooks.receiver import Receiver
from tests.webhooks.support import send_test

PUBLIC_URL = "https://203.0.114.7/hooks/warranty"  # a public address (never contacted by these tests)
PRIVATE_URLS = [
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://10.1.2.3/hook",
    "http://172.16.0.9/hook",
    "http://192.168.1.20/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://100.64.0.1/hook",
    "http://[::1]/hook",
    "http://[fe80::1]/hook",
    "http://[fd12:3456::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://0.0.0.0/hook",
    "http://224.0.0.1/hook",
    "http://2130706433/hook",  # 127.0.0.1 as one number
]


async def test_register_shows_the_secret_once(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = auth_headers(app, await create_admin(app))
    body = {"url": PUBLIC_URL, "events": ["claim.created", "claim.created", "message.created"]}
    response = await client.post("/api/admin/webhooks", json={**body, "description": "ERP"}, headers=admin)
    assert response.status_code == 201, response.text
    created = response.json()
    assert response.headers["location"] == f"/api/admin/webhooks/{created['id']}"
    assert created["url"] == PUBLIC_URL
    assert created["events"] == ["claim.created", "message.created"]
    assert created["description"] == "ERP"
    assert created["secret"].startswith("whsec_")
    assert len(base64.b64decode(created["secret"].removeprefix("whsec_"))) == 32

    shown = await client.get(response.headers["location"], headers=admin)
    assert shown.status_code == 200
    assert "secret" not in shown.json()
    assert {key: shown.json()[key] for key in ("id", "url", "events", "description")} == {
        key: created[key] for key in ("id", "url", "events", "description")
    }
    listed = await client.get("/api/admin/webhooks", headers=admin)
    assert listed.status_code == 200
    assert [item["id"] for item in listed.json()["data"]] == [created["id"]]
    assert "secret" not in listed.json()["data"][0]
    assert listed.json()["meta"]["total"] == 1


async def test_two_endpoints_get_different_secrets(app: FastAPI, client: httpx.AsyncClient) -> None:
    first = await register(app, client, PUBLIC_URL)
    second = await register(app, client, PUBLIC_URL)
    assert first["secret"] != second["secret"]


async def test_patch_and_delete(app: FastAPI, client: httpx.AsyncClient) -> None:
    created = await register(app, client, PUBLIC_URL, description="old")
    admin = auth_headers(app, await create_admin(app))
    path = f"/api/admin/webhooks/{created['id']}"
    changed = await client.patch(
        path, json={"events": ["message.created"], "description": None}, headers=admin
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["events"] == ["message.created"]
    assert changed.json()["description"] is None
    assert changed.json()["url"] == PUBLIC_URL
    moved = await client.patch(path, json={"url": "http://203.0.114.8/other"}, headers=admin)
    assert moved.json()["url"] == "http://203.0.114.8/other"
    assert moved.json()["events"] == ["message.created"]
    assert_error(await client.patch(path, json={"url": None}, headers=admin), 400, "VALIDATION_FAILED")
    assert_error(await client.patch(path, json={"events": []}, headers=admin), 400, "VALIDATION_FAILED")

    assert (await client.delete(path, headers=admin)).status_code == 204
    assert_error(await client.get(path, headers=admin), 404, "NOT_FOUND")
    assert_error(await client.delete(path, headers=admin), 404, "NOT_FOUND")
    assert_error(await client.patch(path, json={}, headers=admin), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "ftp://203.0.114.7/hook", "events": ["claim.created"]}, "url"),
        ({"url": "javascript:alert(1)", "events": ["claim.created"]}, "url"),
        ({"url": "https:///no-host", "events": ["claim.created"]}, "url"),
        ({"url": "not a url", "events": ["claim.created"]}, "url"),
        ({"url": "https://203.0.114.7/" + "a" * 2048, "events": ["claim.created"]}, "url"),
        ({"url": PUBLIC_URL, "events": []}, "events"),
        ({"url": PUBLIC_URL, "events": ["claim.deleted"]}, "events.0"),
        ({"url": PUBLIC_URL}, "events"),
        ({"events": ["claim.created"]}, "url"),
        ({"url": PUBLIC_URL, "events": ["claim.created"], "secret": "whsec_mine"}, "secret"),
        ({"url": PUBLIC_URL, "events": ["claim.created"], "description": "x" * 501}, "description"),
    ],
)
async def test_invalid_registrations_are_400(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object], field: str
) -> None:
    admin = auth_headers(app, await create_admin(app))
    response = await client.post("/api/admin/webhooks", json=body, headers=admin)
    error = assert_error(response, 400, "VALIDATION_FAILED")
    assert field in error["details"]["fields"], error


@pytest.mark.parametrize("url", PRIVATE_URLS)
async def test_private_and_metadata_addresses_are_refused(
    app: FastAPI, client: httpx.AsyncClient, url: str
) -> None:
    admin = auth_headers(app, await create_admin(app))
    response = await client.post(
        "/api/admin/webhooks", json={"url": url, "events": ["claim.created"]}, headers=admin
    )
    error = assert_error(response, 400, "VALIDATION_FAILED")
    assert "not a public address" in error["details"]["fields"]["url"]


async def test_a_patch_to_a_private_address_is_refused(app: FastAPI, client: httpx.AsyncClient) -> None:
    created = await register(app, client, PUBLIC_URL)
    admin = auth_headers(app, await create_admin(app))
    path = f"/api/admin/webhooks/{created['id']}"
    response = await client.patch(path, json={"url": "http://169.254.169.254/"}, headers=admin)
    assert "url" in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]
    assert (await client.get(path, headers=admin)).json()["url"] == PUBLIC_URL


async def test_a_host_that_does_not_resolve_is_refused(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = auth_headers(app, await create_admin(app))
    body = {"url": "https://no-such-host.invalid/hook", "events": ["claim.created"]}
    response = await client.post("/api/admin/webhooks", json=body, headers=admin)
    assert "url" in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


@pytest.mark.settings(webhook_allow_private=True)
async def test_private_addresses_are_allowed_by_the_setting(app: FastAPI, client: httpx.AsyncClient) -> None:
    created = await register(app, client, "http://127.0.0.1:9/hook")
    assert created["url"] == "http://127.0.0.1:9/hook"
    admin = auth_headers(app, await create_admin(app))
    response = await client.post(
        "/api/admin/webhooks", json={"url": "file:///etc/passwd", "events": ["claim.created"]}, headers=admin
    )
    assert "url" in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


async def test_only_admins(app: FastAPI, client: httpx.AsyncClient) -> None:
    created = await register(app, client, PUBLIC_URL)
    path = f"/api/admin/webhooks/{created['id']}"
    calls = [
        ("POST", "/api/admin/webhooks", {"url": PUBLIC_URL, "events": ["claim.created"]}),
        ("GET", "/api/admin/webhooks", None),
        ("GET", path, None),
        ("PATCH", path, {"description": "mine"}),
        ("DELETE", path, None),
        ("POST", f"{path}/test", None),
        ("GET", f"{path}/deliveries", None),
        ("POST", f"{path}/deliveries/1/retry", None),
    ]
    for user in (await create_user(app), await create_supplier(app)):
        for method, url, body in calls:
            response = await client.request(method, url, json=body, headers=auth_headers(app, user))
            assert_error(response, 403, "FORBIDDEN")
    for method, url, body in calls:
        assert_error(await client.request(method, url, json=body), 401, "AUTH_REQUIRED")
    admin = auth_headers(app, await create_admin(app))
    assert (await client.get(path, headers=admin)).json()["description"] is None


async def test_ids_out_of_range_are_400(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = auth_headers(app, await create_admin(app))
    for path in ("/api/admin/webhooks/abc", f"/api/admin/webhooks/{2**64}", "/api/admin/webhooks/0"):
        assert_error(await client.get(path, headers=admin), 400, "VALIDATION_FAILED")
    assert_error(await client.get("/api/admin/webhooks/99", headers=admin), 404, "NOT_FOUND")


async def test_the_list_runs_a_fixed_number_of_queries(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = auth_headers(app, await create_admin(app))
    for _ in range(3):
        await register(app, client, PUBLIC_URL)
    with count_queries(app) as few:
        small = await client.get("/api/admin/webhooks?limit=100", headers=admin)
    for _ in range(27):
        await register(app, client, PUBLIC_URL)
    with count_queries(app) as many:
        large = await client.get("/api/admin/webhooks?limit=100", headers=admin)
    assert len(small.json()["data"]) == 3 and len(large.json()["data"]) == 30
    assert len(few) == len(many), many


async def test_the_list_pages_by_cursor(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = auth_headers(app, await create_admin(app))
    ids = [(await register(app, client, PUBLIC_URL))["id"] for _ in range(5)]
    first = (await client.get("/api/admin/webhooks?limit=2", headers=admin)).json()
    assert [item["id"] for item in first["data"]] == ids[:2]
    cursor = first["meta"]["next_cursor"]
    second = (await client.get(f"/api/admin/webhooks?limit=2&cursor={cursor}", headers=admin)).json()
    assert [item["id"] for item in second["data"]] == ids[2:4]


@pytest.mark.settings(webhook_allow_private=True, outbox_backoff_base=0.05, worker_poll_interval=0.05)
async def test_the_deliveries_list_runs_a_fixed_number_of_queries(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    endpoint = await register(app, client, receiver.url("/ok"))
    admin = auth_headers(app, await create_admin(app))
    path = f"/api/admin/webhooks/{endpoint['id']}/deliveries?limit=100"
    for _ in range(2):
        await send_test(app, client, endpoint["id"])
    with count_queries(app) as few:
        small = await client.get(path, headers=admin)
    for _ in range(20):
        await send_test(app, client, endpoint["id"])
    await webhook_worker(app).run_until_idle()
    with count_queries(app) as many:
        large = await client.get(path, headers=admin)
    assert len(small.json()["data"]) == 2 and len(large.json()["data"]) == 22
    assert len(few) == len(many), many
    assert large.json()["meta"]["total"] == 22
    first = (await client.get(path.replace("100", "5"), headers=admin)).json()
    following = await client.get(
        f"/api/admin/webhooks/{endpoint['id']}/deliveries?limit=5&cursor={first['meta']['next_cursor']}",
        headers=admin,
    )
    ids = [item["id"] for item in first["data"] + following.json()["data"]]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 10
