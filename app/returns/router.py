"""Return authorisations (docs/api.md, "Returns"): `POST /api/claims/{id}/rma` issues a claim's one return
authorisation; its label is served to whoever sees the claim. The claim detail carries it as `rma`."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from app.api.dependencies import CurrentUser, SessionDep, SettingsDep, StorageDep, VisibleClaimById
from app.api.openapi import errors, with_examples
from app.claims.schemas import ClaimRma
from app.errors import NotFound
from app.messages.attachments import decode_attachment
from app.models import ReturnAuthorization
from app.returns import service
from app.returns.schemas import RmaIssue
from app.storage.files import content_disposition
from app.storage.storage import streamed
from app.webhooks.payloads import rma_label_url

router = APIRouter(prefix="/api", tags=["returns"])


@router.post(
    "/claims/{id}/rma",
    status_code=status.HTTP_201_CREATED,
    response_model=ClaimRma,
    responses=with_examples(
        errors(400, 401, 403, 404, 409, 413, 415),
        409,
        {
            "exists": ("RMA_EXISTS", "The claim has a return authorisation already.", None),
            "notInProgress": (
                "CLAIM_NOT_IN_PROGRESS",
                "A return is authorised only while the claim is in progress.",
                None,
            ),
            "exhausted": (
                "RMA_NUMBERS_EXHAUSTED",
                "Every return number of 2026 has been given (999,999).",
                None,
            ),
        },
    ),
)
async def issue_rma(
    body: RmaIssue,
    claim: VisibleClaimById,
    user: CurrentUser,
    session: SessionDep,
    storage: StorageDep,
    settings: SettingsDep,
    response: Response,
) -> ClaimRma:
    """Issue the claim's return authorisation: its supplier side (assigned agent, any member of its
    organization) or an admin; 403 for its customer side, 404 for whoever cannot see it. The claim must be
    `in_progress` (else 409 CLAIM_NOT_IN_PROGRESS); a second one is 409 RMA_EXISTS. `label` is one PDF sent
    as a message attachment is (400 bad base64 or `size`, 413 too large, 415 not a PDF). The number is
    `RMA-<year>-<6 digits>` (409 RMA_NUMBERS_EXHAUSTED after 999,999 in a year). The customer gets an
    email with the number, the instructions and the label attached; a timeline entry, `rma_issued` on the
    claim's status topic and a `claim.rma_issued` webhook follow."""
    await service.ensure_issuer(session, user, claim)
    upload = decode_attachment(body.label, settings.max_attachment_size) if body.label else None
    label = await service.check_label(upload, settings) if upload else None
    rma = await service.issue(
        session, storage, claim=claim, actor=user, instructions=body.instructions, label=label
    )
    response.headers["Location"] = f"/api/claims/{claim.id}/rma"
    return _out(rma)


def _out(rma: ReturnAuthorization) -> ClaimRma:
    return ClaimRma(
        number=rma.number,
        issued_at=rma.issued_at,
        instructions=rma.instructions,
        label_url=rma_label_url(rma.claim_id) if rma.label_key else None,
    )


@router.get("/claims/{id}/rma", response_model=ClaimRma, responses=errors(400, 401, 404))
async def get_rma(claim: VisibleClaimById, session: SessionDep) -> ClaimRma:
    """The claim's return authorisation (as the detail's `rma`), for whoever sees the claim; 404 while
    none is issued."""
    return _out(await service.rma_of(session, claim))


@router.get(
    "/claims/{id}/rma/label",
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}}, **errors(400, 401, 404)},
)
async def download_rma_label(claim: VisibleClaimById, session: SessionDep, storage: StorageDep) -> Response:
    """The claim's return label (a PDF), for whoever sees the claim, as an attachment named as sent.
    404 when the claim has no return authorisation, or one without a label."""
    rma = await service.rma_of(session, claim)
    if rma.label_key is None:
        raise NotFound("No such return label.")
    download = await storage.open(rma.label_key)
    return streamed(
        download,
        "application/pdf",
        {
            "Content-Disposition": content_disposition(rma.label_name or f"{rma.number}.pdf"),
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "private, no-store",
        },
    )
