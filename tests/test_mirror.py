"""Tests mirror app/: every app module with behaviour (one function or method at least) has its test module
at the same path under tests/ (app/claims/service.py -> tests/claims/test_service.py), so the tests of a
module are found without searching. A module that only declares (tables, vocabularies, wire shapes without
validators, re-exports) has nothing of its own to test."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]
APP = ROOT / "app"
TESTS = ROOT / "tests"

# Modules whose behaviour is tested as a whole elsewhere, and where.
TESTED_ELSEWHERE = {
    # Every revision is run up and down, in order, on both databases by the migration tests.
    **{
        path.relative_to(ROOT).as_posix(): "tests/migrations/test_env.py"
        for path in (APP / "migrations" / "versions").glob("*.py")
    },
}


def has_behaviour(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) for node in ast.walk(tree))


def mirror_of(path: Path) -> Path:
    relative = path.relative_to(APP)
    name = relative.parent.name if relative.name == "__init__.py" else relative.stem
    folder = relative.parent.parent if relative.name == "__init__.py" else relative.parent
    return TESTS / folder / f"test_{name}.py"


def unmirrored() -> list[str]:
    missing = []
    for path in sorted(APP.rglob("*.py")):
        key = path.relative_to(ROOT).as_posix()
        if key in TESTED_ELSEWHERE or not has_behaviour(path):
            continue
        if not mirror_of(path).exists():
            missing.append(f"{key} -> {mirror_of(path).relative_to(ROOT).as_posix()}")
    return missing


def test_every_module_with_behaviour_has_its_test_module() -> None:
    assert unmirrored() == []


def test_the_modules_tested_elsewhere_are_tested_there() -> None:
    for module, test in TESTED_ELSEWHERE.items():
        assert (ROOT / module).exists(), module
        assert (ROOT / test).exists(), test


def test_a_mirror_holds_tests() -> None:
    """A mirrored test module is not an empty placeholder: it defines at least one test."""
    for path in sorted(TESTS.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")
        ]
        assert names, f"{path.relative_to(ROOT)} defines no test"
