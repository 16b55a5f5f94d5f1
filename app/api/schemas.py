"""Base schemas: camelCase on the wire, unknown request fields rejected, UTC timestamps with offset."""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    PlainSerializer,
    StringConstraints,
    ValidationInfo,
    field_validator,
)
from pydantic.alias_generators import to_camel

from app.core.clock import iso_utc

IsoUtc = Annotated[datetime, PlainSerializer(iso_utc, return_type=str)]


class RequestModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, extra="forbid", str_strip_whitespace=True)

    @field_validator("*", mode="before")
    @classmethod
    def _not_longer_than_sent(cls, value: object, info: ValidationInfo) -> object:
        # Whitespace is stripped before the length checks run; the document's maxLength is about the text
        # as sent, so a padded text over the limit is refused rather than silently fitting once stripped.
        if isinstance(value, str) and info.field_name is not None:
            limit = _max_length(cls, info.field_name)
            if limit is not None and len(value) > limit:
                raise ValueError(f"at most {limit} characters")
        return value

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: object) -> object:
        # PostgreSQL cannot store U+0000 in text, and no field has a use for it: refused on every database.
        strings = value if isinstance(value, list) else [value]
        if any(isinstance(item, str) and "\x00" in item for item in strings):
            raise ValueError("must not contain NUL characters")
        return value


@cache
def _max_length(model: type[BaseModel], field: str) -> int | None:
    limits = [item.max_length for item in model.model_fields[field].metadata if hasattr(item, "max_length")]
    return min((limit for limit in limits if limit is not None), default=None)


class ResponseModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


# The domain: dot-separated labels of letters and digits (any script) with inner hyphens, as DNS names are.
_LABEL = r"[^\W_](?:(?:[^\W_]|-)*[^\W_])?"
_EMAIL = re.compile(rf"^[^@\s<>(),;:\"\[\]]+@(?:{_LABEL}\.)+{_LABEL}$")


def _normalize_email(value: object) -> object:
    if isinstance(value, str):
        value = value.strip().lower()
        if len(value) > 255 or not _EMAIL.match(value):
            raise ValueError("not a valid email address")
    return value


# Emails are compared case-insensitively, so they are stored and compared lower-cased.
Email = Annotated[str, AfterValidator(_normalize_email)]
Password = Annotated[str, StringConstraints(min_length=8, max_length=4096, strip_whitespace=False)]
