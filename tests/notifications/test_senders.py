"""The SMTP URL forms, and the .eml fallback when no SMTP server is configured."""

from __future__ import annotations

from email import message_from_bytes, policy

import pytest

from app.notifications.email import Email, FileSender, SmtpConfig, build_message, mail_sender
from tests.conftest import SettingsFactory


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("smtp://mail.example.com", ("mail.example.com", 25, None, None, False, False)),
        ("smtp://u%40x:p%3Aw@mail.example.com:2525", ("mail.example.com", 2525, "u@x", "p:w", False, False)),
        ("smtp://u:p@mail.example.com?starttls=true", ("mail.example.com", 587, "u", "p", False, True)),
        ("smtps://u:p@mail.example.com", ("mail.example.com", 465, "u", "p", True, False)),
    ],
)
def test_smtp_url_forms(url: str, expected: tuple[object, ...]) -> None:
    config = SmtpConfig.from_url(url)
    assert (
        config.hostname,
        config.port,
        config.username,
        config.password,
        config.use_tls,
        config.start_tls,
    ) == expected


def test_a_url_that_is_not_smtp_is_refused() -> None:
    with pytest.raises(ValueError):
        SmtpConfig.from_url("http://mail.example.com")


async def test_without_smtp_emails_become_eml_files(make_settings: SettingsFactory) -> None:
    settings = make_settings(smtp_url=None)
    sender = mail_sender(settings)
    assert isinstance(sender, FileSender)

    await sender.send(
        build_message(Email("ann@example.com", "Hi", "text part", "<p>html part</p>", 7), settings)
    )

    [path] = (settings.data_dir / "mail").glob("*.eml")
    message = message_from_bytes(path.read_bytes(), policy=policy.default)
    assert message["To"] == "ann@example.com" and message["Reply-To"] == "claim+7@warranty.local"
