"""Load a product the caller may see, or answer 404 (alike for a missing product and another user's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path

from app.auth.dependencies import CurrentUser
from app.core.ids import DIGITS_ONLY
from app.errors import NotFound
from app.models import Product
from app.products.repository import ProductRepo


@dataclass
class Visible:
    product: Product
    has_active_claim: bool


async def visible_product(
    product_id: Annotated[int, Path(alias="id", description="The product's id."), DIGITS_ONLY],
    user: CurrentUser,
    products: ProductRepo,
) -> Visible:
    found = await products.get_visible(user, product_id)
    if found is None:
        raise NotFound("No such product.")
    return Visible(*found)


VisibleProduct = Annotated[Visible, Depends(visible_product)]
