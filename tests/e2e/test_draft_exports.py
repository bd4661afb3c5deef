"""A drafted pool and the draft's logs exported through the real commands (`/draft export`,
`/draft log`), the real bot against the fake Discord and the loopback fake Scryfall, whose cards
carry MTGO ids (some only a foil one, some none) and Scryfall printings, and a few of the cube's
cards are unknown to it (a custom cube's own):

- the MTGO export's `.dek` keys each card on its stored MTGO id (never CatID 0); the cards without
  one are named in the answer and MTGO's text list beside it holds every card;
- card data stored before the printing's ids were kept is asked of Scryfall again by the export;
- Draftmancer's log names the cards Scryfall knows by their Scryfall ids (set, collector number,
  Oracle id, mana cost filled) and the others as custom cards; the MTGO log numbers picks by pack
  size.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from sqlalchemy import update

from bot.store.db import Database
from bot.store.models import CardRecord
from tests.e2e.drivers.draft import (
    card_of,
    download_log,
    join_all,
    live_pack_messages,
    pick_buttons,
    start_lobby,
)
from tests.e2e.fake_scryfall import serve_fake_scryfall
from tests.e2e.test_draft_bots import heads
from tests.games.draft.test_logs import draftmancer_type_problems, read_mtgo, viewer_problems

pytestmark = pytest.mark.e2e

SEATS, PACKS, PACK_SIZE = 3, 2, 5
ON_MTGO = [f"Online Card {i:02d}" for i in range(14)]
FOIL_ONLY = [f"Foil Card {i}" for i in range(4)]
PAPER_ONLY = [f"Paper Card {i}" for i in range(6)]
CUSTOM = [f"Homebrew Card {i}" for i in range(6)]  # Scryfall does not know them
WITHOUT_ID = set(PAPER_ONLY) | set(CUSTOM)


@pytest.fixture
async def scryfall():
    async with serve_fake_scryfall() as fake_scryfall:
        for i, name in enumerate(ON_MTGO):
            fake_scryfall.add_card(name, colours="WUBRG"[i % 5], cmc=i % 6)
        for name in FOIL_ONLY:
            fake_scryfall.add_card(name, colours="G", mtgo="foil")
        for name in PAPER_ONLY:
            fake_scryfall.add_card(name, colours="R", mtgo="no")
        yield fake_scryfall


@pytest.fixture
def bot_env(scryfall) -> dict[str, str]:
    return {"SCRYFALL_BASE": scryfall.base}


async def forget_printings(bot) -> None:
    """The card table as a bot before 0021 left it: no printing's ids."""
    db = Database(bot.database_url)
    try:
        async with db.write() as session:
            await session.execute(update(CardRecord).values(scryfall_id=None, mtgo_id=None, oracle_id=None))
    finally:
        await db.dispose()


async def draft_to_the_end(fake, bot, pod_id: int, players: list[int]) -> dict[int, list[str]]:
    """The players pick until the draft is complete, the others the first card, the first player in
    turn a card without an MTGO id and one with an id, whenever its pack has one (so its pool has
    both, however the packs came: always preferring the first kind could take only those). Their
    picks, by player."""
    picks: dict[int, list[str]] = {player: [] for player in players}
    while True:
        status, holding, _ = await heads(bot, pod_id)
        if status == "complete":
            return picks
        player = next(user for user, held in holding.items() if held)
        await fake.wait_for(lambda p=player: live_pack_messages(fake, p), what=f"a pack for {player}")
        buttons = pick_buttons(live_pack_messages(fake, player)[-1])
        wanted_without_id = len(picks[player]) % 2 == 0
        choice = next((b for b in buttons if (card_of(b) in WITHOUT_ID) == wanted_without_id),
                      buttons[0]) if player == players[0] else buttons[0]
        result = await fake.click(player, live_pack_messages(fake, player)[-1], choice["custom_id"])
        assert "you took" in result.content or "your pool" in str(result.message.get("embeds")), result.content
        picks[player].append(card_of(choice))


def files_of(fake, result) -> dict[str, bytes]:
    """The files an answer (its message or its follow-ups) carries, by file name."""
    messages = [m for m in (result.message, *result.followups) if m]
    return {a["filename"]: fake.attachment_bytes(a) for m in messages for a in m.get("attachments") or []}


