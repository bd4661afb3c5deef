"""The cube registry against SQLite and PostgreSQL: shipped cubes everywhere, guild cubes scoped."""

from __future__ import annotations

import asyncio

import pytest

from bot.cards.model import Card, CardList
from bot.features.config import service as guild_config
from bot.features.cubes import service as cubes
from bot.kit.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.kit.tables import Actor
from tests.common import organizer

ROLE = 555  # the server's organizer role


def card_list(n: int) -> CardList:
    return CardList([Card(name=f"Card {i}", colour="R", rating=1.0) for i in range(n)], source="text")


async def test_shipped_cubes_are_in_every_guild(db):
    names = [c.name for c in await cubes.list_cubes(db, 1)]
    assert {"goldfish", "battler"} <= set(names)
    goldfish = await cubes.get_cube(db, 99, "GoldFish")
    assert goldfish.source == "shipped" and goldfish.size >= 240


async def test_add_show_and_remove(db):
    await cubes.add_cube(db, organizer(5, 1), "My Cube", card_list(300), source="upload", source_ref="c.txt")
    detail = await cubes.get_cube(db, 1, "my cube")
    assert (detail.name, detail.size, detail.names[:2]) == ("My Cube", 300, ["Card 0", "Card 1"])
    assert detail.cards[0].colour == "R"
    await cubes.remove_cube(db, organizer(guild=1), "MY CUBE")
    with pytest.raises(NotFound):
        await cubes.get_cube(db, 1, "My Cube")


async def test_guilds_do_not_see_each_others_cubes(db):
    await cubes.add_cube(db, organizer(5, 1), "Private", card_list(10), source="upload", source_ref=None)
    with pytest.raises(NotFound):
        await cubes.get_cube(db, 2, "Private")
    with pytest.raises(NotFound):
        await cubes.remove_cube(db, organizer(guild=2), "Private")
    assert "Private" not in [c.name for c in await cubes.list_cubes(db, 2)]


async def test_duplicates_and_bad_names_change_nothing(db):
    await cubes.add_cube(db, organizer(5, 1), "Vintage", card_list(10), source="upload", source_ref=None)
    with pytest.raises(Conflict, match="already a cube"):
        await cubes.add_cube(db, organizer(5, 1), "vintage", card_list(20), source="upload", source_ref=None)
    with pytest.raises(Conflict, match="shipped"):
        await cubes.add_cube(db, organizer(5, 1), "goldfish", card_list(20), source="upload", source_ref=None)
    for bad in ("", "x" * 80, "bad/name", "<@123>"):
        with pytest.raises(UserError):
            await cubes.add_cube(db, organizer(5, 1), bad, card_list(5), source="upload", source_ref=None)
    with pytest.raises(UserError, match="no cards"):
        await cubes.add_cube(db, organizer(5, 1), "Empty", card_list(0), source="upload", source_ref=None)
    with pytest.raises(UserError, match="shipped"):
        await cubes.remove_cube(db, organizer(guild=1), "battler")
    assert (await cubes.get_cube(db, 1, "Vintage")).size == 10
    assert [c.name for c in await cubes.list_cubes(db, 1) if c.source != "shipped"] == ["Vintage"]


async def test_racing_uploads_of_one_name_store_one(db):
    results = await asyncio.gather(
        *(cubes.add_cube(db, organizer(i, 1), "Race", card_list(5 + i), source="upload", source_ref=None)
          for i in range(5)),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, Conflict) for r in results if isinstance(r, Exception))


async def test_autocomplete_filters_by_substring(db):
    await cubes.add_cube(db, organizer(5, 1), "Pauper Cube", card_list(5), source="upload", source_ref=None)
    assert await cubes.cube_names(db, 1, "paup") == ["Pauper Cube"]
    assert "goldfish" in await cubes.cube_names(db, 1, "")


