"""Updates published through the hub (contract 20.2, 20.3): the form a publisher posts, checked field by
field; how one is stored (a row of the events table, so it replays, crosses processes and keeps commit
order like the service's own events); and how it is framed for a stream.

Stored: `topic` is UPDATE_PREFIX + the publisher's topic (no publisher can write to a topic of the
service's own, whatever it sends), `update_id` the id subscribers see, and `payload` a JSON object with
the topic, data, type, retry and private flag.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import asdict, dataclass
from urllib.parse import parse_qsl, urljoin, urlsplit

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import Conflict, Forbidden, PayloadTooLarge, ValidationFailed
from app.models import Event
from app.realtime.matchers import HUB_PATH, has_controls
from app.realtime.publishing import StoredEvent, publish_text

UPDATE_PREFIX = "update:"
MAX_BODY = 64 * 1024  # bytes of a publish request's body
MAX_TOPIC = 255 - len(UPDATE_PREFIX)  # characters (the events table's topic column)
MAX_ID = 255  # characters (the events table's update_id column)
MAX_TYPE = 255
MAX_RETRY_DIGITS = 9
FIELDS = frozenset({"topic", "data", "private", "id", "type", "retry"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# The service's own topics: claims/... (any form, URLs included) and the internal access topic.
_SERVICE = re.compile(r"(?:^|/)claims(?:/|$)|^/?access/changed$")


@dataclass(frozen=True)
class Update:
    topic: str
    data: str
    id: str
    private: bool
    type: str | None
    retry: int | None


def parse_form(body: bytes) -> dict[str, list[str]]:
    """The form's fields (only those the draft defines; others are ignored), each with its values."""
    if len(body) > MAX_BODY:
        raise PayloadTooLarge(f"A published update is at most {MAX_BODY} bytes.")
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise ValidationFailed("The body must be UTF-8, form-encoded.") from None
    fields: dict[str, list[str]] = {}
    for name, value in pairs:
        if name in FIELDS:
            fields.setdefault(name, []).append(value)
    return fields


def is_service_topic(topic: str, hub_url: str) -> bool:
    """A topic only the service publishes: `claims/...` in any form, the internal access topic, and the
    hub's reserved namespace (a path of `/.well-known/mercure` or below, once resolved against the hub)."""
    try:
        path = urlsplit(topic).path if "://" in topic else topic.split("?", 1)[0].split("#", 1)[0]
        resolved = urlsplit(urljoin(hub_url, topic)).path
    except ValueError:  # not a URI reference (`https://[x`): an opaque topic, read as given
        path = resolved = topic
    if _SERVICE.search(path):
        return True
    return resolved == HUB_PATH or resolved.startswith(HUB_PATH + "/")


def read_update(fields: dict[str, list[str]], hub_url: str) -> Update:
    """The update the form describes; 400 for a field the draft forbids, 403 for a service topic."""
    topics = fields.get("topic", [])
    if len(topics) != 1:
        raise ValidationFailed.field("topic", "exactly one topic")
    topic = topics[0]
    if not topic or has_controls(topic):
        raise ValidationFailed.field("topic", "a non-empty topic without control characters")
    if len(topic) > MAX_TOPIC:
        raise PayloadTooLarge(f"topic: at most {MAX_TOPIC} characters")
    if is_service_topic(topic, hub_url):
        raise Forbidden("Only the service publishes to its own topics.", code="INSUFFICIENT_SCOPE")
    return Update(
        topic=topic,
        data=_one(fields, "data") or "",
        id=_update_id(_one(fields, "id")),
        private="private" in fields,  # its presence, whatever its value
        type=_event_type(_one(fields, "type")),
        retry=_retry(_one(fields, "retry")),
    )


def _one(fields: dict[str, list[str]], name: str) -> str | None:
    values = fields.get(name)
    if values is None:
        return None
    if len(values) > 1:
        raise ValidationFailed.field(name, "at most once")
    return values[0]


def _update_id(given: str | None) -> str:
    """The publisher's id, or a fresh `urn:uuid:`. Refused: `#...`, CR, LF, NUL (the draft), and what
    would read as one of the hub's own cursors (ASCII digits, `earliest`)."""
    if given is None or given == "":
        return f"urn:uuid:{uuid.uuid4()}"
    if given.startswith("#") or any(character in given for character in "\r\n\x00"):
        raise ValidationFailed.field("id", "must not start with # nor hold CR, LF or NUL")
    if (given.isascii() and given.isdigit()) or given == "earliest":
        raise ValidationFailed.field("id", "digits alone and `earliest` are the hub's own event ids")
    if len(given) > MAX_ID:
        raise PayloadTooLarge(f"id: at most {MAX_ID} characters")
    return given


def _event_type(given: str | None) -> str | None:
    if given is None or given == "":
        return None
    if "\r" in given or "\n" in given:
        raise ValidationFailed.field("type", "must not hold CR or LF")
    if len(given) > MAX_TYPE:
        raise PayloadTooLarge(f"type: at most {MAX_TYPE} characters")
    return given


def _retry(given: str | None) -> int | None:
    if given is None:
        return None
    if not (given.isascii() and given.isdigit()):
        raise ValidationFailed.field("retry", "ASCII digits only")
    if len(given.lstrip("0")) > MAX_RETRY_DIGITS:
        raise PayloadTooLarge(f"retry: at most {MAX_RETRY_DIGITS} digits")
    return int(given)


async def store(session: AsyncSession, update: Update) -> None:
    """Adds the update to the history in the request's transaction: subscribers get it once it commits.
    An id already in the history -> 409 (a cursor names one point of it)."""
    if await update_event_id(session, update.id) is not None:
        raise Conflict("An update with this id was published already.", code="UPDATE_ID_USED")
    try:
        await publish_text(session, UPDATE_PREFIX + update.topic, encode(update), update_id=update.id)
    except IntegrityError:
        raise Conflict("An update with this id was published already.", code="UPDATE_ID_USED") from None


async def update_event_id(session: AsyncSession, update_id: str) -> int | None:
    """The event id (the place in commit order) of the published update `update_id`, if it is stored."""
    found: int | None = await session.scalar(select(Event.id).where(Event.update_id == update_id))
    return found


def encode(update: Update) -> str:
    return json.dumps(asdict(update), separators=(",", ":"), ensure_ascii=False)


def decode(event: StoredEvent) -> Update | None:
    """The update an event carries; None for the service's own events."""
    if not event.topic.startswith(UPDATE_PREFIX):
        return None
    return Update(**json.loads(event.payload))


def frame_update(update: Update) -> bytes:
    """SSE as the standard reads it: `id:`, `event:` for the type, `retry:` when given, and one `data:`
    line per line of the data, whatever its line breaks (CR LF, CR or LF)."""
    lines = [f"id: {update.id}"]
    if update.type is not None:
        lines.append(f"event: {update.type}")
    if update.retry is not None:
        lines.append(f"retry: {update.retry}")
    lines.extend(f"data: {line}" for line in _LINE_BREAK.split(update.data))
    return ("\n".join(lines) + "\n\n").encode()
