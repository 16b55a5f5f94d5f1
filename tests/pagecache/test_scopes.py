"""Page-cache scopes (app.pagecache.scopes): the names pages are kept under, and the claim lists a claim
shows in: the admin's, its customer's and its supplier's, a former supplier's too."""

from __future__ import annotations

from app.models import Claim
from app.pagecache.cache import EVERYTHING
from app.pagecache.scopes import (
    CLAIMS_ALL,
    MESSAGES_ALL,
    PRODUCTS_ALL,
    USERS_ALL,
    claim_scopes,
    claims_of,
    messages_of,
    products_of,
)


def test_each_owner_has_a_scope_of_its_own() -> None:
    assert (claims_of(7), messages_of(7), products_of(7)) == (
        "claims:user:7",
        "messages:claim:7",
        "products:user:7",
    )
    assert claims_of(7) != claims_of(8) and products_of(7) != claims_of(7)
    names = {CLAIMS_ALL, MESSAGES_ALL, PRODUCTS_ALL, USERS_ALL, EVERYTHING}
    assert len(names) == 5  # no scope stands for another


def test_a_claim_shows_in_the_admins_its_customers_and_its_suppliers_lists() -> None:
    claim = Claim(customer_id=1, supplier_id=2)
    scopes = claim_scopes(claim)
    assert scopes[0] == CLAIMS_ALL
    assert sorted(scopes[1:]) == ["claims:user:1", "claims:user:2"]


def test_a_former_supplier_is_named_and_no_one_twice() -> None:
    unassigned = Claim(customer_id=1, supplier_id=None)
    assert claim_scopes(unassigned) == [CLAIMS_ALL, "claims:user:1"]
    scopes = claim_scopes(unassigned, 3, None, 3)
    assert scopes[0] == CLAIMS_ALL and sorted(scopes[1:]) == ["claims:user:1", "claims:user:3"]
    assert sorted(claim_scopes(Claim(customer_id=1, supplier_id=1), 1)) == [CLAIMS_ALL, "claims:user:1"]
