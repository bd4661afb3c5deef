"""The Scryfall client against the loopback fake: collection batches, fuzzy names, images, failures."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.cards.scryfall_api import (
    COLLECTION_BATCH,
    HEADERS,
    CardData,
    ScryfallClient,
    ScryfallUnreachable,
    loose_key,
)
from bot.cards.sets import RequestSpacing
from tests.e2e.fake_scryfall import marker_colour, serve_fake_scryfall


def client_for(fake, **kwargs) -> ScryfallClient:
    return ScryfallClient(fake.base, spacing=RequestSpacing(interval=0.0), **kwargs)


def test_card_data_reads_plain_and_double_faced_cards() -> None:
    bolt = CardData.from_scryfall({
        "name": "Lightning Bolt", "colors": ["R"], "color_identity": ["R"], "type_line": "Instant", "cmc": 1.0,
        "rarity": "common", "set": "m10", "layout": "normal", "image_uris": {"normal": "https://img/b.jpg"},
        "oracle_text": "Lightning Bolt deals 3 damage to any target.",
    })
    assert bolt.oracle_text == "Lightning Bolt deals 3 damage to any target."
    assert (bolt.colours, bolt.type_line, bolt.mana_value, bolt.image_url()) == ("R", "Instant", 1.0, "https://img/b.jpg")
    delver = CardData.from_scryfall({
        "name": "Delver of Secrets // Insectile Aberration", "layout": "transform", "cmc": 1, "color_identity": ["U"],
        "type_line": "Creature — Human Wizard // Creature — Human Insect", "rarity": "common", "set": "isd",
        "card_faces": [{"name": "Delver of Secrets", "colors": ["U"], "image_uris": {"normal": "https://img/d.jpg"},
                        "oracle_text": "At the beginning of your upkeep, look at the top card of your library."},
                       {"name": "Insectile Aberration", "colors": ["U"], "oracle_text": "Flying"}],
    })
    assert delver.oracle_text == "At the beginning of your upkeep, look at the top card of your library.\n//\nFlying"
    assert delver.colours == "U" and delver.front_name == "Delver of Secrets"
    assert delver.image_url() == "https://img/d.jpg" and delver.front_type == "Creature — Human Wizard"
    assert delver.display_name("delver of secrets") == "Delver of Secrets"
    assert delver.display_name("DELVER OF SECRETS // insectile aberration") == delver.name
    assert bolt.edhrec_rank is None  # Scryfall gives none for this answer
    ranked = CardData.from_scryfall({"name": "Sol Ring", "edhrec_rank": 1})
    assert ranked.edhrec_rank == 1 and ranked.to_dict()["edhrec_rank"] == 1
    for odd in (0, -3, True, "12", 12.5, 2**40):
        assert CardData.from_scryfall({"name": "Sol Ring", "edhrec_rank": odd}).edhrec_rank is None
    colourless = CardData.from_scryfall({"name": "Sol Ring", "colors": [], "cmc": 1, "type_line": "Artifact"})
    assert colourless.colours == "" and colourless.colour_identity == ""
    assert colourless.oracle_text is None  # not given: unknown, not empty
    with pytest.raises(ValueError):
        CardData.from_scryfall({"colors": []})


def test_card_data_keeps_the_printings_ids_and_mtgo_id_with_the_foil_one_as_fallback() -> None:
    printing = {"name": "Opt", "id": "7a5d3c8e-1b2f-4c6d-9e0a-3f4b5c6d7e8f", "oracle_id": "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
                "collector_number": "65", "mana_cost": "{U}", "mtgo_id": 65543, "mtgo_foil_id": 65544}
    opt = CardData.from_scryfall(printing)
    assert (opt.scryfall_id, opt.oracle_id, opt.collector_number, opt.mana_cost, opt.mtgo_id) == (
        printing["id"], printing["oracle_id"], "65", "{U}", 65543)
    assert CardData.from_scryfall({**printing, "mtgo_id": None}).mtgo_id == 65544  # only a foil id on MTGO
    for odd in (0, -1, True, "65543", 65543.0):
        assert CardData.from_scryfall({"name": "Opt", "mtgo_id": odd}).mtgo_id is None
    assert CardData.from_scryfall({"name": "Opt"}).scryfall_id is None
    delver = CardData.from_scryfall({"name": "Delver of Secrets // Insectile Aberration", "layout": "transform",
                                     "card_faces": [{"name": "Delver of Secrets", "mana_cost": "{U}"},
                                                    {"name": "Insectile Aberration", "mana_cost": ""}]})
    assert delver.mana_cost == "{U}"  # the front face's, as a draft shows the card


def test_loose_key_ignores_case_accents_and_punctuation() -> None:
    assert loose_key("Lim-Dûl's Vault") == loose_key("lim dul s vault")
    assert loose_key("Fire // Ice") == "fire // ice" and loose_key("FIRE  //  ICE!") == "fire // ice"


async def test_collection_batches_75_names_and_reports_the_unknown() -> None:
    async with serve_fake_scryfall() as fake:
        names = [f"Card {i:03d}" for i in range(160)]
        fake.add_cards(names)
        fake.add_card("Ranked Card", edhrec_rank=42)
        client = client_for(fake)
        try:
            found = await client.collection([*names, "Nonexistent Card", "card 001", "Ranked Card"])
        finally:
            await client.close()
    assert fake.collection_batches == [COLLECTION_BATCH, COLLECTION_BATCH, 12]  # "card 001" asked once
    assert set(found.found) == {*names, "card 001", "Ranked Card"} and found.not_found == ["Nonexistent Card"]
    assert found.found["Ranked Card"].edhrec_rank == 42 and found.found["Card 001"].edhrec_rank is None
    assert found.found["Card 007"].image_url().endswith("/images/7.jpg")
    request = next(r for r in fake.requests if r.path_qs == "/cards/collection")
    assert request.headers["User-Agent"] == HEADERS["User-Agent"] and "json" in request.headers["Accept"]


async def test_collection_matches_faces_and_accents() -> None:
    async with serve_fake_scryfall() as fake:
        fake.add_card("Delver of Secrets // Insectile Aberration", colours="U", faces=("Delver of Secrets", "Insectile Aberration"))
        fake.add_card("Lim-Dûl's Vault", colours="UB")
        client = client_for(fake)
        try:
            found = await client.collection(["delver of secrets", "Lim-Dul's Vault"])
        finally:
            await client.close()
    assert found.found["delver of secrets"].display_name("delver of secrets") == "Delver of Secrets"
    assert found.found["Lim-Dul's Vault"].colours == "UB"


async def test_fuzzy_and_images() -> None:
    async with serve_fake_scryfall() as fake:
        fake.add_cards(["Lightning Bolt", "Counterspell"])
        client = client_for(fake)
        try:
            assert await client.fuzzy("Lightnig Bolt") == "Lightning Bolt"
            assert await client.fuzzy("Zzzzzz") is None
            data = await client.image(f"{fake.base}/images/1.jpg")
        finally:
            await client.close()
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.size == (488, 680)
    assert all(abs(a - b) <= 3 for a, b in zip(image.getpixel((244, 340)), marker_colour(1), strict=True))
    assert fake.image_requests == [1]


async def test_scryfall_down_is_unreachable() -> None:
    async with serve_fake_scryfall() as fake:
        fake.add_cards(["Opt"])
        fake.down = True
        client = client_for(fake)
        try:
            with pytest.raises(ScryfallUnreachable):
                await client.collection(["Opt"])
            with pytest.raises(ScryfallUnreachable):
                await client.image(f"{fake.base}/images/0.jpg")
        finally:
            await client.close()
    closed = ScryfallClient("http://127.0.0.1:9", spacing=RequestSpacing(interval=0.0))
    try:
        with pytest.raises(ScryfallUnreachable):
            await closed.collection(["Opt"])
    finally:
        await closed.close()


async def test_a_slow_scryfall_times_out() -> None:
    async with serve_fake_scryfall() as fake:
        client = ScryfallClient(fake.base, spacing=RequestSpacing(interval=0.0), timeout=0.3)
        try:
            with pytest.raises(ScryfallUnreachable):  # "hang" never answers
                await client._json("GET", client.base / "cards" / "search" % {"q": "e:hang is:booster", "unique": "cards"})
        finally:
            await client.close()


def test_base_must_be_http() -> None:
    with pytest.raises(ValueError):
        ScryfallClient("ftp://example")
