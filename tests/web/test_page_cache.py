"""Pages of finished events kept rendered (bot/web/page_cache.py), on SQLite and PostgreSQL: a kept
page is byte for byte the page built anew, with the same ETag; a rotated address finds nothing even
for a kept page; another server's id never finds this server's kept page; a running draft is never
kept (its page changes with each pick, and never shows a card); a new player name, server name or
result in the server shows at once where the page shows it (a Turnabout page's ratings), and other
finished pages stay kept while other events end."""

from __future__ import annotations

import random

from aiohttp import web

from bot.games.draft import service as drafts
from bot.games.goldfish import service as goldfish
from bot.games.turnabout import service as turnabout
from bot.web import access, names
from bot.web.links import SiteLinks
from bot.web.page_cache import PageCache
from tests.common import CHANNEL, GUILD, ORG, OTHER_GUILD, organizer
from tests.web.helpers import NOT_FOUND, add_results, page, site_client, visible
from tests.web.test_draft_pages import USERS, play_out, started
from tests.web.test_turnabout_page import USERS as TURNABOUT_USERS
from tests.web.test_turnabout_page import play_round, registered


async def complete_draft(db, guild_org=ORG, users=USERS, seed: int = 1, **options) -> drafts.PodView:
    pod, prompts = await started(db, guild_org, users=users, **options)
    await play_out(db, prompts, random.Random(seed))
    assert (await drafts.get_pod(db, pod.id)).status == "complete"
    return pod


def finished_pages(links: SiteLinks, pod_id: int) -> list[str]:
    return [links.event("draft", pod_id), links.event("draft", pod_id) + "?seat=2",
            links.event_file("draft", pod_id, f"draft-{pod_id}-draftmancer.json"),
            links.event_file("draft", pod_id, f"draft-{pod_id}-summary.txt"),
            links.event_file("draft", pod_id, f"draft-{pod_id}-seat-1-mtgo.txt"),
            links.event("battler", 77)]  # no such game: the event's results


async def answers(client, paths: list[str]) -> list[tuple[int, bytes, str | None, str | None, str | None]]:
    out = []
    for path in paths:
        response = await client.get(path)
        out.append((response.status, await response.read(), response.headers.get("ETag"),
                    response.headers.get("Content-Type"), response.headers.get("Content-Disposition")))
    return out


