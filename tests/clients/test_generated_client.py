"""A TypeScript client generated from the live OpenAPI document type-checks: openapi-typescript reads
`/api/openapi.json` from a real server, and `tsc --strict` checks tests/clients/client.ts (openapi-fetch,
the main flows of the API) against the types it wrote. The npm packages are pinned by package-lock.json.

Needs Node.js and npm (`.ci/run` installs Debian's); skipped, with the reason, where they cannot be used."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from app.config import Settings
from tests.realtime.support import live_server

pytestmark = pytest.mark.node

HERE = Path(__file__).parent
PROJECT_FILES = ("package.json", "package-lock.json", "tsconfig.json", "client.ts")
# What "no casts" means for the client: no `as`, no non-null `!`, no `any`, no compiler pragmas.
CASTS = re.compile(r"\bas\s+[A-Za-z{(\[]|[\w)\]]!\s*[.;,)\]]|\bany\b|@ts-", re.MULTILINE)


async def _run(*command: str, cwd: Path, seconds: float) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *command, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    try:
        output, _ = await asyncio.wait_for(process.communicate(), seconds)
    except TimeoutError:
        process.kill()
        await process.wait()
        return -1, f"{' '.join(command)}: no answer within {seconds} s"
    return process.returncode or 0, output.decode(errors="replace")


@pytest.fixture
async def project(tmp_path: Path) -> Path:
    """The client project with its pinned packages installed (`npm ci`), outside the repository."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js and npm are not installed (.ci/run installs Debian's nodejs and npm)")
    for name in PROJECT_FILES:
        shutil.copy(HERE / name, tmp_path / name)
    code, output = await _run("npm", "ci", "--no-audit", "--no-fund", cwd=tmp_path, seconds=300)
    if code != 0:
        pytest.skip(f"npm could not install the pinned packages (no registry?): {output[-500:]}")
    return tmp_path


def test_the_client_holds_no_cast() -> None:
    source = (HERE / "client.ts").read_text()
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("//"))
    assert CASTS.findall(code) == []


async def test_a_client_generated_from_the_live_document_type_checks(
    project: Path, settings: Settings, database_url: str
) -> None:
    async with live_server(settings) as server:
        code, output = await _run(
            "npx",
            "--no-install",
            "openapi-typescript",
            f"{server.url}/api/openapi.json",
            "--output",
            "schema.d.ts",
            cwd=project,
            seconds=120,
        )
    assert code == 0, output
    code, output = await _run(
        "npx", "--no-install", "tsc", "--strict", "-p", "tsconfig.json", cwd=project, seconds=300
    )
    assert code == 0, output
