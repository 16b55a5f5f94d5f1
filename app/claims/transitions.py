"""The claim lifecycle (docs/api.md §6.1): which moves exist and who may make each, checked in this
order: a participant not in the move's row gets 403, any move not in the table 409. (Who may see the
claim at all, 404, is checked before, by app.access.claims.)"""

from __future__ import annotations

from app.access.claims import ADMIN, CUSTOMER, SUPPLIER
from app.errors import Conflict, Forbidden
from app.models.enums import ClaimStatus

OPEN, IN_PROGRESS, RESOLVED, CLOSED = ClaimStatus

MOVES: dict[tuple[ClaimStatus, ClaimStatus], frozenset[str]] = {
    (OPEN, IN_PROGRESS): frozenset({SUPPLIER, ADMIN}),
    (IN_PROGRESS, RESOLVED): frozenset({SUPPLIER, ADMIN}),
    (RESOLVED, IN_PROGRESS): frozenset({CUSTOMER, SUPPLIER, ADMIN}),  # reopen
    (RESOLVED, CLOSED): frozenset({CUSTOMER, ADMIN}),
}


def check_move(current: ClaimStatus, target: ClaimStatus, actor_roles: set[str]) -> None:
    """403 when the move exists but none of the actor's roles in the claim may make it; 409
    INVALID_STATUS_TRANSITION when there is no such move."""
    allowed = MOVES.get((current, target))
    if allowed is None:
        raise Conflict(f"A claim cannot go from {current} to {target}.", code="INVALID_STATUS_TRANSITION")
    if not allowed & actor_roles:
        raise Forbidden(f"Only {_who(allowed)} may move a claim from {current} to {target}.")


_NAMES = {CUSTOMER: "its customer", SUPPLIER: "its assigned supplier", ADMIN: "an admin"}


def _who(roles: frozenset[str]) -> str:
    """`its customer, its assigned supplier or an admin`, in that order."""
    names = [name for role, name in _NAMES.items() if role in roles]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def check_close(current: ClaimStatus, actor_roles: set[str]) -> None:
    """Close: 403 for who may never close (the supplier), then 409 CLAIM_NOT_RESOLVED unless resolved."""
    if not MOVES[(RESOLVED, CLOSED)] & actor_roles:
        raise Forbidden("Only the claim's customer or an admin may close it.")
    if current != RESOLVED:
        raise Conflict(
            f"Only a resolved claim can be closed; this one is {current}.", code="CLAIM_NOT_RESOLVED"
        )
