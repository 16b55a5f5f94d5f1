"""Reading /metrics as Prometheus does."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(client: httpx.AsyncClient) -> Samples:
    response = await client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """A sample's value; 0 when the series has no such sample yet."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def requests(samples: Samples, method: str, route: str, status: int) -> float:
    labels = {"method": method, "route": route, "status": str(status)}
    return value(samples, "warranty_http_request_duration_seconds_count", **labels)
