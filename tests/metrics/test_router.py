"""GET /metrics (contract 14.1): who may read it, and the sum over several processes that share a data
folder, each listed series present after some traffic. (The outbox backlog: test_outbox_backlog.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.realtime.publishing import messages_topic
from tests.factories.claims import create_claim
from tests.factories.inbound import RAW_INBOUND_SECRET, body_of, standard_headers
from tests.factories.products import create_product
from tests.factories.users import auth_headers, create_supplier, create_user
from tests.helpers import assert_error, wait_for
from tests.metrics.scrape import requests, scrape, value
from tests.realtime.support import subscribe
from tests.support.processes import Served, until_healthy, uvicorn_process


async def test_loopback_reads_the_series_without_a_token(client: httpx.AsyncClient) -> None:
    samples = await scrape(client)
    assert value(samples, "warranty_outbox_pending") == 0
    assert ("warranty_hub_streams", frozenset()) in samples


@pytest.mark.settings(metrics_allow="10.0.0.0/8, 192.168.1.7")
async def test_a_client_outside_the_allow_list_gets_a_404(client: httpx.AsyncClient, app: FastAPI) -> None:
    assert_error(await client.get("/metrics"), 404, "NOT_FOUND")
    # A token opens nothing more.
    user = await create_user(app, roles=["ROLE_ADMIN"])
    assert_error(await client.get("/metrics", headers=auth_headers(app, user)), 404, "NOT_FOUND")


async def test_a_request_forwarded_by_an_untrusted_proxy_is_refused(client: httpx.AsyncClient) -> None:
    # A proxy on the same host forwards from anywhere: the peer is loopback, the client unknown.
    forwarded = await client.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"})
    assert_error(forwarded, 404, "NOT_FOUND")


@pytest.mark.settings(trusted_proxies="127.0.0.1", metrics_allow="10.0.0.0/8")
async def test_behind_a_trusted_proxy_the_forwarded_client_decides(client: httpx.AsyncClient) -> None:
    assert (await client.get("/metrics", headers={"X-Forwarded-For": "10.1.2.3"})).status_code == 200
    assert_error(await client.get("/metrics", headers={"X-Forwarded-For": "192.0.2.9"}), 404, "NOT_FOUND")
    assert_error(await client.get("/metrics"), 404, "NOT_FOUND")  # the proxy's own address is not allowed


@pytest.mark.settings(metrics_allow="")
async def test_an_empty_allow_list_turns_metrics_off(client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/metrics"), 404, "NOT_FOUND")


async def _traffic(served: Served, product_list_401: int, token: dict[str, str], email: str) -> None:
    """Requests that touch every in-memory series once or more, from one process."""
    async with httpx.AsyncClient(base_url=served.url, timeout=10) as http:
        for _ in range(product_list_401):
            assert (await http.get("/api/products")).status_code == 401
        assert (await http.get("/api/products", headers=token)).status_code == 200  # computed: a miss
        assert (await http.get("/api/products", headers=token)).status_code == 200  # cached: a hit
        wrong = {"email": email, "password": "not the password"}
        assert (await http.post("/api/login", json=wrong)).status_code in (401, 429)
        body = body_of({"type": "email.bounced", "data": {}})
        ignored = await http.post("/api/inbound/email", content=body, headers=standard_headers(body))
        assert ignored.json() == {"status": "ignored"}
        forged = await http.post("/api/inbound/email", content=body, headers=standard_headers(body, key=b"x"))
        assert forged.status_code == 401


async def test_processes_sharing_a_data_folder_add_up(
    app: FastAPI, database_url: str, tmp_path: Path
) -> None:
    customer, supplier = await create_user(app), await create_supplier(app)
    claim = await create_claim(app, await create_product(app, customer), supplier=supplier)
    token = auth_headers(app, customer)
    env = {"WARRANTY_INBOUND_SECRET": RAW_INBOUND_SECRET, "WARRANTY_LOGIN_MAX_FAILURES_PER_EMAIL": "1"}
    shared = tmp_path / "data"
    with uvicorn_process(database_url, shared, env) as a, uvicorn_process(database_url, shared, env) as b:
        await asyncio.gather(until_healthy(a), until_healthy(b))
        await _traffic(a, 3, token, customer.email)  # the login: 401, its failure recorded
        await _traffic(b, 2, token, customer.email)  # the login: 429
        async with (
            httpx.AsyncClient(base_url=a.url, timeout=10) as on_a,
            httpx.AsyncClient(base_url=b.url, timeout=10) as on_b,
            subscribe(on_a, messages_topic(claim.id), token=token["Authorization"][7:]),
            subscribe(on_b, messages_topic(claim.id), token=token["Authorization"][7:]),
        ):
            from_a, from_b = await scrape(on_a), await scrape(on_b)
        async with httpx.AsyncClient(base_url=a.url, timeout=10) as on_a:

            async def streams_closed() -> bool:
                return value(await scrape(on_a), "warranty_hub_streams") == 0

            await wait_for(streams_closed)

    for samples in (from_a, from_b):  # each process answers the sum of both
        assert requests(samples, "GET", "/api/products", 401) == 5
        assert requests(samples, "GET", "/api/products", 200) == 4
        assert requests(samples, "GET", "/.well-known/mercure", 200) == 2
        assert value(samples, "warranty_hub_streams") == 2
        assert value(samples, "warranty_page_cache_misses_total") == 2
        assert value(samples, "warranty_page_cache_hits_total") == 2
        assert value(samples, "warranty_throttle_hits_total", limit="login_email") == 1
        assert value(samples, "warranty_inbound_deliveries_total", outcome="ignored") == 2
        assert value(samples, "warranty_inbound_deliveries_total", outcome="rejected") == 2
        assert value(samples, "warranty_outbox_pending") == 0
        assert ("warranty_hub_overflow_disconnects_total", frozenset()) in samples
    latency = {"method": "GET", "route": "/api/products", "status": "200"}
    assert 0 < value(from_a, "warranty_http_request_duration_seconds_sum", **latency) < 10
    assert value(from_a, "warranty_http_request_duration_seconds_bucket", le="+Inf", **latency) == 4

    # Started again after every process stopped, the service counts from zero.
    with uvicorn_process(database_url, shared, env) as again:
        await until_healthy(again)
        async with httpx.AsyncClient(base_url=again.url, timeout=10) as http:
            assert requests(await scrape(http), "GET", "/api/products", 401) == 0
