"""Pagination, one piece for every list: validated page/limit, role maxima, the envelope with meta and links.

Lists answer a bare array of every match unless `page`, `limit` or `cursor` is in the query (or the list is
always paged, as admin lists are); then they answer the envelope of docs/api.md §5.5.

Keyset paging (`cursor`, `meta.next_cursor`): a cursor holds the sort key of the last item shown, signed
together with the list it came from (path and filters), so a page after it starts where that page ended
at any depth, and a cursor of another list, of other filters, or made up is a 400.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import urlencode

from fastapi import Request
from pydantic import BaseModel, Field, TypeAdapter

from app.core.numbers import digits_value, max_digits_of
from app.errors import ValidationFailed

ABSOLUTE_MAX_LIMIT = 100
DEFAULT_LIMIT = 20
MAX_LIMIT = 50  # for everyone but admins, whose maximum is ABSOLUTE_MAX_LIMIT

T = TypeVar("T")
# The kinds of values a sort key holds, as a cursor carries them (JSON has no dates).
KeyKind = Literal["int", "str", "date", "datetime"]
_NOT_PAGE_QUERY = ("page", "limit", "cursor")


MAX_OFFSET = 2**53  # beyond any table, and within every database's integer range
# The largest page number (a signed 64-bit integer): longer numbers are refused by their length.
MAX_PAGE = 2**63 - 1
_MAX_DIGITS = max_digits_of(MAX_PAGE)
# A cursor carries one sort key (at most a 255-character name, JSON-escaped) and an id: a few KB at most.
MAX_CURSOR = 16_384


@dataclass(frozen=True)
class PageParams:
    page: int
    limit: int  # after lowering to the role maximum
    requested: bool  # page, limit or cursor was in the query
    after: list[Any] | None = None  # the verified cursor's key values (not yet typed); None: by page number
    signer: CursorSigner | None = field(default=None, repr=False, compare=False)

    @property
    def offset(self) -> int:
        # Capped: any page past the end is empty, and a page number in the quintillions must not overflow
        # the database's 64-bit OFFSET (a 500).
        return 0 if self.after is not None else min((self.page - 1) * self.limit, MAX_OFFSET)

    @property
    def by_cursor(self) -> bool:
        return self.after is not None

    @property
    def fetch(self) -> int:
        """How many rows to read: one more than the page shows, to know whether a next page exists."""
        return self.limit + 1

    def after_key(self, kinds: Sequence[KeyKind]) -> tuple[Any, ...] | None:
        """The cursor's sort key with the list's own types (None when paging by page number)."""
        if self.after is None:
            return None
        if len(self.after) != len(kinds):
            raise invalid_cursor()
        return tuple(_typed(value, kind) for value, kind in zip(self.after, kinds, strict=True))

    def window(self, rows: Sequence[T], key: Callable[[T], Sequence[Any]]) -> tuple[list[T], str | None]:
        """The rows the page shows (`rows` read with `fetch`) and the cursor of the page after them."""
        shown = list(rows[: self.limit])
        if len(rows) <= self.limit or not shown or self.signer is None:
            return shown, None
        return shown, self.signer.sign(list(key(shown[-1])))


def invalid_cursor() -> ValidationFailed:
    return ValidationFailed.field("cursor", "not a cursor of this list (take meta.next_cursor as it is)")


def _typed(value: Any, kind: KeyKind) -> Any:
    try:
        if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
            return value
        if kind == "str" and isinstance(value, str):
            return value
        if kind == "date" and isinstance(value, str):
            return date.fromisoformat(value)
        if kind == "datetime" and isinstance(value, str):
            return datetime.fromisoformat(value)
    except ValueError:
        pass
    raise invalid_cursor()


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date | datetime) else value


@dataclass(frozen=True)
class CursorSigner:
    """Signs and verifies cursors of one list: its path and its filters (the query without page, limit
    and cursor), keyed by the service's secret."""

    key: bytes
    list_id: bytes

    @classmethod
    def of(cls, request: Request) -> CursorSigner:
        secret = request.app.state.settings.secret_key
        key = hmac.new(secret.get_secret_value().encode() if secret else b"", b"page-cursor", "sha256")
        filters = sorted((k, v) for k, v in request.query_params.multi_items() if k not in _NOT_PAGE_QUERY)
        return cls(key.digest(), json.dumps([request.url.path, filters]).encode())

    def _mac(self, payload: bytes) -> bytes:
        return hmac.new(self.key, self.list_id + b"\0" + payload, hashlib.sha256).digest()[:16]

    def sign(self, values: list[Any]) -> str:
        payload = json.dumps([_plain(value) for value in values], separators=(",", ":")).encode()
        return _b64(payload) + "." + _b64(self._mac(payload))

    def verify(self, cursor: str) -> list[Any]:
        if len(cursor) > MAX_CURSOR:  # nothing this service signs is that long: not decoded at all
            raise invalid_cursor()
        encoded_payload, _, encoded_mac = cursor.strip().partition(".")
        try:
            payload, mac = _unb64(encoded_payload), _unb64(encoded_mac)
        except (binascii.Error, ValueError):
            raise invalid_cursor() from None
        if not hmac.compare_digest(mac, self._mac(payload)):
            raise invalid_cursor()
        values = json.loads(payload)
        if not isinstance(values, list):
            raise invalid_cursor()
        return values


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _digits(raw: str) -> int | None:
    """ASCII digits as their value, measured before converting (leading zeros aside: "007" is 7); None
    when they are not digits, or are more digits than MAX_PAGE has."""
    return digits_value(raw.lstrip("0") or "0", _MAX_DIGITS)


