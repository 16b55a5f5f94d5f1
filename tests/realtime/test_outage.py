"""The database away (contract 16.5): the API, the hub and readiness answer 503 with Retry-After (never
500) while it is down; once it is back, requests work again and the hub's listener reconnects at once, so
live events flow again.

The test stops and starts a PostgreSQL cluster of its own (initdb into a temporary folder, pg_ctl on a free
port), never the shared one. As root (CI), the cluster runs as the `postgres` OS user through runuser."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from app.core.migrate import upgrade
from app.realtime.publishing import messages_topic
from tests.conftest import SettingsFactory
from tests.helpers import assert_error, wait_for
from tests.realtime.support import HUB, live_server, scene, subscribe
from tests.support.ports import free_port

pytestmark = pytest.mark.postgres_only

PG_BIN = max(Path("/usr/lib/postgresql").glob("*/bin"), default=None, key=lambda path: int(path.parent.name))


class Cluster:
    """A throwaway PostgreSQL cluster on 127.0.0.1:`port`."""

    def __init__(self, bin_dir: Path, folder: Path, port: int) -> None:
        self.bin_dir, self.folder, self.port = bin_dir, folder, port
        self.data = folder / "data"
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{port}/warranty"

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin_dir / program), *args]
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.folder / "server.log")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "-t", "60", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    if PG_BIN is None or (os.geteuid() == 0 and shutil.which("runuser") is None):
        pytest.skip("needs PostgreSQL's server programs (initdb, pg_ctl)")
    folder = Path(tempfile.mkdtemp(prefix="warranty-outage-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    own = Cluster(PG_BIN, folder, free_port())
    own.init()
    own.start()
    try:
        yield own
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            own.stop()
        shutil.rmtree(folder, ignore_errors=True)


async def _create_database(cluster: Cluster) -> None:
    connection = await asyncpg.connect(
        host="127.0.0.1", port=cluster.port, user="postgres", database="postgres"
    )
    try:
        await connection.execute("CREATE DATABASE warranty")
    finally:
        await connection.close()
    await asyncio.to_thread(upgrade, cluster.url)


def _unavailable(response: httpx.Response) -> None:
    assert_error(response, 503, "SERVICE_UNAVAILABLE")
    assert int(response.headers["retry-after"]) >= 1


async def test_a_database_outage_gives_503s_then_live_events_again(
    cluster: Cluster, make_settings: SettingsFactory
) -> None:
    await _create_database(cluster)
    settings = make_settings(database_url=cluster.url)
    async with live_server(settings) as live, httpx.AsyncClient(base_url=live.url, timeout=20) as http:
        s = await scene(live.app)
        bearer = {"Authorization": f"Bearer {s.token}"}
        topic = messages_topic(s.claim.id)
        messages = f"/api/claims/{s.claim.id}/messages"
        async with subscribe(http, topic, token=s.token) as stream:
            assert (await http.post(messages, json={"message": "before"}, headers=bearer)).status_code == 201
            [(_, before)] = await stream.events(1)
            assert '"before"' in before

            # Left to its backoff alone the listener would now wait longer and longer (8 s by the end of
            # the outage, 16 s after): only the reconnect at the pool's first new connection brings the
            # event below within the deadline.
            live.app.state.hub_backend._max_backoff = 60.0
            await asyncio.to_thread(cluster.stop)
            _unavailable(await http.get("/api/claims", headers=bearer))
            _unavailable(await http.post(messages, json={"message": "lost?"}, headers=bearer))
            _unavailable(await http.get(HUB, params={"topic": topic}, headers=bearer))
            _unavailable(await http.get("/health/ready"))
            await asyncio.sleep(8)

            await asyncio.to_thread(cluster.start)

            async def ready() -> bool:
                return (await http.get("/health/ready")).status_code == 200

            await wait_for(ready, within=30, interval=0.1)
            after = await http.post(messages, json={"message": "after"}, headers=bearer)
            assert after.status_code == 201
            # The open stream gets it live: the listener did not wait for a long backoff step.
            [(_, data)] = await stream.events(1, within=3)
            assert '"after"' in data
