"""The service run as an operator runs it: `python -m uvicorn app.main:app` in processes of its own."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import TEST_SECRET
from tests.helpers import wait_for
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Served:
    url: str
    popen: subprocess.Popen[bytes]
    output: Path  # stdout and stderr, interleaved

    def stop(self) -> str:
        """SIGTERM, then what it wrote."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        return self.output.read_text()


@contextlib.contextmanager
def server_process(
    module: list[str], database_url: str, data_dir: Path, env: dict[str, str] | None = None, *args: str
) -> Iterator[Served]:
    """`python -m <module> --host 127.0.0.1 --port <a free port> <args>`, serving the app on `database_url`
    with `env` on top of the test settings; stopped when the block ends."""
    port = free_port()
    # Not this test process's metrics folder: the server finds its own under its data folder.
    inherited = {name: value for name, value in os.environ.items() if name != "PROMETHEUS_MULTIPROC_DIR"}
    environment = {
        **inherited,
        "WARRANTY_ENV": "test",
        "WARRANTY_DATABASE_URL": database_url,
        "WARRANTY_SECRET_KEY": TEST_SECRET,
        "WARRANTY_DATA_DIR": str(data_dir),
        "WARRANTY_RUN_WORKER": "false",
        "WARRANTY_ARGON2_TIME_COST": "1",
        "WARRANTY_ARGON2_MEMORY_COST": "1024",
        "WARRANTY_ARGON2_PARALLELISM": "1",
        **(env or {}),
    }
    command = [sys.executable, "-m", *module, "--host", "127.0.0.1", "--port", str(port), *args]
    data_dir.mkdir(parents=True, exist_ok=True)
    output = data_dir / f"{module[0]}-{port}.log"
    with output.open("wb") as log:
        popen = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=log, stderr=log)
    served = Served(f"http://127.0.0.1:{port}", popen, output)
    try:
        yield served
    finally:
        served.stop()


def uvicorn_process(
    database_url: str, data_dir: Path, env: dict[str, str] | None = None, *args: str
) -> contextlib.AbstractContextManager[Served]:
    """`uvicorn app.main:app`, as docs/operations.md runs it."""
    return server_process(["uvicorn", "app.main:app"], database_url, data_dir, env, *args)


def serve_process(
    database_url: str, data_dir: Path, env: dict[str, str] | None = None, *args: str
) -> contextlib.AbstractContextManager[Served]:
    """`warranty serve`."""
    return server_process(["app.cli", "serve"], database_url, data_dir, env, *args)


async def until_healthy(served: Served, within: float = 30) -> None:
    async with httpx.AsyncClient(base_url=served.url, timeout=5) as client:

        async def healthy() -> bool:
            if served.popen.poll() is not None:
                raise AssertionError(f"the server exited:\n{served.output.read_text()}")
            try:
                return (await client.get("/health")).status_code == 200
            except httpx.TransportError:
                return False

        await wait_for(healthy, within=within, interval=0.1)