async def test_a_kept_page_is_the_page_built_anew(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await names.remember(db, GUILD, 1001, "Alice <3")
    pod = await complete_draft(db, goldfish=drafts.GoldfishOptions(turns=7))
    event = await goldfish.default_event(db, GUILD, CHANNEL)
    await goldfish.submit(db, GUILD, event.id, 1001, life_lost=20, cards_milled=3, poison=0, game_wins=0,
                          writeup="Turn 3: <b>Fireball</b>")
    await goldfish.close(db, GUILD, event.id, actor=ORG)
    await add_results(db, GUILD, "battler", 77, "Friday battler", [1001, 1002])
    paths = [*finished_pages(links, pod.id), links.event("goldfish", event.id)]
    cache = PageCache()
    async with site_client(db, page_cache=cache) as client:
        built = await answers(client, paths)
        assert cache.hits == 0 and len(cache) == len(paths)
        kept = await answers(client, paths)
        assert cache.hits == len(paths)
        # A conditional request for a kept page: 304 without a body; HEAD: no body either.
        response = await client.get(paths[0], headers={"If-None-Match": kept[0][2]})
        assert response.status == 304 and await response.read() == b""
        response = await client.head(paths[0])
        assert response.status == 200 and response.headers["ETag"] == kept[0][2]
    async with site_client(db, page_cache=PageCache(size=0)) as client:
        anew = await answers(client, paths)
    assert built == kept == anew
    assert all(status == 200 for status, *_ in built)
    assert "Alice &lt;3" in built[0][1].decode() and "Turn 3: &lt;b&gt;Fireball" in built[-1][1].decode()


async def test_a_rotated_address_finds_nothing_even_for_a_kept_page(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    pod = await complete_draft(db)
    old = SiteLinks(site.address)
    cache = PageCache()
    async with site_client(db, page_cache=cache) as client:
        not_found = await page(client, NOT_FOUND, status=404)
        for path in finished_pages(old, pod.id)[:-1]:
            await page(client, path)
        assert len(cache) == 5
        rotated = await access.rotate(db, GUILD)
        for path in finished_pages(old, pod.id)[:-1]:
            assert await page(client, path, status=404) == not_found, path
        new = SiteLinks(rotated.address)
        html = await page(client, new.event("draft", pod.id))
        assert rotated.address in html and site.address not in html  # built again, with the new links
        await access.turn_off(db, GUILD)
        await page(client, new.event("draft", pod.id), status=404)
        assert cache.hits == 0


async def test_another_servers_id_never_finds_a_kept_page(db):
    mine, _ = await access.turn_on(db, GUILD, "Mine")
    theirs, _ = await access.turn_on(db, OTHER_GUILD, "Theirs")
    their_org = organizer(guild=OTHER_GUILD)
    my_pod = await complete_draft(db)
    their_pod = await complete_draft(db, their_org, users=[7001, 7002], seed=2)
    await names.remember(db, GUILD, 1001, "Alice")
    await names.remember(db, OTHER_GUILD, 7001, "Zed")
    await add_results(db, GUILD, "battler", 77, "My battler", [1001, 1002])
    await add_results(db, OTHER_GUILD, "battler", 77, "Their battler", [7001, 7002])
    my_links, their_links = SiteLinks(mine.address), SiteLinks(theirs.address)
    cache = PageCache()
    async with site_client(db, page_cache=cache) as client:
        not_found = await page(client, NOT_FOUND, status=404)
        for path in [*finished_pages(my_links, my_pod.id), *finished_pages(their_links, their_pod.id)]:
            await page(client, path)  # every page of both servers kept
        for path in finished_pages(their_links, my_pod.id)[:-1] + finished_pages(my_links, their_pod.id)[:-1]:
            assert await page(client, path, status=404) == not_found, path
        mine_shown = visible(await page(client, my_links.event("battler", 77)))
        theirs_shown = visible(await page(client, their_links.event("battler", 77)))
        assert "My battler" in mine_shown and "Alice" in mine_shown and "Zed" not in mine_shown
        assert "Their battler" in theirs_shown and "Zed" in theirs_shown and "Alice" not in theirs_shown
        assert "Mine" not in theirs_shown and "Theirs" not in mine_shown


async def test_a_running_draft_is_never_kept(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    pod, prompts = await started(db)
    path = links.event("draft", pod.id)
    cache = PageCache()
    async with site_client(db, page_cache=cache) as client:
        pending = await play_out(db, prompts, random.Random(4), stop_after=3)
        assert "3 of 30 picks made" in visible(await page(client, path))
        for _ in range(2):
            assert "Card" not in await page(client, path + "?seat=1")
            await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-summary.txt"), status=404)
        pending = await play_out(db, pending.values(), random.Random(5), stop_after=4)
        html = await page(client, path)
        assert "7 of 30 picks made" in visible(html) and "Card" not in html
        assert len(cache) == 0 and cache.hits == 0
        await play_out(db, pending.values(), random.Random(6))
        html = await page(client, path)  # complete: everything, not a kept progress page
        assert "Pools" in visible(html) and "Card &lt;" in html
        assert len(cache) == 1


async def test_a_kept_page_shows_a_new_name_server_name_or_result_at_once(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await names.remember(db, GUILD, 1001, "Alice")
    pod = await complete_draft(db)
    cache = PageCache()
    async with site_client(db, page_cache=cache) as client:
        path = links.event("draft", pod.id)
        assert "Alice" in visible(await page(client, path))
        assert "Alice" in visible(await page(client, path)) and cache.hits == 1
        await names.remember(db, GUILD, 1001, "Alicia")
        text = visible(await page(client, path))
        assert "Alicia" in text and "Alice " not in text
        await access.remember_title(db, GUILD, "MTG Club renamed")
        assert "MTG Club renamed" in visible(await page(client, path))
        # Another event's result: a complete draft shows nothing of it, so its page stays kept ...
        hits = cache.hits
        await add_results(db, GUILD, "421", 5, "League", [1002, 1001])
        await page(client, path)
        assert cache.hits == hits + 1


async def test_a_turnabout_page_is_built_again_when_another_event_ends(db):
    """Its ratings sum every Turnabout event of the server (`registry.event_page(other_events=True)`)."""
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    event = await registered(db)
    await turnabout.begin(db, event.id, ORG)
    for _ in range(2):
        await turnabout.pair(db, event.id, ORG)
        await play_round(db, event.id)
    await turnabout.end(db, event.id, ORG)
    cache = PageCache()
    async with site_client(db, page_cache=cache) as client:
        path = SiteLinks(site.address).event("turnabout", event.id)
        before = visible(await page(client, path))
        assert "(1 event)" in before and visible(await page(client, path)) == before and cache.hits == 1
        await add_results(db, GUILD, "turnabout", event.id + 1, "Later", TURNABOUT_USERS[:2], scores=[4.0, 2.0])
        after = visible(await page(client, path))
        assert cache.hits == 1 and "(2 events)" in after


# --- the cache itself ------------------------------------------------------------------------------


def response(size: int, status: int = 200) -> web.Response:
    return web.Response(body=b"x" * size, status=status, content_type="text/html")


def test_the_cache_is_bounded_by_entries_bytes_and_age():
    now = [0.0]
    cache = PageCache(size=3, max_bytes=100, ttl=60, clock=lambda: now[0])
    for key in "abc":
        cache.put(key, response(10))
    assert cache.get("a") is not None  # now the most recently used
    cache.put("d", response(10))
    assert cache.get("b") is None and all(cache.get(k) is not None for k in "acd")
    cache.put("e", response(91))  # over 100 bytes: the least recently used go
    assert len(cache) == 1 and cache.get("e") is not None
    cache.put("big", response(101))  # never kept
    assert cache.get("big") is None and cache.get("e") is not None
    now[0] = 60
    assert cache.get("e") is None and len(cache) == 0
    cache.put("missing", response(10, status=404))
    assert cache.get("missing") is None
    off = PageCache(size=0)
    off.put("a", response(1))
    assert not off.enabled and off.get("a") is None


def test_a_kept_page_comes_back_with_its_headers_and_tag():
    cache = PageCache()
    original = web.Response(body=b"log", content_type="text/plain", charset="utf-8")
    original.headers["Content-Disposition"] = 'attachment; filename="x.txt"'
    cache.put("k", original)
    again = cache.get("k")
    assert again.body == b"log" and again.headers["ETag"] == original.headers["ETag"]
    assert again.content_type == "text/plain" and again.charset == "utf-8"
    assert again.headers["Content-Disposition"] == 'attachment; filename="x.txt"'
