"""Mail that must never become a claim message: auto-replies, bounces, and our own mail coming back."""

from __future__ import annotations

import re
from email.utils import getaddresses

from app.config import Settings
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
    """Every result a receiving server recorded, by method: {"dkim": {"fail"}, "spf": {"softfail"}, ...}."""
    found: dict[str, set[str]] = {"dmarc": set(), "spf": set(), "dkim": set()}
    for name in _RESULT_HEADERS:
        for method, result in _VERDICT.findall(headers.get(name, "").lower()):
            found[method].add(result)
    received_spf = headers.get("received-spf", "").strip().lower().split(" ", 1)[0]
    if received_spf:
        found["spf"].add(received_spf.rstrip(";"))
    return found


def sender_not_authenticated(email: InboundEmail) -> bool:
    """The receiving server's verdicts say the From address is forged: `dmarc=fail`, or SPF failing (fail
    or softfail) together with DKIM failing (and no DKIM signature passing). No verdicts: not decided here."""
    verdicts = _verdicts(email.headers)
    if "fail" in verdicts["dmarc"]:
        return True
    spf_failed = bool(verdicts["spf"] & {"fail", "softfail"})
    dkim_failed = "fail" in verdicts["dkim"] and "pass" not in verdicts["dkim"]
    return spf_failed and dkim_failed
