"""Set drafts (`drafts.create_set_pod`) against real SQLite and PostgreSQL databases: the pod keeps the
set with its rarities and the land slot's basics, deals the set's boosters (`bot.cards.boosters`),
shows and logs them, and refuses a set too small for its boosters before anyone joins."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from bot.cards import boosters
from bot.cards.model import Card
from bot.cards.sets import CardSet
from bot.games.draft import service as drafts
from bot.kit.errors import UserError
from tests.common import CHANNEL
from tests.common import ORG as ADMIN
from tests.games.draft.test_bot_seats import run_humans
from tests.games.draft.test_service import player

RARITY_COUNTS = {"common": 30, "uncommon": 12, "rare": 6, "mythic": 2}


def card_set(*, basics: tuple[str, ...] = ("Island", "Forest"), **counts: int) -> CardSet:
    counts = {**RARITY_COUNTS, **counts}
    cards = tuple(Card(f"{rarity} {i}", rarity, "WUBRG"[i % 5]) for rarity, n in counts.items() for i in range(n))
    return CardSet("tst", "Test Set", cards, basics)


def slot(name: str, lands: tuple[str, ...]) -> str:
    return "land" if name in lands else {"mythic": "rare"}.get(name.split()[0], name.split()[0])


async def test_a_set_draft_deals_the_sets_boosters_and_logs_them(db):
    pod = await drafts.create_set_pod(db, ADMIN, channel_id=CHANNEL, card_set=card_set(), seed=9, max_seats=4,
                                      bots=2)
    assert pod.booster == "classic" and pod.cube_name == "Test Set (tst)"
    shown = await drafts.cards_to_show(db, pod.id)  # a full table's boosters, before anyone joins
    for user in (1001, 1002):
        pod = await drafts.join(db, pod.id, player(user))
    begun = await drafts.begin(db, pod.id, ADMIN)
    assert len(begun.prompts[0].cards) == 15
    await run_humans(db, pod.id, begun.prompts, random.Random(4))
    log = json.loads((await drafts.draft_log(db, pod.id, player(1001), "draftmancer")).data)
    dealt = boosters.collate(boosters.SetSheet.from_cards([(c.name, c.rarity) for c in card_set().cards],
                                                          ("Island", "Forest")), 15, 8, seed=9)
    assert [[log["carddata"][card]["name"] for card in pack] for pack in log["boosters"]] == dealt
    assert set(await drafts.cards_to_show(db, pod.id)) == {card for pack in dealt for card in pack}
    assert set(shown) == {card for pack in dealt for card in pack}
    for pack in dealt:
        assert Counter(slot(card, ("Island", "Forest")) for card in pack) == {"rare": 1, "uncommon": 3, "common": 10,
                                                                              "land": 1}


async def test_a_set_without_basic_lands_gets_the_five_and_a_small_pack_no_land(db):
    pod = await drafts.create_set_pod(db, ADMIN, channel_id=CHANNEL, card_set=card_set(basics=()), seed=2,
                                      max_seats=2, bots=1, pack_size=14)
    shown = await drafts.cards_to_show(db, pod.id)
    assert not set(shown) & set(boosters.BASIC_LANDS)  # 14 cards: the land is the first to go
    pod = await drafts.create_set_pod(db, ADMIN, channel_id=CHANNEL + 1, card_set=card_set(basics=()), seed=2,
                                      max_seats=2, bots=1)
    assert set(await drafts.cards_to_show(db, pod.id)) & set(boosters.BASIC_LANDS)


@pytest.mark.parametrize(("counts", "pack_size", "words"), [
    ({"uncommon": 2}, 15, "needs 3 different uncommons and the set has 2"),
    ({"common": 24}, 30, "needs 25 different commons and the set has 24"),
    ({"rare": 0, "mythic": 0}, 15, "needs 1 different rare or mythic rare and the set has 0"),
])
async def test_a_set_too_small_for_its_boosters_is_refused_with_the_slot_it_lacks(db, counts, pack_size, words):
    with pytest.raises(UserError, match=words):
        await drafts.create_set_pod(db, ADMIN, channel_id=CHANNEL, card_set=card_set(**counts), pack_size=pack_size)
