"""Scryfall card data cached in the card table, on SQLite and PostgreSQL, against the fake Scryfall:
resolving names, suggestions, Scryfall down at upload and the sweeper completing the cube later."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.cards.model import Card, CardList
from bot.features.cubes import service as cubes
from bot.kit import card_data, deadlines
from bot.store.models import CardRecord
from bot.store.types import utcnow
from tests.common import organizer
from tests.e2e.fake_scryfall import fake_scryfall_with_client, mtgo_id_of


@pytest.fixture
async def scryfall():
    async with fake_scryfall_with_client() as fake:
        fake.add_card("Lightning Bolt", colours="R", type_line="Instant", cmc=1, rarity="common", edhrec_rank=12)
        fake.add_card("Counterspell", colours="U", type_line="Instant", cmc=2, rarity="uncommon", edhrec_rank=300)
        fake.add_card("Delver of Secrets // Insectile Aberration", colours="U", cmc=1,
                      faces=("Delver of Secrets", "Insectile Aberration"))
        fake.add_card("Sol Ring", type_line="Artifact", cmc=1, rarity="uncommon")
        yield fake


async def test_resolve_stores_the_cards_and_asks_once(db, scryfall):
    names = ["lightning bolt", "Counterspell", "Delver of Secrets", "Sol Ring"]
    first = await card_data.resolve(db, scryfall.client, names)
    assert not first.unreachable and first.unknown == []
    assert first.card("LIGHTNING BOLT").colours == "R" and first.card("Delver of Secrets").front_name == "Delver of Secrets"
    again = await card_data.resolve(db, scryfall.client, [*names, "Lightning Bolt"])
    assert scryfall.collection_batches == [4]  # the second time everything came from the table
    assert again.cards.keys() == first.cards.keys()
    async with db.read() as session:
        assert await session.get(CardRecord, "sol ring") is not None
        full = await session.get(CardRecord, "delver of secrets // insectile aberration")
        assert full.front_name == "Delver of Secrets" and full.image_uris["normal"].endswith("/images/2.jpg")


async def test_unknown_names_get_suggestions_from_scryfall_then_the_table(db, scryfall, monkeypatch):
    monkeypatch.setattr(card_data, "MAX_FUZZY", 1)
    monkeypatch.setattr(card_data, "MAX_SUGGESTED", 3)
    await card_data.resolve(db, scryfall.client, ["Counterspell"])
    result = await card_data.resolve(db, scryfall.client, ["Lightnig Bolt", "Counterspel", "Qwxyz", "Counterspall"])
    assert [(u.name, u.suggestions) for u in result.unknown] == [
        ("Lightnig Bolt", ("Lightning Bolt",)),  # Scryfall's fuzzy search
        ("Counterspel", ("Counterspell",)),  # past MAX_FUZZY: the table's own names
        ("Qwxyz", ()),
        ("Counterspall", ()),  # past MAX_SUGGESTED: more than a reply shows
    ]
    fuzzy = [r.path_qs for r in scryfall.requests if r.path_qs.startswith("/cards/named")]
    assert len(fuzzy) == 1


async def test_enrich_keeps_the_files_data_and_fills_the_rest(db, scryfall):
    listed = [Card("lightning bolt"), Card("Counterspell", colour="W", rating=4.0), Card("Unknown Thing", colour="G")]
    result = await card_data.resolve(db, scryfall.client, [c.name for c in listed])
    bolt, counter, unknown = card_data.enrich(listed, result)
    assert (bolt.name, bolt.colour, bolt.type_line, bolt.mana_value, bolt.rarity) == (
        "Lightning Bolt", "R", "Instant", 1.0, "common")
    assert (counter.colour, counter.rating, counter.mana_value) == ("W", 4.0, 2.0)  # the file's colour stays
    assert unknown == listed[2]
    assert (bolt.edhrec_rank, counter.edhrec_rank) == (12, 300)  # Scryfall's popularity, kept with the cube
    [ring] = card_data.enrich([Card("sol ring")], result if result.card("sol ring") else
                              await card_data.resolve(db, scryfall.client, ["sol ring"]))
    assert ring.colour == "C"


async def test_card_info_image_urls_and_export_names(db, scryfall):
    await card_data.resolve(db, scryfall.client, ["Lightning Bolt", "Delver of Secrets", "Sol Ring"])
    async with db.read() as session:
        info = await card_data.card_info(session, ["Lightning Bolt", "Sol Ring", "Nothing"])
    assert info["Lightning Bolt"]["colour"] == "R" and info["Sol Ring"]["colour"] == "C" and "Nothing" not in info
    assert info["Lightning Bolt"]["edhrec_rank"] == 12 and info["Sol Ring"]["edhrec_rank"] is None  # none served
    assert info["Lightning Bolt"]["colour_identity"] == "R"
    urls = await card_data.image_urls(db, ["Lightning Bolt", "Nothing"])
    assert list(urls) == ["Lightning Bolt"] and urls["Lightning Bolt"].endswith("/images/0.jpg")
    assert await card_data.export_names(db, ["Delver of Secrets", "lightning bolt"]) == {
        "Delver of Secrets": "Delver of Secrets", "lightning bolt": "Lightning Bolt"}


async def test_scryfall_down_saves_the_cube_and_the_sweeper_completes_it(db, scryfall):
    handlers = card_data.handlers(scryfall.client)
    scryfall.down = True
    listed = [Card("lightning bolt"), Card("Counterspell"), Card("Made Up", colour="G")]
    result = await card_data.resolve(db, scryfall.client, [c.name for c in listed])
    assert result.unreachable and result.cards == {} and result.unknown == []
    summary = await cubes.add_cube(db, organizer(5, 1), "Later", CardList(card_data.enrich(listed, result)),
                                   source="upload", source_ref="x.txt", complete_later=True)
    async with db.read() as session:
        due = await deadlines.due_at(session, card_data.COMPLETE, summary.id)
    assert due is not None and due > utcnow()
    # Still down when the deadline comes: tried again later, with a longer wait.
    await deadlines.run_due(db, handlers, now=due + timedelta(seconds=1), kinds=(card_data.COMPLETE,))
    async with db.read() as session:
        second = await deadlines.due_at(session, card_data.COMPLETE, summary.id)
    assert second - due > timedelta(seconds=card_data.RETRY_DELAYS[0])
    assert (await cubes.get_cube(db, 1, "Later")).cards[0].colour is None
    scryfall.down = False
    await deadlines.run_due(db, handlers, now=second + timedelta(seconds=1), kinds=(card_data.COMPLETE,))
    cube = await cubes.get_cube(db, 1, "Later")
    assert [(c.name, c.colour, c.type_line, c.edhrec_rank) for c in cube.cards] == [
        ("Lightning Bolt", "R", "Instant", 12), ("Counterspell", "U", "Instant", 300), ("Made Up", "G", None, None)]
    async with db.read() as session:
        assert await deadlines.due_at(session, card_data.COMPLETE, summary.id) is None


async def test_a_removed_cube_stops_its_completion(db, scryfall):
    handlers = card_data.handlers(scryfall.client)
    summary = await cubes.add_cube(db, organizer(5, 1), "Gone", CardList([Card("Opt")]), source="upload",
                                   source_ref=None, complete_later=True)
    await cubes.remove_cube(db, organizer(5, 1), "Gone")
    await deadlines.run_due(db, handlers, now=utcnow() + timedelta(hours=1), kinds=(card_data.COMPLETE,))
    async with db.read() as session:
        assert await deadlines.due_at(session, card_data.COMPLETE, summary.id) is None


async def test_the_printings_ids_are_kept_with_mtgo_s_foil_id_as_fallback(db, scryfall):
    """Scryfall's printing is kept with the card: its ids, collector number and mana cost, and its
    MTGO id (the foil one when it has no other; none off MTGO), which `for_mtgo` writes as CatID."""
    foil = scryfall.add_card("Foil Only", colours="W", mtgo="foil")
    scryfall.add_card("Paper Only", mtgo="no")
    names = ["Lightning Bolt", "Foil Only", "Paper Only", "Delver of Secrets", "Never Printed"]
    printed = await card_data.printings(db, scryfall.client, names)
    bolt = scryfall.catalogue[0]
    assert (printed["Lightning Bolt"].scryfall_id, printed["Lightning Bolt"].oracle_id) == (bolt["id"], bolt["oracle_id"])
    assert (printed["Lightning Bolt"].collector_number, printed["Lightning Bolt"].mana_cost) == ("1", "{R}")
    assert printed["Delver of Secrets"].mana_cost == "{U}"  # a card with faces: its front face's
    assert printed["Lightning Bolt"].mtgo_id == mtgo_id_of(0)
    assert printed["Foil Only"].mtgo_id == foil["mtgo_foil_id"] and printed["Paper Only"].mtgo_id is None
    assert "Never Printed" not in printed
    async with db.read() as session:
        assert (await session.get(CardRecord, "foil only")).mtgo_id == foil["mtgo_foil_id"]
    result = await card_data.for_mtgo(db, None, ["Lightning Bolt", "Paper Only", "Delver of Secrets", "Never Printed"])
    assert f'CatID="{mtgo_id_of(0)}"' in result.dek and f'CatID="{mtgo_id_of(2)}"' in result.dek
    assert result.left_out == ("Paper Only", "Never Printed") and "1 Paper Only\n" in result.text_list


async def test_rows_from_before_the_printing_was_kept_are_asked_again(db, scryfall):
    """A row stored before 0021 (no Scryfall id) is asked of Scryfall when an export needs it, and
    still given when Scryfall is down; rows with it are not asked again."""
    await card_data.resolve(db, scryfall.client, ["Lightning Bolt", "Sol Ring"])
    async with db.write() as session:
        (await session.get(CardRecord, "lightning bolt")).scryfall_id = None
        (await session.get(CardRecord, "lightning bolt")).mtgo_id = None
    scryfall.down = True
    stale = await card_data.printings(db, scryfall.client, ["Lightning Bolt", "Sol Ring"])
    assert stale["Lightning Bolt"].scryfall_id is None and stale["Sol Ring"].mtgo_id == mtgo_id_of(3)
    scryfall.down = False
    batches = len(scryfall.collection_batches)
    fresh = await card_data.printings(db, scryfall.client, ["Lightning Bolt", "Sol Ring"])
    assert fresh["Lightning Bolt"].mtgo_id == mtgo_id_of(0) and scryfall.collection_batches[batches:] == [1]
