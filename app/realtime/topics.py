"""Hub topics: `claims/{id}/messages` and `claims/{id}/status`, also accepted as full URLs ending so."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.errors import ValidationFailed

# Internal: an event on it names users whose access changed (app.realtime.sweep re-checks their streams at
# once, in every process). No stream can subscribe to it: `parse_topic` takes claim topics only.
ACCESS_TOPIC = "access/changed"

MAX_TOPICS = 50  # per subscription: each topic is a set entry per subscriber and a term of the replay query
_TOPIC = re.compile(r"(?:^|/)claims/(\d{1,18})/(messages|status)/?$")


@dataclass(frozen=True)
class Topic:
    claim_id: int
    kind: str  # "messages" or "status"

    @property
    def name(self) -> str:
        """The canonical name events are stored under."""
        return f"claims/{self.claim_id}/{self.kind}"


def parse_topic(raw: str) -> Topic:
    """`claims/42/messages`, or a URL such as `https://example.com/claims/42/messages`; else 400."""
    value = raw.strip().split("?", 1)[0].split("#", 1)[0]
    match = _TOPIC.search(value)
    if match is None or (match.start() > 0 and "://" not in value):
        raise ValidationFailed.field(
            "topic", "must be claims/{id}/messages or claims/{id}/status (or a URL ending so)"
        )
    return Topic(int(match.group(1)), match.group(2))


def is_claim_name(name: str) -> bool:
    """Whether a stored topic name is a claim's (not a published update's, app.realtime.updates)."""
    return name.startswith("claims/")


def claim_id_of(name: str) -> int:
    """The claim of a canonical topic name (`claims/42/messages` -> 42)."""
    return int(name.split("/")[1])
