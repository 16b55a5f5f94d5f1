"""Issuing a claim's return authorisation (contract 17.10, docs/api.md "Returns"), in the request's
transaction: who may, in what state, the label's file, the number, and the change recorded (app.changes:
the timeline entry, the hub event, the customer's email, the webhook)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.claims import ADMIN, SUPPLIER, claim_roles
from app.changes.dispatch import record
from app.changes.events import RmaIssued
from app.config import Settings
from app.core.clock import utc_now
from app.errors import Conflict, Forbidden, NotFound
from app.messages.service import AttachmentUpload
from app.models import Claim, ReturnAuthorization, User
from app.models.enums import ClaimStatus
from app.returns.numbers import next_number
from app.storage.files import check_file, display_file_name
from app.storage.storage import Storage, discard_on_rollback

LABEL_FOLDER = "return-labels"


@dataclass(frozen=True)
class Label:
    data: bytes
    file_name: str


def rma_exists() -> Conflict:
    return Conflict("The claim has a return authorisation already.", code="RMA_EXISTS")


# The claim's status, locked as a message's post locks it (FOR NO KEY UPDATE): a status change waits for
# this transaction, and two issuers of one claim take turns. Parameter claim_id.
_LOCKED_STATUS = select(Claim.status).where(Claim.id == bindparam("claim_id")).with_for_update(key_share=True)


async def rma_of(session: AsyncSession, claim: Claim) -> ReturnAuthorization:
    """The claim's return authorisation (the caller sees the claim); 404 while none is issued."""
    rma = await session.get(ReturnAuthorization, claim.id)
    if rma is None:
        raise NotFound("The claim has no return authorisation.")
    return rma


async def ensure_issuer(session: AsyncSession, actor: User, claim: Claim) -> None:
    """The claim's supplier side (its assigned agent, a member of its organisation) and admins; 403 for
    its customer side (the caller sees the claim: the 404 came before)."""
    roles = await claim_roles(session, actor, claim)
    if SUPPLIER not in roles and ADMIN not in roles:
        raise Forbidden("Only the claim's supplier side or an admin may issue a return authorisation.")


async def check_label(upload: AttachmentUpload, settings: Settings) -> Label:
    """413 over the attachment limit; 415 unless the bytes are a PDF and its name and type say so."""
    await check_file(
        upload.data,
        allowed={"pdf"},
        max_size=settings.max_attachment_size,
        max_pixels=settings.max_image_pixels,
        file_name=upload.file_name,
        declared_mime=upload.mime_type,
    )
    return Label(upload.data, display_file_name(upload.file_name, "return-label.pdf"))


async def issue(
    session: AsyncSession,
    storage: Storage,
    *,
    claim: Claim,
    actor: User,
    instructions: str | None,
    label: Label | None,
) -> ReturnAuthorization:
    """The claim's return authorisation; the caller has checked the actor (`ensure_issuer`) and the
    label. 409 CLAIM_NOT_IN_PROGRESS unless the claim is `in_progress`, RMA_EXISTS when it has one (read
    under the claim's lock, and refused by its key when two are written at once)."""
    status = await session.scalar(_LOCKED_STATUS, {"claim_id": claim.id})
    if status != ClaimStatus.IN_PROGRESS:
        raise Conflict(
            "A return is authorised only while the claim is in progress.", code="CLAIM_NOT_IN_PROGRESS"
        )
    if await session.get(ReturnAuthorization, claim.id) is not None:
        raise rma_exists()
    issued_at = utc_now()
    rma = ReturnAuthorization(
        claim_id=claim.id,
        number=await next_number(session, issued_at.year),
        issued_at=issued_at,
        issued_by=actor.id,
        instructions=instructions,
    )
    if label is not None:
        rma.label_key = await storage.save(LABEL_FOLDER, label.data, "pdf")
        discard_on_rollback(session, storage, rma.label_key)
        rma.label_name, rma.label_size = label.file_name, len(label.data)
    session.add(rma)
    try:
        await session.flush()
    except IntegrityError:
        raise rma_exists() from None
    await record(session, RmaIssued(claim, rma, actor))
    return rma
