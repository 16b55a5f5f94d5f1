"""Page-cache scopes: the names cached pages are kept under (app.pagecache.cached_pages) and changes
invalidate (app.changes.dispatch), every one of them here but EVERYTHING, the scope every page is in
(app.pagecache.cache). A page lists the scopes of the rows it shows; a change invalidates the scopes of the
pages it makes stale."""

from __future__ import annotations

from collections.abc import Iterable

from app.models import Claim

CLAIMS_ALL = "claims:all"
MESSAGES_ALL = "messages:all"
PRODUCTS_ALL = "products:all"
# Pages showing organisations' names (claim lists): dropped when an organisation is renamed or deleted.
ORGANIZATIONS_ALL = "organizations:all"
USERS_ALL = "users:all"


def claims_of(user_id: int) -> str:
    """The claim lists (and product pages' claims) of one customer or supplier."""
    return f"claims:user:{user_id}"


def messages_of(claim_id: int) -> str:
    return f"messages:claim:{claim_id}"


def products_of(owner_id: int) -> str:
    return f"products:user:{owner_id}"


def people_pages(user_ids: Iterable[int]) -> list[str]:
    """Everything listed per person: their claim lists and product lists."""
    return [
        scope for user_id in sorted(set(user_ids)) for scope in (claims_of(user_id), products_of(user_id))
    ]


def claim_scopes(claim: Claim, *former_supplier_ids: int | None) -> list[str]:
    """The claim lists showing `claim`: its customer's, its supplier's (and a former one's), the admin's."""
    people = {claim.customer_id, claim.supplier_id, *former_supplier_ids} - {None}
    return [CLAIMS_ALL, *(claims_of(user_id) for user_id in people if user_id is not None)]
