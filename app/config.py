"""Settings, read from the environment (prefix ``WARRANTY_``) and an optional ``.env`` file.

Every setting is named once here; `.env.example` and the README describe the same list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cached_property
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

Network = IPv4Network | IPv6Network


def parse_networks(values: Iterable[str]) -> tuple[Network, ...]:
    """`10.0.0.0/8`, `192.0.2.7` or `2001:db8::/32` -> networks; ValueError names the entry that is none."""
    networks = []
    for value in values:
        try:
            networks.append(ip_network(value.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{value!r} is not an IP address or CIDR range") from None
    return tuple(networks)


# HS256 keys shorter than this are refused at start (RFC 7518 3.2: a key at least as long as the hash).
MIN_SECRET_KEY_BYTES = 32

CommaList = Annotated[list[str], NoDecode]


def _split_commas(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


# Identity providers (contract 18). Role names as app.models.enums.Role spells them (config is below models).
OIDC_ROLES = frozenset({"ROLE_USER", "ROLE_SUPPLIER", "ROLE_ADMIN"})


def is_loopback_host(host: str | None) -> bool:
    """`localhost`, 127.0.0.0/8 or ::1: the only hosts an `http://` issuer or redirect may name."""
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def check_web_url(url: str, what: str) -> str:
    """An absolute https URL (http only on a loopback host), without credentials or a fragment."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{what} {url!r} is not an absolute http(s) URL")
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        raise ValueError(f"{what} {url!r} must be https (http is accepted on a loopback address only)")
    if "@" in parts.netloc or parts.fragment or "\\" in url:
        raise ValueError(f"{what} {url!r} may not hold credentials, a fragment or a backslash")
    return url


