from __future__ import annotations

from pydantic import Field

from app.api.schemas import Email, Password, RequestModel, ResponseModel
from app.users.schemas import UserSummary


class LoginRequest(RequestModel):
    # Not validated as an email: an unknown or odd address is just a failed login.
    email: str = Field(max_length=255)
    password: str = Field(max_length=4096)


class TokenPair(ResponseModel):
    token: str
    refresh_token: str


class LoginResponse(TokenPair):
    user: UserSummary


class RefreshRequest(RequestModel):
    refresh_token: str = Field(min_length=1, max_length=512)


class PasswordChange(RequestModel):
    current_password: str = Field(max_length=4096)
    new_password: Password


class PasswordForgot(RequestModel):
    email: Email


class PasswordReset(RequestModel):
    token: str = Field(min_length=1, max_length=512)
    password: Password
