"""A claim's search text (`claims.search_text`): its product's name and its description, lower-cased,
one line apart. The queue's `q` filter (contract 17.7) reads it from the claim's own row, so counting
the matches of an organisation's claims reads no product. It is written with the claim and again for
every claim of a product whose name changes (a claim's description never changes)."""

from __future__ import annotations

from sqlalchemy import ColumnElement, func, literal, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Claim, Product

# Between the name and the description, so that a search cannot match across the two by accident of
# their ends (a `q` holding a line break could; nothing asks for that).
SEPARATOR = "\n"


def search_text(product_name: str, description: str) -> ColumnElement[str]:
    """The value a new claim stores, lower-cased by the database as the filter's column always is."""
    return func.lower(literal(product_name + SEPARATOR + description))


async def follow_product_name(session: AsyncSession, product_id: int) -> None:
    """The product's name changed (and is flushed): its claims' search texts take the new one."""
    name = select(Product.name).where(Product.id == product_id).scalar_subquery()
    await session.execute(
        update(Claim)
        .where(Claim.product_id == product_id)
        .values(search_text=func.lower(name + literal(SEPARATOR) + Claim.description))
        .execution_options(synchronize_session=False)
    )
