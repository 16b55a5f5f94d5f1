"""What the change tests share: running steps on a change in one committed transaction, and reading back
the rows they wrote."""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import FastAPI
from sqlalchemy import select

from app.changes.consequences import Consequence, Recording

T = TypeVar("T")


async def apply(app: FastAPI, change: Any, *steps: Consequence[Any]) -> None:
    """Runs `steps` on `change`, in order, in one transaction that commits."""
    async with app.state.sessionmaker() as session, session.begin():
        recording = Recording(session, change)
        for step in steps:
            await step.apply(recording)


async def rows(app: FastAPI, model: type[T]) -> list[T]:
    """Every row of `model`'s table, oldest first."""
    async with app.state.sessionmaker() as session:
        return list(await session.scalars(select(model).order_by(model.id)))  # type: ignore[attr-defined]
