"""The VAPID identity (app/notifications/vapid.py): a configured key in either form, a generated key kept
once in the data folder, the header a push service verifies, and the token's subject."""

from __future__ import annotations

import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from app.config import Settings
from app.notifications.vapid import b64url, b64url_decode, parse_private_key, vapid_key, vapid_subject
from tests.support.push_service import check_vapid


def settings(tmp_path: Path, **values: object) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path, **values)  # type: ignore[call-arg]


def test_a_generated_key_is_written_once_0600_and_shared(tmp_path: Path) -> None:
    first = vapid_key(settings(tmp_path))
    path = tmp_path / "vapid_private_key.pem"
    assert path.stat().st_mode & 0o777 == 0o600
    written = path.read_bytes()
    again = vapid_key(settings(tmp_path, mail_domain="other.example"))
    assert again.public_key == first.public_key and path.read_bytes() == written
    other = vapid_key(settings(tmp_path / "elsewhere"))
    assert other.public_key != first.public_key


def test_a_configured_key_in_raw_or_pem_form(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    raw = b64url(key.private_numbers().private_value.to_bytes(32, "big"))
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    from_raw = vapid_key(settings(tmp_path, vapid_private_key=raw))
    from_pem = vapid_key(settings(tmp_path, vapid_private_key=pem))
    assert from_raw.public_key == from_pem.public_key
    assert not (tmp_path / "vapid_private_key.pem").exists()
    with pytest.raises(ValueError, match="WARRANTY_VAPID_PRIVATE_KEY"):
        vapid_key(settings(tmp_path, vapid_private_key="not a key"))
    p384 = ec.generate_private_key(ec.SECP384R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with pytest.raises(ValueError, match="P-256"):
        parse_private_key(p384.decode())


def test_the_header_verifies_as_a_push_service_checks_it(tmp_path: Path) -> None:
    key = vapid_key(settings(tmp_path))
    header = key.authorization(
        "https://push.example.net:8443/push/abc", "mailto:ops@example.com", int(time.time())
    )
    claims = check_vapid(header, "https://push.example.net:8443", key.public_key)
    assert claims["sub"] == "mailto:ops@example.com"
    assert 11 * 3600 < claims["exp"] - time.time() <= 12 * 3600
    token = header.split("t=", 1)[1].split(",", 1)[0]
    assert jwt.get_unverified_header(token) == {"alg": "ES256", "typ": "JWT"}


def test_the_subject_is_the_setting_or_the_sender_address(tmp_path: Path) -> None:
    assert vapid_subject(settings(tmp_path)) == "mailto:notifications@warranty.local"
    assert vapid_subject(settings(tmp_path, vapid_subject="https://warranty.example.com/contact")) == (
        "https://warranty.example.com/contact"
    )
    with pytest.raises(ValueError, match="mailto: or an https:"):
        settings(tmp_path, vapid_subject="http://warranty.example.com")
    with pytest.raises(ValueError, match="mailto: or an https:"):
        settings(tmp_path, vapid_subject="ops@example.com")


def test_base64url_with_or_without_padding() -> None:
    assert b64url_decode("AQID") == b"\x01\x02\x03" == b64url_decode("AQI" + "D")
    assert b64url_decode("AQ==") == b"\x01" == b64url_decode("AQ")
    for bad in ("", "a+b/", "é"):
        with pytest.raises(ValueError):
            b64url_decode(bad)
