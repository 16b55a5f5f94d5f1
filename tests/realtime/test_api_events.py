"""The events the API publishes (6.1), received by real subscribers over the hub."""

from __future__ import annotations

import json

import httpx
from sqlalchemy import select

from app.models import Event
from app.realtime.publishing import messages_topic, status_topic
from tests.realtime.support import LiveServer, scene, subscribe, token_for


async def _stored(live: LiveServer, event_id: int) -> str:
    async with live.app.state.sessionmaker() as session:
        payload: str = await session.scalar(select(Event.payload).where(Event.id == event_id))
        return payload


async def test_message_read_and_status_events_arrive_as_published(
    live: LiveServer, http: httpx.AsyncClient
) -> None:
    s = await scene(live.app)
    customer = {"Authorization": f"Bearer {s.token}"}
    supplier_token = token_for(live.app, s.supplier)
    supplier = {"Authorization": f"Bearer {supplier_token}"}
    messages, status = messages_topic(s.claim.id), status_topic(s.claim.id)

    async with (
        subscribe(http, messages, status, token=s.token) as customer_stream,
        httpx.AsyncClient(base_url=live.url, timeout=10) as other,
        subscribe(other, messages, token=supplier_token) as supplier_stream,
    ):
        sent = await http.post(
            f"/api/claims/{s.claim.id}/messages", json={"message": "Line one\nline two"}, headers=supplier
        )
        assert sent.status_code == 201, sent.text
        message = sent.json()
        [(event_id, data)] = await customer_stream.events(1)
        assert data == await _stored(live, event_id)
        assert json.loads(data) == {
            "type": "new_message",
            "message": {
                "id": message["id"],
                "senderId": str(s.supplier.id),
                "senderName": s.supplier.name,
                "message": "Line one\nline two",
                "createdAt": message["createdAt"].replace("+00:00", "Z"),
            },
        }
        assert await supplier_stream.events(1) == [(event_id, data)]

        read = await http.post(f"/api/claims/{s.claim.id}/messages/read", headers=customer)
        assert read.status_code == 200, read.text
        [(read_id, read_data)] = await supplier_stream.events(1)
        read_event = json.loads(read_data)
        assert read_event["type"] == "messages_read" and read_event["messageIds"] == [message["id"]]
        assert read_event["readAt"].endswith("Z")

        moved = await http.post(
            f"/api/claims/{s.claim.id}/status", json={"status": "in_progress"}, headers=supplier
        )
        assert moved.status_code == 200, moved.text
        events = await customer_stream.events(2)
        assert events[0] == (read_id, read_data)
        update = json.loads(events[1][1])
        assert update == {
            "type": "status_update",
            "claimId": s.claim.id,
            "status": "in_progress",
            "updatedAt": moved.json()["updatedAt"].replace("+00:00", "Z"),
        }

        # A refused change publishes nothing: the next event is the one after it.
        refused = await http.post(
            f"/api/claims/{s.claim.id}/status", json={"status": "closed"}, headers=supplier
        )
        assert refused.status_code in (403, 409)
        await http.post(f"/api/claims/{s.claim.id}/messages", json={"message": "after"}, headers=customer)
        [(_, after)] = await customer_stream.events(1)
        assert json.loads(after)["message"]["message"] == "after"
