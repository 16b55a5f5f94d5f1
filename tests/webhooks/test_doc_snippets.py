"""docs/api.md's signature checks ("Verifying a signature"), run as written against a real delivery: the
Python one in this process, the Node.js one in `node` (skipped, with the reason, where there is none).
Each accepts what the service sent and refuses a tampered body, another secret and an old timestamp."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.users import auth_headers, create_admin
from tests.factories.webhooks import register, webhook_worker
from tests.webhooks.receiver import Received, Receiver

pytestmark = pytest.mark.settings(webhook_allow_private=True)

DOCS = Path(__file__).parents[2] / "docs" / "api.md"


def snippet(heading: str, language: str) -> str:
    """The first fenced block of `language` after `heading` in the webhooks section of docs/api.md."""
    section = re.split(r"^## (?:\d+\. )?Outbound webhooks$", DOCS.read_text(), maxsplit=1, flags=re.M)[1]
    after = section.split(heading + "\n", 1)[1]
    found = re.search(rf"```{language}\n(.*?)```", after, re.S)
    assert found, f"no {language} block under {heading}"
    return found.group(1)


async def _delivered(app: FastAPI, client: httpx.AsyncClient, receiver: Receiver) -> tuple[str, Received]:
    endpoint = await register(app, client, receiver.url("/hook"))
    admin = auth_headers(app, await create_admin(app))
    assert (await client.post(f"/api/admin/webhooks/{endpoint['id']}/test", headers=admin)).status_code == 202
    await webhook_worker(app).run_until_idle()
    [arrived] = receiver.at("/hook")
    return endpoint["secret"], arrived


async def test_the_python_check(app: FastAPI, client: httpx.AsyncClient, receiver: Receiver) -> None:
    secret, arrived = await _delivered(app, client, receiver)
    namespace: dict[str, Any] = {}
    exec(snippet("#### Python", "python"), namespace)
    verify = namespace["verify_webhook"]
    assert verify(secret, arrived.headers, arrived.body)["type"] == "webhook.test"
    for args in (
        (secret, arrived.headers, arrived.body.replace(b"test", b"tost")),
        ("whsec_" + "A" * 43 + "=", arrived.headers, arrived.body),
        (secret, {**arrived.headers, "webhook-timestamp": "1000000000"}, arrived.body),
    ):
        with pytest.raises(ValueError):
            verify(*args)


NODE_DRIVER = """
const cases = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const results = cases.map(([secret, headers, body]) => {
  try { return verifyWebhook(secret, headers, Buffer.from(body, "base64")).type; }
  catch (error) { return "refused: " + error.message; }
});
console.log(JSON.stringify(results));
"""


async def test_the_node_check(
    app: FastAPI, client: httpx.AsyncClient, receiver: Receiver, tmp_path: Path
) -> None:
    if shutil.which("node") is None:
        pytest.skip("needs Node.js (`node` on the PATH)")
    secret, arrived = await _delivered(app, client, receiver)
    script = tmp_path / "verify.js"
    script.write_text(snippet("#### Node.js", "js") + NODE_DRIVER)
    body = arrived.body
    cases = [
        (secret, arrived.headers, body),
        (secret, arrived.headers, body.replace(b"test", b"tost")),
        ("whsec_" + "A" * 43 + "=", arrived.headers, body),
        (secret, {**arrived.headers, "webhook-timestamp": "1000000000"}, body),
    ]
    encoded = json.dumps([[s, h, base64.b64encode(b).decode()] for s, h, b in cases]).encode()
    process = await asyncio.create_subprocess_exec(
        "node", str(script), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    output, _ = await asyncio.wait_for(process.communicate(encoded), timeout=30)
    assert process.returncode == 0
    results = json.loads(output)
    assert results[0] == "webhook.test"
    assert all(result.startswith("refused: ") for result in results[1:]), results
