"""Secrets in a URL never reach a log line: a token in the query string (app.observability.query_token), a
secret that is a part of the path (a calendar feed's token, an invitation's token, a device token being
removed), the `code` and `state` a provider sends back to a sign-in's callback, and, in the lines that
name the URLs the service calls, those URLs' paths and queries (a webhook URL may hold its secret in its
path, a signed download link in its query).

A server logs a request's line from the ASGI scope it handed the app (uvicorn's access log, when the
response starts). So, before anything else sees the request, `hide_url_secrets` takes the query token out
of that scope, and, for a path that holds a secret, writes REDACTED over it in the server's scope and
hands the app a copy that keeps the real path to route by.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus, urlsplit

from starlette.types import Scope

from app.observability.query_token import lift_query_token

REDACTED = "REDACTED"
# The paths that carry a secret, and the secret in each: a feed's token (its `.ics` stays), an
# invitation's token (one segment), a device token (the rest of the path: it may hold slashes).
_PREFIXES = ("/api/calendar/", "/api/invitations/", "/api/device-tokens/")
_SECRET_IN_PATH = re.compile(
    r"(?<=/api/calendar/)[^/]+?(?=(?:\.ics)?(?:/|\Z))"
    r"|(?<=/api/invitations/)[^/]+"
    r"|(?<=/api/device-tokens/).+",
    re.DOTALL,
)


# A sign-in's callback (app/oidc): the provider's authorization code and the sign-in's state.
_CALLBACK = re.compile(r"/api/auth/oidc/[^/]+/callback/?")
_CALLBACK_SECRETS = frozenset({"code", "state"})


def hide_url_secrets(scope: Scope) -> Scope:
    """Takes the secrets out of the server's `scope`; answers the scope the app is to be given."""
    lift_query_token(scope)
    path: str = scope["path"]
    if _CALLBACK.fullmatch(path):
        for_app = dict(scope)
        scope["query_string"] = redacted_query(scope.get("query_string", b""), _CALLBACK_SECRETS)
        return for_app
    if not any(prefix in path for prefix in _PREFIXES):
        return scope  # most requests: nothing to hide, and no copy
    for_app = dict(scope)
    scope["path"] = redacted_path(path)
    raw_path = scope.get("raw_path")
    if isinstance(raw_path, bytes):
        scope["raw_path"] = redacted_path(raw_path.decode("latin-1")).encode("latin-1")
    return for_app


def redacted_query(query: bytes, names: frozenset[str]) -> bytes:
    """`query` with REDACTED as the value of each parameter named in `names` (any case, even encoded)."""
    segments = query.split(b"&")
    for index, segment in enumerate(segments):
        name, equals, value = segment.partition(b"=")
        if value and unquote_plus(name.decode("latin-1")).lower() in names:
            segments[index] = name + equals + REDACTED.encode()
    return b"&".join(segments)


def redacted_path(path: str) -> str:
    """`path` with REDACTED in place of any secret it holds."""
    return _SECRET_IN_PATH.sub(REDACTED, path)


def origin_of(url: object) -> str:
    """A URL the service calls, as logged: its scheme, host and port, with the rest as REDACTED."""
    parts = urlsplit(str(url))
    rest = parts.path not in ("", "/") or parts.query
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}" + (f"/{REDACTED}" if rest else "/")
