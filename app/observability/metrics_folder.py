"""The folder of prometheus-client's multiprocess mode: each process writes its series to files of its
own there, and a scrape adds up every file (so several uvicorn workers answer one sum).

It is PROMETHEUS_MULTIPROC_DIR when that is set, else `{WARRANTY_DATA_DIR}/metrics`; keep it on a local
disk. Every process of the service holds a shared lock on it while it lives. A process that starts and
finds no other holder (the first after all stopped) empties it first: counts start from zero with the
service (Prometheus reads that as a counter reset), and files of processes long gone do not pile up.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from prometheus_client.multiprocess import mark_process_dead

ENV = "PROMETHEUS_MULTIPROC_DIR"
_LOCK = ".lock"

_held: list[int] = []  # the lock file's descriptor, open as long as the process lives


def claim(default: Path) -> Path:
    """Joins the folder (emptying it first when no other process uses it) and names it in ENV, where
    prometheus-client looks each time it creates a series."""
    folder = Path(os.environ.get(ENV) or default).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    os.environ[ENV] = str(folder)
    lock = os.open(folder / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pass  # others are running: join them
    else:
        for stale in folder.glob("*.db"):
            stale.unlink(missing_ok=True)
    # From exclusive to shared; or, when joining, wait for a process that is emptying it to finish.
    fcntl.flock(lock, fcntl.LOCK_SH)
    _held.append(lock)
    return folder


def forget_dead_processes(folder: Path) -> None:
    """Drops the live gauges (open streams) of processes that died without closing them; their counters
    stay, as Prometheus expects of counters."""
    for path in folder.glob("gauge_live*_*.db"):
        pid = path.stem.rsplit("_", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            mark_process_dead(int(pid), str(folder))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True
