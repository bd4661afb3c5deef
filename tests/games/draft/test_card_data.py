"""Drafts and Scryfall's card data, on SQLite and PostgreSQL: the cards a pod can show (what its
images are fetched for), and auto-picks and pools that fall back on the card table when the cube
had no data."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.cards.model import Card
from bot.cards.scryfall_api import CardData
from bot.features.cubes.service import CubeDetail
from bot.games.draft import bots
from bot.games.draft import rules as engine
from bot.games.draft import service as drafts
from bot.games.draft.service.pools import pick_hints
from bot.kit import card_data
from tests.games.draft.test_service import ADMIN, CHANNEL, player

NAMES = [f"Plain {i:02d}" for i in range(60)]


def bare_cube() -> CubeDetail:
    """A cube whose file said nothing but the names (Scryfall was down when it was saved)."""
    return CubeDetail(name="bare", size=len(NAMES), source="upload", source_ref=None,
                      cards=tuple(Card(name) for name in NAMES))


def scryfall_card(name: str, colours: str, mana_value: float) -> CardData:
    return CardData(name=name, front_name=name, colours=colours, colour_identity=colours, type_line="Creature",
                    mana_value=mana_value, rarity="common", set_code="tst", image_uris={"normal": f"https://img/{name}"})


async def test_cards_to_show_covers_any_table_in_the_lobby_and_the_deal_once_begun(db):
    pod = await drafts.create_pod(db, ADMIN, channel_id=CHANNEL, cube=bare_cube(), packs=2, pack_size=3,
                                  max_seats=6, seed=99)
    lobby = await drafts.cards_to_show(db, pod.id)
    assert len(lobby) == 6 * 2 * 3 and set(lobby) <= set(NAMES)
    for user in (1, 2, 3):
        await drafts.join(db, pod.id, player(1000 + user))
    begun = await drafts.begin(db, pod.id, ADMIN)
    dealt = await drafts.cards_to_show(db, pod.id)
    assert len(dealt) == 3 * 2 * 3 and set(dealt) <= set(lobby)  # the lobby fetched them all already
    shown = {card for prompt in begun.prompts for card in prompt.cards}
    assert shown <= set(dealt)


async def test_auto_pick_and_pools_use_the_card_table_when_the_cube_had_no_data(db):
    pod = await drafts.create_pod(db, ADMIN, channel_id=CHANNEL, cube=bare_cube(), packs=1, pack_size=4,
                                  max_seats=2, seed=7)
    # Scryfall answered later: the card table knows every card's colour and mana value.
    await card_data.store(db, {name: scryfall_card(name, "WUBRG"[i % 5], i % 6) for i, name in enumerate(NAMES)})
    async with db.read() as session:
        book = await pick_hints(session, pod.id)
    assert book.profile("Plain 00").colours == bots.colour_mask("W")
    assert book.profile("Plain 03").colours == bots.colour_mask("R") and book.profile("Plain 03").mana_value == 3
    await drafts.join(db, pod.id, player(1001))
    await drafts.join(db, pod.id, player(1002))
    begun = await drafts.begin(db, pod.id, ADMIN)
    prompt = begun.prompts[0]
    await drafts.pick(db, pod.id, player(prompt.user_id), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
                      card_index=0, source="button")
    pool = await drafts.pool(db, pod.id, prompt.user_id)
    [card] = pool.cards
    assert pool.card_info[card]["colour"] == "WUBRG"[NAMES.index(card) % 5]
    assert pool.card_info[card]["mana_value"] == NAMES.index(card) % 6
    assert pool.guild_id == ADMIN.guild_id
    assert engine.cards_dealt(NAMES, engine.DraftConfig(2, 1, 4), 7)[:4] == engine.generate_packs(
        NAMES, engine.DraftConfig(2, 1, 4), 7)[0]


async def test_bot_picks_learn_edhrec_ranks_and_land_mana_from_the_card_table(db):
    """A cube saved before EDHREC ranks were kept (colours, no ratings): the card table's ranks and
    what colours its lands make reach the bot drafters' card book."""
    cards = (Card("Popular", colour="U", rarity="common"), Card("Obscure", colour="U", rarity="common"),
             Card("Rated", colour="U", rating=4.0), Card("Tundra", colour="C", type_line="Land"))
    cube = CubeDetail(name="old", size=len(cards) * 10, source="upload", source_ref=None, cards=cards * 10)
    pod = await drafts.create_pod(db, ADMIN, channel_id=CHANNEL, cube=cube, packs=1, pack_size=4, max_seats=2)
    async with db.read() as session:
        before = await pick_hints(session, pod.id)
    assert before.profile("Popular").quality == pytest.approx(before.profile("Obscure").quality + 0.02 / 3)  # order
    known = {"Popular": 15, "Obscure": 22_000, "Rated": 1}
    await card_data.store(db, {
        **{name: replace(scryfall_card(name, "U", 2), edhrec_rank=rank) for name, rank in known.items()},
        "Tundra": replace(scryfall_card("Tundra", "", 0), type_line="Land", colour_identity="WU"),
    })
    async with db.read() as session:
        book = await pick_hints(session, pod.id)
    assert book.profile("Popular").quality > book.profile("Obscure").quality + 0.3
    assert book.profile("Rated").quality == before.profile("Rated").quality  # the cube's rating decides
    assert book.profile("Tundra").land and book.profile("Tundra").makes == bots.colour_mask("WU")


async def test_pools_take_type_lines_the_cube_lacks_from_the_card_table(db):
    """The pool picture puts creatures, other spells and lands apart: a cube that gave colours and
    mana values but no type lines has them completed from the card table."""
    cube = CubeDetail(name="typeless", size=len(NAMES), source="upload", source_ref=None,
                      cards=tuple(Card(name, colour="W", mana_value=2) for name in NAMES))
    pod = await drafts.create_pod(db, ADMIN, channel_id=CHANNEL, cube=cube, packs=1, pack_size=4, max_seats=2, seed=7)
    await card_data.store(db, {name: replace(scryfall_card(name, "W", 2), type_line=("Creature — Cat", "Land")[i % 2])
                               for i, name in enumerate(NAMES)})
    await drafts.join(db, pod.id, player(1001))
    await drafts.join(db, pod.id, player(1002))
    prompt = (await drafts.begin(db, pod.id, ADMIN)).prompts[0]
    await drafts.pick(db, pod.id, player(prompt.user_id), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
                      card_index=0, source="button")
    pool = await drafts.pool(db, pod.id, prompt.user_id)
    [card] = pool.cards
    assert pool.card_info[card]["type_line"] == ("Creature — Cat", "Land")[NAMES.index(card) % 2]
    assert pool.card_info[card]["colour"] == "W" and pool.card_info[card]["mana_value"] == 2
