"""Files the service writes are its user's alone: mode 0600, in folders of mode 0700. The data folder holds
the SQLite database (webhook secrets, token hashes), uploads, password-reset emails written as .eml files
and the generated signing key.

Three layers: the process umask, set when the process starts (`create_app`, the `warranty` command), covers
what libraries create (SQLite's database and journal files, prometheus-client's files); the files the
service creates itself get their mode explicitly, whatever the umask; and files made before, or by
another program (`alembic upgrade`), are tightened when the service opens them (the data folder at start,
the SQLite database on connect).
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700
UMASK = 0o077  # new files 0600 and folders 0700 unless created with less

log = logging.getLogger(__name__)


def keep_files_private(data_dir: Path | None = None) -> None:
    """From now on this process creates files and folders for its user only; `data_dir` is made (or
    tightened to) 0700, so files written there by an earlier release are out of reach too."""
    os.umask(UMASK)
    if data_dir is not None:
        private_folder(data_dir)
        tighten(data_dir)


def private_folder(path: Path) -> None:
    """`path` with any missing parents, each created 0700 (existing ones are left as they are)."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        folder.mkdir(mode=FOLDER_MODE, exist_ok=True)


def write_private(path: Path, data: bytes) -> None:
    """`data` as the file `path`, mode 0600, in folders created 0700. Written aside, then renamed into
    place: readers never see half a file."""
    private_folder(path.parent)
    aside = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    descriptor = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(aside, path)
    except BaseException:
        aside.unlink(missing_ok=True)
        raise


def tighten(path: Path) -> None:
    """`path` (when it exists) loses every permission of group and others; one the process may not change
    is named in the log."""
    try:
        mode = path.stat().st_mode & 0o7777
        if mode & UMASK:
            path.chmod(mode & ~UMASK)
    except FileNotFoundError:
        return
    except PermissionError:
        log.warning("%s is open to other users and this process may not change that: chmod it", path)


def create_private_once(path: Path, data: bytes) -> bool:
    """Writes `data` as `path` (mode 0600) unless a file is there; True when this call created it. Processes
    starting together never see half a file, and all end up reading the same one: it is written aside,
    then linked into place, which fails for all but the first."""
    if path.exists():
        return False
    private_folder(path.parent)
    aside = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.link(aside, path)
        return True
    except FileExistsError:
        return False
    finally:
        aside.unlink(missing_ok=True)
