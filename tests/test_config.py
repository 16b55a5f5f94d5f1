"""Settings (app/config.py): read from WARRANTY_* variables (the AWS ones without the prefix), comma lists
split, what cannot work refused at start with the variable named, production's rules, and the values
derived from the settings."""

from __future__ import annotations

import json
import re
from ipaddress import ip_network

import pytest
from pydantic import ValidationError

from app.config import Settings, get_settings, parse_networks
from tests.conftest import SettingsFactory


def _from_environment() -> Settings:
    return Settings(_env_file=None)


def test_the_environment_is_read_with_its_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARRANTY_ENV", "test")
    monkeypatch.setenv("WARRANTY_CACHE_TTL", "12")
    monkeypatch.setenv("WARRANTY_CORS_ORIGINS", " https://a.example, ,https://b.example ")
    monkeypatch.setenv("WARRANTY_EXPIRY_ALERT_DAYS", "7,30,7,1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-3")
    monkeypatch.setenv("CACHE_TTL", "99")  # without the prefix: not a setting

    settings = _from_environment()

    assert (settings.env, settings.cache_ttl) == ("test", 12)
    assert settings.cors_origins == ["https://a.example", "https://b.example"]
    assert settings.expiry_thresholds == [30, 7, 1]  # each once, the widest first
    assert (settings.aws_access_key_id, settings.aws_region) == ("AKIDEXAMPLE", "eu-west-3")
    assert get_settings().cors_origins == settings.cors_origins


def test_the_aws_settings_are_also_taken_by_name(make_settings: SettingsFactory) -> None:
    settings = make_settings(aws_access_key_id="AKID", aws_secret_access_key="s3cr3t", aws_region="us-east-1")
    assert settings.aws_secret_access_key is not None
    assert (settings.aws_access_key_id, settings.aws_secret_access_key.get_secret_value()) == (
        "AKID",
        "s3cr3t",
    )


def test_a_proxy_that_is_no_address_is_refused_at_start(make_settings: SettingsFactory) -> None:
    with pytest.raises(ValidationError, match=r"'10\.0\.0\.300' is not an IP address or CIDR range"):
        make_settings(trusted_proxies="127.0.0.1, 10.0.0.300")
    settings = make_settings(trusted_proxies="127.0.0.1, 10.0.0.0/8")
    assert settings.trusted_proxies == ["127.0.0.1", "10.0.0.0/8"]


def test_networks_are_addresses_or_ranges() -> None:
    assert parse_networks([" 192.0.2.7 ", "10.1.2.3/8", "2001:db8::/32"]) == (
        ip_network("192.0.2.7/32"),
        ip_network("10.0.0.0/8"),  # the range the address is in
        ip_network("2001:db8::/32"),
    )
    with pytest.raises(ValueError, match=r"'example\.com' is not an IP address or CIDR range"):
        parse_networks(["127.0.0.1", "example.com"])


def test_who_may_read_the_metrics(make_settings: SettingsFactory) -> None:
    assert make_settings().metrics_networks == (ip_network("127.0.0.0/8"), ip_network("::1/128"))
    assert make_settings(metrics_allow="").metrics_networks == ()
    with pytest.raises(ValidationError, match="'localhost' is not an IP address"):
        make_settings(metrics_allow="localhost")


@pytest.mark.parametrize("days", ["30,seven", "30,-7", "30,7.5"])
def test_alert_days_are_whole_numbers(make_settings: SettingsFactory, days: str) -> None:
    with pytest.raises(ValidationError, match="expiry alert days must be whole numbers"):
        make_settings(expiry_alert_days=days)


def test_empty_means_unset(make_settings: SettingsFactory) -> None:
    settings = make_settings(s3_endpoint_url="", inbound_require_auth="", secret_key="")
    assert (settings.s3_endpoint_url, settings.inbound_require_auth, settings.secret_key) == (
        None,
        None,
        None,
    )


def test_production_marks_cookies_secure(make_settings: SettingsFactory) -> None:
    assert make_settings(env="production", cookie_secure=False).cookie_secure is True
    assert make_settings(env="development", cookie_secure=False).cookie_secure is False


