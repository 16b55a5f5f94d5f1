"""What a subscription asks for (contract 6 and 20.1): its query parameters, read in both generations of
Mercure's names.

- `topic` (released protocol): a claim topic of the service (`claims/{id}/messages|status`, or a URL
  ending so), else a topic selector of published updates: a URI template, an exact topic, or `*`.
- `match`, `matchExact` (draft, exact): a claim topic, else an exact topic of published updates (`*`:
  every topic).
- `matchURLPattern` (the draft's spelling) and `match_urlpattern` (contract 20.1's): a URL Pattern.
- Any other name in the reserved `match` namespace (`match...`, in any case) -> 400, and so is a value
  in the service's own namespace (`claims/...`) that is not one of its topics.
At least one matcher, at most MAX_TOPICS in all. A value with a control character, or a pattern that does
not compile or is too long -> 400.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.errors import ValidationFailed
from app.realtime.matchers import (
    EXACT,
    TEMPLATE,
    URL_PATTERN,
    Exact,
    InvalidMatcher,
    Matcher,
    compile_matcher,
    has_controls,
)
from app.realtime.topics import MAX_TOPICS, Topic, parse_topic
from app.realtime.updates import UPDATE_PREFIX, is_service_topic

# Parameter name -> matcher type (None: a claim topic when it is one).
MATCHER_PARAMETERS = {
    "topic": TEMPLATE,
    "match": EXACT,
    "matchExact": EXACT,
    "matchURLPattern": URL_PATTERN,
    "match_urlpattern": URL_PATTERN,
}
RESERVED = "match"


@dataclass
class Wanted:
    claims: list[Topic] = field(default_factory=list)  # the service's own topics
    exact: list[str] = field(default_factory=list)  # published topics, as stored (UPDATE_PREFIX + topic)
    matchers: list[Matcher] = field(default_factory=list)  # templates, URL patterns, `*`

    @property
    def names(self) -> list[str]:
        """The stored topic names the hub indexes this subscription under."""
        return [topic.name for topic in self.claims] + self.exact


def parse_query(params: list[tuple[str, str]], hub_url: str) -> Wanted:
    """The subscription's matchers from its query parameters (in order; duplicates collapse)."""
    given = [(name, value) for name, value in params if name in MATCHER_PARAMETERS]
    unknown = sorted(
        {name for name, _ in params if name.lower().startswith(RESERVED)} - MATCHER_PARAMETERS.keys()
    )
    if unknown:
        raise ValidationFailed.field(unknown[0], "not a matcher type this hub supports")
    if not given:
        raise ValidationFailed.field("topic", "at least one topic (or match) is required")
    if len(given) > MAX_TOPICS:
        raise ValidationFailed.field(given[0][0], f"at most {MAX_TOPICS} topics per subscription")
    wanted = Wanted()
    claims: dict[str, Topic] = {}
    for name, value in given:
        if has_controls(value):
            raise ValidationFailed.field(name, "no control characters")
        kind = MATCHER_PARAMETERS[name]
        if kind != URL_PATTERN and is_service_topic(value, hub_url):
            topic = parse_topic(value)  # 400 unless it is one of the service's topics
            claims.setdefault(topic.name, topic)
            continue
        _add(wanted, name, kind, value, hub_url)
    wanted.claims = list(claims.values())
    wanted.exact = list(dict.fromkeys(wanted.exact))
    return wanted


def _add(wanted: Wanted, name: str, kind: str, value: str, hub_url: str) -> None:
    try:
        matcher = compile_matcher(kind, value, hub_url)
    except InvalidMatcher as error:
        raise ValidationFailed.field(name, str(error)) from None
    if isinstance(matcher, Exact):
        wanted.exact.append(UPDATE_PREFIX + matcher.value)
    elif matcher not in wanted.matchers:
        wanted.matchers.append(matcher)
