from __future__ import annotations

from pydantic import Field

from app.api.schemas import RequestModel, ResponseModel


class ProviderOut(ResponseModel):
    name: str = Field(examples=["keycloak"])


class ProvidersOut(ResponseModel):
    providers: list[ProviderOut]


class OidcExchange(RequestModel):
    code: str = Field(min_length=1, max_length=128, examples=["pR1v4T3oNeT1mEc0dE-from-the-redirect"])
