"""A set draft's page (bot/games/draft/web.py) on SQLite and PostgreSQL: once complete, each seat's
packs are the set's boosters as the collation dealt them, and the lobby's set is named."""

from __future__ import annotations

import random
import re

import pytest

from bot.cards import boosters
from bot.games.draft import service as drafts
from bot.web import access
from bot.web.links import SiteLinks
from tests.common import CHANNEL, GUILD, ORG, player
from tests.games.draft.test_set_drafts import card_set
from tests.web.helpers import page, site_client, visible
from tests.web.test_draft_pages import play_out

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def test_a_set_drafts_page_shows_each_seat_its_boosters_as_collated(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    the_set = card_set()
    pod = await drafts.create_set_pod(db, ORG, channel_id=CHANNEL, card_set=the_set, packs=1, seed=5, max_seats=2)
    for user in (1001, 1002):
        await drafts.join(db, pod.id, player(user))
    begun = await drafts.begin(db, pod.id, ORG)
    await play_out(db, begun.prompts, random.Random(2))
    sheet = boosters.SetSheet.from_cards([(c.name, c.rarity) for c in the_set.cards], the_set.basics)
    dealt = boosters.collate(sheet, 15, 2, seed=5)
    async with site_client(db) as client:
        text = visible(await page(client, links.event("draft", pod.id)))
        assert "complete · Test Set (tst) · 2 players · 1 pack of 15 cards" in text, text
        for seat in (1, 2):
            html = await page(client, links.event("draft", pod.id) + f"?seat={seat}")
            first = [visible(li) for li in re.findall(r"<li[^>]*>(.*?)</li>",
                                                      re.findall(r'<ul class="pack">(.*?)</ul>', html, re.S)[0])]
            assert first == dealt[seat - 1], (seat, first)  # round 1: the seat opens its own booster
