from __future__ import annotations

from fastapi import APIRouter

from app.auth.dependencies import CurrentUser
from app.core.openapi import errors
from app.models import User
from app.users.schemas import UserOut

router = APIRouter(prefix="/api", tags=["users"])


@router.get("/me", response_model=UserOut, responses=errors(401))
async def get_me(user: CurrentUser) -> User:
    """The signed-in user."""
    return user
