"""Base schemas: camelCase on the wire, unknown request fields rejected, UTC timestamps with offset."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, PlainSerializer, StringConstraints
from pydantic.alias_generators import to_camel

from app.core.clock import iso_utc

UtcDateTime = Annotated[datetime, PlainSerializer(iso_utc, return_type=str)]


class RequestModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, extra="forbid", str_strip_whitespace=True)


class ResponseModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


_EMAIL = re.compile(r"^[^@\s<>(),;:\"\[\]]+@[^@\s<>(),;:\"\[\]]+\.[^@\s<>(),;:\"\[\]]+$")


def _normalize_email(value: object) -> object:
    if isinstance(value, str):
        value = value.strip().lower()
        if len(value) > 255 or not _EMAIL.match(value):
            raise ValueError("not a valid email address")
    return value


# Emails are compared case-insensitively, so they are stored and compared lower-cased.
Email = Annotated[str, AfterValidator(_normalize_email)]
Password = Annotated[str, StringConstraints(min_length=8, max_length=4096, strip_whitespace=False)]