async def test_unicode_names_are_one_name_in_any_case_or_form(db):
    """SQL lower() is ASCII-only on SQLite: names compare by bot.kit.text.name_key instead."""
    await cubes.add_cube(db, organizer(5, 1), "  Äpfel  ", card_list(5), source="upload", source_ref=None)
    for typed in ("Äpfel", "äpfel", "ÄPFEL", "A\u0308pfel", " äpfel "):
        assert (await cubes.get_cube(db, 1, typed)).name == "Äpfel"
    with pytest.raises(Conflict, match="already a cube"):
        await cubes.add_cube(db, organizer(5, 1), "äpfel", card_list(5), source="upload", source_ref=None)
    with pytest.raises(Conflict, match="already a cube"):
        await cubes.ensure_name_free(db, 1, "a\u0308pfel")
    await cubes.add_cube(db, organizer(5, 1), "Straße", card_list(5), source="upload", source_ref=None)
    with pytest.raises(Conflict, match="already a cube"):
        await cubes.add_cube(db, organizer(5, 1), "STRASSE", card_list(5), source="upload", source_ref=None)
    # A full-width name is the shipped cube's name.
    with pytest.raises(Conflict, match="shipped"):
        await cubes.add_cube(db, organizer(5, 1), "ＧＯＬＤＦＩＳＨ", card_list(5), source="upload", source_ref=None)
    assert (await cubes.get_cube(db, 1, "ＧＯＬＤＦＩＳＨ")).source == "shipped"
    assert await cubes.cube_names(db, 1, "ÄPF") == ["Äpfel"]
    assert await cubes.cube_names(db, 1, "strass") == ["Straße"]
    assert [c.name for c in await cubes.list_cubes(db, 1) if c.source != "shipped"] == ["Straße", "Äpfel"]
    await cubes.remove_cube(db, organizer(guild=1), "A\u0308PFEL")
    with pytest.raises(NotFound):
        await cubes.get_cube(db, 1, "Äpfel")


async def test_cubes_are_found_by_ref_in_their_own_guild_only(db):
    await cubes.add_cube(db, organizer(5, 1), "Äpfel", card_list(5), source="upload", source_ref=None)
    own = await cubes.get_cube(db, 1, "äpfel")
    assert own.ref == f"id:{own.id}"
    assert (await cubes.get_cube_by_ref(db, 1, own.ref)).name == "Äpfel"
    shipped = await cubes.get_cube(db, 1, "Goldfish")
    assert shipped.ref == "shipped:goldfish"
    assert (await cubes.get_cube_by_ref(db, 2, shipped.ref)).source == "shipped"
    assert (await cubes.get_cube_by_ref(db, 1, "Äpfel")).id == own.id  # page buttons keyed by name (older)
    for ref in ("id:abc", "id:" + "9" * 30, "shipped:nope", "id:"):
        with pytest.raises(NotFound):
            await cubes.get_cube_by_ref(db, 1, ref)
    with pytest.raises(NotFound, match="no longer here"):
        await cubes.get_cube_by_ref(db, 2, own.ref)  # another server's cube
    await cubes.remove_cube(db, organizer(guild=1), "Äpfel")
    with pytest.raises(NotFound, match="no longer here"):
        await cubes.get_cube_by_ref(db, 1, own.ref)


async def test_only_organizers_add_and_remove_cubes(db):
    """The tables' organizer rule: Manage Server or the server's organizer role, in that server."""
    await guild_config.update_config(db, 1, organizer_role_id=ROLE)
    member, other_role = Actor(7, 1), Actor(7, 1, role_ids=frozenset({ROLE + 1}))
    role_holder, manager = Actor(8, 1, role_ids=frozenset({ROLE})), Actor(9, 1, manage_guild=True)
    for refused in (member, other_role):
        with pytest.raises(PermissionDenied, match="Only organizers can add cubes"):
            await cubes.check_organizer(db, refused, "add cubes")
        with pytest.raises(PermissionDenied, match="Only organizers can add cubes"):
            await cubes.add_cube(db, refused, "Sneaky", card_list(5), source="upload", source_ref=None)
    with pytest.raises(UserError, match="only works in a server"):
        await cubes.add_cube(db, Actor(9, None, manage_guild=True), "Sneaky", card_list(5), source="upload",
                             source_ref=None)
    assert [c.name for c in await cubes.list_cubes(db, 1) if c.source != "shipped"] == []

    assert await cubes.check_organizer(db, role_holder, "add cubes") == 1
    await cubes.add_cube(db, role_holder, "By Role", card_list(5), source="upload", source_ref=None)
    await cubes.add_cube(db, manager, "By Manager", card_list(5), source="upload", source_ref=None)
    for refused in (member, other_role):
        with pytest.raises(PermissionDenied, match="Only organizers can remove cubes"):
            await cubes.remove_cube(db, refused, "By Role")
    # An organizer of another server is nobody here: they reach only their own server's cubes.
    with pytest.raises(NotFound):
        await cubes.remove_cube(db, Actor(9, 2, manage_guild=True), "By Role")
    assert [c.name for c in await cubes.list_cubes(db, 1) if c.source != "shipped"] == ["By Manager", "By Role"]
    await cubes.remove_cube(db, role_holder, "By Manager")
    await cubes.remove_cube(db, manager, "By Role")
    assert [c.name for c in await cubes.list_cubes(db, 1) if c.source != "shipped"] == []
