"""The folder of the multiprocess series (app.observability.metrics_folder): the first process to claim it
empties it, later ones join without emptying, and the live gauges of processes that died are dropped while
their counters stay."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.observability import metrics_folder
from app.observability.metrics_folder import ENV, claim, forget_dead_processes


@pytest.fixture
def claims(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's own folder and lock stay as they were after the test."""
    monkeypatch.delenv(ENV, raising=False)
    held = len(metrics_folder._held)
    yield
    while len(metrics_folder._held) > held:
        os.close(metrics_folder._held.pop())


@pytest.mark.usefixtures("claims")
def test_the_first_process_empties_the_folder_and_names_it(tmp_path: Path) -> None:
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_4242.db").write_bytes(b"old")
    (folder / "notes.txt").write_text("kept")

    assert claim(folder) == folder.resolve()

    assert os.environ[ENV] == str(folder.resolve())  # where prometheus-client writes from now on
    assert not (folder / "counter_4242.db").exists() and (folder / "notes.txt").exists()


@pytest.mark.usefixtures("claims")
def test_a_process_joining_a_folder_in_use_keeps_what_is_there(tmp_path: Path) -> None:
    folder = tmp_path / "metrics"
    claim(folder)
    (folder / "counter_4242.db").write_bytes(b"another process's counts")

    assert claim(folder) == folder.resolve()  # the lock is held (shared) by the first claim
    assert (folder / "counter_4242.db").exists()


@pytest.mark.usefixtures("claims")
def test_the_environment_names_the_folder_before_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "configured"))
    assert claim(tmp_path / "default") == (tmp_path / "configured").resolve()
    assert not (tmp_path / "default").exists()


def test_the_live_gauges_of_dead_processes_are_dropped(tmp_path: Path) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead, alive = int(gone.stdout), os.getpid()
    for name in (
        f"gauge_livesum_{dead}",
        f"gauge_liveall_{dead}",
        f"counter_{dead}",
        f"gauge_livesum_{alive}",
    ):
        (tmp_path / f"{name}.db").write_bytes(b"")

    forget_dead_processes(tmp_path)

    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [f"counter_{dead}.db", f"gauge_livesum_{alive}.db"]
    )
