"""The organisation report (contract 17.11) against a scenario computed by hand: claims opened, resolved and
closed in the period, deadlines met and missed with their exact medians (odd and even counts, none), ratings,
the same per member (one with no claims), and a fixed number of statements whatever the organisation's
size."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.core.clock import frozen_time
from app.models import User
from app.models.enums import OrganizationRole
from tests.claims.routed import routed_claim
from tests.claims.support import queries_of
from tests.factories.organizations import add_org_member, create_organization
from tests.factories.users import auth_headers, create_admin, create_supplier, create_user
from tests.helpers import assert_error
from tests.ratings.support import at, deadlines, moved, org_claim, rated

NOVEMBER = "?from=2026-11-01&to=2026-11-30"
NOTHING = {"medianMinutes": None, "met": 0, "missed": 0}
NO_RATINGS = {"count": 0, "mean": None, "byScore": {"1": 0, "2": 0, "3": 0, "4": 0, "5": 0}}


def scores(**counts: int) -> dict[str, int]:
    return {str(score): counts.get(f"s{score}", 0) for score in range(1, 6)}


async def scenario(app: FastAPI) -> dict[str, Any]:
    """Acme's claims around November 2026 (the period: 1 November 00:00 to 1 December 00:00, UTC)."""
    acme = await create_organization(app, "Acme Service", ["Acme"])
    people = {}
    for name, role in (
        ("Mia Manager", OrganizationRole.MANAGER),
        ("Alice Agent", OrganizationRole.AGENT),
        ("Bob Agent", OrganizationRole.AGENT),
        ("Carl Agent", OrganizationRole.AGENT),  # no claims
    ):
        people[name] = await create_supplier(app, name=name)
        await add_org_member(app, acme, people[name], role)
    alice, bob = people["Alice Agent"], people["Bob Agent"]
    ann = await create_user(app, name="Ann Customer")

    # c1 (Alice): opened in October; resolved 3 Nov and closed 5 Nov (counts in both); its first response
    # was in October (not counted); resolved before due: met, 600 minutes; rated 5.
    c1 = await org_claim(app, acme, ann, at(20, month=10), agent=alice, status="closed")
    await moved(app, c1, at(3), "in_progress", "resolved")
    await moved(app, c1, at(5), "resolved", "closed")
    await deadlines(
        app, c1, first_response_due_at=at(21, month=10), first_responded_at=at(20, 14, month=10),
        first_response_minutes=120, resolution_due_at=at(10), resolved_at=at(3), resolution_minutes=600,
    )  # fmt: skip
    await rated(app, c1, ann, 5, at(6))
    # c2 (Alice): opened 2 Nov; first response in time (30); resolution breached 15 Nov (missed), resolved
    # 20 Nov (4000 minutes, measured); rated 2.
    c2 = await org_claim(app, acme, ann, at(2, 9), agent=alice, status="resolved")
    await moved(app, c2, at(20), "in_progress", "resolved")
    await deadlines(
        app, c2, first_response_due_at=at(3, 9), first_responded_at=at(2, 10), first_response_minutes=30,
        resolution_due_at=at(15), resolution_breached_at=at(15, 0, 1), resolved_at=at(20),
        resolution_minutes=4000,
    )  # fmt: skip
    await rated(app, c2, ann, 2, at(21))
    # c3 (Bob): opened 4 Nov; answered late with no breach recorded yet: missed, 90 minutes; unresolved.
    c3 = await org_claim(app, acme, ann, at(4, 9), agent=bob, status="in_progress")
    await deadlines(
        app, c3, first_response_due_at=at(4, 12), first_responded_at=at(5, 9), first_response_minutes=90,
        resolution_due_at=at(29),
    )  # fmt: skip
    # c4 (Bob): opened 10 Nov; first response breached 11 Nov then made 12 Nov: missed once, 200 minutes;
    # resolved 25 Nov, reopened, resolved 27 Nov (one claim resolved), clock paused: met, 300; rated 5.
    c4 = await org_claim(app, acme, ann, at(10), agent=bob, status="resolved")
    await moved(app, c4, at(25), "in_progress", "resolved")
    await moved(app, c4, at(26), "resolved", "in_progress")
    await moved(app, c4, at(27), "in_progress", "resolved")
    await deadlines(
        app, c4, first_response_due_at=at(11), first_response_breached_at=at(11, 12, 0, 30),
        first_responded_at=at(12), first_response_minutes=200, resolved_at=at(27), resolution_minutes=300,
    )  # fmt: skip
    await rated(app, c4, ann, 5, at(28))
    # c5 (nobody's): opened and answered in time on the period's last evening, 240 minutes.
    c5 = await org_claim(app, acme, ann, at(30, 20), status="in_progress")
    await deadlines(
        app, c5, first_response_due_at=at(1, 20, month=12), first_responded_at=at(30, 23, 59, 59),
        first_response_minutes=240,
    )  # fmt: skip
    # c6 (Alice): opened and answered at the first moment after the period: not counted.
    c6 = await org_claim(app, acme, ann, at(1, 0, month=12), agent=alice, status="in_progress")
    await deadlines(
        app, c6, first_response_due_at=at(2, month=12), first_responded_at=at(1, 0, month=12),
        first_response_minutes=1,
    )  # fmt: skip
    # c7 (Alice): resolved, its resolution breached and rated in October; closed at the period's first
    # moment: one closed claim, nothing else.
    c7 = await org_claim(app, acme, ann, at(1, month=9), agent=alice, status="closed")
    await moved(app, c7, at(28, month=10), "in_progress", "resolved")
    await moved(app, c7, at(1, 0), "resolved", "closed")
    await deadlines(app, c7, resolution_due_at=at(25, month=10), resolution_breached_at=at(25, 1, month=10))
    await rated(app, c7, ann, 1, at(29, month=10))
    # c8 (Bob): opened 12 Nov, answered in time (45), resolved 14 Nov in time (1000), rated 4.
    c8 = await org_claim(app, acme, ann, at(12, 8), agent=bob, status="resolved")
    await moved(app, c8, at(14), "in_progress", "resolved")
    await deadlines(
        app, c8, first_response_due_at=at(13), first_responded_at=at(12, 9), first_response_minutes=45,
        resolution_due_at=at(20), resolved_at=at(14), resolution_minutes=1000,
    )  # fmt: skip
    await rated(app, c8, ann, 4, at(15))
    # c9 (nobody's): its first response breached in October (missed then), made late on 2 Nov: measured in
    # November (500 minutes), not missed a second time.
    c9 = await org_claim(app, acme, ann, at(30, month=10), status="in_progress")
    await deadlines(
        app, c9, first_response_due_at=at(31, month=10), first_response_breached_at=at(31, 0, 1, month=10),
        first_responded_at=at(2), first_response_minutes=500,
    )  # fmt: skip

    # Another organisation's claim, busy in November: in none of Acme's figures.
    rival = await create_organization(app, "Rival Repairs", ["Rival"])
    r1 = await org_claim(app, rival, ann, at(5), status="resolved")
    await moved(app, r1, at(6), "in_progress", "resolved")
    await deadlines(
        app, r1, first_response_due_at=at(6), first_responded_at=at(5, 13), first_response_minutes=7,
        resolved_at=at(6), resolution_minutes=7,
    )  # fmt: skip
    await rated(app, r1, ann, 3, at(7))
    return {"acme": acme, "rival": rival, **people}


