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
BASE_URL = os.environ.get("WARRANTY_BASE_URL", "http://127.0.0.1:8000")
DETAIL_MESSAGES = 200
EXPIRING_SOON_DAYS = 30
pool: asyncpg.Pool | None = None

USER_SQL = (
    "SELECT id, email, name, password_hash, roles, street, postal_code, city, country, notifications_enabled,"
    " email_notifications_enabled, profile_picture, credential_version, updated_at, created_at FROM users"
    " WHERE id = $1"
)
VISIBLE_CLAIM_SQL = (
    "SELECT id, product_id, customer_id, supplier_id, status, description, outcome, outcome_note, updated_at,"
    " created_at FROM claims WHERE id = $2 AND (customer_id = $1 OR supplier_id = $1)"
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


PRODUCTS_SQL = (
    "SELECT page.id, page.name, page.brand, page.category, page.store, page.purchase_date,"
    " page.warranty_period_months, page.warranty_ends_on, page.price, page.serial_number,"
    " page.warranty_voided_at, page.warranty_void_reason, page.created_at, page.updated_at,"
    " page.warranty_expires_on, page.sort_key, EXISTS (SELECT * FROM claims WHERE claims.product_id = page.id"
    " AND claims.status != $1) AS has_active_claim FROM (SELECT products.id AS id, products.name AS name,"
    " products.brand AS brand, products.category AS category, products.store AS store,"
    " products.purchase_date AS purchase_date, products.warranty_period_months AS warranty_period_months,"
    " products.warranty_ends_on AS warranty_ends_on, products.price AS price,"
    " products.serial_number AS serial_number, products.warranty_voided_at AS warranty_voided_at,"
    " products.warranty_void_reason AS warranty_void_reason, products.created_at AS created_at,"
    " products.updated_at AS updated_at, products.warranty_expires_on AS warranty_expires_on,"
    " products.created_at AS sort_key FROM products WHERE products.owner_id = $2"
    " ORDER BY products.created_at DESC, products.id DESC LIMIT $3 OFFSET $4) AS page"
    " ORDER BY page.sort_key DESC, page.id DESC"
)
EXTENSIONS_SQL = (
    "SELECT product_id, claim_id, months, starts_on, ends_on FROM warranty_extensions"
    " WHERE product_id = ANY($1::int[]) ORDER BY created_at DESC, id DESC"
)


def warranty_status(row: asyncpg.Record, today: date) -> str:
    if row["warranty_voided_at"] is not None:
        return "void"
    days_left = (row["warranty_expires_on"] - today).days
    return "expired" if days_left < 0 else "expiring_soon" if days_left <= EXPIRING_SOON_DAYS else "active"


def extension_json(row: asyncpg.Record) -> dict[str, Any]:
    return {
        "claimId": row["claim_id"],
        "months": row["months"],
        "startsOn": row["starts_on"].isoformat(),
        "endsOn": row["ends_on"].isoformat(),
    }


async def products(request: Request) -> Response:
    page, limit = int(request.query_params["page"]), int(request.query_params["limit"])
    assert pool is not None
    async with pool.acquire() as connection:
        user = await user_of(request, connection)
        total = await connection.fetchval("SELECT count(id) FROM products WHERE owner_id = $1", user["id"])
        rows = await connection.fetch(PRODUCTS_SQL, "closed", user["id"], limit, (page - 1) * limit)
        extensions: dict[int, list[dict[str, Any]]] = {row["id"]: [] for row in rows}
        for row in await connection.fetch(EXTENSIONS_SQL, list(extensions)):
            extensions[row["product_id"]].append(extension_json(row))
    today = datetime.now(UTC).date()
    data = [
        {
            "id": row["id"],
            "name": row["name"],
            "brand": row["brand"],
            "category": row["category"],
            "store": row["store"],
            "purchaseDate": iso_date(row["purchase_date"]),
            "warrantyPeriodMonths": row["warranty_period_months"],
            "warrantyEndsOn": row["warranty_ends_on"].isoformat() if row["warranty_ends_on"] else None,
            "price": float(row["price"]) if row["price"] is not None else None,
            "serialNumber": row["serial_number"],
            "warrantyStatus": warranty_status(row, today),
            "warrantyExpiresAt": iso_date(row["warranty_expires_on"]),
            "warrantyVoidedAt": iso(row["warranty_voided_at"]) if row["warranty_voided_at"] else None,
            "warrantyVoidReason": row["warranty_void_reason"],
            "warrantyExtensions": extensions[row["id"]],
            "hasActiveClaim": row["has_active_claim"],
            "createdAt": iso(row["created_at"]),
            "updatedAt": iso(row["updated_at"]),
        }
        for row in rows
    ]
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


def handoff(claim_id: int, newest_event: int | None) -> dict[str, str]:
    last = "earliest" if newest_event is None else str(newest_event)
    return {
        "Link": f'<{BASE_URL}/.well-known/mercure>; rel="mercure"; last-event-id="{last}", '
        f'<{BASE_URL}/api/claims/{claim_id}/messages>; rel="self"'
    }


async def claim_detail(request: Request) -> Response:
    claim_id = int(request.path_params["claim_id"])
    assert pool is not None
    # As the service: one read-only snapshot for the reads and the hand-off's event id.
    async with (
        pool.acquire() as connection,
        connection.transaction(isolation="repeatable_read", readonly=True),
    ):
        user = await user_of(request, connection)
        claim = await connection.fetchrow(VISIBLE_CLAIM_SQL, user["id"], claim_id)
        if claim is None:
            return dumps({"error": "NotFound", "message": "Not found.", "code": "NOT_FOUND"}, 404)
        newest_event = await connection.fetchval("SELECT max(id) FROM events")
        product = await connection.fetchrow(
            "SELECT id, owner_id, name, brand, category, store, purchase_date, warranty_period_months,"
            " warranty_ends_on, warranty_expires_on, warranty_voided_at, warranty_void_reason, price,"
            " serial_number, updated_at, created_at FROM products WHERE id = $1",
            claim["product_id"],
        )
        newest = await connection.fetch(
            "SELECT id, sender_id, body AS message, created_at FROM messages WHERE claim_id = $1"
            " ORDER BY created_at DESC, id DESC LIMIT $2",
            claim_id,
            DETAIL_MESSAGES + 1,
        )
        extension = await connection.fetchrow(
            "SELECT id, product_id, claim_id, months, starts_on, ends_on, created_at FROM warranty_extensions"
            " WHERE claim_id = $1",
            claim_id,
        )
    body = {
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
            for m in reversed(newest[:DETAIL_MESSAGES])
        ],
        "hasMoreMessages": len(newest) > DETAIL_MESSAGES,
        "outcome": claim["outcome"],
        "outcomeNote": claim["outcome_note"],
        "warrantyExtension": None if extension is None else extension_json(extension),
        "createdAt": iso(claim["created_at"]),
        "updatedAt": iso(claim["updated_at"]),
    }
    response = dumps(body)
    response.headers.update(handoff(claim_id, newest_event))
    return response


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
    async with (
        pool.acquire() as connection,
        connection.transaction(isolation="repeatable_read", readonly=True),
    ):
        user = await user_of(request, connection)
        claim = await connection.fetchrow(VISIBLE_CLAIM_SQL, user["id"], claim_id)
        other = claim["supplier_id"] if claim["customer_id"] == user["id"] else claim["customer_id"]
        rows = await connection.fetch(MESSAGES_SQL, user["id"], claim_id, limit, (page - 1) * limit, other)
        # The exact total is a counter the writing transactions keep (app.derived.count_triggers).
        total = int(
            await connection.fetchval(
                "SELECT coalesce(sum(n), 0) FROM row_counts WHERE name = $1", f"claim:{claim_id}:messages"
            )
        )
        newest_event = await connection.fetchval("SELECT max(id) FROM events")
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
    response = dumps(envelope(request, data, total, page, limit))
    response.headers.update(handoff(claim_id, newest_event))
    return response


