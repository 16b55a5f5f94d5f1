"""Settings, read from the environment (prefix ``WARRANTY_``) and an optional ``.env`` file.

Every setting is named once here; `.env.example` and the README describe the same list.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# HS256 keys shorter than this are refused at start (RFC 7518 3.2: a key at least as long as the hash).
MIN_SECRET_KEY_BYTES = 32

CommaList = Annotated[list[str], NoDecode]


def _split_commas(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WARRANTY_", env_file=".env", extra="ignore")

    env: Literal["development", "production", "test"] = "development"
    log_level: str = "INFO"
    base_url: str = "http://127.0.0.1:8000"

    # Storage
    database_url: str = "sqlite+aiosqlite:///./var/warranty.db"
    data_dir: Path = Path("./var")
    db_pool_size: int = 10

    # Tokens and passwords
    # None: a generated key kept in the data folder (app/core/signing_key.py); production refuses that.
    secret_key: SecretStr | None = None
    access_token_ttl: int = 3600
    refresh_token_ttl_days: int = 30
    password_reset_ttl: int = 3600
    allow_registration: bool = True
    argon2_time_cost: int = 3
    argon2_memory_cost: int = 65536
    argon2_parallelism: int = 4

    # Login throttling
    login_max_failures_per_email: int = 5
    login_max_failures_per_client: int = 50
    login_failure_window: int = 300
    trust_forwarded_for: bool = False

    # Hub cookie and CORS
    cookie_secure: bool = False
    cookie_samesite: Literal["lax", "strict", "none"] = "lax"
    cors_origins: CommaList = Field(default_factory=list)

    # Products and pages
    expiring_soon_days: int = 30
    cache_ttl: int = 300

    # Limits (bytes)
    max_body_size: int = 15 * 1024 * 1024
    max_attachment_size: int = 10 * 1024 * 1024
    max_receipt_size: int = 10 * 1024 * 1024
    max_profile_picture_size: int = 5 * 1024 * 1024
    max_inbound_attachment_size: int = 10 * 1024 * 1024
    max_image_pixels: int = 40_000_000

    # Real-time hub
    sse_heartbeat: float = 15.0
    sse_queue_size: int = 256
    sse_max_streams_per_user: int = 20
    event_retention_hours: int = 48
    sse_reauthorize_interval: float = 30.0

    # Notifications
    frontend_url: str = "http://localhost:3000"
    mail_domain: str = "warranty.local"
    mail_from: str = "Warranty <notifications@warranty.local>"
    smtp_url: str | None = None
    smtp_timeout: float = 10.0
    push_backend: Literal["log", "gorush"] = "log"
    push_url: str | None = None
    push_timeout: float = 10.0
    push_apns_topic: str | None = None
    run_worker: bool = True
    worker_poll_interval: float = 1.0
    worker_batch_size: int = 20
    outbox_retry_hours: float = Field(default=24.0, gt=0)  # retried this long before `failed`
    outbox_backoff_base: float = 2.0
    outbox_backoff_max: float = 3600.0
    expiry_alert_days: CommaList = Field(default_factory=lambda: ["30", "7"])

    # Inbound email
    inbound_providers: CommaList = Field(default_factory=lambda: ["resend", "postmark"])
    webhook_secret: SecretStr = SecretStr("")
    inbound_secret: SecretStr = SecretStr("")
    inbound_dedup_days: int = 7
    inbound_max_part: int = 1024 * 1024  # bytes of a text or HTML body part read; the rest is cut
    resend_api_url: str = "https://api.resend.com"
    resend_api_key: SecretStr = SecretStr("")
    resend_timeout: float = 10.0
    postmark_inbound_user: str = ""
    postmark_inbound_password: SecretStr = SecretStr("")

    _split = field_validator("cors_origins", "expiry_alert_days", "inbound_providers", mode="before")(
        _split_commas
    )

    @field_validator("expiry_alert_days")
    @classmethod
    def _alert_days_are_numbers(cls, value: list[str]) -> list[str]:
        for day in value:
            if not day.isdigit():
                raise ValueError(f"expiry alert days must be whole numbers, got {day!r}")
        return value

    @field_validator("secret_key", mode="before")
    @classmethod
    def _unset_when_empty(cls, value: object) -> object:
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if raw is None or raw == "" else value

    @field_validator("secret_key")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value().encode()) < MIN_SECRET_KEY_BYTES:
            raise ValueError(f"WARRANTY_SECRET_KEY must be at least {MIN_SECRET_KEY_BYTES} bytes long")
        return value

    @model_validator(mode="after")
    def _production_rules(self) -> Settings:
        if self.env == "production":
            if self.secret_key is None:
                raise ValueError(
                    "WARRANTY_SECRET_KEY must be set in production (32+ random bytes, the same in every "
                    "process); a generated key is for development only"
                )
            self.cookie_secure = True
        return self

    @cached_property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def expiry_thresholds(self) -> list[int]:
        return sorted({int(day) for day in self.expiry_alert_days}, reverse=True)


def get_settings() -> Settings:
    return Settings()
