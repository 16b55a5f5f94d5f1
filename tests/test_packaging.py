"""The package as an operator installs it: a wheel in a virtual environment of its own, run outside any
checkout, migrates an empty database (the migration scripts ship inside the package)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from sqlalchemy import inspect
from sqlalchemy.ext.asyncio import create_async_engine

from app.models import Base
from tests.conftest import PG_URL, TEST_SECRET, _create_pg_database, _drop_pg_database

ROOT = Path(__file__).resolve().parents[1]


async def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    process = await asyncio.create_subprocess_exec(
        *map(str, args), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    async with asyncio.timeout(300):
        output, _ = await process.communicate()
    assert process.returncode == 0, output.decode()
    return output.decode()


async def _installed_wheel(tmp_path: Path) -> Path:
    """A venv with only the built wheel; its dependencies come from the test run's own site-packages."""
    wheels = tmp_path / "wheels"
    await _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", wheels, ROOT, cwd=tmp_path)
    (wheel,) = wheels.glob("warranty-*.whl")
    venv = tmp_path / "venv"
    await _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = f"--python={venv / 'bin' / 'python'}"
    await _run(sys.executable, "-m", "pip", python, "install", "--quiet", "--no-deps", wheel, cwd=tmp_path)
    site_packages = next((venv / "lib").glob("python*/site-packages"))
    # Appended after the venv's own folder: `app` resolves to the wheel, the rest to the installed libraries.
    (site_packages / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


async def test_an_installed_wheel_migrates_an_empty_database_outside_a_checkout(tmp_path: Path) -> None:
    venv = await _installed_wheel(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    url = await _create_pg_database(PG_URL) if PG_URL else f"sqlite+aiosqlite:///{elsewhere / 'w.db'}"
    env = {"PATH": os.environ["PATH"], "WARRANTY_DATABASE_URL": url, "WARRANTY_SECRET_KEY": TEST_SECRET}
    try:
        where = await _run(venv / "bin" / "python", "-c", "import app; print(app.__file__)", cwd=elsewhere)
        assert where.startswith(str(venv)), where

        output = await _run(venv / "bin" / "warranty", "migrate", cwd=elsewhere, env=env)

        assert output.startswith("applied migration(s) 0001"), output
        engine = create_async_engine(url)
        async with engine.connect() as connection:
            tables = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
        await engine.dispose()
        assert tables == {*Base.metadata.tables, "alembic_version"}
    finally:
        if PG_URL:
            await _drop_pg_database(PG_URL, url)
