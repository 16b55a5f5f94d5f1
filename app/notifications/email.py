"""Outbound email: building a MIME message, and the two senders (SMTP through aiosmtplib, or .eml files
under the data folder when no SMTP server is configured)."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit

import aiosmtplib
import anyio

from app.config import Settings
from app.core.private_files import write_private
from app.notifications.headers import body_text, header_value

log = logging.getLogger(__name__)


@dataclass
class Attachment:
    filename: str
    mime_type: str
    data: bytes


@dataclass
class Email:
    """What one email says; `build_message` turns it into MIME."""

    to: str
    subject: str
    text: str
    html: str
    claim_id: int | None = None  # threads the email with the claim's others, and sets Reply-To
    attachments: list[Attachment] = field(default_factory=list)


def claim_thread_id(claim_id: int, settings: Settings) -> str:
    """The stable root every email of one claim refers to, so mail programs thread them."""
    return f"<claim-{claim_id}@{settings.mail_domain}>"


def build_message(email: Email, settings: Settings) -> EmailMessage:
    """The MIME message; header values that carry what users wrote are cleaned (app.notifications.headers)."""
    message = EmailMessage()
    message["From"] = header_value(settings.mail_from)
    message["To"] = header_value(email.to)
    message["Subject"] = header_value(email.subject)
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(idstring=uuid.uuid4().hex, domain=settings.mail_domain)
    message["Auto-Submitted"] = "auto-generated"
    if email.claim_id is not None:
        message["Reply-To"] = f"claim+{email.claim_id}@{settings.mail_domain}"
        message["In-Reply-To"] = claim_thread_id(email.claim_id, settings)
        message["References"] = claim_thread_id(email.claim_id, settings)
    message.set_content(body_text(email.text))
    message.add_alternative(body_text(email.html), subtype="html")
    for attachment in email.attachments:
        maintype, _, subtype = attachment.mime_type.partition("/")
        message.add_attachment(
            attachment.data,
            maintype=maintype or "application",
            subtype=subtype or "octet-stream",
            filename=header_value(attachment.filename) or "attachment",
        )
    return message


class MailSender(Protocol):
    async def send(self, message: EmailMessage) -> None: ...


@dataclass(frozen=True)
class SmtpConfig:
    hostname: str
    port: int
    username: str | None
    password: str | None
    use_tls: bool
    start_tls: bool

    @classmethod
    def from_url(cls, url: str) -> SmtpConfig:
        """`smtp://user:pass@host:port` (plain, `?starttls=true` to upgrade), `smtps://` (implicit TLS)."""
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("WARRANTY_SMTP_URL must look like smtp://user:pass@host:port or smtps://...")
        query = parse_qs(parts.query)
        start_tls = query.get("starttls", ["false"])[0].lower() in ("1", "true", "yes")
        use_tls = parts.scheme == "smtps"
        default_port = 465 if use_tls else (587 if start_tls else 25)
        return cls(
            hostname=parts.hostname,
            port=parts.port or default_port,
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            use_tls=use_tls,
            start_tls=start_tls,
        )


class SmtpSender:
    def __init__(self, url: str, timeout: float) -> None:
        self.config = SmtpConfig.from_url(url)
        self.timeout = timeout

    async def send(self, message: EmailMessage) -> None:
        config = self.config
        await aiosmtplib.send(
            message,
            hostname=config.hostname,
            port=config.port,
            username=config.username,
            password=config.password,
            use_tls=config.use_tls,
            start_tls=config.start_tls,
            timeout=self.timeout,
        )


class FileSender:
    """No SMTP server configured: each email becomes a .eml file (open it in any mail program)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    async def send(self, message: EmailMessage) -> None:
        path = self.folder / f"{uuid.uuid4().hex}.eml"
        # Mode 0600: a password-reset email holds a working link.
        await anyio.to_thread.run_sync(write_private, path, bytes(message))
        log.info("email to %s (%s) written to %s", message["To"], message["Subject"], path)


def mail_sender(settings: Settings) -> MailSender:
    if settings.smtp_url:
        return SmtpSender(settings.smtp_url, settings.smtp_timeout)
    return FileSender(settings.data_dir / "mail")
