"""Who may read and write an organisation's saved replies, and a reply rendered for a claim."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.errors import Forbidden, NotFound, ValidationFailed
from app.models import Claim
from app.replies import service
from app.replies.repository import ReplyRepository
from tests.claims.routed import routed_claim
from tests.replies.support import save_reply


async def test_managers_write_agents_read_others_find_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    async with app.state.sessionmaker() as session:
        replies = ReplyRepository(session)
        organization = cast.organization.id
        await service.ensure_writer(cast.manager, organization, replies=replies)
        await service.ensure_writer(cast.admin, organization, replies=replies)
        await service.ensure_reader(cast.agent, organization, replies=replies)
        with pytest.raises(Forbidden):
            await service.ensure_writer(cast.agent, organization, replies=replies)
        for stranger in (cast.rival_manager, cast.customer, cast.outsider):
            with pytest.raises(NotFound):
                await service.ensure_reader(stranger, organization, replies=replies)
        with pytest.raises(NotFound):
            await service.ensure_reader(cast.admin, organization + 999, replies=replies)


async def test_a_reply_renders_for_its_claim_with_the_sender_as_agent(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    cast = await routed_claim(app, client)
    reply = await save_reply(
        app, client, cast.manager, cast.organization, "{{agent.name}} for {{customer.name}}"
    )
    rival = await save_reply(app, client, cast.rival_manager, cast.rival, "theirs")
    async with app.state.sessionmaker() as session:
        claim = await session.get(Claim, cast.claim_id)
        assert claim is not None

        text = await service.render_for_claim(session, claim, cast.other_agent, reply["id"], "  ")
        assert text == "Acme Service agent 2 for Ann Customer"
        with pytest.raises(ValidationFailed):
            await service.render_for_claim(session, claim, cast.agent, rival["id"], "")
        with pytest.raises(Forbidden):
            await service.render_for_claim(session, claim, cast.customer, reply["id"], "")
