"""The households API over HTTP: a household and its members, who sees and who manages, lists in the
envelope, and invitations from the owner's request to the email that arrives and the link that is used."""

from __future__ import annotations

from datetime import datetime, timedelta

import httpx
from fastapi import FastAPI

from app.core.clock import utc_now
from app.models.enums import OutboxKind
from app.outbox.worker import OutboxWorker
from tests.factories.notifications import outbox_rows
from tests.factories.users import auth_headers, create_admin, create_user
from tests.helpers import assert_error
from tests.households.steps import (
    accept,
    add_member,
    create_household,
    get,
    invitations_of,
    invite,
    invited_token,
    roles,
    set_expiry,
    tokens_sent_to,
)
from tests.support.smtp import Inbox


async def test_the_creator_is_the_owner(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await create_user(app, email="ann@example.com", name="Ann")

    response = await client.post(
        "/api/households", json={"name": "  The Smiths  "}, headers=auth_headers(app, ann)
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert response.headers["Location"] == f"/api/households/{body['id']}"
    [member] = body["members"]
    assert body["name"] == "The Smiths"
    assert member == {
        "userId": ann.id,
        "name": "Ann",
        "email": "ann@example.com",
        "role": "owner",
        "joinedAt": member["joinedAt"],
    }
    assert member["joinedAt"].endswith("+00:00")
    assert (await get(app, client, ann, f"/api/households/{body['id']}")).json() == body


async def test_members_in_every_role_see_the_household_and_others_get_404(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    owner, member, viewer = await create_user(app), await create_user(app), await create_user(app)
    stranger, admin = await create_user(app), await create_admin(app)
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, member, "member")
    await add_member(app, household_id, viewer, "viewer")

    for user in (owner, member, viewer):
        seen = await get(app, client, user, f"/api/households/{household_id}")
        assert seen.status_code == 200
        assert roles(seen.json()) == {owner.id: "owner", member.id: "member", viewer.id: "viewer"}
    hidden = [await get(app, client, user, f"/api/households/{household_id}") for user in (stranger, admin)]
    missing = await get(app, client, owner, f"/api/households/{household_id + 1000}")
    for response in (*hidden, missing):
        assert_error(response, 404, "NOT_FOUND")
    assert hidden[0].json() == missing.json()  # nothing tells a stranger's household from none
    for path in ("0", "-1", "99999999999999999999"):
        assert_error(await get(app, client, owner, f"/api/households/{path}"), 404, "NOT_FOUND")
    assert_error(await get(app, client, owner, "/api/households/abc"), 400, "VALIDATION_FAILED")
    assert_error(await client.get(f"/api/households/{household_id}"), 401, "AUTH_REQUIRED")


async def test_the_list_is_the_callers_households_in_the_envelope(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bob = await create_user(app), await create_user(app)
    first = await create_household(app, client, ann, "First")
    await create_household(app, client, bob, "Bob's")
    third = await create_household(app, client, bob, "Shared")
    await add_member(app, third, ann, "viewer")

    response = await get(app, client, ann, "/api/households")

    assert response.status_code == 200
    body = response.json()
    assert [item["id"] for item in body["data"]] == [first, third]
    assert roles(body["data"][1]) == {bob.id: "owner", ann.id: "viewer"}
    assert body["meta"]["total"] == 2 and body["meta"]["next_cursor"] is None
    assert body["links"]["first"] == "/api/households?page=1&limit=20"


async def test_the_list_pages_by_number_and_by_cursor(app: FastAPI, client: httpx.AsyncClient) -> None:
    ann = await create_user(app)
    ids = [await create_household(app, client, ann, f"H{number}") for number in range(5)]

    first = (await get(app, client, ann, "/api/households?limit=2")).json()
    cursor = first["meta"]["next_cursor"]
    second = (await get(app, client, ann, f"/api/households?limit=2&cursor={cursor}")).json()
    third = (await get(app, client, ann, "/api/households?page=3&limit=2")).json()

    assert [item["id"] for item in first["data"]] == ids[:2]
    assert [item["id"] for item in second["data"]] == ids[2:4]
    assert [item["id"] for item in third["data"]] == ids[4:]
    assert first["meta"]["total"] == 5 and third["meta"]["next_cursor"] is None
    assert_error(await get(app, client, ann, "/api/households?limit=101"), 400, "VALIDATION_LIMIT_EXCEEDED")
    assert_error(await get(app, client, ann, "/api/households?page=0"), 400, "VALIDATION_INVALID_PAGE")


async def test_owners_rename_and_the_others_may_not(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner, member, viewer, stranger = [await create_user(app) for _ in range(4)]
    household_id = await create_household(app, client, owner, "Home")
    await add_member(app, household_id, member, "member")
    await add_member(app, household_id, viewer, "viewer")
    path = f"/api/households/{household_id}"

    async def rename(user: object, body: object) -> httpx.Response:
        return await client.patch(path, json=body, headers=auth_headers(app, user))  # type: ignore[arg-type]

    renamed = await rename(owner, {"name": " Holiday house "})
    assert renamed.status_code == 200 and renamed.json()["name"] == "Holiday house"
    assert (await rename(owner, {})).json()["name"] == "Holiday house"  # nothing asked, nothing changed
    assert_error(await rename(member, {"name": "Mine"}), 403, "FORBIDDEN")
    assert_error(await rename(viewer, {"name": "Mine"}), 403, "FORBIDDEN")
    assert_error(await rename(stranger, {"name": "Mine"}), 404, "NOT_FOUND")
    assert_error(await rename(owner, {"name": None}), 400, "VALIDATION_FAILED")
    assert (await get(app, client, viewer, path)).json()["name"] == "Holiday house"


async def test_owners_delete_the_household_and_its_invitations(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner, member, viewer = await create_user(app), await create_user(app), await create_user(app)
    invitee = await create_user(app, email="bob@example.com")
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, member, "member")
    await add_member(app, household_id, viewer, "viewer")
    token = await invited_token(app, client, worker, inbox, owner, household_id, "bob@example.com")
    path = f"/api/households/{household_id}"

    for user in (member, viewer):
        assert_error(await client.delete(path, headers=auth_headers(app, user)), 403, "FORBIDDEN")
    deleted = await client.delete(path, headers=auth_headers(app, owner))

    assert deleted.status_code == 204 and deleted.content == b""
    for user in (owner, member, viewer):
        assert_error(await get(app, client, user, path), 404, "NOT_FOUND")
        assert (await get(app, client, user, "/api/households")).json()["data"] == []
    assert_error(await accept(app, client, invitee, token), 404, "NOT_FOUND")
    assert_error(await client.delete(path, headers=auth_headers(app, owner)), 404, "NOT_FOUND")


async def test_an_invitation_arrives_by_email_and_its_link_makes_a_member(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner = await create_user(app, name="Ann")
    bob = await create_user(app, email="bob@example.com", name="Bob")
    household_id = await create_household(app, client, owner, "The Smiths")

    created = await invite(app, client, owner, household_id, "Bob@Example.COM", "viewer")
    await worker.run_until_idle()

    assert created.status_code == 201, created.text
    invitation = created.json()
    assert created.headers["Location"] == f"/api/households/{household_id}/invitations/{invitation['id']}"
    assert invitation["email"] == "bob@example.com" and invitation["role"] == "viewer"
    assert invitation["invitedById"] == owner.id and invitation["expired"] is False
    [email] = inbox.to("bob@example.com")
    assert email["Subject"] == "An invitation to a household on Warranty"
    text = email.get_body(("plain",))
    assert text is not None and 'Ann invited you to the household "The Smiths"' in text.get_content()
    [token] = tokens_sent_to(inbox, "bob@example.com")
    # The outbox row names the invitation, never the token (minted and hashed when the email is sent:
    # tests/notifications/test_household_invitation.py).
    [row] = await outbox_rows(app, OutboxKind.EMAIL_HOUSEHOLD_INVITATION)
    assert row.payload == {"invitationId": invitation["id"]} and row.status == "done"

    accepted = await accept(app, client, bob, token)

    assert accepted.status_code == 200, accepted.text
    membership = accepted.json()
    assert membership == {
        "householdId": household_id,
        "householdName": "The Smiths",
        "userId": bob.id,
        "name": "Bob",
        "email": "bob@example.com",
        "role": "viewer",
        "joinedAt": membership["joinedAt"],
    }
    household = (await get(app, client, bob, f"/api/households/{household_id}")).json()
    assert roles(household) == {owner.id: "owner", bob.id: "viewer"}
    assert await invitations_of(app, household_id) == []


async def test_an_invitation_works_once(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner, bob = await create_user(app), await create_user(app, email="bob@example.com")
    household_id = await create_household(app, client, owner)
    token = await invited_token(app, client, worker, inbox, owner, household_id, "bob@example.com")
    assert (await accept(app, client, bob, token)).status_code == 200
    # Bob leaves; the spent link does not bring him back.
    path = f"/api/households/{household_id}/members/{bob.id}"
    assert (await client.delete(path, headers=auth_headers(app, bob))).status_code == 204

    again = await accept(app, client, bob, token)

    assert_error(again, 404, "NOT_FOUND")
    assert_error(await get(app, client, bob, f"/api/households/{household_id}"), 404, "NOT_FOUND")


async def test_another_account_may_not_accept_and_the_invitee_still_can(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner, bob = await create_user(app), await create_user(app, email="bob@example.com")
    eve = await create_user(app, email="eve@example.com")
    household_id = await create_household(app, client, owner)
    token = await invited_token(app, client, worker, inbox, owner, household_id, "bob@example.com")

    assert_error(await accept(app, client, eve, token), 403, "FORBIDDEN")
    assert_error(await accept(app, client, owner, token), 403, "FORBIDDEN")

    assert (await accept(app, client, bob, token)).json()["role"] == "member"
    assert_error(await get(app, client, eve, f"/api/households/{household_id}"), 404, "NOT_FOUND")


async def test_the_email_matches_ignoring_case(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner = await create_user(app)
    household_id = await create_household(app, client, owner)
    token = await invited_token(app, client, worker, inbox, owner, household_id, "BOB@example.com")
    # The account registers after the invitation, typing its address in yet another case.
    registered = await client.post(
        "/api/register", json={"email": "Bob@EXAMPLE.com", "password": "long enough pw", "name": "Bob"}
    )
    assert registered.status_code == 201, registered.text
    login = await client.post("/api/login", json={"email": "bob@example.com", "password": "long enough pw"})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}

    accepted = await client.post(f"/api/invitations/{token}/accept", headers=headers)

    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["email"] == "bob@example.com"


async def test_an_invitation_expires_after_seven_days(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner = await create_user(app)
    bob, carl = (
        await create_user(app, email="bob@example.com"),
        await create_user(app, email="carl@example.com"),
    )
    household_id = await create_household(app, client, owner)
    created = (await invite(app, client, owner, household_id, "bob@example.com")).json()
    await worker.run_until_idle()
    [late] = tokens_sent_to(inbox, "bob@example.com")
    in_time = await invited_token(app, client, worker, inbox, owner, household_id, "carl@example.com")
    now = utc_now()
    await set_expiry(app, "bob@example.com", now - timedelta(seconds=1))
    await set_expiry(app, "carl@example.com", now + timedelta(minutes=1))

    assert_error(await accept(app, client, bob, late), 404, "NOT_FOUND")
    listed = (await get(app, client, owner, f"/api/households/{household_id}/invitations")).json()
    assert [(item["email"], item["expired"]) for item in listed["data"]] == [
        ("bob@example.com", True),
        ("carl@example.com", False),
    ]
    assert (await accept(app, client, carl, in_time)).status_code == 200
    valid_for = datetime.fromisoformat(created["expiresAt"]) - datetime.fromisoformat(created["createdAt"])
    assert valid_for == timedelta(days=7)


async def test_unknown_and_malformed_tokens_are_404(app: FastAPI, client: httpx.AsyncClient) -> None:
    bob = await create_user(app)
    for token in ("nope", "x" * 43, "x" * 5000, "%C3%A9t%C3%A9", "a.b", "%20"):
        assert_error(await accept(app, client, bob, token), 404, "NOT_FOUND")
    assert_error(await accept(app, client, bob, "%00"), 400, "VALIDATION_FAILED")  # as on every path
    assert_error(await client.post("/api/invitations/whatever/accept"), 401, "AUTH_REQUIRED")


async def test_a_withdrawn_invitation_is_not_sent_and_its_link_is_404(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner, bob = await create_user(app), await create_user(app, email="bob@example.com")
    household_id = await create_household(app, client, owner)
    sent = await invited_token(app, client, worker, inbox, owner, household_id, "bob@example.com")
    unsent = (await invite(app, client, owner, household_id, "carl@example.com")).json()
    [first, _] = await invitations_of(app, household_id)
    base = f"/api/households/{household_id}/invitations"

    for invitation_id in (first.id, unsent["id"]):
        response = await client.delete(f"{base}/{invitation_id}", headers=auth_headers(app, owner))
        assert response.status_code == 204
    await worker.run_until_idle()

    assert_error(await accept(app, client, bob, sent), 404, "NOT_FOUND")
    assert inbox.to("carl@example.com") == []
    statuses = [row.status for row in await outbox_rows(app, OutboxKind.EMAIL_HOUSEHOLD_INVITATION)]
    assert statuses == ["done", "skipped"]
    assert (await get(app, client, owner, base)).json()["data"] == []
    again = await client.delete(f"{base}/{first.id}", headers=auth_headers(app, owner))
    assert_error(again, 404, "NOT_FOUND")


async def test_only_owners_manage_invitations(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner, member, viewer, stranger = [await create_user(app) for _ in range(4)]
    household_id = await create_household(app, client, owner)
    other_household = await create_household(app, client, stranger)
    await add_member(app, household_id, member, "member")
    await add_member(app, household_id, viewer, "viewer")
    invitation = (await invite(app, client, owner, household_id, "bob@example.com")).json()
    base = f"/api/households/{household_id}/invitations"

    for user in (member, viewer):
        assert_error(await invite(app, client, user, household_id, "carl@example.com"), 403, "FORBIDDEN")
        assert_error(await get(app, client, user, base), 403, "FORBIDDEN")
        removal = await client.delete(f"{base}/{invitation['id']}", headers=auth_headers(app, user))
        assert_error(removal, 403, "FORBIDDEN")
    assert_error(await invite(app, client, stranger, household_id, "carl@example.com"), 404, "NOT_FOUND")
    assert_error(await get(app, client, stranger, base), 404, "NOT_FOUND")
    # An invitation of one household is not found under another.
    elsewhere = f"/api/households/{other_household}/invitations/{invitation['id']}"
    assert_error(await client.delete(elsewhere, headers=auth_headers(app, stranger)), 404, "NOT_FOUND")
    listed = (await get(app, client, owner, base)).json()
    assert [item["id"] for item in listed["data"]] == [invitation["id"]]
    assert listed["meta"]["total"] == 1


async def test_who_may_not_be_invited(app: FastAPI, client: httpx.AsyncClient) -> None:
    owner = await create_user(app, email="ann@example.com")
    member = await create_user(app, email="bob@example.com")
    household_id = await create_household(app, client, owner)
    await add_member(app, household_id, member, "member")

    assert_error(await invite(app, client, owner, household_id, "Bob@Example.com"), 409, "ALREADY_MEMBER")
    assert_error(await invite(app, client, owner, household_id, "ann@example.com"), 409, "ALREADY_MEMBER")
    assert (await invite(app, client, owner, household_id, "carl@example.com")).status_code == 201
    pending = await invite(app, client, owner, household_id, "CARL@example.com", "viewer")
    assert_error(pending, 409, "INVITATION_PENDING")
    for body in (
        {"email": "dan@example.com", "role": "owner"},
        {"email": "not an address", "role": "member"},
        {"email": "dan@example.com"},
        {"email": "dan@example.com", "role": "member", "note": "hi"},
    ):
        response = await client.post(
            f"/api/households/{household_id}/invitations", json=body, headers=auth_headers(app, owner)
        )
        assert_error(response, 400, "VALIDATION_FAILED")


async def test_an_expired_invitation_gives_way_to_a_new_one(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner, bob = await create_user(app), await create_user(app, email="bob@example.com")
    household_id = await create_household(app, client, owner)
    old = await invited_token(app, client, worker, inbox, owner, household_id, "bob@example.com")
    await set_expiry(app, "bob@example.com", utc_now() - timedelta(seconds=1))

    new = await invited_token(app, client, worker, inbox, owner, household_id, "bob@example.com")

    assert old != new and len(await invitations_of(app, household_id)) == 1
    assert_error(await accept(app, client, bob, old), 404, "NOT_FOUND")
    assert (await accept(app, client, bob, new)).status_code == 200


async def test_a_member_already_keeps_their_role_when_accepting(
    app: FastAPI, client: httpx.AsyncClient, worker: OutboxWorker, inbox: Inbox
) -> None:
    owner, bob = await create_user(app), await create_user(app, email="bob@example.com")
    household_id = await create_household(app, client, owner)
    token = await invited_token(app, client, worker, inbox, owner, household_id, "bob@example.com", "viewer")
    await add_member(app, household_id, bob, "member")  # joined meanwhile (another invitation, say)

    accepted = await accept(app, client, bob, token)

    assert accepted.status_code == 200 and accepted.json()["role"] == "member"
    assert await invitations_of(app, household_id) == []  # used up all the same
    assert_error(await accept(app, client, bob, token), 404, "NOT_FOUND")
