"""The claims API's request bodies (app/claims/schemas.py): a status change takes only the statuses there
are, and its outcome fields only where they mean something (with `resolved`, a note and new months only with
an outcome, new months only for a repair or a replacement)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from app.claims.schemas import StatusChange
from tests.factories.claims import claim_cast
from tests.factories.users import auth_headers
from tests.helpers import assert_error


@pytest.mark.parametrize("status", ["pending", "OPEN", "", None, 3])
async def test_unknown_status_is_400(app: FastAPI, client: httpx.AsyncClient, status: object) -> None:
    cast = await claim_cast(app)
    response = await client.post(
        f"/api/claims/{cast.claim.id}/status", json={"status": status}, headers=auth_headers(app, cast.admin)
    )
    assert "status" in assert_error(response, 400, "VALIDATION_FAILED")["details"]["fields"]


def _problems(body: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ValidationError) as raised:
        StatusChange.model_validate(body)
    return {".".join(map(str, error["loc"])): error["msg"] for error in raised.value.errors()}


@pytest.mark.parametrize(
    "body",
    [
        {"status": "resolved"},
        {"status": "resolved", "outcome": "rejected"},
        {"status": "resolved", "outcome": "refunded", "outcomeNote": "Paid back.", "newWarrantyMonths": None},
        {"status": "resolved", "outcome": "repaired", "outcomeNote": "New pump.", "newWarrantyMonths": 12},
        {"status": "resolved", "outcome": "replaced", "newWarrantyMonths": 24},
        {"status": "in_progress", "outcome": None, "outcomeNote": None},
    ],
)
def test_outcome_fields_that_fit_are_taken(body: dict[str, Any]) -> None:
    change = StatusChange.model_validate(body)
    assert (change.status, change.outcome, change.outcome_note, change.new_warranty_months) == (
        body["status"],
        body.get("outcome"),
        body.get("outcomeNote"),
        body.get("newWarrantyMonths"),
    )


def test_each_outcome_field_says_what_it_needs() -> None:
    assert _problems({"status": "closed", "outcome": "repaired"}) == {
        "outcome": "Value error, may only be given with status resolved"
    }
    assert _problems({"status": "resolved", "outcomeNote": "Done."}) == {
        "outcomeNote": "Value error, may only be given with an outcome"
    }
    assert _problems({"status": "resolved", "outcome": "refunded", "newWarrantyMonths": 6}) == {
        "newWarrantyMonths": "Value error, may only be given with outcome repaired or replaced"
    }
    # Every field that does not fit is named, each with its own reason.
    assert _problems({"status": "open", "outcome": "rejected", "outcomeNote": "No."}) == {
        "outcome": "Value error, may only be given with status resolved",
        "outcomeNote": "Value error, may only be given with status resolved",
    }
