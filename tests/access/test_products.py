"""Who may see and change a product (app.access.products): its owner, the members of the household it is
shared with (owners and members write, viewers read), and admins; 404 for anyone else, 403 for a viewer who
writes and for a non-owner who deletes or shares."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.access.products import (
    ProductAccess,
    access_to,
    may_share_with,
    require_claimable,
    require_owner,
    require_write,
    viewer_condition,
    viewer_sides,
    visible_products,
)
from app.errors import Forbidden, NotFound
from app.models import Product, User
from tests.factories.households import HouseholdCast, create_household, household_cast
from tests.factories.products import create_product
from tests.factories.users import create_admin, create_user


@dataclass(frozen=True)
class Scene:
    """A household cast; the member's product shared with the household, the owner's private one, and a
    stranger's product shared with a household of their own."""

    cast: HouseholdCast
    stranger: User
    admin: User
    shared: Product
    private: Product
    strangers: Product


async def _scene(app: FastAPI) -> Scene:
    cast = await household_cast(app)
    stranger, admin = await create_user(app), await create_admin(app)
    theirs = await create_household(app, stranger)
    return Scene(
        cast,
        stranger,
        admin,
        shared=await create_product(app, cast.member, name="Shared", household_id=cast.household.id),
        private=await create_product(app, cast.owner, name="Private"),
        strangers=await create_product(app, stranger, name="Strangers", household_id=theirs.id),
    )


async def _visible(app: FastAPI, user: User) -> set[str]:
    async with app.state.sessionmaker() as session:
        return {product.name for product in await session.scalars(visible_products(user))}


async def test_each_user_sees_their_own_and_their_households_products_and_admins_all(app: FastAPI) -> None:
    scene = await _scene(app)

    assert await _visible(app, scene.cast.owner) == {"Shared", "Private"}
    assert await _visible(app, scene.cast.member) == {"Shared"}
    assert await _visible(app, scene.cast.viewer) == {"Shared"}
    assert await _visible(app, scene.stranger) == {"Strangers"}
    assert await _visible(app, scene.admin) == {"Shared", "Private", "Strangers"}
    assert await _visible(app, await create_user(app)) == set()


async def test_the_viewer_sides_split_the_viewer_condition_without_overlap(app: FastAPI) -> None:
    scene = await _scene(app)
    own, shared = viewer_sides()

    async with app.state.sessionmaker() as session:

        async def names(condition: object, user: User) -> list[str]:
            statement = select(Product.name).where(condition).order_by(Product.name)  # type: ignore[arg-type]
            return list(await session.scalars(statement, {"viewer_id": user.id}))

        # The member's own shared product is on their own side only; the owner sees it as shared.
        assert await names(own, scene.cast.member) == ["Shared"]
        assert await names(shared, scene.cast.member) == []
        assert await names(own, scene.cast.owner) == ["Private"]
        assert await names(shared, scene.cast.owner) == ["Shared"]
        assert await names(viewer_condition(), scene.cast.owner) == ["Private", "Shared"]
        assert await names(shared, scene.cast.viewer) == ["Shared"]


async def test_access_is_own_for_owner_and_admin_write_for_members_read_for_viewers(app: FastAPI) -> None:
    scene = await _scene(app)
    cast = scene.cast

    async with app.state.sessionmaker() as session:
        assert await access_to(session, cast.member, scene.shared) == ProductAccess.OWN
        assert await access_to(session, scene.admin, scene.shared) == ProductAccess.OWN
        assert await access_to(session, scene.admin, scene.private) == ProductAccess.OWN
        assert await access_to(session, cast.owner, scene.shared) == ProductAccess.WRITE
        assert await access_to(session, cast.viewer, scene.shared) == ProductAccess.READ


async def test_access_is_404_for_anyone_else(app: FastAPI) -> None:
    scene = await _scene(app)
    cast = scene.cast

    async with app.state.sessionmaker() as session:
        for user, product in (
            (cast.member, scene.private),  # a household member, but the product is not shared
            (cast.viewer, scene.private),
            (scene.stranger, scene.shared),
            (cast.owner, scene.strangers),
        ):
            with pytest.raises(NotFound) as raised:
                await access_to(session, user, product)
            assert raised.value.message == "No such product."


async def test_viewers_may_not_write(app: FastAPI) -> None:
    scene = await _scene(app)
    cast = scene.cast

    async with app.state.sessionmaker() as session:
        assert await require_write(session, cast.owner, scene.shared) == ProductAccess.WRITE
        assert await require_write(session, cast.member, scene.shared) == ProductAccess.OWN
        with pytest.raises(Forbidden) as raised:
            await require_write(session, cast.viewer, scene.shared)
        with pytest.raises(NotFound):
            await require_write(session, scene.stranger, scene.shared)

    assert raised.value.message == "Viewers of a household may only read its products."


async def test_only_the_owner_and_admins_may_delete_or_share(app: FastAPI) -> None:
    scene = await _scene(app)
    cast = scene.cast

    async with app.state.sessionmaker() as session:
        await require_owner(session, cast.member, scene.shared)
        await require_owner(session, scene.admin, scene.shared)
        for household_member in (cast.owner, cast.viewer):
            with pytest.raises(Forbidden) as raised:
                await require_owner(session, household_member, scene.shared)
            assert raised.value.message == "Only the product's owner may do this."
        with pytest.raises(NotFound):
            await require_owner(session, scene.stranger, scene.shared)


async def test_a_product_is_shared_only_with_a_household_of_its_owner(app: FastAPI) -> None:
    scene = await _scene(app)
    cast = scene.cast
    strangers_household = scene.strangers.household_id
    assert strangers_household is not None

    async with app.state.sessionmaker() as session:
        for member in (cast.owner, cast.member, cast.viewer):  # any role
            await may_share_with(session, member.id, cast.household.id)
        for owner_id, household_id in (
            (cast.owner.id, strangers_household),
            (scene.admin.id, cast.household.id),  # an admin sharing their own product: no exception
            (cast.owner.id, 2**31 - 1),
        ):
            with pytest.raises(NotFound) as raised:
                await may_share_with(session, owner_id, household_id)
            assert raised.value.message == "No such household."


async def test_claims_are_filed_by_writers_and_not_by_viewers_or_admins_of_others(app: FastAPI) -> None:
    scene = await _scene(app)
    cast = scene.cast

    async with app.state.sessionmaker() as session:
        for writer in (cast.member, cast.owner):
            await require_claimable(session, writer, scene.shared)
        with pytest.raises(Forbidden) as raised:
            await require_claimable(session, cast.viewer, scene.shared)
        for outsider in (scene.admin, scene.stranger):  # an admin files claims on their own products only
            with pytest.raises(NotFound):
                await require_claimable(session, outsider, scene.shared)

    assert raised.value.message == "Viewers of a household may not file claims on its products."
