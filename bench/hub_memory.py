"""What an idle hub subscriber is made of: the service served in this process (uvicorn, uvloop, httptools,
as in production), N streams opened by a client subprocess, the process's RSS growth per stream, then
tracemalloc's account of what N more streams hold, by allocation site.

    python -m bench.hub_memory [--subscribers N] [--floor]

`--floor` serves a bare ASGI app instead (send the head, then wait on one future and one receive() task):
what uvicorn's own per-connection objects cost, below which no hub can go.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tracemalloc
from typing import Any

import uvicorn
import uvloop

from app.main import create_app
from bench import harness, hub
from bench.run import create_database, drop_database, prepare, settings_for, token_for

CLIENT = """
import asyncio, sys, uvloop
from bench import hub
async def run():
    port, token, topic, count = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
    clients = await hub._open(port, token, [topic], count)
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
uvloop.run(run())
"""


async def floor_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    waiter = asyncio.get_running_loop().create_future()
    gone = asyncio.ensure_future(receive())
    gone.add_done_callback(lambda _: waiter.done() or waiter.set_result(None))
    await waiter
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _serve(app: Any, port: int) -> uvicorn.Server:
    config = uvicorn.Config(app, port=port, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    asyncio.get_running_loop().create_task(server.serve())
    while not server.started:  # noqa: ASYNC110 (a flag owned by uvicorn)
        await asyncio.sleep(0.05)
    return server


async def _open(port: int, token: str, topic: str, count: int) -> asyncio.subprocess.Process:
    client = await asyncio.create_subprocess_exec(
        *(sys.executable, "-c", CLIENT, str(port), token, topic, str(count)),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=harness.ROOT,
    )
    assert client.stdout is not None
    line = await client.stdout.readline()
    assert line.strip() == b"ready", line
    return client


def _report(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, subscribers: int) -> None:
    traced = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    print(f"held per subscriber, traced (second round): {traced / subscribers:.0f} B; by site:")
    for stat in after.compare_to(before, "lineno")[:30]:
        if stat.size_diff / subscribers >= 16:
            frame = stat.traceback[0]
            site = f"{frame.filename.split('site-packages/')[-1]}:{frame.lineno}"
            print(f"  {stat.size_diff / subscribers:7.0f} B  {stat.count_diff / subscribers:5.1f}x  {site}")


async def main(subscribers: int, floor: bool) -> None:
    name = "warranty_bench_hub_memory"
    url = await create_database(name)
    try:
        seeded = await prepare(url)
        limits = {"sse_max_streams_per_user": subscribers + 100, "sse_heartbeat": 60, "run_worker": False}
        port = harness.free_port()
        server = await _serve(floor_app if floor else create_app(settings_for(url, **limits)), port)
        token = token_for(url, seeded.customer_id, ["ROLE_USER"])
        topic = f"claims/{seeded.quiet_claim_id}/messages"
        warm = await _open(port, token, topic, 50)  # first-use caches are not per subscriber
        await warm.communicate(b"")
        await asyncio.sleep(1)
        gc.collect()
        rss_before = hub.rss_kib(os.getpid())
        client = await _open(port, token, topic, subscribers)
        await asyncio.sleep(2)
        rss = (hub.rss_kib(os.getpid()) - rss_before) * 1024 / subscribers
        print(f"RSS growth per subscriber (first round, no tracing): {rss:.0f} B")
        await client.communicate(b"")
        await asyncio.sleep(2)  # every stream of the first round has ended
        gc.collect()
        tracemalloc.start(1)
        before = tracemalloc.take_snapshot()
        client = await _open(port, token, topic, subscribers)
        await asyncio.sleep(2)
        gc.collect()
        _report(before, tracemalloc.take_snapshot(), subscribers)
        tracemalloc.stop()
        await client.communicate(b"")
        server.should_exit = True
        await asyncio.sleep(1)
    finally:
        await drop_database(name)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--subscribers", type=int, default=2000)
    parser.add_argument("--floor", action="store_true")
    args = parser.parse_args()
    uvloop.run(main(args.subscribers, args.floor))
