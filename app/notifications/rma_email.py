"""The customer's email of a return authorisation (contract 17.10), outbox kind `email.rma_issued`, payload
{"claimId", "recipientId"}: the number, the instructions and the label attached, all read at send time (the
label from the file storage by its key: its bytes are never in an outbox row). Sent whatever the customer's
notification settings, as the document they need to send the product back; nothing to send once the claim
or its return authorisation is gone."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.errors import NotFound
from app.models import Claim, Product, ReturnAuthorization, User
from app.notifications.compose import DASH
from app.notifications.email import Attachment, Email
from app.notifications.render import render
from app.storage.storage import Storage

log = logging.getLogger(__name__)

_LOADED = (
    select(ReturnAuthorization, Claim, Product.name, User.email)
    .join(Claim, Claim.id == ReturnAuthorization.claim_id)
    .join(Product, Product.id == Claim.product_id)
    .join(User, User.id == Claim.customer_id)
)


async def rma_email(
    session: AsyncSession, payload: dict[str, Any], settings: Settings, storage: Storage
) -> Email | None:
    claim_id = int(str(payload["claimId"]))
    row = (await session.execute(_LOADED.where(ReturnAuthorization.claim_id == claim_id))).one_or_none()
    if row is None:
        return None
    rma, claim, product, address = row
    subject = f"Return authorised: {rma.number} for claim #{claim.id} {DASH} {product}"
    attachments = await _label(rma, storage)
    link = f"{settings.frontend_url.rstrip('/')}/claims/{claim.id}"
    text, html = render(
        "rma_issued",
        subject,
        claim_id=claim.id,
        product=product,
        number=rma.number,
        instructions=f"\n{rma.instructions}\n" if rma.instructions else "",
        label_line=f"Attached: the return label ({attachments[0].filename})." if attachments else "",
        link=link,
    )
    return Email(address, subject, text, html, claim.id, attachments)


async def _label(rma: ReturnAuthorization, storage: Storage) -> list[Attachment]:
    if not rma.label_key:
        return []
    try:
        data = await storage.read(rma.label_key)
    except NotFound:
        log.warning("the return label of claim %s is gone; emailing without it", rma.claim_id)
        return []
    return [Attachment(rma.label_name or f"{rma.number}.pdf", "application/pdf", data)]
