"""Where a sign-in may send the browser back to: WARRANTY_OIDC_REDIRECTS, matched safely.

"Starts with" is decided on the parsed URL, not on the text: the scheme, host and port must be the entry's
exactly, and the path must be the entry's path or continue it at a `/` (an entry `https://app.test/auth`
admits `https://app.test/auth` and `https://app.test/auth/done`, not `https://app.test/authority`; an entry
`https://app.test` admits nothing on `https://app.test.evil.test` or `https://app.test@evil.test`). A query
is kept; credentials, a backslash or a control character refuse the URL.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MAX_REDIRECT_LENGTH = 2048


def is_allowed(redirect: str, allowed: list[str]) -> bool:
    if len(redirect) > MAX_REDIRECT_LENGTH or "\\" in redirect or any(ord(c) < 0x21 for c in redirect):
        return False
    try:
        target = urlsplit(redirect)
        target_port = target.port
    except ValueError:
        return False
    if target.scheme not in ("http", "https") or not target.hostname or "@" in target.netloc:
        return False
    for entry in allowed:
        base = urlsplit(entry)
        same_origin = (target.scheme, target.hostname, target_port) == (base.scheme, base.hostname, base.port)
        if same_origin and _continues(target.path or "/", base.path or "/"):
            return True
    return False


def _continues(path: str, base: str) -> bool:
    if base.endswith("/"):
        return path.startswith(base)
    return path == base or path.startswith(base + "/")


def with_params(redirect: str, **params: str) -> str:
    """`redirect` with `params` added to its query (before any fragment), replacing same-named ones."""
    parts = urlsplit(redirect)
    query = [
        (key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key not in params
    ]
    return urlunsplit(parts._replace(query=urlencode([*query, *params.items()])))
