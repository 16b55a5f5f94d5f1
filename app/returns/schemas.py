"""Return authorisations on the wire (docs/api.md, "Returns"). The answer is the claim detail's `rma`
(app.claims.schemas.ClaimRma)."""

from __future__ import annotations

from pydantic import ConfigDict, Field
from pydantic.config import JsonDict

from app.api.schemas import RequestModel
from app.messages.schemas import AttachmentIn

MAX_INSTRUCTIONS = 5_000
INSTRUCTIONS_EXAMPLE = "Pack it in its box; drop it at any post office. The label pays the postage."
LABEL_EXAMPLE: JsonDict = {
    "dataUrl": "data:application/pdf;base64,JVBERi0xLjQKJcfs",
    "fileName": "return-label.pdf",
    "mimeType": "application/pdf",
}


class RmaIssue(RequestModel):
    """Both fields optional. `label`: one PDF, sent as a message attachment is (a base64 data URL or bare
    base64, up to WARRANTY_MAX_ATTACHMENT_SIZE decoded); its bytes must be a PDF (`%PDF-`), as must its
    name and `mimeType` say."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"instructions": INSTRUCTIONS_EXAMPLE, "label": LABEL_EXAMPLE},
                {"instructions": INSTRUCTIONS_EXAMPLE},
                {},
            ]
        }
    )

    instructions: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_INSTRUCTIONS,
        description="Up to 5,000 characters, trimmed; emailed to the customer with the number.",
        examples=[INSTRUCTIONS_EXAMPLE],
    )
    label: AttachmentIn | None = Field(default=None, description="The return label: one PDF.")
