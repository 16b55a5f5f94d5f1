"""The table of what a change causes covers every change."""

from typing import get_args

from app.changes.dispatch import CONSEQUENCES
from app.changes.events import Change


def test_every_change_has_a_row() -> None:
    assert set(CONSEQUENCES) == set(get_args(Change))
    assert all(CONSEQUENCES.values())
