"""The keys of contract 19 read when a process starts (app/notifications/channel_keys.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from app.notifications.channel_keys import ensure_channel_keys


def test_both_keys_are_generated_at_start(tmp_path: Path) -> None:
    ensure_channel_keys(Settings(_env_file=None, data_dir=tmp_path))  # type: ignore[call-arg]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notify_key", "vapid_private_key.pem"]


@pytest.mark.parametrize("setting", ["vapid_private_key", "notify_key"])
def test_a_configured_key_that_is_none_stops_the_start(tmp_path: Path, setting: str) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, **{setting: "not-a-key"})  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        ensure_channel_keys(settings)
