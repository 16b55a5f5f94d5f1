"""Saved replies (contract 17.9, docs/api.md "Saved replies"): an organisation's managers write them, its
agents read them, admins do both; anyone else gets 404, as for a missing organisation. Replies change no
claim, so they cause nothing beyond themselves (no row in app.changes)."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.claims import ADMIN, SUPPLIER, claim_roles
from app.access.organizations import not_found, require_member
from app.core.ids import MAX_ID
from app.errors import Forbidden, NotFound, ValidationFailed
from app.models import Claim, Product, ReturnAuthorization, SavedReply, User
from app.models.enums import OrganizationRole
from app.replies import placeholders
from app.replies.repository import ReplyRepository


def reply_not_found() -> NotFound:
    return NotFound("No such saved reply.")


async def ensure_reader(user: User, organization_id: int, *, replies: ReplyRepository) -> None:
    """Its members in any role, and admins (when it exists); 404 for anyone else."""
    await _ensure(user, organization_id, replies)


async def ensure_writer(user: User, organization_id: int, *, replies: ReplyRepository) -> None:
    """Its managers, and admins (when it exists); 403 for its agents, 404 for anyone else."""
    await _ensure(user, organization_id, replies, OrganizationRole.MANAGER)


async def _ensure(
    user: User, organization_id: int, replies: ReplyRepository, *roles: OrganizationRole
) -> None:
    if not 1 <= organization_id <= MAX_ID:
        raise not_found()
    membership = await require_member(replies.session, user, organization_id, *roles)
    if membership is None and not await replies.organization_exists(organization_id):
        raise not_found()  # an admin, naming an organisation that is not there


async def get(user: User, organization_id: int, reply_id: int, *, replies: ReplyRepository) -> SavedReply:
    await ensure_reader(user, organization_id, replies=replies)
    return await _reply(replies, organization_id, reply_id)


async def create(
    user: User, organization_id: int, title: str, body: str, *, replies: ReplyRepository
) -> SavedReply:
    await ensure_writer(user, organization_id, replies=replies)
    return await replies.add(organization_id, title, body)


async def update(
    user: User,
    organization_id: int,
    reply_id: int,
    *,
    title: str | None,
    body: str | None,
    replies: ReplyRepository,
) -> SavedReply:
    await ensure_writer(user, organization_id, replies=replies)
    reply = await _reply(replies, organization_id, reply_id)
    if title is not None:
        reply.title = title
    if body is not None:
        reply.body = body
    await replies.session.flush()
    return reply


async def delete(user: User, organization_id: int, reply_id: int, *, replies: ReplyRepository) -> None:
    await ensure_writer(user, organization_id, replies=replies)
    await replies.delete(await _reply(replies, organization_id, reply_id))


async def _reply(replies: ReplyRepository, organization_id: int, reply_id: int) -> SavedReply:
    found = await replies.get(organization_id, reply_id) if 1 <= reply_id <= MAX_ID else None
    if found is None:
        raise reply_not_found()
    return found


# What the placeholders of a claim stand for, in one read (parameter claim_id).
_VALUES = (
    select(User.name, Product.name, Product.brand, Product.serial_number, ReturnAuthorization.number)
    .select_from(Claim)
    .join(User, User.id == Claim.customer_id)
    .join(Product, Product.id == Claim.product_id)
    .outerjoin(ReturnAuthorization, ReturnAuthorization.claim_id == Claim.id)
    .where(Claim.id == bindparam("claim_id"))
)


async def render_for_claim(
    session: AsyncSession, claim: Claim, sender: User, reply_id: int, appended: str
) -> str:
    """The text of a message sending saved reply `reply_id` in `claim`: its body rendered for the claim
    (values as plain text; a missing one, as an unset serial number or no RMA yet, empty), then `appended`
    after a blank line when it has text. For the claim's supplier side and admins (403 for its customer
    side); 400 VALIDATION_FAILED (`replyId`) unless the reply belongs to the claim's organisation."""
    roles = await claim_roles(session, sender, claim)
    if SUPPLIER not in roles and ADMIN not in roles:
        raise Forbidden("Saved replies are for the claim's supplier side.")
    reply = None
    if claim.organization_id is not None and 1 <= reply_id <= MAX_ID:
        reply = await ReplyRepository(session).get(claim.organization_id, reply_id)
    if reply is None:
        raise ValidationFailed.field("replyId", "is not a saved reply of the claim's organization")
    customer, product, brand, serial, rma = (await session.execute(_VALUES, {"claim_id": claim.id})).one()
    values = {
        "customer.name": customer,
        "product.name": product,
        "product.brand": brand,
        "product.serialNumber": serial or "",
        "claim.id": str(claim.id),
        "claim.rma": rma or "",
        "agent.name": sender.name,
    }
    text = placeholders.render(reply.body, values)
    return f"{text}\n\n{appended.strip()}" if appended.strip() else text
