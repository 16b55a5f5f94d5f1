"""A claim's outcome and the warranty it leaves (contract 15.5): what the claim and its product then show,
the product lists (status filter, sort, totals, page cache), expiry alerts, a reopen, a void, and the
requests refused."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.models import Product, User
from app.products.expiry_alerts import send_expiry_alerts
from tests.factories.claims import create_claim
from tests.factories.notifications import outbox_rows
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error

NOW = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)
OWN_END = "2026-12-01T00:00:00+00:00"  # 2024-12-01 + 24 months: 7 days after NOW, expiring soon
REPAIRED = {"status": "resolved", "outcome": "repaired", "outcomeNote": "New pump.", "newWarrantyMonths": 12}
EXTENSION = {"months": 12, "startsOn": "2026-11-24", "endsOn": "2027-11-24"}


@dataclass
class Case:
    customer: User
    supplier: User
    admin: User
    product: Product
    claim_id: int

    def headers(self, app: FastAPI, who: str = "supplier") -> dict[str, str]:
        return auth_headers(app, getattr(self, who))


async def _case(app: FastAPI, *, status: str = "in_progress", **product: Any) -> Case:
    customer = await create_user(app, name="Ann Customer")
    supplier = await create_supplier(app, name="Sam Supplier")
    fields = {"purchase_date": date(2024, 12, 1), "warranty_period_months": 24} | product
    made = await create_product(app, customer, **fields)
    claim = await create_claim(app, made, supplier=supplier, status=status)
    return Case(customer, supplier, await create_admin(app), made, claim.id)


async def _move(
    app: FastAPI,
    client: httpx.AsyncClient,
    case: Case,
    body: dict[str, Any],
    who: str = "supplier",
    at: datetime = NOW,
) -> httpx.Response:
    headers = case.headers(app, who)  # issued at the real time, as tokens are checked against it
    with frozen_time(at):
        return await client.post(f"/api/claims/{case.claim_id}/status", json=body, headers=headers)


async def _get(app: FastAPI, client: httpx.AsyncClient, case: Case, path: str) -> Any:
    headers = case.headers(app, "customer")
    with frozen_time(NOW):
        response = await client.get(path, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("who", ["supplier", "admin"])
@pytest.mark.parametrize("kind", ["repaired", "replaced"])
async def test_a_repair_extends_the_warranty(
    app: FastAPI, client: httpx.AsyncClient, who: str, kind: str
) -> None:
    case = await _case(app)

    response = await _move(app, client, case, REPAIRED | {"outcome": kind}, who)

    assert response.status_code == 200, response.text
    detail = response.json()
    assert (detail["status"], detail["outcome"], detail["outcomeNote"]) == ("resolved", kind, "New pump.")
    assert detail["warrantyExtension"] == EXTENSION
    assert await _get(app, client, case, f"/api/claims/{case.claim_id}") == detail
    product = await _get(app, client, case, f"/api/products/{case.product.id}")
    assert product["warrantyExpiresAt"] == "2027-11-24T00:00:00+00:00"
    assert product["warrantyStatus"] == "active"
    assert product["warrantyPeriodMonths"] == 24  # the own warranty stays as it was
    assert product["warrantyExtensions"] == [EXTENSION | {"claimId": case.claim_id}]


@pytest.mark.parametrize("kind", ["refunded", "rejected", "repaired"])
async def test_an_outcome_without_new_months_leaves_the_warranty(
    app: FastAPI, client: httpx.AsyncClient, kind: str
) -> None:
    case = await _case(app)

    response = await _move(app, client, case, {"status": "resolved", "outcome": kind})

    assert response.status_code == 200, response.text
    assert (response.json()["outcome"], response.json()["outcomeNote"]) == (kind, None)
    assert response.json()["warrantyExtension"] is None
    product = await _get(app, client, case, f"/api/products/{case.product.id}")
    assert (product["warrantyExpiresAt"], product["warrantyExtensions"]) == (OWN_END, [])


async def test_resolving_without_an_outcome_records_none(app: FastAPI, client: httpx.AsyncClient) -> None:
    case = await _case(app)
    response = await _move(app, client, case, {"status": "resolved", "outcome": None})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["outcome"], body["outcomeNote"], body["warrantyExtension"]) == (None, None, None)


async def test_a_shorter_extension_leaves_the_later_own_end(app: FastAPI, client: httpx.AsyncClient) -> None:
    case = await _case(app, warranty_period_months=60)  # ends 2029-12-01

    response = await _move(app, client, case, REPAIRED)

    assert response.json()["warrantyExtension"] == EXTENSION
    product = await _get(app, client, case, f"/api/products/{case.product.id}")
    assert product["warrantyExpiresAt"] == "2029-12-01T00:00:00+00:00"
    assert product["warrantyExtensions"] == [EXTENSION | {"claimId": case.claim_id}]


async def test_extensions_are_listed_newest_first(app: FastAPI, client: httpx.AsyncClient) -> None:
    case = await _case(app)
    earlier = datetime(2026, 11, 17, 10, 0, tzinfo=UTC)
    first = await _move(app, client, case, REPAIRED | {"newWarrantyMonths": 3}, at=earlier)
    assert first.status_code == 200, first.text
    closed = await _move(app, client, case, {"status": "closed"}, "customer", at=earlier)
    assert closed.status_code == 200, closed.text
    assert closed.json()["outcome"] == "repaired"  # closing keeps the outcome
    second = await create_claim(app, case.product, supplier=case.supplier, status="in_progress")
    response = await _move(app, client, replace(case, claim_id=second.id), REPAIRED | {"outcome": "replaced"})
    assert response.status_code == 200, response.text

    product = await _get(app, client, case, f"/api/products/{case.product.id}")

    assert product["warrantyExtensions"] == [
        EXTENSION | {"claimId": second.id},
        {"claimId": case.claim_id, "months": 3, "startsOn": "2026-11-17", "endsOn": "2027-02-17"},
    ]
    assert product["warrantyExpiresAt"] == "2027-11-24T00:00:00+00:00"


async def test_a_reopen_removes_the_outcome_and_the_extension(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    case = await _case(app)
    assert (await _move(app, client, case, REPAIRED)).status_code == 200

    reopened = await _move(app, client, case, {"status": "in_progress"}, "customer")

    assert reopened.status_code == 200, reopened.text
    body = reopened.json()
    assert (body["outcome"], body["outcomeNote"], body["warrantyExtension"]) == (None, None, None)
    product = await _get(app, client, case, f"/api/products/{case.product.id}")
    assert (product["warrantyExpiresAt"], product["warrantyStatus"]) == (OWN_END, "expiring_soon")
    assert product["warrantyExtensions"] == []

    again = await _move(app, client, case, REPAIRED | {"outcome": "replaced", "newWarrantyMonths": 6})
    assert again.status_code == 200, again.text
    assert again.json()["warrantyExtension"] == {
        "months": 6,
        "startsOn": "2026-11-24",
        "endsOn": "2027-05-24",
    }


async def test_a_void_warranty_stays_void(app: FastAPI, client: httpx.AsyncClient) -> None:
    case = await _case(app)
    headers = case.headers(app, "customer")
    with frozen_time(NOW):
        voided = await client.post(
            f"/api/products/{case.product.id}/warranty/void",
            json={"reason": "Opened by a third party."},
            headers=headers,
        )
    assert voided.status_code == 200, voided.text

    assert (await _move(app, client, case, REPAIRED)).status_code == 200

    product = await _get(app, client, case, f"/api/products/{case.product.id}")
    assert product["warrantyStatus"] == "void"
    assert product["warrantyExpiresAt"] == "2027-11-24T00:00:00+00:00"
    void = await _get(app, client, case, "/api/products?warrantyStatus=void")
    active = await _get(app, client, case, "/api/products?warrantyStatus=active")
    assert ([item["id"] for item in void], active) == ([case.product.id], [])


def _ids(body: Any) -> list[int]:
    return [item["id"] for item in (body["data"] if isinstance(body, dict) else body)]


async def test_lists_filter_sort_and_count_by_the_new_expiry(app: FastAPI, client: httpx.AsyncClient) -> None:
    case = await _case(app)
    # Expires 2027-06-01: after the product's own end, before its extension's.
    middle = await create_product(
        app, case.customer, purchase_date=date(2025, 6, 1), warranty_period_months=24
    )
    admin = auth_headers(app, case.admin)
    sort = "/api/products?sort=warrantyExpiresAt&order=asc"

    async def admin_total(status: str) -> int:
        with frozen_time(NOW):
            response = await client.get(
                f"/api/admin/products?warrantyStatus={status}&limit=10", headers=admin
            )
        assert response.status_code == 200, response.text
        return int(response.json()["meta"]["total"])

    before = (
        _ids(await _get(app, client, case, sort)),
        _ids(await _get(app, client, case, "/api/products?warrantyStatus=expiring_soon&limit=5")),
        await admin_total("expiring_soon"),
        await admin_total("active"),
    )
    assert (await _move(app, client, case, REPAIRED)).status_code == 200
    after = (
        _ids(await _get(app, client, case, sort)),
        _ids(await _get(app, client, case, "/api/products?warrantyStatus=active&limit=5")),
        await admin_total("expiring_soon"),
        await admin_total("active"),
    )

    assert before == ([case.product.id, middle.id], [case.product.id], 1, 1)
    assert after == ([middle.id, case.product.id], [middle.id, case.product.id], 0, 2)  # newest first


async def test_expiry_alerts_re_arm_for_the_new_date(app: FastAPI, client: httpx.AsyncClient) -> None:
    case = await _case(app)
    with frozen_time(NOW):
        assert await send_expiry_alerts(app.state.sessionmaker, app.state.settings) == 1  # 7 days left

    assert (await _move(app, client, case, REPAIRED | {"newWarrantyMonths": 1})).status_code == 200
    with frozen_time(NOW):
        assert await send_expiry_alerts(app.state.sessionmaker, app.state.settings) == 1  # 30 days left
        assert await send_expiry_alerts(app.state.sessionmaker, app.state.settings) == 0

    alerts = [
        (row.payload["expiresOn"], row.payload["thresholdDays"])
        for row in await outbox_rows(app, "email.expiry_alert")
    ]
    assert alerts == [("2026-12-01", 7), ("2026-12-24", 30)]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"status": "in_progress", "outcome": "repaired"}, "outcome"),
        ({"status": "closed", "outcomeNote": "Done."}, "outcomeNote"),
        ({"status": "resolved", "outcomeNote": "Done."}, "outcomeNote"),
        ({"status": "resolved", "newWarrantyMonths": 6}, "newWarrantyMonths"),
        ({"status": "resolved", "outcome": "refunded", "newWarrantyMonths": 6}, "newWarrantyMonths"),
        ({"status": "resolved", "outcome": "rejected", "newWarrantyMonths": 0}, "newWarrantyMonths"),
        ({"status": "resolved", "outcome": "repaired", "newWarrantyMonths": 601}, "newWarrantyMonths"),
        ({"status": "resolved", "outcome": "repaired", "newWarrantyMonths": -1}, "newWarrantyMonths"),
        ({"status": "resolved", "outcome": "repaired", "newWarrantyMonths": "6"}, "newWarrantyMonths"),
        ({"status": "resolved", "outcome": "fixed"}, "outcome"),
        ({"status": "resolved", "outcome": "repaired", "outcomeNote": "  "}, "outcomeNote"),
        ({"status": "resolved", "outcome": "repaired", "outcomeNote": "x" * 5001}, "outcomeNote"),
    ],
)
async def test_outcome_fields_that_do_not_fit_are_refused(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, Any], field: str
) -> None:
    case = await _case(app)

    body_400 = assert_error(await _move(app, client, case, body), 400, "VALIDATION_FAILED")

    assert field in body_400["details"]["fields"], body_400
    detail = await _get(app, client, case, f"/api/claims/{case.claim_id}")
    assert (detail["status"], detail["outcome"], detail["warrantyExtension"]) == ("in_progress", None, None)


async def test_only_the_supplier_or_an_admin_resolves(app: FastAPI, client: httpx.AsyncClient) -> None:
    case = await _case(app)
    outsider = await create_user(app)

    as_customer = await _move(app, client, case, REPAIRED, "customer")
    headers = auth_headers(app, outsider)
    with frozen_time(NOW):
        as_outsider = await client.post(f"/api/claims/{case.claim_id}/status", json=REPAIRED, headers=headers)

    assert_error(as_customer, 403, "FORBIDDEN")
    assert_error(as_outsider, 404, "NOT_FOUND")
    product = await _get(app, client, case, f"/api/products/{case.product.id}")
    assert (product["warrantyExpiresAt"], product["warrantyExtensions"]) == (OWN_END, [])


async def test_an_open_claim_cannot_be_resolved_with_an_outcome(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    case = await _case(app, status="open")
    assert_error(await _move(app, client, case, REPAIRED), 409, "INVALID_STATUS_TRANSITION")
    product = await _get(app, client, case, f"/api/products/{case.product.id}")
    assert product["warrantyExtensions"] == []


async def test_outcome_fields_are_checked_with_the_body_before_the_move(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    case = await _case(app)
    body = {"status": "resolved", "outcome": "refunded", "newWarrantyMonths": 6}

    response = await _move(app, client, case, body, "customer")  # a customer may not resolve: 403 else

    problem = assert_error(response, 400, "VALIDATION_FAILED")
    assert list(problem["details"]["fields"]) == ["newWarrantyMonths"]
