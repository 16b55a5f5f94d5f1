"""A real S3 API on 127.0.0.1 for the tests: moto's standalone server in its own process, and boto3 (a
client other than the app's) to look into its buckets."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import httpx

from tests.support.ports import free_port

CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "aws_region": "us-east-1"}
CREDENTIAL_VARIABLES = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_REGION": "us-east-1",
}


@dataclass
class Bucket:
    endpoint: str
    name: str
    prefix: str

    @property
    def url(self) -> str:
        return f"s3://{self.name}/{self.prefix}"

    def settings(self) -> dict[str, Any]:
        """Settings overrides of an app that keeps its files here."""
        return {"storage_url": self.url, "s3_endpoint_url": self.endpoint, **CREDENTIALS}

    def environment(self) -> dict[str, str]:
        """The same, as a service process reads them."""
        return {
            "WARRANTY_STORAGE_URL": self.url,
            "WARRANTY_S3_ENDPOINT_URL": self.endpoint,
            **CREDENTIAL_VARIABLES,
        }

    def objects(self) -> list[str]:
        """Every object of the bucket, full names."""
        listed = _client(self.endpoint).list_objects_v2(Bucket=self.name)
        return sorted(item["Key"] for item in listed.get("Contents", []))

    def get(self, key: str) -> bytes:
        data: bytes = (
            _client(self.endpoint).get_object(Bucket=self.name, Key=f"{self.prefix}/{key}")["Body"].read()
        )
        return data

    def remove(self, key: str) -> None:
        _client(self.endpoint).delete_object(Bucket=self.name, Key=f"{self.prefix}/{key}")


def _client(endpoint: str) -> Any:
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=CREDENTIALS["aws_access_key_id"],
        aws_secret_access_key=CREDENTIALS["aws_secret_access_key"],
        region_name=CREDENTIALS["aws_region"],
    )


@contextmanager
def moto_server(log: Path) -> Iterator[str]:
    """`python -m moto.server` on a free port; answers its endpoint once it serves."""
    port = free_port()
    command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        endpoint = f"http://127.0.0.1:{port}"
        try:
            _wait_until_serving(endpoint, process)
            yield endpoint
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_serving(endpoint: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"moto's server exited with {process.returncode}")
        try:
            httpx.get(f"{endpoint}/moto-api/", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("moto's server did not start within 60 s")


def new_bucket(endpoint: str) -> Bucket:
    """A bucket of its own for one test, its files under a prefix as an operator would set one."""
    name = f"warranty-{uuid.uuid4().hex[:12]}"
    _client(endpoint).create_bucket(Bucket=name)
    return Bucket(endpoint, name, "files")
