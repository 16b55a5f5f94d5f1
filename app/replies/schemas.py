"""Saved replies on the wire (docs/api.md, "Saved replies")."""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from app.api.schemas import IsoUtc, RequestModel, ResponseModel
from app.replies import placeholders

MAX_TITLE = 200
MAX_BODY = 10_000
TITLE_DOC = "1 to 200 characters, trimmed."
BODY_DOC = (
    "1 to 10,000 characters, trimmed. Placeholders: "
    + ", ".join(f"`{{{{{name}}}}}`" for name in placeholders.NAMES)
    + " (spaces inside the braces allowed); any other `{{...}}`, or a `{{` never closed, is a 400 naming it."
)
TITLE_EXAMPLE = "Return label sent"
BODY_EXAMPLE = (
    "Hello {{customer.name}}, please send your {{product.brand}} {{product.name}} back with the return "
    "number {{claim.rma}} on the box. {{agent.name}}"
)


class ReplyCreate(RequestModel):
    title: str = Field(min_length=1, max_length=MAX_TITLE, description=TITLE_DOC, examples=[TITLE_EXAMPLE])
    body: str = Field(min_length=1, max_length=MAX_BODY, description=BODY_DOC, examples=[BODY_EXAMPLE])

    @field_validator("body")
    @classmethod
    def _known_placeholders(cls, body: str) -> str:
        return _checked(body)


class ReplyUpdate(RequestModel):
    """Any subset of the fields; neither may be null."""

    title: str | SkipJsonSchema[None] = Field(
        default=None, min_length=1, max_length=MAX_TITLE, description=TITLE_DOC, examples=[TITLE_EXAMPLE]
    )
    body: str | SkipJsonSchema[None] = Field(
        default=None, min_length=1, max_length=MAX_BODY, description=BODY_DOC, examples=[BODY_EXAMPLE]
    )

    @field_validator("title", "body", mode="before")
    @classmethod
    def _not_null(cls, value: object) -> object:
        if value is None:
            raise ValueError("may not be null")
        return value

    @field_validator("body")
    @classmethod
    def _known_placeholders(cls, body: str | None) -> str | None:
        return None if body is None else _checked(body)


def _checked(body: str) -> str:
    """The body when its placeholders are known; the problem as a field error otherwise."""
    try:
        return placeholders.check(body)
    except placeholders.PlaceholderError as problem:
        raise ValueError(str(problem)) from None


class ReplyOut(ResponseModel):
    id: int = Field(examples=[3])
    organization_id: int = Field(examples=[4])
    title: str = Field(examples=[TITLE_EXAMPLE])
    body: str = Field(description="As saved, placeholders unrendered.", examples=[BODY_EXAMPLE])
    created_at: IsoUtc
    updated_at: IsoUtc
