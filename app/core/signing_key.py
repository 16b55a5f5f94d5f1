"""The key that signs access tokens when `WARRANTY_SECRET_KEY` is not set (development only).

No published value ever signs a token: the first process to start generates a random 256-bit key and
keeps it in the data folder (mode 0600), and every process using that folder reads the same key.
Production refuses to start without a configured key (app/config.py).
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

from pydantic import SecretStr

from app.config import Settings
from app.core.private_files import private_folder

KEY_FILE = "secret_key"

log = logging.getLogger(__name__)


def ensure_signing_key(settings: Settings) -> None:
    """Give `settings` a signing key: the configured one, else the data folder's (generated if absent)."""
    if settings.secret_key is not None:
        return
    path = settings.data_dir / KEY_FILE
    created = _create_once(path)
    key = path.read_text(encoding="ascii").strip()
    if len(key) < 64:
        raise RuntimeError(f"the signing key file {path} is damaged: delete it to generate a new key")
    settings.secret_key = SecretStr(key)
    if created:
        log.warning("WARRANTY_SECRET_KEY is not set: generated a signing key in %s (development only)", path)
    else:
        log.warning("WARRANTY_SECRET_KEY is not set: signing tokens with the key kept in %s", path)


def _create_once(path: Path) -> bool:
    """Writes a new key to `path` unless one is there; True when this call created it. Processes starting
    together never see a half-written file: the key is written aside, then linked into place, which fails
    for all but the first."""
    if path.exists():
        return False
    private_folder(path.parent)
    aside = path.with_name(f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as file:
            file.write(secrets.token_hex(32) + "\n")
        os.link(aside, path)
        return True
    except FileExistsError:
        return False
    finally:
        aside.unlink(missing_ok=True)
