"""Notification URLs (app/notifications/notify_urls.py): what may be added, how it is shown, the key that
encrypts it (configured, rotated, or generated once), and sending through Apprise to an ntfy server."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from app.config import Settings
from app.notifications import notify_urls
from tests.support.ntfy import Ntfy


def settings(tmp_path: Path, **values: object) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path, **values)  # type: ignore[call-arg]


def test_parse_names_the_host_of_self_hosted_services_only(tmp_path: Path) -> None:
    config = settings(tmp_path)
    found = notify_urls.parse("ntfys://user:pw@ntfy.example.com/topic", config)
    assert (found.scheme, found.host, found.redacted) == (
        "ntfys",
        "ntfy.example.com",
        "ntfys://ntfy.example.com/****",
    )
    assert notify_urls.parse("gotify://gotify.example.com/AbCdEf", config).host == "gotify.example.com"
    cloud = notify_urls.parse("ntfy://my-topic", config)  # ntfy.sh itself
    assert cloud.host is None and cloud.redacted == "ntfy://****"
    hosted = notify_urls.parse("DISCORD://123456/webhooktoken", config)
    assert (hosted.scheme, hosted.host, hosted.redacted) == ("discord", None, "discord://****")


def test_parse_refuses_what_is_not_allowed(tmp_path: Path) -> None:
    config = settings(tmp_path, notify_schemes="ntfys, Gotify")
    assert config.notify_schemes == ["ntfys", "gotify"]
    for url, reason in [
        ("ntfy://host/topic", "not allowed"),
        ("json://host/x", "not allowed"),
        ("ntfys:/missing", "must be a URL"),
        ("gotify://", "Apprise understands"),
        ("ntfys://h/" + "t" * 3000, "at most 2048"),
    ]:
        with pytest.raises(notify_urls.Unusable, match=reason):
            notify_urls.parse(url, config)


async def test_checked_applies_the_address_rules_to_the_host(tmp_path: Path) -> None:
    with pytest.raises(notify_urls.Unusable, match="not a public address"):
        await notify_urls.checked("ntfy://127.0.0.1:8080/topic", settings(tmp_path))
    allowed = await notify_urls.checked(
        "ntfy://127.0.0.1:8080/topic", settings(tmp_path, webhook_allow_private=True)
    )
    assert allowed.host == "127.0.0.1"
    hosted = await notify_urls.checked("tgram://123456789:AAH/42", settings(tmp_path))
    assert hosted.host is None


def test_the_cipher_decrypts_with_any_key_and_encrypts_with_the_first(tmp_path: Path) -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    before = notify_urls.target_cipher(settings(tmp_path, notify_key=old))
    secret = before.encrypt("ntfys://host/topic")
    assert "topic" not in secret and before.decrypt(secret) == "ntfys://host/topic"
    rotated = notify_urls.target_cipher(settings(tmp_path, notify_key=f"{new},{old}"))
    assert rotated.decrypt(secret) == "ntfys://host/topic"
    assert notify_urls.target_cipher(settings(tmp_path, notify_key=old)).decrypt(rotated.encrypt("x")) is None
    assert before.fingerprint("a") == before.fingerprint("a") != before.fingerprint("b")
    with pytest.raises(ValueError, match="Fernet keys"):
        notify_urls.target_cipher(settings(tmp_path, notify_key="short"))


def test_a_generated_key_is_written_once_0600(tmp_path: Path) -> None:
    cipher = notify_urls.target_cipher(settings(tmp_path))
    path = tmp_path / "notify_key"
    assert path.stat().st_mode & 0o777 == 0o600
    secret = cipher.encrypt("ntfy://x/y")
    assert (
        notify_urls.target_cipher(settings(tmp_path, mail_domain="o.example")).decrypt(secret) == "ntfy://x/y"
    )


async def test_send_publishes_to_ntfy_or_says_it_did_not(tmp_path: Path, ntfy: Ntfy) -> None:
    config = settings(tmp_path, webhook_allow_private=True, notify_timeout=5)
    await notify_urls.send(f"ntfy://{ntfy.host}/alerts", "Claim #1", "Status: Resolved", config)
    [published] = ntfy.on("alerts")
    assert (published.title, published.message) == ("Claim #1", "Status: Resolved")
    ntfy.fail_next = 1
    with pytest.raises(notify_urls.NotDelivered, match=r"ntfy://127.0.0.1/\*\*\*\*"):
        await notify_urls.send(f"ntfy://{ntfy.host}/alerts", "Claim #1", "again", config)
    with pytest.raises(notify_urls.Unusable):
        await notify_urls.send(f"ntfy://{ntfy.host}/alerts", "t", "b", settings(tmp_path))
    assert ntfy.attempts == 2
