"""Starting servers, running wrk and reading its figures."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()


def start(command: list[str], env: dict[str, str], port: int, log: Path) -> Server:
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, env={**os.environ, **env}, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
    server = Server(process, port)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{command[0]} exited; see {log}")
        try:
            urllib.request.urlopen(f"{server.url}/health", timeout=1).read()
            return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"server on port {port} did not start; see {log}")


def uvicorn(
    app: str, port: int, workers: int, env: dict[str, str], log: Path, factory: bool = False
) -> Server:
    command = [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", str(workers), "--log-level", "warning", "--no-access-log"]
    if factory:
        command.append("--factory")
    return start(command, env, port, log)


@dataclass
class WrkResult:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int

    def as_dict(self) -> dict[str, float]:
        return {
            "rps": round(self.requests_per_second, 1),
            "p50_ms": self.p50_ms,
            "p99_ms": self.p99_ms,
            "errors": self.errors,
        }


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if not match:
        raise ValueError(f"unreadable wrk latency {text!r}")
    return round(float(match.group(1)) * _UNITS[match.group(2)], 3)


def wrk(
    url: str, *, headers: dict[str, str], seconds: int, connections: int, script: Path | None = None
) -> WrkResult:
    command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    if script is not None:
        command += ["-s", str(script)]
    output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    # The percentiles of the "Latency Distribution" block, each alone at the start of its line.
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", output, re.MULTILINE).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", output, re.MULTILINE).group(1))  # type: ignore[union-attr]
    errors = 0
    for pattern in (r"Non-2xx or 3xx responses:\s+(\d+)", r"Socket errors:.*?timeout (\d+)"):
        found = re.search(pattern, output)
        errors += int(found.group(1)) if found else 0
    return WrkResult(rps, p50, p99, errors)
