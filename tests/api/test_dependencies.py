"""The request dependencies every domain's routes share (app/api/dependencies.py): who is calling (a bearer
token, with roles read from the database on every request), the admin check, repositories on the
request's session, page parameters by role, and the claim a path names."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.api.dependencies import (
    AdminUser,
    CurrentUser,
    HasherDep,
    Pagination,
    SessionDep,
    SettingsDep,
    repository,
)
from app.claims.dependencies import ClaimRepo
from app.claims.repository import ClaimRepository
from app.models import User
from tests.factories.claims import claim_cast
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error


def _route(app: FastAPI, path: str, endpoint: Any) -> None:
    app.router.add_api_route(path, endpoint, methods=["GET"])


async def test_the_caller_is_the_token_s_user(app: FastAPI, client: httpx.AsyncClient) -> None:
    async def whoami(user: CurrentUser) -> dict[str, int]:
        return {"id": user.id}

    _route(app, "/api/test-whoami", whoami)
    ann = await create_user(app)

    missing = await client.get("/api/test-whoami")
    garbage = await client.get("/api/test-whoami", headers={"Authorization": "Bearer not-a-token"})
    other_scheme = await client.get("/api/test-whoami", headers={"Authorization": "Basic YTpi"})

    assert (await client.get("/api/test-whoami", headers=auth_headers(app, ann))).json() == {"id": ann.id}
    assert_error(missing, 401, "AUTH_REQUIRED")
    assert missing.headers["www-authenticate"] == "Bearer"
    assert garbage.status_code == other_scheme.status_code == 401


async def test_roles_come_from_the_database_on_every_request(app: FastAPI, client: httpx.AsyncClient) -> None:
    async def admin_only(user: AdminUser) -> dict[str, int]:
        return {"id": user.id}

    _route(app, "/api/test-admin", admin_only)
    admin, ann = await create_admin(app), await create_user(app)
    admin_headers, ann_headers = auth_headers(app, admin), auth_headers(app, ann)  # issued with the old roles
    assert (await client.get("/api/test-admin", headers=admin_headers)).status_code == 200
    assert_error(await client.get("/api/test-admin", headers=ann_headers), 403, "FORBIDDEN")

    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(User).where(User.id == admin.id).values(roles=["ROLE_USER"]))
        await session.execute(update(User).where(User.id == ann.id).values(roles=["ROLE_USER", "ROLE_ADMIN"]))

    assert_error(await client.get("/api/test-admin", headers=admin_headers), 403, "FORBIDDEN")
    assert (await client.get("/api/test-admin", headers=ann_headers)).json() == {"id": ann.id}


async def test_repositories_and_process_objects_come_with_the_request(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async def parts(
        session: SessionDep, claims: ClaimRepo, settings: SettingsDep, hasher: HasherDep
    ) -> dict[str, bool]:
        return {
            "repository on the request's session": isinstance(claims, ClaimRepository)
            and claims.session is session,
            "the app's settings": settings is app.state.settings,
            "the app's hasher": hasher is app.state.password_hasher,
        }

    _route(app, "/api/test-parts", parts)

    answer = (await client.get("/api/test-parts")).json()

    assert answer == dict.fromkeys(answer, True) and len(answer) == 3
    assert repository(ClaimRepository) is not repository(ClaimRepository)  # one dependency per alias


@pytest.mark.parametrize(("admin", "per_page"), [(False, 50), (True, 100)])
async def test_the_page_size_is_lowered_below_admin(
    app: FastAPI, client: httpx.AsyncClient, admin: bool, per_page: int
) -> None:
    async def paged(page: Pagination) -> dict[str, Any]:
        return {"limit": page.limit, "page": page.page}

    _route(app, "/api/test-paged", paged)
    user = await (create_admin(app) if admin else create_user(app))

    answer = await client.get("/api/test-paged?page=2&limit=100", headers=auth_headers(app, user))

    assert answer.json() == {"limit": per_page, "page": 2}


@pytest.mark.parametrize("claim_id", ["+{id}", "{id}.0", " {id}", "{id}_0", "%EF%BC%91"])
async def test_a_claim_in_the_path_is_ascii_digits(
    app: FastAPI, client: httpx.AsyncClient, claim_id: str
) -> None:
    cast = await claim_cast(app)
    written = claim_id.format(id=cast.claim.id)
    headers = auth_headers(app, cast.customer)
    assert (await client.get(f"/api/claims/{cast.claim.id}", headers=headers)).status_code == 200

    by_id = await client.get(f"/api/claims/{written}", headers=headers)
    by_claim_id = await client.get(f"/api/claims/{written}/messages", headers=headers)

    assert "id" in assert_error(by_id, 400, "VALIDATION_FAILED")["details"]["fields"]
    assert "claimId" in assert_error(by_claim_id, 400, "VALIDATION_FAILED")["details"]["fields"]