def _page(raw: str | None) -> int:
    page = 1 if raw is None else _digits(raw)
    if page is None or not 1 <= page <= MAX_PAGE:
        raise ValidationFailed(
            f"page must be a whole number from 1 to {MAX_PAGE}.", code="VALIDATION_INVALID_PAGE"
        )
    return page


def _limit(raw: str | None) -> int:
    limit = DEFAULT_LIMIT if raw is None else _digits(raw)
    if limit is None and raw is not None and raw.isascii() and raw.isdigit():
        raise _limit_exceeded(None)  # a number too long to hold is over the maximum whatever it is
    if limit is None or limit < 1:
        raise ValidationFailed("limit must be a whole number of at least 1.", code="VALIDATION_INVALID_LIMIT")
    if limit > ABSOLUTE_MAX_LIMIT:
        raise _limit_exceeded(limit)
    return limit


def _limit_exceeded(requested: int | None) -> ValidationFailed:
    details: dict[str, Any] = {"max_limit": ABSOLUTE_MAX_LIMIT}
    if requested is not None:
        details["requested"] = requested
    return ValidationFailed(
        f"limit may be at most {ABSOLUTE_MAX_LIMIT}.", code="VALIDATION_LIMIT_EXCEEDED", details=details
    )


def parse_page_params(request: Request, *, admin: bool) -> PageParams:
    """The query's paging; `limit` lowered to MAX_LIMIT unless the caller is an admin."""
    query = request.query_params
    page, limit = _page(query.get("page")), _limit(query.get("limit"))
    requested = "page" in query or "limit" in query or "cursor" in query
    signer = CursorSigner.of(request)
    after = None
    if "cursor" in query:
        if "page" in query:
            raise ValidationFailed.field("cursor", "give either page or cursor, not both")
        after = signer.verify(query["cursor"])
    limit = limit if admin else min(limit, MAX_LIMIT)
    return PageParams(page=page, limit=limit, requested=requested, after=after, signer=signer)


class PageMeta(BaseModel):
    current_page: int | None = Field(description="null when paging by cursor")
    per_page: int
    total: int
    last_page: int
    from_: int | None = Field(alias="from", description="null on an empty page and when paging by cursor")
    to: int | None
    next_cursor: str | None = Field(
        description="opaque: `cursor` of the page after this one; null on the last"
    )


class PageLinks(BaseModel):
    first: str
    last: str
    prev: str | None
    next: str | None


class Page(BaseModel, Generic[T]):
    """The envelope (docs/api.md §5.5). `meta` is snake_case."""

    data: list[T]
    meta: PageMeta
    links: PageLinks


def build_page(
    items: list[Any], total: int, params: PageParams, request: Request, next_cursor: str | None = None
) -> dict[str, Any]:
    """The envelope as a plain dict (serialized by the route's response model)."""
    meta, links = _meta_and_links(len(items), total, params, request, next_cursor)
    return {"data": items, "meta": meta, "links": links}


def list_json(
    items: bytes,
    count: int,
    total: int | None,
    params: PageParams,
    request: Request,
    next_cursor: str | None = None,
) -> bytes:
    """A list's body from its items already serialized as a JSON array: the array itself when the list is
    not paged (`total` None), else the envelope around it."""
    if total is None:
        return items
    meta, links = _meta_and_links(count, total, params, request, next_cursor)
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
    count: int, total: int, params: PageParams, request: Request, next_cursor: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    last_page = max(1, math.ceil(total / params.limit))
    shown = count and not params.by_cursor  # by cursor, the position in the list is not known
    filters = [(k, v) for k, v in request.query_params.multi_items() if k not in _NOT_PAGE_QUERY]

    def link(**where: str) -> str:
        query = [*filters, *where.items(), ("limit", str(params.limit))]
        return f"{request.url.path}?{urlencode(query)}"

    meta = {
        "current_page": None if params.by_cursor else params.page,
        "per_page": params.limit,
        "total": total,
        "last_page": last_page,
        "from": params.offset + 1 if shown else None,
        "to": params.offset + count if shown else None,
        "next_cursor": next_cursor,
    }
    if params.by_cursor:
        previous, following = None, link(cursor=next_cursor) if next_cursor else None
    else:
        previous = link(page=str(params.page - 1)) if params.page > 1 else None
        following = link(page=str(params.page + 1)) if params.page < last_page else None
    links = {"first": link(page="1"), "last": link(page=str(last_page)), "prev": previous, "next": following}
    return meta, links
