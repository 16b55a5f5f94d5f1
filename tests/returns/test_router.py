"""Return authorisations over HTTP: who may issue one and when, its number, its label (a real PDF only,
served to whoever sees the claim), the claim detail's `rma`, and one per claim."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.models import Claim
from tests.claims.routed import Routed, open_claim
from tests.factories.claims import attachment
from tests.factories.products import create_product
from tests.factories.users import auth_headers
from tests.helpers import assert_error
from tests.returns.support import claim_in_progress, issue
from tests.support.images import image_bytes
from tests.support.pdf import PDF_BYTES

INSTRUCTIONS = "Pack it in its box; drop it at any post office."
NUMBER = re.compile(r"^RMA-\d{4}-\d{6}$")


async def _detail(app: FastAPI, client: httpx.AsyncClient, cast: Routed) -> dict[str, object]:
    response = await client.get(cast.path, headers=auth_headers(app, cast.customer))
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


async def test_the_agent_issues_one_with_instructions_and_a_label(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_in_progress(app, client)
    assert (await _detail(app, client, cast))["rma"] is None

    response = await issue(
        app,
        client,
        cast,
        cast.agent,
        instructions=f"  {INSTRUCTIONS}  ",
        label=attachment(PDF_BYTES, "return label.pdf", "application/pdf"),
    )

    assert response.status_code == 201, response.text
    rma = response.json()
    assert rma == {
        "number": rma["number"],
        "issuedAt": rma["issuedAt"],
        "instructions": INSTRUCTIONS,
        "labelUrl": f"/api/claims/{cast.claim_id}/rma/label",
    }
    assert NUMBER.match(rma["number"]) and rma["issuedAt"].endswith("+00:00")
    assert rma["number"].startswith(f"RMA-{rma['issuedAt'][:4]}-")
    assert response.headers["Location"] == f"/api/claims/{cast.claim_id}/rma"
    assert (await _detail(app, client, cast))["rma"] == rma
    shown = await client.get(response.headers["Location"], headers=auth_headers(app, cast.customer))
    assert shown.json() == rma

    label = await client.get(rma["labelUrl"], headers=auth_headers(app, cast.customer))
    assert label.status_code == 200 and label.content == PDF_BYTES
    assert label.headers["Content-Type"] == "application/pdf"
    assert 'filename="return label.pdf"' in label.headers["Content-Disposition"]


async def test_any_member_of_the_organization_and_admins_may_issue_without_a_label(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await claim_in_progress(app, client)

    response = await issue(app, client, cast, cast.other_agent)

    assert response.status_code == 201, response.text
    assert response.json()["instructions"] is None and response.json()["labelUrl"] is None
    assert_error(
        await client.get(f"{cast.path}/rma/label", headers=auth_headers(app, cast.customer)), 404, "NOT_FOUND"
    )


async def test_an_admin_may_issue_one(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    assert (await issue(app, client, cast, cast.admin)).status_code == 201


async def test_the_customer_side_gets_403_and_strangers_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)

    assert_error(await issue(app, client, cast, cast.customer), 403, "FORBIDDEN")
    for stranger in (cast.outsider, cast.rival_agent, cast.rival_manager):
        assert_error(await issue(app, client, cast, stranger), 404, "NOT_FOUND")
    assert (await _detail(app, client, cast))["rma"] is None


@pytest.mark.parametrize("status", ["open", "resolved", "closed"])
async def test_only_a_claim_in_progress_gets_one(
    app: FastAPI, client: httpx.AsyncClient, status: str
) -> None:
    cast = await claim_in_progress(app, client)
    async with app.state.sessionmaker() as session, session.begin():
        await session.execute(update(Claim).where(Claim.id == cast.claim_id).values(status=status))

    assert_error(
        await issue(app, client, cast, cast.agent, instructions=INSTRUCTIONS), 409, "CLAIM_NOT_IN_PROGRESS"
    )
    assert (await _detail(app, client, cast))["rma"] is None


async def test_a_second_one_is_refused_and_the_first_stays(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    first = (await issue(app, client, cast, cast.agent, instructions=INSTRUCTIONS)).json()

    assert_error(await issue(app, client, cast, cast.manager, instructions="Other"), 409, "RMA_EXISTS")
    assert (await _detail(app, client, cast))["rma"] == first


async def test_two_issued_at_once_give_one(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)

    answers = await asyncio.gather(
        *(issue(app, client, cast, user) for user in (cast.agent, cast.manager, cast.admin))
    )

    assert sorted(answer.status_code for answer in answers) == [201, 409, 409]
    [created] = [answer.json() for answer in answers if answer.status_code == 201]
    for refused in (answer for answer in answers if answer.status_code == 409):
        assert_error(refused, 409, "RMA_EXISTS")
    assert (await _detail(app, client, cast))["rma"] == created


async def test_numbers_differ_between_claims(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    numbers = [(await issue(app, client, cast, cast.agent)).json()["number"]]
    for name in ("Dryer", "Oven"):
        product = await create_product(app, cast.customer, name=name, brand="Acme")
        claim = await open_claim(client, app, cast.customer, product)
        path = f"/api/claims/{claim['id']}"
        agent = auth_headers(app, cast.agent)
        assert (
            await client.post(f"{path}/status", json={"status": "in_progress"}, headers=agent)
        ).status_code == 200
        numbers.append((await client.post(f"{path}/rma", json={}, headers=agent)).json()["number"])

    assert len(set(numbers)) == 3
    assert [int(number[-6:]) for number in numbers] == sorted(int(number[-6:]) for number in numbers)


@pytest.mark.parametrize(
    ("label", "status", "code"),
    [
        (attachment(image_bytes(), "label.pdf", "application/pdf"), 415, "UNSUPPORTED_MEDIA_TYPE"),
        (attachment(image_bytes(), "label.png", "image/png"), 415, "UNSUPPORTED_MEDIA_TYPE"),
        (attachment(b"not a pdf at all", "label.pdf", "application/pdf"), 415, "UNSUPPORTED_MEDIA_TYPE"),
        (attachment(PDF_BYTES, "label.txt", "application/pdf"), 415, "UNSUPPORTED_MEDIA_TYPE"),
        (attachment(PDF_BYTES, "label.pdf", "application/pdf", size=3), 400, "VALIDATION_FAILED"),
        ({"dataUrl": "%%%", "fileName": "label.pdf"}, 400, "VALIDATION_FAILED"),
        ({"fileName": "label.pdf"}, 400, "VALIDATION_FAILED"),
    ],
)
async def test_a_label_must_be_a_real_pdf(
    app: FastAPI, client: httpx.AsyncClient, label: dict[str, object], status: int, code: str
) -> None:
    cast = await claim_in_progress(app, client)

    assert_error(await issue(app, client, cast, cast.agent, label=label), status, code)
    assert (await _detail(app, client, cast))["rma"] is None


@pytest.mark.settings(max_attachment_size=1024)
async def test_a_label_over_the_attachment_limit_is_413(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    big = PDF_BYTES + b"%" * 2048

    assert_error(
        await issue(app, client, cast, cast.agent, label=attachment(big, "l.pdf", "application/pdf")),
        413,
        "PAYLOAD_TOO_LARGE",
    )
    assert (await _detail(app, client, cast))["rma"] is None


@pytest.mark.parametrize("body", [{"instructions": "x" * 5_001}, {"instructions": ""}, {"number": "RMA-1"}])
async def test_instructions_keep_their_limits_and_nothing_else_is_taken(
    app: FastAPI, client: httpx.AsyncClient, body: dict[str, object]
) -> None:
    cast = await claim_in_progress(app, client)
    assert_error(await issue(app, client, cast, cast.agent, **body), 400, "VALIDATION_FAILED")


async def test_the_label_is_for_whoever_sees_the_claim(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    label = attachment(PDF_BYTES, "label.pdf", "application/pdf")
    url = (await issue(app, client, cast, cast.agent, label=label)).json()["labelUrl"]

    for user in (cast.customer, cast.agent, cast.other_agent, cast.manager, cast.admin):
        assert (await client.get(url, headers=auth_headers(app, user))).status_code == 200
    for stranger in (cast.outsider, cast.rival_agent):
        assert_error(await client.get(url, headers=auth_headers(app, stranger)), 404, "NOT_FOUND")
        assert_error(
            await client.get(f"{cast.path}/rma", headers=auth_headers(app, stranger)), 404, "NOT_FOUND"
        )


async def test_the_timeline_shows_it(app: FastAPI, client: httpx.AsyncClient) -> None:
    cast = await claim_in_progress(app, client)
    number = (await issue(app, client, cast, cast.agent)).json()["number"]

    timeline = await client.get(f"{cast.path}/timeline", headers=auth_headers(app, cast.customer))

    [entry] = [item for item in timeline.json() if item["type"] == "rma.issued"]
    assert entry["data"] == {"number": number}
    assert entry["actor"]["id"] == cast.agent.id
