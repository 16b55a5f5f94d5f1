"""12.1: no published value ever signs a token; an unset key is generated once per data folder."""

from __future__ import annotations

import logging
import stat
import threading
from pathlib import Path

import httpx
import jwt
import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from app.config import Settings
from app.core.signing_key import KEY_FILE, ensure_signing_key
from app.main import create_app
from tests.conftest import SettingsFactory
from tests.factories.users import DEFAULT_PASSWORD, create_admin
from tests.helpers import assert_error

# The key the service used to fall back on; it is public (it was printed in the source).
PUBLISHED_KEY = "dev-only-secret-key-change-me-in-production-0123456789"


@pytest.mark.settings(secret_key=None)
async def test_a_token_signed_with_the_once_published_key_is_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    admin = await create_admin(app)
    forged = jwt.encode(
        {"sub": str(admin.id), "roles": ["ROLE_ADMIN"], "iat": 1, "exp": 4_000_000_000, "jti": "x"},
        PUBLISHED_KEY,
        algorithm="HS256",
    )

    response = await client.get("/api/users", headers={"Authorization": f"Bearer {forged}"})

    assert_error(response, 401, "AUTH_TOKEN_INVALID")


@pytest.mark.settings(secret_key=None)
async def test_the_generated_key_is_kept_private_in_the_data_folder_and_shared(
    app: FastAPI, client: httpx.AsyncClient, make_settings: SettingsFactory, caplog: pytest.LogCaptureFixture
) -> None:
    settings: Settings = app.state.settings
    key_file = settings.data_dir / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(bytes.fromhex(key_file.read_text().strip())) == 32  # 256 bits
    admin = await create_admin(app)
    login = await client.post("/api/login", json={"email": admin.email, "password": DEFAULT_PASSWORD})
    token = login.json()["token"]

    # A second process on the same data folder verifies the first one's tokens.
    with caplog.at_level(logging.WARNING, logger="app.core.signing_key"):
        second = create_app(make_settings(secret_key=None))
    assert str(key_file) in caplog.text
    async with second.router.lifespan_context(second):
        transport = httpx.ASGITransport(app=second)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
            me = await other.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and me.json()["id"] == admin.id


def test_processes_starting_together_agree_on_one_key(make_settings: SettingsFactory) -> None:
    starters = [make_settings(secret_key=None) for _ in range(8)]
    barrier = threading.Barrier(len(starters))

    def start(settings: Settings) -> None:
        barrier.wait()
        ensure_signing_key(settings)

    threads = [threading.Thread(target=start, args=(settings,)) for settings in starters]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    keys = {settings.secret_key.get_secret_value() for settings in starters if settings.secret_key}
    assert len(keys) == 1 and len(next(iter(keys))) == 64
    assert [path.name for path in starters[0].data_dir.iterdir()] == [KEY_FILE]


def test_a_configured_key_under_32_bytes_is_refused(make_settings: SettingsFactory) -> None:
    with pytest.raises(ValidationError, match="at least 32 bytes"):
        make_settings(secret_key="k" * 31)
    # Bytes, not characters: 11 three-byte characters are 33 bytes.
    assert make_settings(secret_key="€" * 11).secret_key is not None


def test_production_refuses_a_generated_key(make_settings: SettingsFactory) -> None:
    with pytest.raises(ValidationError, match="must be set in production"):
        make_settings(env="production", secret_key=None)


@pytest.mark.settings(env="production", cookie_secure=False)
async def test_production_always_marks_the_hub_cookie_secure(app: FastAPI, client: httpx.AsyncClient) -> None:
    admin = await create_admin(app)

    response = await client.post("/api/login", json={"email": admin.email, "password": DEFAULT_PASSWORD})

    assert response.status_code == 200
    assert "; Secure" in response.headers["set-cookie"]


def test_the_docker_image_runs_as_production() -> None:
    dockerfile = (Path(__file__).parents[2] / "Dockerfile").read_text()
    runtime_stage = dockerfile.rsplit("\nFROM ", 1)[1]
    assert "WARRANTY_ENV=production" in runtime_stage
