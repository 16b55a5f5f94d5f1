"""Mail that must never become a claim message: auto-replies, bounces, and our own mail coming back."""

from __future__ import annotations

import re
from email.utils import getaddresses

from app.config import Settings
from app.inbound.authentication import Result, proves, trusted_results
from app.inbound.formats import InboundEmail

_AUTOMATED_PRECEDENCE = {"bulk", "auto_reply", "list", "junk"}
_AUTOMATED_SENDERS = {"mailer-daemon", "postmaster", "no-reply", "noreply", "no_reply", "do-not-reply"}


def own_address(settings: Settings) -> str:
    found = [address.lower() for _name, address in getaddresses([settings.mail_from]) if "@" in address]
    return found[0] if found else ""


def is_automated(email: InboundEmail, settings: Settings) -> bool:
    """True for mail no person wrote (or that we sent): answering it could start a mail loop."""
    headers = email.headers
    auto_submitted = headers.get("auto-submitted")
    if auto_submitted is not None and auto_submitted.split(";")[0].strip().lower() != "no":
        return True
    if "x-autoreply" in headers or "x-autorespond" in headers:
        return True
    if headers.get("precedence", "").strip().lower() in _AUTOMATED_PRECEDENCE:
        return True
    if headers.get("return-path", "").strip() == "<>":  # a delivery status notification
        return True
    local, _, domain = email.sender.partition("@")
    if local.split("+")[0] in _AUTOMATED_SENDERS:
        return True
    # Our own notifications, and anything from a claim reply address, coming back.
    return email.sender == own_address(settings) or (
        domain == settings.mail_domain.lower() and local.startswith("claim+")
    )


_VERDICT = re.compile(r"\b(dmarc|spf|dkim)\s{0,3}=\s{0,3}([a-z]{1,12})")
_RESULT_HEADERS = ("authentication-results", "arc-authentication-results")


def _verdicts(headers: dict[str, str]) -> dict[str, set[str]]:
    """Every result any server recorded, by method: {"dkim": {"fail"}, "spf": {"softfail"}, ...} (used while
    no authserv-id is listed: whoever wrote the headers is believed)."""
    found: dict[str, set[str]] = {"dmarc": set(), "spf": set(), "dkim": set()}
    for name in _RESULT_HEADERS:
        for method, result in _VERDICT.findall(headers.get(name, "").lower()):
            found[method].add(result)
    received_spf = headers.get("received-spf", "").strip().lower().split(" ", 1)[0]
    if received_spf:
        found["spf"].add(received_spf.rstrip(";"))
    return found


def _by_method(results: list[Result]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {"dmarc": set(), "spf": set(), "dkim": set()}
    for result in results:
        found.setdefault(result.method, set()).add(result.result)
    return found


def _condemned(verdicts: dict[str, set[str]]) -> bool:
    """`dmarc=fail`, or SPF failing (fail or softfail) together with DKIM failing (none passing)."""
    if "fail" in verdicts["dmarc"]:
        return True
    spf_failed = bool(verdicts["spf"] & {"fail", "softfail"})
    dkim_failed = "fail" in verdicts["dkim"] and "pass" not in verdicts["dkim"]
    return spf_failed and dkim_failed


def sender_not_authenticated(email: InboundEmail, settings: Settings) -> bool:
    """Whether the From address is not to be believed (docs/api.md §10).

    No authserv-id listed: every verdict counts, and only failing ones refuse (no verdicts: not decided
    here). Listed: only the provider's own results count; with `inbound_auth_required` they must prove
    the From domain, else only their failures refuse."""
    if not settings.inbound_authserv_ids:
        return _condemned(_verdicts(email.headers))
    trusted = trusted_results(email.headers, settings.inbound_authserv_ids)
    from_domain = email.sender.rpartition("@")[2]
    if proves(trusted.sealed, from_domain):
        return False
    if settings.inbound_auth_required:
        return not proves(trusted.direct, from_domain)
    return _condemned(_by_method(trusted.direct))
