"""The server-level pages' lists and leaderboards kept per server and stamp (bot/web/page_cache.py
`Computed`), on SQLite and PostgreSQL: a page from kept data is byte for byte the page built anew;
a new result or a new player name shows at once; another server never sees them; the events in
progress are read for every request; the cache is bounded and its entries expire."""

from __future__ import annotations

from datetime import timedelta

import bot.games
from bot.features.leaderboard import service as leaderboard
from bot.web import access, names
from bot.web.links import SiteLinks
from bot.web.page_cache import Computed, PageCache
from bot.web.queries import FinishedEvent
from tests.common import GUILD, OTHER_GUILD
from tests.web.helpers import START, add_many, add_results, page, site_client, visible

USERS = list(range(1001, 1061))
FORMATS = list(bot.games.leaderboard_titles())
# Event 70 of `add_many`'s: the list older than it starts at event 69.
halfway = FinishedEvent(FORMATS[69 % len(FORMATS)], 70, "", START + timedelta(minutes=69), 4, ())


def server_pages(links: SiteLinks) -> list[str]:
    return [links.home, links.leaderboard(), links.leaderboard(season="all"),
            links.leaderboard(format="421", season="all"), links.leaderboard(season="all", page=2),
            links.events(), links.events(before=halfway.cursor)]


async def bodies(client, paths: list[str]) -> list[str]:
    return [await page(client, path) for path in paths]


async def test_kept_lists_and_boards_are_those_built_anew(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    for user in USERS[:30]:
        await names.remember(db, GUILD, user, f"Name <{user}>")
    await add_many(db, GUILD, 120, USERS)
    paths = server_pages(SiteLinks(site.address))
    computed = Computed()
    async with site_client(db, computed=computed) as client:
        built = await bodies(client, paths)
        assert computed.hits == 0 and len(computed) == len(paths)
        kept = await bodies(client, paths)
        assert computed.hits == 1  # the home's data (the lists' and leaderboards' pages are kept whole)
    async with site_client(db, page_cache=PageCache(size=0)) as client:  # nothing kept: every page anew
        anew = await bodies(client, paths)
    assert built == kept == anew
    assert "Name &lt;1001&gt;" in kept[0] and "Event 120" in kept[0] and "Event 50" in kept[-1]


async def test_a_new_result_or_name_shows_at_once(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await add_many(db, GUILD, 20, USERS[:8])
    paths = [links.home, links.leaderboard(), links.leaderboard(season="all"), links.events()]
    computed = Computed()
    async with site_client(db, computed=computed) as client:
        before = [visible(html) for html in await bodies(client, paths)]
        assert not any("Grand final" in text or "Newcomer" in text for text in before)
        await add_results(db, GUILD, "421", 500, "Grand final", [2001, *USERS[:3]],
                          finished_at=START + timedelta(days=30))
        await names.remember(db, GUILD, 2001, "Newcomer")
        after = [visible(html) for html in await bodies(client, paths)]
        assert all("Newcomer" in text for text in after), after
        assert "Grand final" in after[0] and "Grand final" in after[3]
        # A new name alone (no result) shows at once too.
        await names.remember(db, GUILD, USERS[0], "Renamed player")
        renamed = [visible(html) for html in await bodies(client, paths)]
        assert all("Renamed player" in text for text in renamed), renamed
        # A new season changes the current leaderboard (the period is read for every request).
        await leaderboard.start_season(db, GUILD, "Winter")
        assert "Newcomer" not in visible(await page(client, links.leaderboard()))
        assert computed.hits == 0


async def test_another_server_never_sees_them(db):
    mine, _ = await access.turn_on(db, GUILD, "Mine")
    theirs, _ = await access.turn_on(db, OTHER_GUILD, "Theirs")
    await add_results(db, GUILD, "421", 1, "My league", [1001, 1002])
    await add_results(db, OTHER_GUILD, "421", 1, "Their league", [7001, 7002])
    await names.remember(db, GUILD, 1001, "Alice")
    await names.remember(db, OTHER_GUILD, 7001, "Zed")
    computed = Computed()
    async with site_client(db, computed=computed) as client:
        for links, own, other in ((SiteLinks(mine.address), ("My league", "Alice"), ("Their league", "Zed")),
                                  (SiteLinks(theirs.address), ("Their league", "Zed"), ("My league", "Alice"))):
            for path in (links.home, links.leaderboard(season="all"), links.events()):
                for _ in range(2):
                    text = visible(await page(client, path))
                    shown = own if "leaderboard" not in path else own[1:]  # (a board shows no event)
                    assert all(word in text for word in shown) and not any(word in text for word in other), path
        assert computed.hits == 2 and {key[0] for key in computed._entries} == {GUILD, OTHER_GUILD}


async def test_events_in_progress_are_read_for_every_request(db):
    from bot.games.turnabout import service as turnabout
    from bot.kit.tables import Actor

    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await add_results(db, GUILD, "421", 1, "League", [1001, 1002])
    computed = Computed()
    async with site_client(db, computed=computed) as client:
        assert "Turnabout" not in visible(await page(client, links.home))
        await turnabout.create_event(db, Actor(99, GUILD, manage_guild=True), channel_id=100)
        assert "Turnabout" in visible(await page(client, links.home))
        assert computed.hits == 1


async def test_the_cache_is_bounded_and_expires():
    now = [0.0]
    computed = Computed(size=2, ttl=60, clock=lambda: now[0])
    made: list[str] = []

    def maker(value: str):
        async def compute() -> str:
            made.append(value)
            return value
        return compute

    for key in ("a", "b", "a", "c"):
        assert await computed.get((GUILD, key), maker(key)) == key
    assert made == ["a", "b", "c"] and list(computed._entries) == [(GUILD, "a"), (GUILD, "c")]
    now[0] = 60
    await computed.get((GUILD, "a"), maker("a"))
    assert made == ["a", "b", "c", "a"]
    off = Computed(size=0)
    await off.get((GUILD, "a"), maker("a"))
    await off.get((GUILD, "a"), maker("a"))
    assert len(off) == 0 and made[-2:] == ["a", "a"]
