"""Migrations run from code (app.core.migrate): `upgrade` answers the revisions it applied (none when the
schema is current), `downgrade` goes back to a revision, and the scripts are found inside the package
wherever the process was started."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from app.core.migrate import MIGRATIONS, alembic_config, downgrade, upgrade
from tests.conftest import PG_URL, _create_pg_database, _drop_pg_database

REVISIONS = sorted(path.name.split("_", 1)[0] for path in (MIGRATIONS / "versions").glob("[0-9]*.py"))


@pytest.fixture
async def empty_database(tmp_path: Path) -> AsyncIterator[str]:
    """A database of the test's own, with no schema yet."""
    url = await _create_pg_database(PG_URL) if PG_URL else f"sqlite+aiosqlite:///{tmp_path / 'm.db'}"
    yield url
    if PG_URL:
        await _drop_pg_database(PG_URL, url)


async def _version(url: str) -> str | None:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            return (await connection.execute(text("SELECT version_num FROM alembic_version"))).scalar()
    finally:
        await engine.dispose()


async def test_upgrade_answers_what_it_applied_and_downgrade_goes_back(
    empty_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # not the checkout: the scripts are found from the package
    assert len(REVISIONS) >= 13 and REVISIONS[0] == "0001"

    assert await asyncio.to_thread(upgrade, empty_database, "0002") == ["0001", "0002"]
    assert await _version(empty_database) == "0002"
    assert await asyncio.to_thread(upgrade, empty_database) == REVISIONS[2:]
    assert await _version(empty_database) == REVISIONS[-1]
    assert await asyncio.to_thread(upgrade, empty_database) == []  # current: nothing to do

    await asyncio.to_thread(downgrade, empty_database, REVISIONS[-2])
    assert await _version(empty_database) == REVISIONS[-2]
    assert await asyncio.to_thread(upgrade, empty_database) == [REVISIONS[-1]]
    await asyncio.to_thread(downgrade, empty_database)
    assert await _version(empty_database) is None


def test_each_run_has_a_config_of_its_own() -> None:
    first, second = alembic_config("sqlite+aiosqlite:///a.db"), alembic_config("sqlite+aiosqlite:///b.db")
    assert first.get_main_option("script_location") == str(MIGRATIONS)
    assert (MIGRATIONS / "env.py").is_file()
    assert first.attributes["database_url"] == "sqlite+aiosqlite:///a.db"
    assert first.attributes["configure_logger"] is False  # the service's logging stays as it is
    assert first.attributes["applied"] == []
    assert first.attributes["applied"] is not second.attributes["applied"]