async def post_message(request: Request) -> Response:
    claim_id = int(request.path_params["claim_id"])
    text = (await request.json())["message"]
    now = datetime.now(UTC)
    assert pool is not None
    # The statements the service runs for a message, in its order (its events row gets its id and its
    # NOTIFY from the trigger at commit, as the service's does).
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
        await connection.fetch(
            USER_SQL.replace("id = $1", "id = ANY($1::int[]) ORDER BY id"),
            [claim["customer_id"], claim["supplier_id"]],
        )
        await connection.fetch("SELECT id, events FROM webhook_endpoints ORDER BY id")
        scopes = [
            f"claims:user:{claim['customer_id']}",
            f"claims:user:{claim['supplier_id']}",
            "claims:all",
            f"messages:claim:{claim_id}",
            "messages:all",
        ]
        await connection.fetch(
            "INSERT INTO cache_invalidations (scope, created_at) SELECT scope, $2 FROM unnest($1::text[]) AS scope"
            " RETURNING id",
            scopes,
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
        await connection.fetchval(
            "INSERT INTO events (topic, payload, created_at) VALUES ($1, $2, $3) RETURNING id",
            f"claims/{claim_id}/messages",
            json.dumps(payload, separators=(",", ":")),
            now,
        )
        other = claim["supplier_id"] if claim["customer_id"] == user["id"] else claim["customer_id"]
        outbox = json.dumps({"messageId": message_id, "recipientId": other})
        await connection.execute(
            "INSERT INTO outbox (kind, payload, status, attempts, next_attempt_at, created_at)"
            " VALUES ('email.claim_message', $1, 'pending', 0, $2, $2),"
            " ('push.claim_message', $1, 'pending', 0, $2, $2)",
            outbox,
            now,
        )
        await connection.fetchval(
            "INSERT INTO claim_events (claim_id, kind, actor_id, actor_role, data, created_at)"
            " VALUES ($1, 'message', $2, 'customer', $3, $4) RETURNING id",
            claim_id,
            user["id"],
            json.dumps({"messageId": message_id}),
            now,
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
