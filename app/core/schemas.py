"""Base schemas: camelCase on the wire, unknown request fields rejected, UTC timestamps with offset."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    PlainSerializer,
    StringConstraints,
    field_validator,
)
from pydantic.alias_generators import to_camel

from app.core.clock import iso_utc

UtcDateTime = Annotated[datetime, PlainSerializer(iso_utc, return_type=str)]


class RequestModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, extra="forbid", str_strip_whitespace=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: object) -> object:
        # PostgreSQL cannot store U+0000 in text, and no field has a use for it: refused on every database.
        strings = value if isinstance(value, list) else [value]
        if any(isinstance(item, str) and "\x00" in item for item in strings):
            raise ValueError("must not contain NUL characters")
        return value


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
