"""The floor: a minimal Starlette app on a raw asyncpg pool that does what the service must do for each
measured endpoint (verify the token, load the user, run the same SQL, return the same JSON) and nothing
else. The service's figures are reported as a ratio of this app's, measured in the same run.

    uvicorn bench.floor:app   (WARRANTY_DATABASE_URL, WARRANTY_SECRET_KEY from the environment)
"""

from __future__ import annotations

import json
import os
from contextlib import asynccontextmanager
from datetime import UTC, date, datetime, time
from typing import Any

import asyncpg
import jwt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

DSN = os.environ.get("WARRANTY_DATABASE_URL", "").replace("+asyncpg", "")
SECRET = os.environ.get("WARRANTY_SECRET_KEY", "").encode()
EXPIRING_SOON_DAYS = 30
pool: asyncpg.Pool | None = None

USER_SQL = (
    "SELECT id, email, name, password_hash, roles, street, postal_code, city, country, notifications_enabled,"
    " email_notifications_enabled, profile_picture, updated_at, created_at FROM users WHERE id = $1"
)
VISIBLE_CLAIM_SQL = (
    "SELECT id, product_id, customer_id, supplier_id, status, description, updated_at, created_at FROM claims"
    " WHERE (customer_id = $1 OR supplier_id = $1) AND id = $2"
)


def iso(value: datetime) -> str:
    return value.astimezone(UTC).replace(microsecond=0).isoformat()


def iso_date(value: date) -> str:
    return datetime.combine(value, time(), UTC).isoformat()


def dumps(body: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(body, separators=(",", ":")), status_code=status, media_type="application/json"
    )


async def user_of(request: Request, connection: asyncpg.Connection) -> asyncpg.Record:
    token = request.headers["authorization"].removeprefix("Bearer ")
    claims = jwt.decode(token, SECRET, algorithms=["HS256"], options={"require": ["exp", "iat", "sub"]})
    return await connection.fetchrow(USER_SQL, int(claims["sub"]))


async def products(request: Request) -> Response:
    page, limit = int(request.query_params["page"]), int(request.query_params["limit"])
    assert pool is not None
    async with pool.acquire() as connection:
        user = await user_of(request, connection)
        total = await connection.fetchval("SELECT count(id) FROM products WHERE owner_id = $1", user["id"])
        rows = await connection.fetch(
            "SELECT id, owner_id, name, brand, category, store, purchase_date, warranty_period_months,"
            " warranty_expires_on, price, serial_number, updated_at, created_at,"
            " EXISTS (SELECT * FROM claims WHERE claims.product_id = products.id AND claims.status != 'closed')"
            " AS has_active_claim FROM products WHERE owner_id = $1 ORDER BY created_at DESC, id DESC"
            " LIMIT $2 OFFSET $3",
            user["id"],
            limit,
            (page - 1) * limit,
        )
    today = datetime.now(UTC).date()
    data = []
    for row in rows:
        days_left = (row["warranty_expires_on"] - today).days
        status = (
            "expired" if days_left < 0 else "expiring_soon" if days_left <= EXPIRING_SOON_DAYS else "active"
        )
        data.append(
            {
                "id": row["id"],
                "name": row["name"],
                "brand": row["brand"],
                "category": row["category"],
                "store": row["store"],
                "purchaseDate": iso_date(row["purchase_date"]),
                "warrantyPeriodMonths": row["warranty_period_months"],
                "price": float(row["price"]) if row["price"] is not None else None,
                "serialNumber": row["serial_number"],
                "warrantyStatus": status,
                "warrantyExpiresAt": iso_date(row["warranty_expires_on"]),
                "hasActiveClaim": row["has_active_claim"],
                "createdAt": iso(row["created_at"]),
                "updatedAt": iso(row["updated_at"]),
            }
        )
    return dumps(envelope(request, data, total, page, limit))