async def report(
    client: httpx.AsyncClient, app: FastAPI, organization_id: int, user: Any, query: str = NOVEMBER
) -> httpx.Response:
    return await client.get(
        f"/api/organizations/{organization_id}/report{query}", headers=auth_headers(app, user)
    )


async def test_the_report_matches_the_figures_computed_by_hand(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await scenario(app)
    response = await report(client, app, cast["acme"].id, cast["Mia Manager"])
    assert response.status_code == 200, response.text
    body = response.json()
    people = {name: cast[name].id for name in ("Alice Agent", "Bob Agent", "Carl Agent", "Mia Manager")}
    assert body == {
        "from": "2026-11-01",
        "to": "2026-11-30",
        "claims": {"opened": 5, "resolved": 4, "closed": 2},
        # Measured: 30, 45, 90, 200, 240, 500 (even: the mean of the middle two). Met: c2, c5, c8; missed:
        # c3, c4 (c9 was missed in October).
        "firstResponse": {"medianMinutes": 145, "met": 3, "missed": 2},
        # Measured: 300, 600, 1000, 4000 (even). Met: c1, c4, c8; missed: c2.
        "resolution": {"medianMinutes": 800, "met": 3, "missed": 1},
        # 5, 2, 5, 4.
        "ratings": {"count": 4, "mean": 4.0, "byScore": scores(s2=1, s4=1, s5=2)},
        "agents": [
            {
                "agentId": people["Alice Agent"],
                "name": "Alice Agent",
                "claims": {"opened": 1, "resolved": 2, "closed": 2},
                "firstResponse": {"medianMinutes": 30, "met": 1, "missed": 0},
                "resolution": {"medianMinutes": 2300, "met": 1, "missed": 1},
                "ratings": {"count": 2, "mean": 3.5, "byScore": scores(s2=1, s5=1)},
            },
            {
                "agentId": people["Bob Agent"],
                "name": "Bob Agent",
                "claims": {"opened": 3, "resolved": 2, "closed": 0},
                "firstResponse": {"medianMinutes": 90, "met": 1, "missed": 2},
                "resolution": {"medianMinutes": 650, "met": 2, "missed": 0},
                "ratings": {"count": 2, "mean": 4.5, "byScore": scores(s4=1, s5=1)},
            },
            {
                "agentId": people["Carl Agent"],
                "name": "Carl Agent",
                "claims": {"opened": 0, "resolved": 0, "closed": 0},
                "firstResponse": NOTHING,
                "resolution": NOTHING,
                "ratings": NO_RATINGS,
            },
            {
                "agentId": people["Mia Manager"],
                "name": "Mia Manager",
                "claims": {"opened": 0, "resolved": 0, "closed": 0},
                "firstResponse": NOTHING,
                "resolution": NOTHING,
                "ratings": NO_RATINGS,
            },
        ],
    }
    admin = await report(client, app, cast["acme"].id, await create_admin(app))
    assert admin.status_code == 200 and admin.json() == body


async def test_both_days_are_included(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await scenario(app)
    last_day = (
        await report(client, app, cast["acme"].id, cast["Mia Manager"], "?from=2026-11-30&to=2026-11-30")
    ).json()
    assert last_day["claims"] == {"opened": 1, "resolved": 0, "closed": 0}  # c5, at 20:00
    assert last_day["firstResponse"] == {"medianMinutes": 240, "met": 1, "missed": 0}  # c5, at 23:59:59
    assert last_day["resolution"] == NOTHING and last_day["ratings"] == NO_RATINGS
    first_day = (
        await report(client, app, cast["acme"].id, cast["Mia Manager"], "?from=2026-11-01&to=2026-11-01")
    ).json()
    assert first_day["claims"] == {"opened": 0, "resolved": 0, "closed": 1}  # c7, at 00:00
    december = (
        await report(client, app, cast["acme"].id, cast["Mia Manager"], "?from=2026-12-01&to=2026-12-31")
    ).json()
    assert december["claims"] == {"opened": 1, "resolved": 0, "closed": 0}  # c6, at 00:00
    assert december["firstResponse"] == {"medianMinutes": 1, "met": 1, "missed": 0}
    october = (
        await report(client, app, cast["acme"].id, cast["Mia Manager"], "?from=2026-10-01&to=2026-10-31")
    ).json()
    # c1 and c9 opened; c1 answered in time (120); c9's first response and c7's resolution breached; c7
    # resolved; c7 rated 1.
    assert october["claims"] == {"opened": 2, "resolved": 1, "closed": 0}
    assert october["firstResponse"] == {"medianMinutes": 120, "met": 1, "missed": 1}
    assert october["resolution"] == {"medianMinutes": None, "met": 0, "missed": 1}
    assert october["ratings"] == {"count": 1, "mean": 1.0, "byScore": scores(s1=1)}


async def test_an_organisation_with_nothing_in_the_period(app: FastAPI, client: httpx.AsyncClient) -> None:
    empty = await create_organization(app, "Empty", ["Nothing"])
    admin = await create_admin(app)
    body = (await report(client, app, empty.id, admin)).json()
    assert body == {
        "from": "2026-11-01",
        "to": "2026-11-30",
        "claims": {"opened": 0, "resolved": 0, "closed": 0},
        "firstResponse": NOTHING,
        "resolution": NOTHING,
        "ratings": NO_RATINGS,
        "agents": [],
    }


async def test_a_fixed_number_of_statements_whatever_the_size(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    small = await create_organization(app, "Small", ["Small"])
    manager = await create_supplier(app, name="Sole Manager")
    await add_org_member(app, small, manager, OrganizationRole.MANAGER)
    customer = await create_user(app)
    claim = await org_claim(app, small, customer, at(3), agent=manager, status="resolved")
    await moved(app, claim, at(4), "in_progress", "resolved")
    await rated(app, claim, customer, 4, at(5))
    cast = await scenario(app)

    path = f"/api/organizations/{{}}/report{NOVEMBER}"
    few = await queries_of(app, client, path.format(small.id), manager)
    many = await queries_of(app, client, path.format(cast["acme"].id), cast["Mia Manager"])
    assert few == many
    assert many <= 8  # the caller, their membership, four families of figures, the members


@pytest.mark.parametrize("who", ["Alice Agent", "rival manager", "customer", "lone supplier"])
async def test_only_managers_and_admins_read_it(app: FastAPI, client: httpx.AsyncClient, who: str) -> None:
    cast = await scenario(app)
    rival_manager = await create_supplier(app)
    await add_org_member(app, cast["rival"], rival_manager, OrganizationRole.MANAGER)
    users = {
        "Alice Agent": cast["Alice Agent"],  # an agent of Acme
        "rival manager": rival_manager,
        "customer": await create_user(app),
        "lone supplier": await create_supplier(app),
    }
    response = await report(client, app, cast["acme"].id, users[who])
    if who == "Alice Agent":
        assert_error(response, 403, "FORBIDDEN")
    else:
        assert_error(response, 404, "NOT_FOUND")


@pytest.mark.settings(access_token_ttl=20 * 365 * 86400)  # tokens issued at a frozen time in the past
async def test_the_report_reads_what_the_clocks_and_the_customer_wrote(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """No row written by hand: a claim routed, answered after 30 minutes, resolved after 90 running minutes
    (a 60-minute wait for the customer excluded) and rated 4, all over HTTP."""
    start = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

    def minutes(count: int) -> datetime:
        return start + timedelta(minutes=count)

    with frozen_time(start):
        cast = await routed_claim(app, client)

    async def act(when: int, user: User, path: str, body: dict[str, Any]) -> None:
        with frozen_time(minutes(when)):
            answer = await client.post(f"{cast.path}/{path}", json=body, headers=auth_headers(app, user))
        assert answer.status_code in (200, 201), answer.text

    await act(30, cast.agent, "messages", {"message": "We are on it."})  # the first response, by the agent
    await act(60, cast.agent, "status", {"status": "in_progress"})  # waits for the customer
    await act(120, cast.customer, "messages", {"message": "Here is the photo."})
    await act(150, cast.agent, "status", {"status": "resolved"})
    await act(200, cast.customer, "rating", {"score": 4})
    with frozen_time(minutes(300)):
        answer = await report(client, app, cast.organization.id, cast.manager)
    assert answer.status_code == 200, answer.text
    figures = answer.json()
    assert figures["claims"] == {"opened": 1, "resolved": 1, "closed": 0}
    assert figures["firstResponse"] == {"medianMinutes": 30, "met": 1, "missed": 0}
    assert figures["resolution"] == {"medianMinutes": 90, "met": 1, "missed": 0}
    assert figures["ratings"] == {"count": 1, "mean": 4.0, "byScore": scores(s4=1)}
    agent = next(entry for entry in figures["agents"] if entry["agentId"] == cast.agent.id)
    assert (agent["claims"], agent["firstResponse"]["met"], agent["ratings"]["count"]) == (
        {"opened": 1, "resolved": 1, "closed": 0},
        1,
        1,
    )
