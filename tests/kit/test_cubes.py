"""The cube registry against SQLite and PostgreSQL: shipped cubes everywhere, guild cubes scoped."""

from __future__ import annotations

import asyncio

import pytest

from bot.cards.model import Card, CardList
from bot.kit import cubes
from bot.kit.errors import Conflict, NotFound, UserError


def card_list(n: int) -> CardList:
    return CardList([Card(name=f"Card {i}", colour="R", rating=1.0) for i in range(n)], source="text")


async def test_shipped_cubes_are_in_every_guild(db):
    names = [c.name for c in await cubes.list_cubes(db, 1)]
    assert {"goldfish", "battler"} <= set(names)
    goldfish = await cubes.get_cube(db, 99, "GoldFish")
    assert goldfish.source == "shipped" and goldfish.size >= 240


async def test_add_show_and_remove(db):
    await cubes.add_cube(db, 1, "My Cube", card_list(300), source="upload", source_ref="c.txt", created_by=5)
    detail = await cubes.get_cube(db, 1, "my cube")
    assert (detail.name, detail.size, detail.names[:2]) == ("My Cube", 300, ["Card 0", "Card 1"])
    assert detail.cards[0].colour == "R"
    await cubes.remove_cube(db, 1, "MY CUBE")
    with pytest.raises(NotFound):
        await cubes.get_cube(db, 1, "My Cube")


async def test_guilds_do_not_see_each_others_cubes(db):
    await cubes.add_cube(db, 1, "Private", card_list(10), source="upload", source_ref=None, created_by=5)
    with pytest.raises(NotFound):
        await cubes.get_cube(db, 2, "Private")
    with pytest.raises(NotFound):
        await cubes.remove_cube(db, 2, "Private")
    assert "Private" not in [c.name for c in await cubes.list_cubes(db, 2)]


async def test_duplicates_and_bad_names_change_nothing(db):
    await cubes.add_cube(db, 1, "Vintage", card_list(10), source="upload", source_ref=None, created_by=5)
    with pytest.raises(Conflict, match="already a cube"):
        await cubes.add_cube(db, 1, "vintage", card_list(20), source="upload", source_ref=None, created_by=5)
    with pytest.raises(Conflict, match="shipped"):
        await cubes.add_cube(db, 1, "goldfish", card_list(20), source="upload", source_ref=None, created_by=5)
    for bad in ("", "x" * 80, "bad/name", "<@123>"):
        with pytest.raises(UserError):
            await cubes.add_cube(db, 1, bad, card_list(5), source="upload", source_ref=None, created_by=5)
    with pytest.raises(UserError, match="no cards"):
        await cubes.add_cube(db, 1, "Empty", card_list(0), source="upload", source_ref=None, created_by=5)
    with pytest.raises(UserError, match="shipped"):
        await cubes.remove_cube(db, 1, "battler")
    assert (await cubes.get_cube(db, 1, "Vintage")).size == 10
    assert [c.name for c in await cubes.list_cubes(db, 1) if c.source != "shipped"] == ["Vintage"]


async def test_racing_uploads_of_one_name_store_one(db):
    results = await asyncio.gather(
        *(cubes.add_cube(db, 1, "Race", card_list(5 + i), source="upload", source_ref=None, created_by=i)
          for i in range(5)),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, Conflict) for r in results if isinstance(r, Exception))


async def test_autocomplete_filters_by_substring(db):
    await cubes.add_cube(db, 1, "Pauper Cube", card_list(5), source="upload", source_ref=None, created_by=5)
    assert await cubes.cube_names(db, 1, "paup") == ["Pauper Cube"]
    assert "goldfish" in await cubes.cube_names(db, 1, "")


async def test_unicode_names_are_one_name_in_any_case_or_form(db):
    """SQL lower() is ASCII-only on SQLite: names compare by bot.kit.text.name_key instead."""
    await cubes.add_cube(db, 1, "  Äpfel  ", card_list(5), source="upload", source_ref=None, created_by=5)
    for typed in ("Äpfel", "äpfel", "ÄPFEL", "A\u0308pfel", " äpfel "):
        assert (await cubes.get_cube(db, 1, typed)).name == "Äpfel"
    with pytest.raises(Conflict, match="already a cube"):
        await cubes.add_cube(db, 1, "äpfel", card_list(5), source="upload", source_ref=None, created_by=5)
    with pytest.raises(Conflict, match="already a cube"):
        await cubes.ensure_name_free(db, 1, "a\u0308pfel")
    await cubes.add_cube(db, 1, "Straße", card_list(5), source="upload", source_ref=None, created_by=5)
    with pytest.raises(Conflict, match="already a cube"):
        await cubes.add_cube(db, 1, "STRASSE", card_list(5), source="upload", source_ref=None, created_by=5)
    # A full-width name is the shipped cube's name.
    with pytest.raises(Conflict, match="shipped"):
        await cubes.add_cube(db, 1, "ＧＯＬＤＦＩＳＨ", card_list(5), source="upload", source_ref=None, created_by=5)
    assert (await cubes.get_cube(db, 1, "ＧＯＬＤＦＩＳＨ")).source == "shipped"
    assert await cubes.cube_names(db, 1, "ÄPF") == ["Äpfel"]
    assert await cubes.cube_names(db, 1, "strass") == ["Straße"]
    assert [c.name for c in await cubes.list_cubes(db, 1) if c.source != "shipped"] == ["Straße", "Äpfel"]
    await cubes.remove_cube(db, 1, "A\u0308PFEL")
    with pytest.raises(NotFound):
        await cubes.get_cube(db, 1, "Äpfel")


async def test_cubes_are_found_by_ref_in_their_own_guild_only(db):
    await cubes.add_cube(db, 1, "Äpfel", card_list(5), source="upload", source_ref=None, created_by=5)
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
    await cubes.remove_cube(db, 1, "Äpfel")
    with pytest.raises(NotFound, match="no longer here"):
        await cubes.get_cube_by_ref(db, 1, own.ref)
