"""A token given in the query string (`?authorization=`, how EventSource clients without cookies reach
the hub) never reaches a log.

The server logs the request line from the ASGI scope when the response starts (uvicorn's access log), and
anything else that logs a URL reads the same scope. So, before anything else sees the request, the
parameter's value is lifted out of `query_string` into the scope under QUERY_TOKEN and the query string
keeps `authorization=REDACTED` in its place. The scope dict is the server's own object: the access log
then prints the redacted line.

The Mercure draft's `access_token` query parameter is redacted the same way, and dropped: the hub does not
take it as a credential (contract 20.1), and no log shows it.
"""

from __future__ import annotations

from urllib.parse import unquote_plus

from starlette.types import Scope

QUERY_TOKEN = "warranty.query_token"
PARAMETER = b"authorization"
REDACTED = b"REDACTED"
NOT_A_CREDENTIAL = b"access_token"  # redacted, never kept


def lift_query_token(scope: Scope) -> None:
    """Moves the value of every `authorization` and `access_token` query parameter (any case, even
    percent-encoded) out of the query string; the first `authorization` one's, decoded as Starlette would,
    stays in `scope[QUERY_TOKEN]`."""
    query: bytes = scope.get("query_string", b"")
    lowered = query.lower()
    if PARAMETER not in lowered and NOT_A_CREDENTIAL not in lowered and b"%" not in query:
        return
    segments = query.split(b"&")
    for index, segment in enumerate(segments):
        name, equals, value = segment.partition(b"=")
        decoded = unquote_plus(name.decode("latin-1"))
        if decoded.lower() not in (PARAMETER.decode(), NOT_A_CREDENTIAL.decode()):
            continue
        if decoded == PARAMETER.decode() and QUERY_TOKEN not in scope:
            scope[QUERY_TOKEN] = unquote_plus(value.decode("latin-1"))
        segments[index] = name + equals + REDACTED if value else segment
    scope["query_string"] = b"&".join(segments)


def query_token(scope: Scope) -> str | None:
    """The lifted `authorization` query parameter, if the request had one."""
    token: str | None = scope.get(QUERY_TOKEN)
    return token
