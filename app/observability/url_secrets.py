"""Secrets in a URL never reach a log line: a token in the query string (app.observability.query_token), a
secret that is a part of the path (a calendar feed's token, an invitation's token, a device token being
removed), and, in the lines that name the URLs the service calls, those URLs' paths and queries (a webhook URL
may hold its secret in its path, a signed download link in its query).

A server logs a request's line from the ASGI scope it handed the app (uvicorn's access log, when the
response starts). So, before anything else sees the request, `hide_url_secrets` takes the query token out
of that scope, and, for a path that holds a secret, writes REDACTED over it in the server's scope and
hands the app a copy that keeps the real path to route by.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

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


def hide_url_secrets(scope: Scope) -> Scope:
    """Takes the secrets out of the server's `scope`; answers the scope the app is to be given."""
    lift_query_token(scope)
    path: str = scope["path"]
    if not any(prefix in path for prefix in _PREFIXES):
        return scope  # most requests: nothing to hide, and no copy
    for_app = dict(scope)
    scope["path"] = redacted_path(path)
    raw_path = scope.get("raw_path")
    if isinstance(raw_path, bytes):
        scope["raw_path"] = redacted_path(raw_path.decode("latin-1")).encode("latin-1")
    return for_app


def redacted_path(path: str) -> str:
    """`path` with REDACTED in place of any secret it holds."""
    return _SECRET_IN_PATH.sub(REDACTED, path)


def origin_of(url: object) -> str:
    """A URL the service calls, as logged: its scheme, host and port, with the rest as REDACTED."""
    parts = urlsplit(str(url))
    rest = parts.path not in ("", "/") or parts.query
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}" + (f"/{REDACTED}" if rest else "/")
