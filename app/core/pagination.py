"""Pagination, one piece for every list: validated page/limit, role maxima, the envelope with meta and links.

Lists answer a bare array of every match unless `page` or `limit` is in the query (or the list is always
paged, as admin lists are); then they answer the envelope of spec 8.1.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar
from urllib.parse import urlencode

from fastapi import Depends, Query, Request
from pydantic import BaseModel, Field, TypeAdapter

from app.auth.dependencies import CurrentUser
from app.errors import ValidationFailed
from app.models import ROLE_ADMIN, User

ABSOLUTE_MAX_LIMIT = 100
DEFAULT_LIMIT = 20
ROLE_MAX_LIMIT = {"CUSTOMER": 50, "SUPPLIER": 50, "ADMIN": 100}

T = TypeVar("T")


@dataclass(frozen=True)
class PageParams:
    page: int
    limit: int  # after lowering to the role maximum
    requested: bool  # page or limit was in the query

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit


def role_max_limit(user: User) -> int:
    return ROLE_MAX_LIMIT["ADMIN"] if ROLE_ADMIN in user.effective_roles else ROLE_MAX_LIMIT["CUSTOMER"]


def _parse_positive(raw: str | None, default: int, code: str, name: str) -> int:
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValidationFailed(f"{name} must be a whole number of at least 1.", code=code) from None
    if value < 1:
        raise ValidationFailed(f"{name} must be at least 1.", code=code)
    return value


def parse_page_params(request: Request, user: User) -> PageParams:
    query = request.query_params
    page = _parse_positive(query.get("page"), 1, "VALIDATION_INVALID_PAGE", "page")
    limit = _parse_positive(query.get("limit"), DEFAULT_LIMIT, "VALIDATION_INVALID_LIMIT", "limit")
    if limit > ABSOLUTE_MAX_LIMIT:
        raise ValidationFailed(
            f"limit may be at most {ABSOLUTE_MAX_LIMIT}.",
            code="VALIDATION_LIMIT_EXCEEDED",
            details={"max_limit": ABSOLUTE_MAX_LIMIT, "requested": limit},
        )
    requested = "page" in query or "limit" in query
    return PageParams(page=page, limit=min(limit, role_max_limit(user)), requested=requested)


async def page_params(
    request: Request,
    user: CurrentUser,
    # Declared as text for the OpenAPI document; parsed by hand for the contract's own error codes.
    page: Annotated[str | None, Query(description="1-based page; with `limit`, answers the envelope")] = None,
    limit: Annotated[
        str | None, Query(description="items per page, 1..100 (lowered to 50 for non-admins)")
    ] = None,
) -> PageParams:
    return parse_page_params(request, user)


Pagination = Annotated[PageParams, Depends(page_params)]


class PageMeta(BaseModel):
    current_page: int
    per_page: int
    total: int
    last_page: int
    from_: int | None = Field(alias="from")
    to: int | None


class PageLinks(BaseModel):
    first: str
    last: str
    prev: str | None
    next: str | None


class Page(BaseModel, Generic[T]):
    """The envelope (spec 8.1). `meta` is snake_case, as the spec shows."""

    data: list[T]
    meta: PageMeta
    links: PageLinks


def build_page(items: list[Any], total: int, params: PageParams, request: Request) -> dict[str, Any]:
    """The envelope as a plain dict (serialized by the route's response model)."""
    meta, links = _meta_and_links(len(items), total, params, request)
    return {"data": items, "meta": meta, "links": links}


def list_json(items: bytes, count: int, total: int | None, params: PageParams, request: Request) -> bytes:
    """A list's body from its items already serialized as a JSON array: the array itself when the list is
    not paged (`total` None), else the envelope around it."""
    if total is None:
        return items
    meta, links = _meta_and_links(count, total, params, request)
    return b'{"data":' + items + b',"meta":' + _json(meta) + b',"links":' + _json(links) + b"}"


class JsonList(Generic[T]):
    """Serializes a list of response models as FastAPI would (by alias), without validating it again."""

    def __init__(self, model: type[T]) -> None:
        self._adapter: TypeAdapter[list[T]] = TypeAdapter(list[model])  # type: ignore[valid-type]

    def __call__(self, items: list[T]) -> bytes:
        return self._adapter.dump_json(items, by_alias=True)


def _json(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _meta_and_links(
    count: int, total: int, params: PageParams, request: Request
) -> tuple[dict[str, Any], dict[str, Any]]:
    last_page = max(1, math.ceil(total / params.limit))
    first_index = params.offset + 1 if count else None
    last_index = params.offset + count if count else None

    def link(page: int) -> str:
        query = [
            (key, value) for key, value in request.query_params.multi_items() if key not in ("page", "limit")
        ]
        query += [("page", str(page)), ("limit", str(params.limit))]
        return f"{request.url.path}?{urlencode(query)}"

    meta = {
        "current_page": params.page,
        "per_page": params.limit,
        "total": total,
        "last_page": last_page,
        "from": first_index,
        "to": last_index,
    }
    links = {
        "first": link(1),
        "last": link(last_page),
        "prev": link(params.page - 1) if params.page > 1 else None,
        "next": link(params.page + 1) if params.page < last_page else None,
    }
    return meta, links