class OidcProvider(BaseModel):
    """One entry of WARRANTY_OIDC_PROVIDERS, written in camelCase as the contract shows it."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        hide_input_in_errors=True,
    )

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")  # a path segment: lower case, digits, - and _
    issuer: str = Field(max_length=255)
    client_id: str = Field(min_length=1, max_length=255)
    client_secret: SecretStr | None = None  # none: a public client (PKCE alone)
    scopes: list[str] = Field(default_factory=lambda: ["openid", "email", "profile"])
    role_claim: str | None = None
    role_map: dict[str, list[str]] = Field(default_factory=dict)
    auto_register: bool = False

    @field_validator("issuer")
    @classmethod
    def _issuer_is_https(cls, value: str) -> str:
        check_web_url(value, "issuer")
        if urlsplit(value).query:
            raise ValueError(f"issuer {value!r} may not have a query")
        return value  # exactly as the provider writes it: it is compared with its tokens' `iss`

    @field_validator("scopes")
    @classmethod
    def _openid_scope(cls, value: list[str]) -> list[str]:
        return value if "openid" in value else ["openid", *value]

    @field_validator("role_map", mode="before")
    @classmethod
    def _one_or_more_roles(cls, value: object) -> object:
        if isinstance(value, dict):
            return {key: [roles] if isinstance(roles, str) else roles for key, roles in value.items()}
        return value

    @field_validator("role_map")
    @classmethod
    def _roles_exist(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for claim_value, roles in value.items():
            unknown = [role for role in roles if role not in OIDC_ROLES]
            if unknown:
                raise ValueError(
                    f"roleMap[{claim_value!r}] names {', '.join(map(repr, unknown))}, not a role: "
                    f"use {', '.join(sorted(OIDC_ROLES))}"
                )
        return value

    @model_validator(mode="after")
    def _claim_for_the_map(self) -> OidcProvider:
        if self.role_map and not self.role_claim:
            raise ValueError(f"provider {self.name!r} has a roleMap but no roleClaim to read it from")
        return self


def _parse_providers(value: object) -> object:
    if isinstance(value, str):
        if not value.strip():
            return []
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"WARRANTY_OIDC_PROVIDERS is not valid JSON: {exc}") from None
    return value


class Settings(BaseSettings):
    # validate_by_name: the AWS_* settings below are also given by field name (tests, create_app callers).
    model_config = SettingsConfigDict(
        env_prefix="WARRANTY_",
        env_file=".env",
        extra="ignore",
        validate_by_name=True,
        hide_input_in_errors=True,
    )

    env: Literal["development", "production", "test"] = "development"
    log_level: str = "INFO"
    log_format: Literal["text", "json"] = "text"  # json: one JSON object per line (app.observability.logs)
    base_url: str = "http://127.0.0.1:8000"

    # GET /metrics answers these client addresses or networks (comma-separated); empty: nobody
    metrics_allow: CommaList = Field(default_factory=lambda: ["127.0.0.0/8", "::1"])

    # Storage
    database_url: str = "sqlite+aiosqlite:///./var/warranty.db"
    data_dir: Path = Path("./var")
    db_pool_size: int = 10
    # Files: s3://bucket/prefix keeps them in an S3-compatible bucket; unset, under data_dir/files.
    storage_url: str | None = None
    s3_endpoint_url: str | None = None  # any S3-compatible store (MinIO, R2, ...); unset: AWS
    # The usual AWS variables, without the prefix; unset, obstore looks further (web identity, metadata).
    aws_access_key_id: str | None = Field(default=None, validation_alias="AWS_ACCESS_KEY_ID")
    aws_secret_access_key: SecretStr | None = Field(default=None, validation_alias="AWS_SECRET_ACCESS_KEY")
    aws_session_token: SecretStr | None = Field(default=None, validation_alias="AWS_SESSION_TOKEN")
    aws_region: str | None = Field(
        default=None, validation_alias=AliasChoices("AWS_REGION", "AWS_DEFAULT_REGION")
    )

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
    hash_concurrency: int = Field(default=2, ge=1)  # password hashes at once per process; others wait

    # Login throttling
    login_max_failures_per_email: int = 5
    login_max_failures_per_client: int = 50
    login_failure_window: int = 300
    # Other throttles (per client address; app/auth/throttle.py)
    password_forgot_max_per_client: int = Field(default=5, ge=1)
    password_forgot_window: int = Field(default=900, ge=1)
    register_max_per_client: int = Field(default=10, ge=1)
    register_window: int = Field(default=3600, ge=1)
    max_device_tokens_per_user: int = Field(default=20, ge=1)  # the oldest is dropped beyond
    # Proxies whose X-Forwarded-For is read: addresses or CIDR ranges, none by default (client_address.py)
    trusted_proxies: CommaList = Field(default_factory=list)

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
    max_image_pixels: int = 40_000_000  # receipts and attachments (sent and inbound)
    max_profile_picture_pixels: int = 16_000_000
    image_decodes: int = Field(default=2, ge=1)  # image decodes at once per process
    max_import_size: int = 5 * 1024 * 1024  # a product CSV file
    max_import_rows: int = Field(default=5000, ge=1)

    # Real-time hub
    sse_heartbeat: float = 15.0
    sse_queue_size: int = 256
    sse_max_streams_per_user: int = 20
    event_retention_hours: int = 48
    sse_reauthorize_interval: float = 30.0
    # The hub for Mercure publishers and subscribers (contract 20, docs/api.md "The hub for Mercure users").
    # Publishing answers 404 while the publisher key is unset; HS256 keys, each its own.
    mercure_publisher_key: SecretStr | None = None
    mercure_subscriber_key: SecretStr | None = None
    mercure_resource: str | None = (
        None  # a token's `aud`, when it has one; default {base_url}/.well-known/mercure
    )
    mercure_anonymous: bool = False  # subscribers without credentials receive public updates

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
    # Web Push (contract 19.1): the VAPID key (a base64url P-256 private scalar or a PEM; unset: generated
    # once into data_dir), the `sub` of its tokens (mailto: or https:; unset: mailto: the WARRANTY_MAIL_FROM
    # address), how long a push service keeps an undelivered message, subscriptions kept per user.
    vapid_private_key: SecretStr | None = None
    vapid_subject: str | None = None
    web_push_ttl: int = Field(default=86400, ge=0, le=28 * 86400)
    web_push_timeout: float = 10.0
    max_web_push_subscriptions_per_user: int = Field(default=20, ge=1)
    # Notification URLs (contract 19.2): the Apprise schemes users may add, the Fernet keys that encrypt
    # them (comma-separated: the first encrypts, all decrypt; unset: generated once into data_dir), and
    # targets per user.
    notify_schemes: CommaList = Field(
        default_factory=lambda: [
            "ntfy",
            "ntfys",
            "gotify",
            "gotifys",
            "matrix",
            "matrixs",
            "tgram",
            "slack",
            "discord",
        ]
    )
    notify_key: SecretStr | None = None
    notify_timeout: float = 10.0
    max_notification_targets_per_user: int = Field(default=10, ge=1)
    run_worker: bool = True
    worker_poll_interval: float = 1.0
    worker_batch_size: int = 20
    # Seconds between two rounds of the deadline breach job in the worker (contract 17.8: within a minute).
    sla_check_interval: float = Field(default=20.0, gt=0, le=50)
    outbox_retry_hours: float = Field(default=24.0, gt=0)  # retried this long before `failed`
    outbox_backoff_base: float = 2.0
    outbox_backoff_max: float = 3600.0
    outbox_retention_days: float = Field(default=7, ge=0)  # delivered (done, skipped) rows, then deleted
    outbox_failed_retention_days: float = Field(default=30, ge=0)  # failed rows, after their last attempt
    expiry_alert_days: CommaList = Field(default_factory=lambda: ["30", "7"])
    calendar_max_events: int = Field(default=1000, ge=1)  # products in one calendar feed, at most

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
    # The receiving provider's authserv-ids: only Authentication-Results naming one are believed. Empty:
    # every verdict in the mail is read and only failing ones refuse (app/inbound/guards.py).
    inbound_authserv_ids: CommaList = Field(default_factory=list)
    # Post only mail whose trusted results prove its From domain; unset: on once authserv-ids are listed.
    inbound_require_auth: bool | None = None

    # Outbound webhooks
    webhook_allow_private: bool = False  # endpoints on loopback/private/link-local addresses (tests, labs)
    webhook_timeout: float = 10.0  # the most one delivery attempt may take, connect to last byte read

    # Sign-in through identity providers (contract 18; docs/operations.md)
    oidc_providers: Annotated[list[OidcProvider], NoDecode] = Field(default_factory=list)  # a JSON list
    # Where the flow may send the browser back to: the redirect must start with one of these (app/oidc)
    oidc_redirects: CommaList = Field(default_factory=list)
    oidc_timeout: float = Field(default=10.0, gt=0)  # one request to a provider, connect to last byte

    _split = field_validator(
        "cors_origins",
        "expiry_alert_days",
        "inbound_providers",
        "inbound_authserv_ids",
        "trusted_proxies",
        "metrics_allow",
        "notify_schemes",
        "oidc_redirects",
        mode="before",
    )(_split_commas)
    _providers_json = field_validator("oidc_providers", mode="before")(_parse_providers)

    @field_validator("oidc_providers")
    @classmethod
    def _unique_names(cls, value: list[OidcProvider]) -> list[OidcProvider]:
        names = [provider.name for provider in value]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"WARRANTY_OIDC_PROVIDERS names {', '.join(twice)} more than once")
        return value

    @field_validator("oidc_redirects")
    @classmethod
    def _redirects_are_urls(cls, value: list[str]) -> list[str]:
        return [check_web_url(url, "WARRANTY_OIDC_REDIRECTS entry") for url in value]

    @field_validator("notify_schemes")
    @classmethod
    def _schemes_lower(cls, value: list[str]) -> list[str]:
        return [scheme.lower() for scheme in value]

    @field_validator("vapid_private_key", "notify_key", "vapid_subject", mode="before")
    @classmethod
    def _unset_if_empty(cls, value: object) -> object:
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if raw is None or raw == "" else value

    @field_validator("vapid_subject")
    @classmethod
    def _vapid_subject(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"(mailto:[^\s@]+@[^\s@]+|https://[^\s/]+(/\S*)?)", value):
            raise ValueError(
                "WARRANTY_VAPID_SUBJECT must be a mailto: or an https: URL (RFC 8292 section 2.1)"
            )
        return value

    @field_validator("trusted_proxies", "metrics_allow")
    @classmethod
    def _proxies_are_networks(cls, value: list[str]) -> list[str]:
        parse_networks(value)  # refused at start, not at the first request
        return value

    @field_validator("expiry_alert_days")
    @classmethod
    def _alert_days_are_numbers(cls, value: list[str]) -> list[str]:
        for day in value:
            if not day.isdigit():
                raise ValueError(f"expiry alert days must be whole numbers, got {day!r}")
        return value

    @field_validator("storage_url", "s3_endpoint_url", "inbound_require_auth", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("storage_url")
    @classmethod
    def _a_bucket(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?", value):
            raise ValueError(
                "WARRANTY_STORAGE_URL must be s3://bucket or s3://bucket/prefix (unset: the data folder)"
            )
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

    @model_validator(mode="after")
    def _auth_needs_a_trusted_server(self) -> Settings:
        if self.inbound_require_auth and not self.inbound_authserv_ids:
            raise ValueError(
                "WARRANTY_INBOUND_REQUIRE_AUTH=true needs WARRANTY_INBOUND_AUTHSERV_IDS: the authserv-ids of "
                "the receiving provider, whose Authentication-Results are the only ones believed"
            )
        return self

    @cached_property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def hub_resource(self) -> str:
        """The hub's resource identifier: the `aud` a Mercure token must name when it names one."""
        return self.mercure_resource or f"{self.base_url.rstrip('/')}/.well-known/mercure"

    @cached_property
    def trusted_proxy_networks(self) -> tuple[Network, ...]:
        return parse_networks(self.trusted_proxies)

    @cached_property
    def metrics_networks(self) -> tuple[Network, ...]:
        return parse_networks(self.metrics_allow)

    @property
    def inbound_auth_required(self) -> bool:
        """Whether inbound mail must prove its sender (WARRANTY_INBOUND_REQUIRE_AUTH, by default on once
        WARRANTY_INBOUND_AUTHSERV_IDS is set)."""
        if self.inbound_require_auth is None:
            return bool(self.inbound_authserv_ids)
        return self.inbound_require_auth

    @property
    def expiry_thresholds(self) -> list[int]:
        return sorted({int(day) for day in self.expiry_alert_days}, reverse=True)


def get_settings() -> Settings:
    return Settings()
