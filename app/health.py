from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import text

from app.api.openapi import errors
from app.errors import ServiceUnavailable
from app.realtime.shutdown import draining

router = APIRouter(tags=["health"])


@router.get("/health")
async def health() -> dict[str, str]:
    """The process is alive."""
    return {"status": "ok"}


@router.get("/health/ready", responses=errors(503))
async def ready(request: Request) -> dict[str, object]:
    """The database answers (200), else 503; 503 also from the moment the process starts shutting down
    (so a load balancer sends it no more work while its streams end). An identity provider that cannot
    be reached or is misconfigured is named under `oidc` with what is wrong, and the answer stays 200:
    every other way in still works."""
    if draining(request.app.state):
        raise ServiceUnavailable("The server is shutting down.")
    try:
        async with request.app.state.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except Exception as exc:
        raise ServiceUnavailable("The database is not reachable.") from exc
    problems = await request.app.state.oidc_providers.problems()
    return {"status": "ready", "oidc": problems} if problems else {"status": "ready"}
