"""The site's routes through aiohttp's test client, on SQLite and PostgreSQL: the server-level pages
show what they should, only the server's own data under its own address, and user text escaped."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from markupsafe import escape
from sqlalchemy import update

from bot.features.leaderboard import service as leaderboard
from bot.games import formats
from bot.games.turnabout import service as turnabout
from bot.web import access, names, registry
from bot.web.links import SiteLinks
from tests.common import GUILD, ORG, OTHER_GUILD, PLAYERS
from tests.web.helpers import (
    START,
    add_card_data,
    add_many,
    add_results,
    image_of,
    site_client,
    site_settings,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def page(client, path: str, status: int = 200) -> str:
    response = await client.get(path)
    text = await response.text()
    assert response.status == status, (path, response.status, text[:500])
    return text


def visible(html: str) -> str:
    """The page's text, tags stripped and whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


async def test_the_home_shows_events_in_progress_and_finished_and_the_leaderboards(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    lobby = await turnabout.create_event(db, ORG, channel_id=10)
    running = await turnabout.create_event(db, ORG, channel_id=11)
    spec = turnabout.SPEC
    async with db.write() as session:
        await session.execute(update(spec.model).where(spec.model.id == running.id)
                              .values(status=spec.statuses.running, started_at=START))
    await add_results(db, GUILD, "421", 3, "Spring league", PLAYERS[:3], scores=[9, 5, 1])
    await add_results(db, GUILD, "goldfish", 4, "Cube night", PLAYERS[2:6], finished_at=START + timedelta(days=1))
    await names.remember(db, GUILD, PLAYERS[2], "Alice")

    async with site_client(db) as client:
        home = visible(await page(client, links.home))
    assert f"Turnabout event #{lobby.id} open for players · 0 players" in home
    assert f"Turnabout event #{running.id} running · 0 players · since 1 Mar 2026" in home
    # Newest first, each with its format, date, players and winner.
    assert "Cube night Goldfish Draft · 2 Mar 2026 · 4 players · won by Alice" in home
    assert home.index("Cube night") < home.index("Spring league")
    assert "Leaderboard · all time (no season running)" in home
    # Alice: 4 points (goldfish, 1st of 4) + 1 (421, 3rd of 3) = 5, first of all formats.
    # No "best" beside all formats' points: one format's score means nothing beside another's (issue 35 item 11).
    assert "# Player Points Events Wins 1 Alice 5 2 1 2 Player …1001 3 1 1 3" in home
    assert "Goldfish Draft # Player Points Events Wins 1 Alice 4 1 1" in home
    assert "421 # Player Points Events Wins 1 Player …1001 3 1 1" in home


async def test_a_season_shows_on_the_home_and_its_leaderboard(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await add_results(db, GUILD, "421", 1, "Before", PLAYERS[:2])
    season = await leaderboard.start_season(db, GUILD, "Winter")
    await add_results(db, GUILD, "421", 2, "During", PLAYERS[2:4], season_id=season.id)
    async with site_client(db) as client:
        home = await page(client, links.home)
        assert "Leaderboard · season Winter" in home and f'season={season.id}"' in home
        current = visible(await page(client, links.leaderboard()))
        assert "season Winter" in current and "Player …1003" in current and "Player …1001" not in current
        assert visible(await page(client, links.leaderboard(season=str(season.id)))) == current
        everything = visible(await page(client, links.leaderboard(season="all")))
        assert "all time" in everything and "Player …1001" in everything


async def test_the_leaderboard_by_format_and_page(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    users = list(range(5000, 5120))
    await add_results(db, GUILD, "turnabout", 1, "Big event", users)
    await add_results(db, GUILD, "421", 2, "League", PLAYERS[:2])
    async with site_client(db) as client:
        first = visible(await page(client, links.leaderboard(format="turnabout")))
        assert "Turnabout · all time" in first and "Page 1 of 3" in first and "Next →" in first
        assert "Player …5000" in first and "Player …1001" not in first
        last = visible(await page(client, links.leaderboard(format="turnabout", page=3)))
        assert "Page 3 of 3" in last and "Player …5119" in last and "Next →" not in last
        beyond = visible(await page(client, links.leaderboard(format="turnabout", page=9)))
        assert "Page 3 of 3" in beyond
        assert "Player …1001" in visible(await page(client, links.leaderboard(format="421")))
        form = await page(client, links.leaderboard(format="421"))
        assert '<option value="421" selected>' in form and 'method="get"' in form


async def test_every_finished_event_newest_first_page_by_page(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await add_many(db, GUILD, 120, PLAYERS)
    await add_results(db, GUILD, "vortex", 999, "Same minute", PLAYERS[:2], finished_at=START + timedelta(minutes=60))
    seen: list[str] = []
    async with site_client(db) as client:
        path = links.events()
        while path:
            html = await page(client, path)
            seen += re.findall(r'/events/[a-z0-9]+/\d+">([^<]+)</a>', html)
            older = re.search(r'href="([^"]+)">Older →', html)
            path = older[1].replace("&amp;", "&") if older else None
        assert len(seen) == 121 and len(set(seen)) == 121
        assert seen[:2] == ["Event 120", "Event 119"]
        assert seen.index("Same minute") in (59, 60)  # finished in the same minute as Event 61
        assert "No older events" in await page(client, links.events(before="1.421.1"))
        await page(client, links.events(before="yesterday"), status=400)


async def test_a_finished_event_shows_its_results(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await add_results(db, GUILD, "goldfish", 7, "Cube night", PLAYERS[:3], scores=[41, 30, 12.5])
    await names.remember(db, GUILD, PLAYERS[1], "Bob")
    async with site_client(db) as client:
        html = visible(await page(client, links.event("goldfish", 7)))
        assert "Cube night Goldfish Draft · finished 1 Mar 2026 · 3 players" in html
        assert "Place Player Points Score 1st Player …1001 3 41 2nd Bob 2 30 3rd Player …1003 1 12.5" in html
        await page(client, links.event("goldfish", 8), status=404)
        await page(client, links.event("421", 7), status=404)
        await page(client, links.event("goldfish", 2**63), status=404)


async def test_what_users_typed_is_escaped_everywhere(db):
    site, _ = await access.turn_on(db, GUILD, "<b>Club</b>")
    links = SiteLinks(site.address)
    await add_results(db, GUILD, "421", 1, "<script>alert(1)</script>", PLAYERS[:2])
    await names.remember(db, GUILD, PLAYERS[0], '<img src=x onerror="alert(2)">')
    async with site_client(db) as client:
        for path in (links.home, links.leaderboard(), links.events(), links.event("421", 1)):
            html = await page(client, path)
            assert "<script" not in html and "<img src=x" not in html and "<b>Club" not in html
            assert "&lt;b&gt;Club&lt;/b&gt;" in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in await page(client, links.event("421", 1))
        assert "&lt;img src=x onerror=&#34;alert(2)&#34;&gt;" in await page(client, links.home)


async def test_another_servers_address_or_a_forged_id_never_shows_that_servers_data(db):
    mine, _ = await access.turn_on(db, GUILD, "Mine")
    theirs, _ = await access.turn_on(db, OTHER_GUILD, "Theirs")
    await add_results(db, GUILD, "421", 1, "My league", PLAYERS[:2])
    await add_results(db, OTHER_GUILD, "421", 2, "Their league", [7001, 7002])
    await names.remember(db, OTHER_GUILD, 7001, "Theirplayer")
    their_season = await leaderboard.start_season(db, OTHER_GUILD, "Theirs")
    mine_links, their_links = SiteLinks(mine.address), SiteLinks(theirs.address)
    async with site_client(db) as client:
        not_found = await page(client, "/s/" + "A" * 43, status=404)
        for path in (mine_links.home, mine_links.leaderboard(), mine_links.leaderboard(season="all"),
                     mine_links.events()):
            html = await page(client, path)
            assert "Their" not in html and "7001" not in html
        # Their event, their season, under my address: nothing, exactly as for what does not exist.
        assert await page(client, mine_links.event("421", 2), status=404) == not_found
        assert await page(client, mine_links.leaderboard(season=str(their_season.id)), status=404) == not_found
        assert "Their league" in await page(client, their_links.event("421", 2))
        for forged in ("/s/" + mine.address[:-1] + ("B" if mine.address[-1] != "B" else "C"), "/s/" + mine.address.lower(),
                       "/s/" + mine.address + "x", "/s/" + mine.key, "/s/%2e%2e", "/s/" + mine.address + "/events/421/2x"):
            assert await page(client, forged, status=404) == not_found, forged
        await access.rotate(db, GUILD)
        assert await page(client, mine_links.home, status=404) == not_found
        assert await page(client, mine_links.event("421", 1), status=404) == not_found
        await access.turn_off(db, OTHER_GUILD)
        assert await page(client, their_links.event("421", 2), status=404) == not_found


@pytest.fixture
def test_format(monkeypatch, tmp_path):
    """A format's pages, registered as a format's web.py would: an event page with card names, and
    a player's own page."""
    (tmp_path / "event.html").write_text(
        '{% extends "base.html" %}{% from "_macros.html" import card, player %}{% block main %}'
        "<h1>{{ title }}</h1><p>Deck of {{ player(names, winner) }}: "
        "{% for name in cards %}{{ card(name, pictures) }} {% endfor %}</p>{% endblock %}")
    (tmp_path / "pool.html").write_text(
        '{% extends "base.html" %}{% block main %}<h1>{{ title }}</h1><p>Pool {{ ref }} of user {{ user }}</p>{% endblock %}')
    monkeypatch.setitem(registry.load().template_dirs, "testfmt", tmp_path)

    async def event(ctx: registry.PageContext, event_id: int) -> registry.Page | None:
        if event_id >= 404:  # no such event of this format (or none it shows)
            return None
        cards = ["Lightning Bolt", "Fire // Ice", 'Kongming, "Sleeping Dragon"']
        return registry.Page("testfmt/event.html", f"Test event {event_id}",
                             {"cards": cards, "pictures": await ctx.pictures(cards), "winner": PLAYERS[0],
                              "names": await ctx.names([PLAYERS[0]])})

    async def pool(ctx: registry.PageContext, grant: access.Grant) -> registry.Page | None:
        return registry.Page("testfmt/pool.html", "Your pool", {"ref": grant.ref, "user": grant.user_id})

    monkeypatch.setitem(registry.load().event_pages, "testfmt", event)
    monkeypatch.setitem(registry.load().private_pages, "testfmt-pool", pool)


async def test_a_formats_page_replaces_the_results_page(db, test_format):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await add_results(db, GUILD, "testfmt", 404, "Results only", PLAYERS[:2])
    # Pictures from Scryfall's card data, from its image host alone (the pages' Content-Security-Policy).
    await add_card_data(db, {'Kongming, "Sleeping Dragon"': (4, "Legendary Creature")})
    await add_card_data(db, {"Fire // Ice": (2, "Instant // Instant")}, host="https://elsewhere.example")
    async with site_client(db) as client:
        html = await page(client, links.event("testfmt", 5))
        assert "<h1>Test event 5</h1>" in html and "Deck of <span class=\"player\">Player …1001</span>" in html
        assert 'href="https://scryfall.com/search?q=%21%22Lightning%20Bolt%22"' in html
        kongming = escape(image_of('Kongming, "Sleeping Dragon"'))
        assert f'alt="Kongming, &#34;Sleeping Dragon&#34;" src="{kongming}"' in html
        assert html.count("<img") == 1 and "elsewhere.example" not in html  # the others: their names alone
        assert "Results only" in await page(client, links.event("testfmt", 404))  # its page had nothing
        await page(client, links.event("testfmt", 405), status=404)


async def test_a_players_own_page_behind_a_signed_link(db, test_format):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    other, _ = await access.turn_on(db, OTHER_GUILD, "Other")
    links = SiteLinks(site.address)
    grant = access.Grant("testfmt-pool", PLAYERS[0], 12, int(START.timestamp()) + 10**9)
    token = access.sign(site, grant, None)
    async with site_client(db) as client:
        response = await client.get(links.private(token))
        assert response.status == 200 and "Pool 12 of user 1001" in await response.text()
        assert response.headers["Cache-Control"] == "private, no-store"
        expired = access.sign(site, access.Grant("testfmt-pool", PLAYERS[0], 12, 1), None)
        unknown_kind = access.sign(site, access.Grant("nothing", PLAYERS[0], 12, grant.expires), None)
        forged = token.replace(".12.", ".13.")
        for path in (links.private(expired), links.private(unknown_kind), links.private(forged),
                     links.private(access.sign(other, grant, None)),  # another server's link, under this address
                     SiteLinks(other.address).private(token)):  # this server's link, under another's address
            await page(client, path, status=404)


async def test_a_form_on_a_players_own_page_posts_to_its_signed_address(db, test_format, monkeypatch):
    """`registry.private_action`: the site's one kind of write. A POST goes only to a signed page
    whose kind takes forms (elsewhere: 405 as ever), with a small URL-encoded form; the action gets
    the grant and the fields, and answers a 303 to where it says or its refusal's page."""
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    done: list[tuple[int, dict]] = []

    async def act(ctx: registry.PageContext, grant: access.Grant, form) -> str | registry.Refusal:
        if not ctx.form_token_valid(7, form.get("form", "")):
            return registry.Refusal("Not yours", "That form is not this page's.", ctx.links.private(ctx.token), 403)
        done.append((grant.user_id, dict(form)))
        return ctx.links.private(ctx.token) + "?done=1"

    monkeypatch.setitem(registry.load().private_actions, "testfmt-pool", act)
    token = access.sign(site, access.Grant("testfmt-pool", PLAYERS[0], 12, int(START.timestamp()) + 10**9), None)
    other = access.sign(site, access.Grant("testfmt-pool", PLAYERS[1], 12, int(START.timestamp()) + 10**9), None)
    form_token = registry.PageContext(db, site, links, site_settings(), {}, token).form_token(7)
    async with site_client(db) as client:
        response = await client.post(links.private(token), data={"form": form_token, "x": "1"}, allow_redirects=False)
        assert response.status == 303 and response.headers["Location"] == links.private(token) + "?done=1"
        assert done == [(PLAYERS[0], {"form": form_token, "x": "1"})]
        refused = await client.post(links.private(other), data={"form": form_token}, allow_redirects=False)
        assert refused.status == 403 and "not this page" in await refused.text()
        assert refused.headers["Cache-Control"] == "no-store"
        for fields in ({"x": "y" * 201}, {f"f{i}": "1" for i in range(9)}):
            assert (await client.post(links.private(token), data=fields)).status == 400
        assert (await client.post(links.private(token), data=b"x" * 5000,
                                  headers={"Content-Type": "application/x-www-form-urlencoded"})).status == 413
        assert (await client.post(links.private(token[:-1] + ("A" if token[-1] != "A" else "B")),
                                  data={"form": form_token}, allow_redirects=False)).status == 404
        no_form = access.sign(site, access.Grant("draft-pool", PLAYERS[0], 12, int(START.timestamp()) + 10**9), None)
        assert (await client.post(links.private(no_form), data={"form": form_token})).status == 404
        assert (await client.post(links.home, data={"form": form_token})).status == 405
    assert len(done) == 1


async def test_a_page_that_fails_says_so_without_details(db, monkeypatch, caplog):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")

    async def broken(ctx, event_id):
        raise RuntimeError("secret detail")

    monkeypatch.setitem(registry.load().event_pages, "broken", broken)
    async with site_client(db) as client:
        html = await page(client, SiteLinks(site.address).event("broken", 1), status=500)
    assert "could not be shown" in html and "secret detail" not in html
    error_id = re.search(r"Error ([0-9a-f]{8})", html)[1]
    assert any(error_id in record.getMessage() and record.exc_info for record in caplog.records)


def test_the_sites_pages_are_what_the_formats_declare():
    """A format's pages are a `registry.Pages` its `Format` carries (importing its web module
    registers nothing): the site's table is every format's, and a kind declared twice is refused."""
    declared = [fmt.web for fmt in formats() if fmt.web is not None]
    site = registry.Pages()
    for pages in declared:
        site.include(pages)
    assert set(site.event_pages) == {fmt.key for fmt in formats()} and set(site.template_dirs) == set(site.event_pages)
    assert {"draft-pool"} <= set(site.private_pages) and set(site.finished) == {"draft", "vortex"}
    again = registry.Pages()
    again.event_page("draft")(declared[0].event_pages[next(iter(declared[0].event_pages))])
    with pytest.raises(ValueError, match="draft"):
        site.include(again)