async def test_a_pool_and_the_logs_export_for_mtgo_and_draftmancer(fake, bot, world, scryfall):
    cube = ON_MTGO + FOIL_ONLY + PAPER_ONLY + CUSTOM
    added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "Exports"}, attachments={"file": ("Exports.txt", "\n".join(cube).encode())})
    assert f"Added cube **Exports**: {len(cube)} cards" in added.content, added.content
    await forget_printings(bot)
    pod_id, lobby = await start_lobby(fake, world, cube="Exports", seats=SEATS, packs=PACKS, pack_size=PACK_SIZE,
                                      pick_mode="buttons")
    players = world.players[:SEATS]
    await join_all(fake, lobby, pod_id, players)
    picks = await draft_to_the_end(fake, bot, pod_id, players)
    pool = picks[players[0]]
    assert set(pool) & WITHOUT_ID and set(pool) - WITHOUT_ID

    # The MTGO export: a .dek keyed by the stored MTGO ids (asked of Scryfall again: the rows had
    # none), the cards without one named, and MTGO's text list of every card beside it.
    asked = len(scryfall.collection_batches)
    result = await fake.slash(players[0], "draft export", guild_id=world.guild, channel_id=world.channel,
                              options={"format": "mtgo"})
    assert result.ephemeral and len(scryfall.collection_batches) > asked
    files = files_of(fake, result)
    assert set(files) == {f"draft-{pod_id}-pool.dek", f"draft-{pod_id}-pool-mtgo.txt"}
    dek = files[f"draft-{pod_id}-pool.dek"].decode()
    assert 'CatID="0"' not in dek
    cards = ET.fromstring(dek.encode()).findall("Cards")
    expected_ids = {}
    for name in set(pool) - WITHOUT_ID:
        card = scryfall.catalogue[scryfall.index_of(name)]
        expected_ids[name] = card.get("mtgo_id") or card["mtgo_foil_id"]
    assert {c.get("Name"): int(c.get("CatID")) for c in cards} == expected_ids
    assert Counter({c.get("Name"): int(c.get("Quantity")) for c in cards}) == Counter(
        c for c in pool if c not in WITHOUT_ID)
    left_out = [c for c in dict.fromkeys(pool) if c in WITHOUT_ID]
    assert f"leaves out {len(left_out)} card" in result.content and all(name in result.content for name in left_out)
    text_list = files[f"draft-{pod_id}-pool-mtgo.txt"].decode().splitlines()
    assert Counter({line.split(" ", 1)[1]: int(line.split(" ", 1)[0]) for line in text_list}) == Counter(pool)

    # Draftmancer's log: Scryfall's cards by their Scryfall ids, the cube's own as custom cards.
    name, data = await download_log(fake, world, players[1], "draftmancer")
    log = json.loads(data)
    assert name == f"draft-{pod_id}-draftmancer.json"
    assert viewer_problems(log) == [] and draftmancer_type_problems(log) == []
    by_name = {card["name"]: card for card in log["carddata"].values()}
    for card_name in set(cube) - set(CUSTOM):
        served = scryfall.catalogue[scryfall.index_of(card_name)]
        card = by_name[card_name]
        assert (card["id"], card["oracle_id"], card["set"], card["collector_number"], card["mana_cost"]) == (
            served["id"], served["oracle_id"], "tst", served["collector_number"], served["mana_cost"])
        assert "is_custom" not in card
    assert all(by_name[card_name]["is_custom"] and by_name[card_name]["id"] == card_name for card_name in CUSTOM)
    assert Counter(log["carddata"][cid]["name"] for user in log["users"].values() for cid in user["cards"]) == Counter(
        card for taken in picks.values() for card in taken)

    # The MTGO log: pick N of a pack of 5 lists 6 - N cards, picks 1 to 5 in each round.
    name, data = await download_log(fake, world, players[0], "mtgo")
    read = read_mtgo(data.decode())
    assert [(n, m) for n, m, _, _ in read["picks"]] == [(r, m) for r in (1, 2) for m in range(1, PACK_SIZE + 1)]
    assert all(len(shown) == PACK_SIZE - m + 1 for _, m, shown, _ in read["picks"])
    assert Counter(shown[taken] for _, _, shown, taken in read["picks"]) == Counter(pool)

