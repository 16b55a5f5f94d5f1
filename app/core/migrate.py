"""Run Alembic migrations from code (the CLI and the tests use this)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config


def _project_root() -> Path:
    """The checkout this code runs from, else the working folder (an installed package, as in the image)."""
    checkout = Path(__file__).resolve().parents[2]
    return checkout if (checkout / "alembic.ini").exists() else Path.cwd()


def alembic_config(database_url: str) -> Config:
    root = _project_root()
    config = Config(str(root / "alembic.ini"))
    config.set_main_option("script_location", str(root / "migrations"))
    config.attributes["database_url"] = database_url
    config.attributes["configure_logger"] = False
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)