def envelope(request: Request, data: list[Any], total: int, page: int, limit: int) -> dict[str, Any]:
    last = max(1, -(-total // limit))
    path = request.url.path

    def link(number: int) -> str:
        return f"{path}?page={number}&limit={limit}"

    return {
        "data": data,
        "meta": {
            "current_page": page,
            "per_page": limit,
            "total": total,
            "last_page": last,
            "from": (page - 1) * limit + 1 if data else None,
            "to": (page - 1) * limit + len(data) if data else None,
        },
        "links": {
            "first": link(1),
            "last": link(last),
            "prev": link(page - 1) if page > 1 else None,
            "next": link(page + 1) if page < last else None,
        },
    }


async def claim_detail(request: Request) -> Response:
    claim_id = int(request.path_params["claim_id"])
    assert pool is not None
    async with pool.acquire() as connection:
        user = await user_of(request, connection)
        claim = await connection.fetchrow(VISIBLE_CLAIM_SQL, user["id"], claim_id)
        if claim is None:
            return dumps({"error": "NotFound", "message": "Not found.", "code": "NOT_FOUND"}, 404)
        product = await connection.fetchrow(
            "SELECT id, owner_id, name, brand, category, store, purchase_date, warranty_period_months,"
            " warranty_expires_on, price, serial_number, updated_at, created_at FROM products WHERE id = $1",
            claim["product_id"],
        )
        messages = await connection.fetch(
            "SELECT id, sender_id, body AS message, created_at FROM messages WHERE claim_id = $1"
            " ORDER BY created_at, id",
            claim_id,
        )
    return dumps(
        {
            "id": claim["id"],
            "status": claim["status"],
            "description": claim["description"],
            "product": {"id": product["id"], "name": product["name"], "brand": product["brand"]},
            "productId": product["id"],
            "customerId": claim["customer_id"],
            "supplierId": claim["supplier_id"],
            "messages": [
                {
                    "id": m["id"],
                    "senderId": m["sender_id"],
                    "message": m["message"],
                    "createdAt": iso(m["created_at"]),
                }
                for m in messages
            ],
            "createdAt": iso(claim["created_at"]),
            "updatedAt": iso(claim["updated_at"]),
        }
    )


MESSAGES_SQL = (
    "SELECT messages.id, messages.claim_id, messages.sender_id, messages.body, messages.created_at,"
    " messages.attachment_name, messages.attachment_mime, messages.attachment_size, users.name AS sender_name,"
    " users.email AS sender_email, users.profile_picture AS sender_picture,"
    " CASE WHEN (messages.sender_id = $1) THEN (SELECT min(message_reads.read_at) FROM message_reads"
    " WHERE message_reads.message_id = messages.id AND message_reads.user_id IN ($5)) ELSE r.read_at END AS read_at"
    " FROM messages LEFT OUTER JOIN users ON users.id = messages.sender_id LEFT OUTER JOIN message_reads AS r"
    " ON r.message_id = messages.id AND r.user_id = $1 WHERE messages.claim_id = $2"
    " ORDER BY messages.created_at, messages.id LIMIT $3 OFFSET $4"
)


async def messages(request: Request) -> Response:
    claim_id = int(request.path_params["claim_id"])
    page, limit = int(request.query_params["page"]), int(request.query_params["limit"])
    assert pool is not None
    async with pool.acquire() as connection:
        user = await user_of(request, connection)
        claim = await connection.fetchrow(VISIBLE_CLAIM_SQL, user["id"], claim_id)
        other = claim["supplier_id"] if claim["customer_id"] == user["id"] else claim["customer_id"]
        rows = await connection.fetch(MESSAGES_SQL, user["id"], claim_id, limit, (page - 1) * limit, other)
        total = await connection.fetchval("SELECT count(*) FROM messages WHERE claim_id = $1", claim_id)
    data = [
        {
            "id": str(r["id"]),
            "senderId": str(r["sender_id"]),
            "senderName": r["sender_name"],
            "senderEmail": r["sender_email"],
            "message": r["body"],
            "createdAt": iso(r["created_at"]),
            "isRead": r["read_at"] is not None,
            "readAt": iso(r["read_at"]) if r["read_at"] else None,
            "senderProfilePicture": None,
            "attachment": None,
        }
        for r in rows
    ]
    return dumps(envelope(request, data, total, page, limit))


async def post_message(request: Request) -> Response:
    claim_id = int(request.path_params["claim_id"])
    text = (await request.json())["message"]
    now = datetime.now(UTC)
    assert pool is not None
    async with pool.acquire() as connection, connection.transaction():
        user = await user_of(request, connection)
        claim = await connection.fetchrow(VISIBLE_CLAIM_SQL, user["id"], claim_id)
        message_id = await connection.fetchval(
            "INSERT INTO messages (claim_id, sender_id, body, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
            claim_id,
            user["id"],
            text,
            now,
        )
        stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
        payload = {
            "type": "new_message",
            "message": {
                "id": str(message_id),
                "senderId": str(user["id"]),
                "senderName": user["name"],
                "message": text,
                "createdAt": stamp,
            },
        }
        event_id = await connection.fetchval(
            "INSERT INTO events (topic, payload, created_at) VALUES ($1, $2, $3) RETURNING id",
            f"claims/{claim_id}/messages",
            json.dumps(payload, separators=(",", ":")),
            now,
        )
        await connection.execute("SELECT pg_notify($1, $2)", "warranty_events", str(event_id))
        await connection.fetch(
            USER_SQL.replace("id = $1", "id = ANY($1::int[])"), [claim["customer_id"], claim["supplier_id"]]
        )
        scopes = [
            f"claims:user:{claim['customer_id']}",
            f"claims:user:{claim['supplier_id']}",
            "claims:all",
            f"messages:claim:{claim_id}",
            "messages:all",
        ]
        await connection.executemany(
            "INSERT INTO cache_invalidations (scope, created_at) VALUES ($1, $2)", [(s, now) for s in scopes]
        )
        other = claim["supplier_id"] if claim["customer_id"] == user["id"] else claim["customer_id"]
        rows = [
            (kind, json.dumps({"messageId": message_id, "recipientId": other}), now)
            for kind in ("email.claim_message", "push.claim_message")
        ]
        await connection.executemany(
            "INSERT INTO outbox (kind, payload, status, attempts, next_attempt_at, created_at)"
            " VALUES ($1, $2, 'pending', 0, $3, $3)",
            rows,
        )
        # As the service: the claim's row is locked last, just before the commit.
        await connection.fetchval("SELECT status FROM claims WHERE id = $1 FOR NO KEY UPDATE", claim_id)
    body = {
        "id": str(message_id),
        "senderId": str(user["id"]),
        "senderName": user["name"],
        "senderEmail": user["email"],
        "message": text,
        "createdAt": iso(now),
        "isRead": False,
        "readAt": None,
    }
    return dumps(body, 201)


async def health(_request: Request) -> Response:
    return JSONResponse({"status": "ok"})


@asynccontextmanager
async def lifespan(_app: Starlette):  # type: ignore[no-untyped-def]
    global pool
    pool = await asyncpg.create_pool(DSN, min_size=5, max_size=20)
    yield
    await pool.close()


app = Starlette(
    routes=[
        Route("/health", health),
        Route("/api/products", products),
        Route("/api/claims/{claim_id:int}", claim_detail),
        Route("/api/claims/{claim_id:int}/messages", messages, methods=["GET"]),
        Route("/api/claims/{claim_id:int}/messages", post_message, methods=["POST"]),
    ],
    lifespan=lifespan,
)
