"""Which account a provider's user signs in to (contract 18.3): the one linked to the (issuer, `sub`)
pair; else the one with the email, when the provider says `email_verified: true` (which links it); else a
new one when the provider may create accounts (`autoRegister`). Roles mapped through `roleClaim` and
`roleMap` are added at every sign-in and never taken away; nothing else grants a role."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import OidcProvider
from app.models import User, UserIdentity
from app.oidc.outcomes import Outcome, SignInFailed
from app.users import service as users_service
from app.users.repository import UserRepository, normalize_roles

NO_PASSWORD = ""  # verified against a random dummy hash (app.core.security): no password ever matches


async def account_for(session: AsyncSession, provider: OidcProvider, claims: dict[str, Any]) -> User:
    users = UserRepository(session)
    subject = str(claims["sub"])
    user = await _linked(session, users, provider.issuer, subject)
    if user is None:
        user = await _by_verified_email(users, claims) or await _registered(users, provider, claims)
        session.add(
            UserIdentity(user_id=user.id, provider=provider.name, issuer=provider.issuer, subject=subject)
        )
    mapped = mapped_roles(provider, claims)
    if not set(mapped) <= set(user.roles):
        await users_service.change_user(user, {"roles": normalize_roles([*user.roles, *mapped])}, users=users)
    await session.flush()
    return user


async def _linked(session: AsyncSession, users: UserRepository, issuer: str, subject: str) -> User | None:
    user_id = await session.scalar(
        select(UserIdentity.user_id).where(UserIdentity.issuer == issuer, UserIdentity.subject == subject)
    )
    return None if user_id is None else await users.get(user_id)


async def _by_verified_email(users: UserRepository, claims: dict[str, Any]) -> User | None:
    email = claims.get("email")
    if not isinstance(email, str) or claims.get("email_verified") is not True:
        return None
    return await users.get_by_email(email)


async def _registered(users: UserRepository, provider: OidcProvider, claims: dict[str, Any]) -> User:
    if not provider.auto_register:
        raise SignInFailed(Outcome.NOT_REGISTERED, "no linked account and the provider may not create one")
    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email or len(email) > 255:
        raise SignInFailed(Outcome.NOT_REGISTERED, "the provider gave no email to create an account with")
    if await users.get_by_email(email) is not None:
        raise SignInFailed(
            Outcome.EMAIL_UNVERIFIED, "an account has the email and the provider did not verify it"
        )
    name = _display_name(claims, email)
    return await users_service.create_user(
        email=email, name=name, password_hash=NO_PASSWORD, roles=mapped_roles(provider, claims), users=users
    )


def _display_name(claims: dict[str, Any], email: str) -> str:
    for key in ("name", "preferred_username", "given_name"):
        value = claims.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:255]
    return email.split("@", 1)[0][:255]


def mapped_roles(provider: OidcProvider, claims: dict[str, Any]) -> list[str]:
    """The roles the provider's `roleClaim` maps to: its value, or each of its values when it is a list."""
    if not provider.role_claim:
        return []
    value = claims.get(provider.role_claim)
    values = value if isinstance(value, list) else [value]
    return sorted(
        {role for item in values if isinstance(item, str) for role in provider.role_map.get(item, [])}
    )