@pytest.mark.parametrize(
    ("url", "sqlite"),
    [("sqlite+aiosqlite:///./var/warranty.db", True), ("postgresql+asyncpg://db/warranty", False)],
)
def test_which_database(make_settings: SettingsFactory, url: str, sqlite: bool) -> None:
    assert make_settings(database_url=url).is_sqlite is sqlite


@pytest.mark.parametrize(
    ("setting", "value"),
    [("hash_concurrency", 0), ("image_decodes", 0), ("outbox_retry_hours", 0), ("max_import_rows", 0)],
)
def test_limits_that_would_stop_the_service_are_refused(
    make_settings: SettingsFactory, setting: str, value: int
) -> None:
    with pytest.raises(ValidationError, match=setting):
        make_settings(**{setting: value})


_KC = {"name": "kc", "issuer": "https://id.example.com/realms/home", "clientId": "warranty"}


def test_identity_providers_are_read_from_json(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = {**_KC, "clientSecret": "s3cr3t", "roleClaim": "groups", "roleMap": {"ops": "ROLE_ADMIN"}}
    monkeypatch.setenv("WARRANTY_OIDC_PROVIDERS", json.dumps([provider]))
    monkeypatch.setenv("WARRANTY_OIDC_REDIRECTS", "https://app.example.com/, http://localhost:3000/cb")

    settings = _from_environment()

    (kc,) = settings.oidc_providers
    assert (kc.name, kc.issuer, kc.client_id, kc.scopes) == (
        "kc",
        _KC["issuer"],
        "warranty",
        ["openid", "email", "profile"],
    )
    assert kc.role_map == {"ops": ["ROLE_ADMIN"]} and kc.auto_register is False
    assert settings.oidc_redirects == ["https://app.example.com/", "http://localhost:3000/cb"]


@pytest.mark.parametrize(
    ("providers", "says"),
    [
        ("[{", "WARRANTY_OIDC_PROVIDERS is not valid JSON"),
        (json.dumps([_KC, _KC]), "WARRANTY_OIDC_PROVIDERS names kc more than once"),
        (
            json.dumps([{**_KC, "issuer": "http://id.example.com"}]),
            "must be https (http is accepted on a loopback",
        ),
        (
            json.dumps([{**_KC, "roleClaim": "g", "roleMap": {"x": "ROLE_BOSS"}}]),
            "names 'ROLE_BOSS', not a role",
        ),
        (json.dumps([{**_KC, "roleMap": {"x": "ROLE_USER"}}]), "has a roleMap but no roleClaim"),
        (json.dumps([{**_KC, "name": "Key Cloak"}]), "oidc_providers.0.name"),
        (json.dumps([{**_KC, "clientSecret": "hunter2-secret", "extra": 1}]), "oidc_providers.0.extra"),
    ],
)
def test_a_misconfigured_provider_says_what_is_wrong_at_start(
    make_settings: SettingsFactory, providers: str, says: str
) -> None:
    with pytest.raises(ValidationError, match=re.escape(says)) as refused:
        make_settings(oidc_providers=providers)
    assert "hunter2" not in str(refused.value)  # the input, secrets and all, is not repeated


def test_an_http_issuer_on_loopback_is_accepted_for_tests(make_settings: SettingsFactory) -> None:
    providers = json.dumps(
        [{**_KC, "issuer": "http://127.0.0.1:8080/"}, {**_KC, "name": "b", "issuer": "http://localhost:1"}]
    )
    assert [p.issuer for p in make_settings(oidc_providers=providers).oidc_providers] == [
        "http://127.0.0.1:8080/",  # as written: it is compared with the tokens' `iss`
        "http://localhost:1",
    ]


@pytest.mark.parametrize(
    "redirect", ["app.example.com/cb", "http://app.example.com/cb", "https://u:p@app.example.com/"]
)
def test_a_redirect_entry_must_be_an_https_url(make_settings: SettingsFactory, redirect: str) -> None:
    with pytest.raises(ValidationError, match="WARRANTY_OIDC_REDIRECTS entry"):
        make_settings(oidc_redirects=redirect)
