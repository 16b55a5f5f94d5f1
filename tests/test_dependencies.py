"""The declared dependencies are exactly what the code imports, and the installed set is consistent."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_imports_match_the_declared_dependencies() -> None:
    deptry = shutil.which("deptry", path=str(Path(sys.executable).parent))
    if deptry is None:
        pytest.fail("deptry is not installed: it is part of the test extra")
    result = subprocess.run([deptry, "."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_installed_packages_satisfy_each_other() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "check"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
