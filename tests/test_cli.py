"""The `warranty` command, run as an operator would."""

from __future__ import annotations

import asyncio
import os
import pty
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from tests.conftest import TEST_SECRET
from tests.support.processes import Served, serve_process, until_healthy, uvicorn_process


async def run_cli(
    database_url: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The command as a subprocess, awaited: a blocking run would freeze the app's event loop, possibly
    while one of its background sessions holds SQLite's write lock the command then waits for. `env`:
    settings on top of the database and the key."""
    env = {
        **os.environ,
        "WARRANTY_DATABASE_URL": database_url,
        "WARRANTY_SECRET_KEY": TEST_SECRET,
        **(env or {}),
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app.cli", *args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    async with asyncio.timeout(60):
        stdout, stderr = await process.communicate()
    return subprocess.CompletedProcess(args, process.returncode or 0, stdout.decode(), stderr.decode())


async def test_create_user_with_repeated_roles_can_sign_in(
    app: FastAPI, client: httpx.AsyncClient, database_url: str
) -> None:
    result = await run_cli(
        database_url,
        "create-user", "--email", "Boss@Example.com", "--password", "first admin pw", "--name", "Boss",
        "--role", "ROLE_ADMIN", "--role", "ROLE_SUPPLIER",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "boss@example.com" in result.stdout

    response = await client.post(
        "/api/login", json={"email": "boss@example.com", "password": "first admin pw"}
    )

    assert response.status_code == 200
    assert response.json()["user"]["roles"] == ["ROLE_USER", "ROLE_ADMIN", "ROLE_SUPPLIER"]


async def test_create_user_refuses_a_taken_email(app: FastAPI, database_url: str) -> None:
    args = ("create-user", "--email", "a@example.com", "--password", "long enough", "--name", "A")
    assert (await run_cli(database_url, *args)).returncode == 0
    again = await run_cli(database_url, *args)
    assert again.returncode == 1
    assert "already exists" in again.stderr


async def test_migrate_creates_the_schema(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    result = await run_cli(url, "migrate")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "fresh.db").exists()


async def test_create_user_asks_for_the_password_when_it_is_not_given(
    app: FastAPI, client: httpx.AsyncClient, database_url: str
) -> None:
    """On a terminal (here a pseudo-terminal), typed twice and not echoed: never in the shell history."""
    controller, terminal = pty.openpty()
    env = {**os.environ, "WARRANTY_DATABASE_URL": database_url, "WARRANTY_SECRET_KEY": TEST_SECRET}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app.cli", "create-user", "--email", "typed@example.com", "--name", "Typed",
        stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True,
    )  # fmt: skip
    os.close(terminal)
    assert process.stderr and process.stdout
    try:
        async with asyncio.timeout(60):
            for prompt in (b"Password: ", b"Password (again): "):
                await process.stderr.readuntil(prompt)
                os.write(controller, b"typed secret pw\n")
            stdout = await process.stdout.read()
            assert await process.wait() == 0
    finally:
        os.close(controller)
    assert "typed@example.com" in stdout.decode()

    response = await client.post(
        "/api/login", json={"email": "typed@example.com", "password": "typed secret pw"}
    )

    assert response.status_code == 200


async def test_serve_refuses_several_workers_on_sqlite(tmp_path: Path) -> None:
    result = await run_cli(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}", "serve", "--workers", "2")

    assert result.returncode == 2
    assert "--workers 2 needs PostgreSQL" in result.stderr


async def _guesses_with_a_new_forwarded_address_each(served: Served, count: int) -> list[int]:
    """Wrong passwords for one email from 127.0.0.1, each claiming another client in X-Forwarded-For."""
    await until_healthy(served)
    statuses = []
    async with httpx.AsyncClient(base_url=served.url, timeout=10) as client:
        for number in range(count):
            response = await client.post(
                "/api/login",
                json={"email": "ann@example.com", "password": "wrong password"},
                headers={"X-Forwarded-For": f"203.0.113.{number + 1}"},
            )
            statuses.append(response.status_code)
    return statuses


async def test_serve_lets_no_client_choose_its_address(
    app: FastAPI, database_url: str, tmp_path: Path
) -> None:
    """uvicorn trusts X-Forwarded-For from loopback unless told not to; `warranty serve` leaves it to
    WARRANTY_TRUSTED_PROXIES (none here), with several workers too (on PostgreSQL)."""
    workers = "1" if database_url.startswith("sqlite") else "2"
    with serve_process(database_url, tmp_path / "data", {}, "--workers", workers) as served:
        statuses = await _guesses_with_a_new_forwarded_address_each(served, 7)

    assert statuses == [401] * 5 + [429] * 2


@pytest.mark.parametrize("flags", [("--no-proxy-headers",), ("--forwarded-allow-ips", "192.0.2.1")])
async def test_the_documented_uvicorn_command_lets_no_client_choose_its_address(
    app: FastAPI, database_url: str, tmp_path: Path, flags: tuple[str, ...]
) -> None:
    """`uvicorn app.main:app --no-proxy-headers`, or `--forwarded-allow-ips` equal to
    WARRANTY_TRUSTED_PROXIES (a proxy that is not this client)."""
    env = {"WARRANTY_TRUSTED_PROXIES": "192.0.2.1"}
    with uvicorn_process(database_url, tmp_path / "data", env, *flags) as served:
        statuses = await _guesses_with_a_new_forwarded_address_each(served, 7)

    assert statuses == [401] * 5 + [429] * 2
