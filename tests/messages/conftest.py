"""Fixtures shared by the claims and messages tests."""

from tests.factories.claims import hub_caught_up

__all__ = ["hub_caught_up"]
