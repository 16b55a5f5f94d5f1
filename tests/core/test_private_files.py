"""Files the service writes are its user's alone: 0600 in 0700 folders (the database with its webhook
secrets, uploads, password-reset emails written as .eml files), whatever umask it was started with."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from app.config import Settings
from app.core.db import create_engine
from app.notifications.email import FileSender
from app.storage.storage import LocalStorage
from tests.helpers import wait_for
from tests.support.images import image_bytes
from tests.support.processes import until_healthy, uvicorn_process
from tests.test_cli import run_cli


def _modes(folder: Path) -> dict[str, str]:
    """Every folder and file under `folder` (itself included) that is not private, with its mode."""
    loose = {}
    for path in [folder, *folder.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if mode != (0o700 if path.is_dir() else 0o600):
            loose[str(path.relative_to(folder.parent))] = oct(mode)
    return loose


async def test_every_file_and_folder_the_service_writes_is_private(database_url: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    sqlite = database_url.startswith("sqlite")
    url = f"sqlite+aiosqlite:///{data / 'db' / 'warranty.db'}" if sqlite else database_url
    env = {
        "WARRANTY_DATA_DIR": str(data),
        "WARRANTY_RUN_WORKER": "true",
        "WARRANTY_WORKER_POLL_INTERVAL": "0.2",
    }
    previous = os.umask(0o022)  # a shell's usual umask: the service must not depend on a stricter one
    try:
        if sqlite:
            migrated = await run_cli(url, "migrate", env=env)
            assert migrated.returncode == 0, migrated.stderr
            assert _modes(data) == {}  # `warranty migrate` made the folders and the database
        with uvicorn_process(url, tmp_path / "server", env) as served:
            await until_healthy(served)
            async with httpx.AsyncClient(base_url=served.url, timeout=10) as client:
                account = {"email": "private@example.com", "password": "long enough", "name": "P"}
                assert (await client.post("/api/register", json=account)).status_code == 201
                credentials = {"email": account["email"], "password": account["password"]}
                login = await client.post("/api/login", json=credentials)
                headers = {"Authorization": f"Bearer {login.json()['token']}"}
                picture = await client.post(
                    "/api/user/profile-picture",
                    files={"file": ("me.png", image_bytes(), "image/png")},
                    headers=headers,
                )
                assert picture.status_code == 200, picture.text
                forgot = await client.post("/api/password/forgot", json={"email": account["email"]})
                assert forgot.status_code == 202

                async def emailed() -> bool:
                    return any((data / "mail").glob("*.eml"))

                await wait_for(emailed, within=20)
    finally:
        os.umask(previous)

    assert list((data / "files").rglob("*.png")), "the picture is stored under files/"
    if sqlite:
        assert (data / "db" / "warranty.db").exists()
    assert _modes(data) == {}


@pytest.fixture
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.mark.usefixtures("usual_umask")
async def test_stored_files_and_emails_are_private_under_any_umask(tmp_path: Path) -> None:
    key = await LocalStorage(tmp_path / "data" / "files").save("receipts", b"%PDF-1.4", "pdf")
    message = EmailMessage()
    message["To"], message["Subject"] = "ann@example.com", "Reset your password"
    await FileSender(tmp_path / "data" / "mail").send(message)

    assert key.startswith("receipts/")
    assert len(list((tmp_path / "data").rglob("*.*"))) == 2
    assert _modes(tmp_path / "data") == {}


@pytest.mark.usefixtures("usual_umask")
async def test_a_database_made_by_another_program_is_made_private(tmp_path: Path) -> None:
    database = tmp_path / "data" / "warranty.db"
    database.parent.mkdir(mode=0o700)
    with contextlib.closing(sqlite3.connect(database)) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE t (x)")
        assert stat.S_IMODE(database.stat().st_mode) == 0o644
        engine = create_engine(Settings(database_url=f"sqlite+aiosqlite:///{database}"))
        try:
            async with engine.connect() as ours:
                await ours.execute(text("SELECT 1"))
        finally:
            await engine.dispose()
        assert _modes(tmp_path / "data") == {}  # the -wal and -shm files of the open connection too


def test_a_file_created_once_is_private_and_never_replaced(tmp_path: Path) -> None:
    from app.core.private_files import create_private_once

    path = tmp_path / "keys" / "key"
    assert create_private_once(path, b"first") is True
    assert create_private_once(path, b"second") is False
    assert path.read_bytes() == b"first" and path.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "keys").stat().st_mode & 0o777 == 0o700
    assert [item.name for item in (tmp_path / "keys").iterdir()] == ["key"]  # nothing left aside
