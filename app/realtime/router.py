"""Publishing through the hub (contract 20.2; docs/api.md, "The hub for Mercure users"):
`POST /.well-known/mercure`, a form with one `topic` and `data`, `private`, `id`, `type`, `retry`, under
a publisher token (app.realtime.mercure_tokens). 200 text/plain with the update's id; the update reaches
subscribers once the request's transaction commits (app.realtime.updates). 404 while
WARRANTY_MERCURE_PUBLISHER_KEY is unset."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from app.api.dependencies import SessionDep, SettingsDep
from app.api.openapi import errors
from app.errors import AppError, Forbidden, NotFound, PayloadTooLarge, Unauthorized, UnsupportedMediaType
from app.realtime.challenge import with_challenge
from app.realtime.matchers import any_matches
from app.realtime.mercure_tokens import decode_grants
from app.realtime.subscriber_access import DRAFT_COOKIE, HUB_COOKIE
from app.realtime.updates import MAX_BODY, parse_form, read_update, store

router = APIRouter(prefix="", tags=["realtime"])

FORM = "application/x-www-form-urlencoded"
_BODY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["topic"],
    "properties": {
        "topic": {"type": "string", "description": "The update's topic: exactly one", "maxLength": 247},
        "data": {"type": "string", "description": "The update's content, sent as `data:` lines"},
        "private": {"type": "string", "description": "Present (any value): private"},
        "id": {"type": "string", "description": "The update's id (else a urn:uuid: one)", "maxLength": 255},
        "type": {"type": "string", "description": "The SSE `event:` type"},
        "retry": {"type": "string", "pattern": "^[0-9]{1,9}$", "description": "The SSE `retry:` delay"},
    },
}
_OPENAPI: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            FORM: {
                "schema": _BODY_SCHEMA,
                "examples": {
                    "public": {
                        "summary": "A public update",
                        "value": {"topic": "https://shop.example/orders/7", "data": '{"status":"shipped"}'},
                    },
                    "private": {
                        "summary": "A private update with its own id and type",
                        "value": {
                            "topic": "https://shop.example/users/3/inbox",
                            "data": "line one\nline two",
                            "private": "on",
                            "id": "urn:example:inbox:3:41",
                            "type": "inbox",
                            "retry": "5000",
                        },
                    },
                },
            }
        },
    }
}


@router.post(
    "/.well-known/mercure",
    summary="Publish an update to the hub's subscribers (Mercure)",
    response_class=PlainTextResponse,
    responses={
        200: {
            "description": "The update's id",
            "content": {"text/plain": {"example": "urn:uuid:e1ee88e2-532a-4d6f-ba70-f0f8bd584022"}},
        },
        **errors(400, 401, 403, 404, 409, 413, 415),
    },
    openapi_extra=_OPENAPI,
)
async def publish_update(request: Request, session: SessionDep, settings: SettingsDep) -> PlainTextResponse:
    """A Mercure publisher's update: `Authorization: Bearer` with a publisher token granting `publish`
    on the topic (its `authorization_details` or its `mercure.publish` claim). Errors carry
    `WWW-Authenticate: Bearer` (`invalid_token`, `insufficient_scope`, `invalid_request`)."""
    try:
        update_id = await _publish(request, session, settings)
    except AppError as error:
        raise with_challenge(error) from None
    return PlainTextResponse(update_id)


async def _publish(request: Request, session: SessionDep, settings: SettingsDep) -> str:
    key = settings.mercure_publisher_key
    if key is None:
        raise NotFound()
    token = _publisher_token(request)
    hub_url = settings.hub_resource
    grants = decode_grants(token, key.get_secret_value(), settings.hub_resource, hub_url)
    if request.headers.get("content-type", "").split(";", 1)[0].strip().lower() != FORM:
        raise UnsupportedMediaType(f"Send the update as {FORM}.")
    update = read_update(parse_form(await _body(request)), hub_url)
    if not any_matches(grants.publish, update.topic):
        raise Forbidden("The token does not grant publishing on this topic.", code="INSUFFICIENT_SCOPE")
    await store(session, update)
    return update.id


def _publisher_token(request: Request) -> str:
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("Use Authorization: Bearer <token>.", code="AUTH_TOKEN_INVALID")
        return token.strip()
    cookie = request.cookies.get(DRAFT_COOKIE) or request.cookies.get(HUB_COOKIE)
    if not cookie:
        raise Unauthorized("Send a publisher token: Authorization: Bearer <token>.")
    return cookie


async def _body(request: Request) -> bytes:
    """The body, read no further than MAX_BODY bytes."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise PayloadTooLarge(f"A published update is at most {MAX_BODY} bytes.")
        chunks.append(chunk)
    return b"".join(chunks)
