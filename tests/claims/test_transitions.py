"""The claim lifecycle (app/claims/transitions.py, contract 5), move by move and actor by actor, written out
here independently of the code's table: who may make each move (403 otherwise), which moves exist (409
otherwise), and what the refusals say."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.access.claims import ADMIN, CUSTOMER, SUPPLIER
from app.claims.transitions import check_close, check_move
from app.errors import Conflict, Forbidden
from app.models.enums import ClaimStatus
from tests.claims.support import stored_state
from tests.factories.claims import claim_cast
from tests.factories.users import auth_headers
from tests.helpers import assert_error

STATUSES = ("open", "in_progress", "resolved", "closed")
ACTORS = ("customer", "supplier", "admin", "outsider", "other_supplier")
ALLOWED = {
    ("open", "in_progress"): {"supplier", "admin"},
    ("in_progress", "resolved"): {"supplier", "admin"},
    ("resolved", "in_progress"): {"customer", "supplier", "admin"},
    ("resolved", "closed"): {"customer", "admin"},
}


def expected(current: str, target: str, actor: str) -> tuple[int, str | None]:
    if actor in ("outsider", "other_supplier"):
        return 404, "NOT_FOUND"
    allowed = ALLOWED.get((current, target))
    if allowed is None:
        return 409, "INVALID_STATUS_TRANSITION"
    return (200, None) if actor in allowed else (403, "FORBIDDEN")


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("target", STATUSES)
@pytest.mark.parametrize("current", STATUSES)
async def test_status_moves(
    app: FastAPI, client: httpx.AsyncClient, current: str, target: str, actor: str
) -> None:
    cast = await claim_cast(app, status=current)
    user = getattr(cast, actor)

    response = await client.post(
        f"/api/claims/{cast.claim.id}/status", json={"status": target}, headers=auth_headers(app, user)
    )

    status, code = expected(current, target, actor)
    stored, events, outbox = await stored_state(app, cast.claim.id)
    if code is None:
        assert response.status_code == 200, response.text
        assert response.json()["status"] == target and stored == target
        assert len(events) == 1 and outbox
    else:
        assert_error(response, status, code)
        assert stored == current and events == [] and outbox == []


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("current", STATUSES)
async def test_close(app: FastAPI, client: httpx.AsyncClient, current: str, actor: str) -> None:
    cast = await claim_cast(app, status=current)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/close", headers=auth_headers(app, getattr(cast, actor))
    )

    stored, events, _ = await stored_state(app, cast.claim.id)
    if actor in ("outsider", "other_supplier"):
        assert_error(response, 404, "NOT_FOUND")
    elif actor == "supplier":
        assert_error(response, 403, "FORBIDDEN")
    elif current != "resolved":
        assert_error(response, 409, "CLAIM_NOT_RESOLVED")
    else:
        assert response.status_code == 200, response.text
        assert response.json()["id"] == cast.claim.id and response.json()["status"] == "closed"
        assert stored == "closed" and len(events) == 1
        return
    assert stored == current and events == []


def test_a_refused_move_names_who_may_make_it() -> None:
    open_, in_progress, resolved, closed = ClaimStatus
    with pytest.raises(Forbidden) as only_two:
        check_move(open_, in_progress, {CUSTOMER})
    with pytest.raises(Forbidden) as all_three:
        check_move(resolved, in_progress, set())
    with pytest.raises(Conflict) as no_such_move:
        check_move(closed, open_, {CUSTOMER, SUPPLIER, ADMIN})

    assert (
        only_two.value.message
        == "Only its assigned supplier or an admin may move a claim from open to in_progress."
    )
    assert all_three.value.message == (
        "Only its customer, its assigned supplier or an admin may move a claim from resolved to in_progress."
    )
    assert (no_such_move.value.code, no_such_move.value.message) == (
        "INVALID_STATUS_TRANSITION",
        "A claim cannot go from closed to open.",
    )
    check_move(resolved, closed, {CUSTOMER})  # allowed: nothing raised


def test_close_asks_who_before_whether_resolved() -> None:
    open_, _, resolved, closed = ClaimStatus
    with pytest.raises(Forbidden):
        check_close(open_, {SUPPLIER})
    for current in (open_, closed):
        with pytest.raises(Conflict) as not_resolved:
            check_close(current, {CUSTOMER})
        assert not_resolved.value.code == "CLAIM_NOT_RESOLVED"
    check_close(resolved, {ADMIN})
