"""Authentication-Results (RFC 8601) the receiving provider wrote, and whether they prove the From domain.

Anyone can write these headers into the mail they send; only those naming one of the provider's
authserv-ids (`WARRANTY_INBOUND_AUTHSERV_IDS`) are read. The topmost header of each name is the one read
(the payload keeps the first occurrence): a receiving server adds its own above the ones that came in.
An `ARC-Authentication-Results` of a listed sealer counts only when the provider's own results say
`arc=pass` (it verified the seal over them): otherwise a sender could have written it too.

The reading is one pass over at most `MAX_READ` characters: comments nest by a counter, quoted strings
and escapes by a flag, never by recursion or a backtracking pattern.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_READ = 8192  # characters of one header read; real ones are a few hundred
_SEPARATORS = frozenset(";=")


@dataclass(frozen=True)
class Result:
    method: str  # "dmarc", "spf", "dkim", "arc", ...
    result: str  # "pass", "fail", "none", ... (lower-cased)
    properties: dict[str, str] = field(default_factory=dict)  # "header.d": "example.com", first wins


@dataclass(frozen=True)
class TrustedResults:
    direct: list[Result]  # the provider's own Authentication-Results
    sealed: list[Result]  # a listed sealer's ARC results, when the provider verified the seal


Token = tuple[bool, str]  # (a separator, its text): a quoted ";" or "=" is a word, not a separator
_SEMICOLON: Token = (True, ";")
_EQUALS: Token = (True, "=")


def _tokens(value: str) -> list[Token]:
    """Words (quoted strings unquoted) and the separators ";" and "="; comments and white space dropped."""
    tokens: list[Token] = []
    word: list[str] = []
    depth, quoted, escaped = 0, False, False
    for char in value[:MAX_READ]:
        if escaped:
            escaped = False
            if not depth:
                word.append(char)
        elif char == "\\" and (quoted or depth):
            escaped = True
        elif quoted:
            quoted = char != '"'
            if quoted:
                word.append(char)
        elif depth:
            depth += (char == "(") - (char == ")")
        elif char == '"':
            quoted = True
        elif char == "(" or char in _SEPARATORS or char.isspace():
            if word:
                tokens.append((False, "".join(word)))
                word.clear()
            depth = 1 if char == "(" else 0
            if char in _SEPARATORS:
                tokens.append((True, char))
        else:
            word.append(char)
    if word:
        tokens.append((False, "".join(word)))
    return tokens


def _segments(tokens: list[Token]) -> list[list[Token]]:
    segments: list[list[Token]] = [[]]
    for token in tokens:
        if token == _SEMICOLON:
            segments.append([])
        else:
            segments[-1].append(token)
    return segments


def _pair(tokens: list[Token]) -> tuple[str, str] | None:
    """`name=value` from three tokens, or None."""
    (name_is_separator, name), equals, (value_is_separator, value) = tokens
    if equals != _EQUALS or name_is_separator or value_is_separator:
        return None
    return name, value


def _result(segment: list[Token]) -> Result | None:
    """`method[/version]=result` then `name=value` properties (a `reason=` among them)."""
    verdict = _pair(segment[:3]) if len(segment) >= 3 else None
    if verdict is None:
        return None
    properties: dict[str, str] = {}
    index = 3
    while index + 2 < len(segment):
        pair = _pair(segment[index : index + 3])
        if pair is not None:
            properties.setdefault(pair[0].lower(), pair[1])
        index += 3 if pair is not None else 1
    method, result = verdict
    return Result(method.partition("/")[0].lower(), result.lower(), properties)


def parse_results(value: str, *, arc: bool = False) -> tuple[str, list[Result]]:
    """The authserv-id (lower-cased) and results of one header; an ARC one starts with `i=<n>;`."""
    segments = _segments(_tokens(value))
    if arc and len(segments) > 1 and segments[0][:2] == [(False, "i"), _EQUALS]:
        segments = segments[1:]
    head = segments[0]
    if not head or head[0][0]:
        return "", []
    results = [result for segment in segments[1:] if (result := _result(segment)) is not None]
    return head[0][1].lower(), results


def trusted_results(headers: dict[str, str], authserv_ids: list[str]) -> TrustedResults:
    """The results of the provider's own header and, when it verified their seal, a listed sealer's."""
    listed = {authserv_id.strip().lower() for authserv_id in authserv_ids}
    authserv_id, direct = parse_results(headers.get("authentication-results", ""))
    if authserv_id not in listed:
        return TrustedResults([], [])
    sealer, sealed = parse_results(headers.get("arc-authentication-results", ""), arc=True)
    seal_verified = any(result.method == "arc" and result.result == "pass" for result in direct)
    return TrustedResults(direct, sealed if seal_verified and sealer in listed else [])


def _domain(identity: str) -> str:
    """The domain of `user@domain`, `@domain` or `domain`: lower-cased, without a final dot."""
    return identity.rpartition("@")[2].strip().lower().rstrip(".")


def aligned(identity: str, from_domain: str) -> bool:
    """Relaxed alignment, as far as it holds without the public suffix list: the same domain, or one a
    subdomain of the other whose parent has two labels or more (`mail.example.com` and `example.com`,
    never `example.com` and `com`). Siblings (`a.example.com`, `b.example.com`) are not aligned here,
    though DMARC would align them: on that side the rule refuses rather than guesses."""
    one, other = _domain(identity), _domain(from_domain)
    if not one or not other:
        return False
    if one == other:
        return True
    parent, child = sorted((one, other), key=len)
    return "." in parent and child.endswith("." + parent)


def _identity(result: Result) -> str:
    if result.method == "spf":
        return result.properties.get("smtp.mailfrom", "")
    return result.properties.get("header.d") or result.properties.get("header.i", "")


def proves(results: list[Result], from_domain: str) -> bool:
    """DMARC passed for the From domain; or, where the domain publishes no DMARC (`dmarc=none`, or no
    DMARC result), SPF or DKIM passed for a domain aligned with it. Any other DMARC answer (fail,
    temperror, permerror, a pass for another From) proves nothing."""
    from_domain = _domain(from_domain)
    dmarc = [result for result in results if result.method == "dmarc"]
    verdicts = {result.result for result in dmarc}
    judged = {_domain(result.properties.get("header.from", from_domain)) for result in dmarc}
    if from_domain and verdicts == {"pass"} and judged == {from_domain}:
        return True
    if verdicts - {"none"}:
        return False
    return any(
        result.result == "pass" and aligned(_identity(result), from_domain)
        for result in results
        if result.method in ("spf", "dkim")
    )
