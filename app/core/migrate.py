"""Run Alembic migrations from code (the `warranty migrate` command and the tests use this).

The migration scripts ship inside the package (app/migrations), so this works from an installed wheel as well
as from a checkout, wherever the command is started."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"

# The PostgreSQL advisory lock every `warranty migrate` takes before it reads the schema's version, so that
# replicas starting together migrate once: the others wait, then find nothing to do.
MIGRATION_LOCK_KEY = 0x77_61_72_72_61_6E_74  # "warrant"


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["database_url"] = database_url
    config.attributes["configure_logger"] = False
    config.attributes["applied"] = []
    return config


def upgrade(database_url: str, revision: str = "head") -> list[str]:
    """Upgrade to `revision`; answer the revisions this call applied (none when another process did)."""
    config = alembic_config(database_url)
    command.upgrade(config, revision)
    applied: list[str] = config.attributes["applied"]
    return applied


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)
