"""Helpers of the timeline tests: a claim's timeline as its reader gets it, and a claim lived through the
API from its opening to its close."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user


async def timeline(client: httpx.AsyncClient, claim_id: int, headers: dict[str, str], query: str = "") -> Any:
    response = await client.get(f"/api/claims/{claim_id}/timeline{query}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def story(app: FastAPI, client: httpx.AsyncClient) -> dict[str, Any]:
    """A claim lived through the API: opened, assigned, worked on, talked about, resolved and closed."""
    customer = await create_user(app, name="Ann", email="ann@example.com")
    supplier = await create_supplier(app, name="Sam", email="sam@example.com")
    admin = await create_admin(app, name="Ada")
    product = await create_product(app, customer)
    ann, sam, ada = (auth_headers(app, user) for user in (customer, supplier, admin))

    async def ok(method: str, path: str, headers: dict[str, str], **body: Any) -> Any:
        response = await client.request(method, path, json=body or None, headers=headers)
        assert response.status_code in (200, 201), response.text
        return response.json()

    claim = await ok("POST", "/api/claims", ann, productId=product.id, description="Broken hinge")
    path = f"/api/claims/{claim['id']}"
    await ok("PUT", f"{path}/supplier", ada, supplierId=supplier.id)
    await ok("POST", f"{path}/status", sam, status="in_progress")
    message = await ok("POST", f"/api/claims/{claim['id']}/messages", sam, message="Secret words")
    await ok("POST", f"{path}/status", sam, status="resolved")
    await ok("POST", f"{path}/close", ann)
    await ok("PUT", f"{path}/supplier", ada, supplierId=None)
    return {
        "claim": claim["id"], "message": int(message["id"]), "customer": customer, "supplier": supplier,
        "admin": admin, "headers": (ann, sam, ada),
    }  # fmt: skip
