"""The draft package's pages (bot/games/draft/web.py) on SQLite and PostgreSQL, from drafts and
Goldfish events driven through the real services: a running draft shows only its progress (no card
of any pack or pool), a complete one every pool, every pack each player saw with the pick marked,
and its exports as downloads; a player's own pool behind a signed link; a Goldfish event's scores
and write-ups; only the server's own."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta
from html import unescape

import pytest
from markupsafe import escape

from bot.cards.model import Card
from bot.features.cubes.service import CubeDetail
from bot.games.draft import logs
from bot.games.draft import service as drafts
from bot.games.draft.service import variants
from bot.games.draft.service.state import GAMES
from bot.games.goldfish import service as goldfish
from bot.kit.tables import Actor
from bot.web import access, names
from bot.web.links import SiteLinks
from tests.common import CHANNEL, GUILD, ORG, OTHER_GUILD, organizer, player
from tests.web.helpers import NOT_FOUND, START, page, site_client, visible

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
USERS = [1001, 1002, 1003]


def cube(size: int = 60) -> CubeDetail:
    cards = tuple(Card(name=f"Card <{i:03d}>", colour="WUBRG"[i % 5]) for i in range(size))
    return CubeDetail(name="Test cube", size=size, source="upload", source_ref=None, cards=cards)


async def started(db, guild_org: Actor = ORG, users=USERS, **options) -> tuple[drafts.PodView, list]:
    pod = await drafts.create_pod(db, guild_org, channel_id=CHANNEL, cube=cube(), packs=2, pack_size=5, seed=99,
                                  **options)
    for user in users:
        await drafts.join(db, pod.id, player(user, guild_org.guild_id))
    begun = await drafts.begin(db, pod.id, guild_org)
    return begun.pod, begun.prompts


async def pick(db, prompt, index: int = 0) -> drafts.PickResult:
    return await drafts.pick(db, prompt.pod_id, Actor(prompt.user_id, None), pack_id=prompt.pack_id,
                             pack_pick=prompt.pack_pick, card_index=index, source="button")


async def play_out(db, prompts, rng: random.Random, *, stop_after: int | None = None) -> dict:
    """Random picks by whoever has a pack until the draft completes (or `stop_after` picks)."""
    pending = {p.user_id: p for p in prompts}
    made = 0
    while pending and (stop_after is None or made < stop_after):
        prompt = pending.pop(rng.choice(sorted(pending)))
        result = await pick(db, prompt, rng.randrange(len(prompt.cards)))
        made += 1
        for nxt in [result.next_for_picker, *result.others]:
            if nxt is not None:
                pending[nxt.user_id] = nxt
    return pending


async def test_a_running_draft_shows_only_its_progress_then_everything_once_complete(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await names.remember(db, GUILD, 1001, "Alice")
    pod, prompts = await started(db)
    path = links.event("draft", pod.id)
    async with site_client(db) as client:
        pending = await play_out(db, prompts, random.Random(4), stop_after=7)
        html = await page(client, path)
        text = visible(html)
        assert f"Draft #{pod.id}" in text and "drafting · Test cube · 3 players · 2 packs of 5 cards" in text
        assert "7 of 30 picks made" in text and "Alice" in text
        assert "Card" not in text  # no card of any pack or pool, not even in a picture's address
        for name in ("draftmancer.json", "summary.txt", "seat-1-mtgo.txt"):
            await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-{name}"), status=404)
        assert "Card" not in await page(client, path + "?seat=1")  # a seat's packs wait too

        await play_out(db, pending.values(), random.Random(5))
        assert (await drafts.get_pod(db, pod.id)).status == "complete"
        html = await page(client, path)
        text = visible(html)
        assert "complete" in text and "Pools" in text and "Downloads" in text
        pools = await drafts.all_pools(db, pod.id)
        for cards in pools.values():
            assert all(card in text for card in cards)
        assert "Card &lt;" in html and "Card <0" not in html  # escaped
        # One player's packs, pick by pick, the pick marked.
        seat_html = await page(client, path + "?seat=1")
        first_user = (await drafts.get_pod(db, pod.id)).player_ids[0]
        assert seat_html.count('class="picked"') == 10
        picked = [visible(li) for li in seat_html.split('<li class="picked">')[1:]]
        assert [p.split(" ")[0] + " " + p.split(" ")[1] for p in picked] == pools[first_user]
        # The same packs as the engine's replay shows them (the Magic Online log of seat 1, which
        # lists them by pack size where the page keeps the order they reached the player in).
        mtgo1 = await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-seat-1-mtgo.txt"))
        replayed: list[list[str]] = []
        for line in mtgo1.splitlines():
            if re.fullmatch(r"Pack \d+ pick \d+:", line):
                replayed.append([])
            elif replayed and line.startswith(("--> ", "    ")):
                replayed[-1].append(line[4:])
        shown = [[visible(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", ul)]
                 for ul in re.findall(r'<ul class="pack">(.*?)</ul>', seat_html, re.S)]
        assert sorted(shown) == sorted(replayed) and len(shown) == 10
        await page(client, path + "?seat=4", status=400)
        await page(client, path + "?seat=x", status=400)

        # The exports, as the logs build them.
        response = await client.get(links.event_file("draft", pod.id, f"draft-{pod.id}-draftmancer.json"))
        assert response.status == 200 and response.content_type == "application/json"
        assert 'attachment; filename="draft-' in response.headers["Content-Disposition"]
        log = json.loads(await response.text())
        assert log["version"] == logs.DRAFTMANCER_VERSION and len(log["users"]) == 3
        assert [sorted(log["carddata"][cid]["name"] for cid in u["cards"]) for u in log["users"].values()] == [
            sorted(pools[u]) for u in (await drafts.get_pod(db, pod.id)).player_ids]
        summary = await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-summary.txt"))
        assert summary.startswith(f"Draft #{pod.id} · Test cube")
        mtgo = await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-seat-2-mtgo.txt"))
        assert mtgo.startswith(f"Event #: {pod.id}") and "Pack 2 pick 5:" in mtgo
        for bad in (f"draft-{pod.id}-seat-4-mtgo.txt", f"draft-{pod.id + 1}-summary.txt", "other.txt"):
            await page(client, links.event_file("draft", pod.id, bad), status=404)


async def test_a_players_own_pool_during_the_draft(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    pod, prompts = await started(db)
    await play_out(db, prompts, random.Random(1), stop_after=6)
    pools = await drafts.all_pools(db, pod.id)
    mine, theirs = USERS[0], USERS[1]

    def link(user: int, ref: int = pod.id, kind: str = "draft-pool") -> str:
        return links.private(access.sign(site, access.Grant(kind, user, ref, 4_000_000_000), None))

    async with site_client(db) as client:
        text = visible(await page(client, link(mine)))
        assert f"Your pool · Draft #{pod.id}" in text and f"{len(pools.get(mine, []))} of 10 picks" in text
        assert all(card in text for card in pools.get(mine, []))
        assert not any(card in text for card in pools.get(theirs, []))
        await page(client, link(4242), status=404)  # not a player of the draft
        await page(client, link(mine, pod.id + 1), status=404)
    # Another server's draft, with a link of this server's: nothing.
    other, _ = await started(db, organizer(guild=OTHER_GUILD), users=[7001, 7002])
    async with site_client(db) as client:
        await page(client, link(7001, other.id), status=404)


async def test_a_goldfish_event_shows_its_scores_and_write_ups(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await names.remember(db, GUILD, 1002, "Bob")
    pod, prompts = await started(db, goldfish=drafts.GoldfishOptions(turns=7))
    await play_out(db, prompts, random.Random(2))
    event = await goldfish.default_event(db, GUILD, CHANNEL)
    await goldfish.submit(db, GUILD, event.id, 1001, life_lost=20, cards_milled=3, poison=0, game_wins=0,
                          writeup="Turn 3: <b>Fireball</b> for 20.")
    await goldfish.submit(db, GUILD, event.id, 1002, life_lost=30, cards_milled=0, poison=1, game_wins=0,
                          writeup="Bob's line")
    await goldfish.submit(db, GUILD, event.id, 1003, life_lost=50, cards_milled=0, poison=0, game_wins=0,
                          writeup="Too good")
    await goldfish.reject(db, GUILD, event.id, 1003, reason="no", actor=ORG)
    path = links.event("goldfish", event.id)
    async with site_client(db) as client:
        home = visible(await page(client, links.home))
        assert f"Goldfish: {event.name} open for players · 2 players" in home
        html = await page(client, path)
        text = visible(html)
        assert "taking scores · 7 turns · everyone plays first · a score is the parts added" in text
        assert "Standings so far" in text and "1st Bob 32 30 0 1 0" in text and "2nd Player …1001 21.5 20 3 0 0" in text
        assert "Turn 3: <b>Fireball</b> for 20." in text and "&lt;b&gt;Fireball" in html
        assert "Too good" not in text and "1 score rejected by an organizer is not counted" in text
        assert links.event("draft", pod.id) in html
        await goldfish.close(db, GUILD, event.id, actor=ORG)
        text = visible(await page(client, path))
        assert "Final standings" in text and "closed" in text
        assert "Goldfish:" not in visible(await page(client, links.home)).split("Recent events")[0]


async def test_another_servers_drafts_and_events_show_nothing(db):
    mine, _ = await access.turn_on(db, GUILD, "Mine")
    links = SiteLinks(mine.address)
    theirs = organizer(guild=OTHER_GUILD)
    pod, prompts = await started(db, theirs, users=[7001, 7002])
    await play_out(db, prompts, random.Random(3))
    event = await goldfish.create_event(db, actor=theirs, channel_id=5, name="Theirs", turns=7)
    async with site_client(db) as client:
        not_found = await page(client, NOT_FOUND, status=404)
        for path in (links.event("draft", pod.id), links.event("draft", pod.id) + "?seat=1",
                     links.event_file("draft", pod.id, f"draft-{pod.id}-summary.txt"),
                     links.event("goldfish", event.id), links.event("draft", 10**6)):
            assert await page(client, path, status=404) == not_found, path
        assert "Theirs" not in await page(client, links.home)


# The card macro as Jinja would write it (`bot.web.cards` writes it in Python): a card without a
# picture from the allowed image host is its name alone.
JINJA_CARD = (
    '{% set search = "https://scryfall.com/search?q=" ~ ((\'!"\' ~ name ~ \'"\') | urlencode) %}'
    '{% set picture = (pictures or {}).get(name) %}'
    '<span class="card"{% if picture %} tabindex="0"{% endif %}><a class="card-name" href="{{ search }}" '
    'rel="noreferrer noopener" target="_blank">{{ name }}</a>{% if picture %}<span class="card-pic"><a '
    'href="{{ search }}" rel="noreferrer noopener" target="_blank" tabindex="-1"><img loading="lazy" '
    'alt="{{ name }}" src="{{ picture }}"></a></span>{% endif %}</span>')


@pytest.mark.parametrize("name", ["Lightning Bolt", "Fire // Ice", 'Kongming, "Sleeping Dragon"', "Æther Vial",
                                  "<script>alert(1)</script>", "Card & Co. 100%"])
@pytest.mark.parametrize("picture", [None, "https://cards.scryfall.io/normal/front/a/b/x.jpg?1&2"])
def test_the_pages_cards_are_written_as_the_jinja_macro_wrote_them(name, picture):
    from bot.games.draft import web as draft_web
    from bot.web.app import Static, environment

    pictures = {name: picture} if picture else {}
    env = environment(Static())
    expected = env.from_string(JINJA_CARD).render(name=name, pictures=pictures)
    macro = env.from_string('{% from "_macros.html" import card %}{{ card(name, pictures) }}')
    assert draft_web._cards([name], pictures)[name] == expected
    assert macro.render(name=name, pictures=pictures) == expected
    if not picture:
        assert env.from_string('{% from "_macros.html" import card %}{{ card(name) }}').render(name=name) == expected


async def test_a_complete_draft_is_listed_with_the_finished_events_in_order_and_pages(db):
    """Issue 32, item 5: a plain draft writes no results, yet the home page's recent events and the
    events list show it once complete, in time order with the events that have results, across
    pages of the list; a kept list is built again when a draft completes."""
    from sqlalchemy import update

    from bot.games.draft.models import DraftPod
    from bot.web import pages
    from tests.web.helpers import add_many, add_results

    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await add_results(db, GUILD, "421", 1, "Before it", [1001, 1002], finished_at=START)
    running, prompts = await started(db)
    async with site_client(db) as client:
        home = visible(await page(client, links.home))  # kept for the stamp it had
        assert f"Draft #{running.id}" not in home.split("Recent events")[1]
        await play_out(db, prompts, random.Random(6))
        async with db.write() as session:  # finished between two events with results
            await session.execute(update(DraftPod).where(DraftPod.id == running.id)
                                  .values(finished_at=START + timedelta(hours=1)))
        # No result changed: the draft's end alone makes the kept lists stale.
        assert f"Draft #{running.id}" in visible(await page(client, links.home)).split("Recent events")[1]
        await add_results(db, GUILD, "421", 2, "After it", [1001, 1002], finished_at=START + timedelta(hours=2))
        for path in (links.home, links.events()):
            html = await page(client, path)
            recent = visible(html).split("Recent events")[-1]
            assert f'href="{links.event("draft", running.id)}"' in html, path
            assert recent.index("After it") < recent.index(f"Draft #{running.id} · Test cube") < recent.index("Before it")
            assert f"Draft #{running.id} · Test cube Draft · 1 Mar 2026 · 3 players" in recent
        # Pages of the list: the draft is on exactly one of them.
        await add_many(db, GUILD, pages.EVENTS_PER_PAGE, [1001, 1002], start=START + timedelta(days=1))
        first = await page(client, links.events())
        assert f"Draft #{running.id}" not in first
        older = re.search(r'href="([^"]*\?before=[^"]+)"', first)[1].replace("&amp;", "&")
        second = visible(await page(client, older))
        assert second.count(f"Draft #{running.id}") == 1 and "After it" in second and "Before it" in second
    # A running or cancelled draft, or another server's complete one, is not listed.
    other, theirs = await started(db, organizer(guild=OTHER_GUILD), users=[7001, 7002])
    await play_out(db, theirs, random.Random(7))
    async with site_client(db) as client:
        assert f"Draft #{other.id}" not in await page(client, links.events())


def piles_of(html: str) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """A curve as the page shows it: [(row title, [(pile head, [card names, top to bottom])])], a
    card named by its image's alt text or, without an image, by its shown name."""
    found = []
    for row in html.split('<div class="curve-row">')[1:]:
        title = re.search(r'<p class="curve-title">(.*?)</p>', row)[1]
        piles = [(head, [unescape(alt or text) for alt, text in
                         re.findall(r'<li><a class="tile"[^>]*>(?:<img [^>]*alt="([^"]*)"[^>]*>|<span class="tile-name">(.*?)</span>)', pile)])
                 for head, pile in re.findall(r'<div class="pile"><p class="pile-head">(.*?)</p><ul>(.*?)</ul></div>', row)]
        found.append((title, piles))
    return found


async def test_a_pool_shows_its_cards_images_in_piles_by_mana_value_with_its_exports(db):
    """Issue 32, item 6: a player's own pool, and every pool of a complete draft, show each card's
    image (lazy, its name as alt text; the name where the card data has no image) in piles by mana
    value (creatures, other spells, lands apart); the pool's page offers its exports behind the same
    signed link; the pick-by-pick page shows the packs' images."""
    from bot.cards.export import export
    from bot.kit import card_data
    from tests.web.helpers import add_card_data, image_of

    kinds = ("Creature — Elf", "Instant", "Basic Land — Forest")
    data = {f"Card <{i:03d}>": (float(i % 8), kinds[i % 3]) for i in range(60) if i % 10 != 9}  # some without data
    await add_card_data(db, data)
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    pod, prompts = await started(db)
    await play_out(db, prompts, random.Random(8))
    mine = USERS[0]
    cards = (await drafts.all_pools(db, pod.id))[mine]
    token = access.sign(site, access.Grant("draft-pool", mine, pod.id, 4_000_000_000), None)

    expected: dict[str, dict[str, list[str]]] = {}
    for name in cards:  # by hand: the Discord pool picture's piles
        mana_value, type_line = data.get(name, (0.0, ""))
        row = "Lands" if "Land" in type_line else "Creatures" if "Creature" in type_line else "Non-creature spells"
        column = "" if row == "Lands" else ("0-1", "2", "3", "4", "5", "6+")[min(max(int(mana_value) - 1, 0), 5)]
        expected.setdefault(row, {}).setdefault(column, []).append(name)
    async with site_client(db) as client:
        response = await client.get(links.private(token))
        html = await response.text()
        assert response.status == 200 and response.headers["Cache-Control"] == "private, no-store"
        assert "img-src 'self' https://cards.scryfall.io;" in response.headers["Content-Security-Policy"]
        shown = {title.rsplit(" (", 1)[0]: {head.rsplit(" (", 1)[0] if " (" in head else "": names
                                            for head, names in piles} for title, piles in piles_of(html)}
        assert shown == {row: expected[row] for row in ("Creatures", "Non-creature spells", "Lands") if row in expected}
        assert list(shown) == [r for r in ("Creatures", "Non-creature spells", "Lands") if r in expected]
        for name in cards:
            if name in data:
                assert f'loading="lazy" width="488" height="680" alt="{escape(name)}" src="{escape(image_of(name))}"' in html
            else:
                assert f'<span class="tile-name">{escape(name)}</span>' in html
        assert f'href="{links.event("draft", pod.id)}?seat=' in html  # complete: every pack they saw

        exports = re.findall(r'<a href="([^"]+/files/[^"]+)" download>', html)
        assert [e.rsplit("/", 1)[1] for e in exports] == [f"draft-{pod.id}-{end}" for end in
                                                          ("pool.dek", "pool-arena.txt", "pool.cod", "pool.txt")]
        deck_names = await card_data.export_names(db, cards)
        for href, fmt in zip(exports, ("mtgo", "arena", "cockatrice", "text"), strict=True):
            assert href.startswith(links.private(token) + "/files/")
            response = await client.get(href)
            assert response.status == 200 and response.headers["Cache-Control"] == "private, no-store"
            assert response.headers["Content-Disposition"] == f'attachment; filename="{href.rsplit("/", 1)[1]}"'
            assert await response.text() == export(cards, fmt, deck_name=f"Draft {pod.id}", names=deck_names)[1]
        forged = links.private(token[:-1] + ("A" if token[-1] != "A" else "B"))
        for bad in (f"{forged}/files/draft-{pod.id}-pool.txt", links.private_file(token, f"draft-{pod.id + 1}-pool.txt"),
                    links.private_file(token, f"draft-{pod.id}-pool.exe"),
                    links.event_file("draft", pod.id, f"draft-{pod.id}-pool.txt")):
            await page(client, bad, status=404)

        everyone = await page(client, links.event("draft", pod.id))
        assert len(piles_of(everyone.split("<h2>Pools</h2>")[1])) >= 3 * len(shown) - 3
        assert everyone.count(f'alt="{escape(cards[0])}"') + everyone.count(f'>{escape(cards[0])}</span>') >= 1
        packs = await page(client, links.event("draft", pod.id) + "?seat=1")
        assert packs.count('class="picked"') == 10 and packs.count('loading="lazy"') > 10


async def test_a_rotisserie_shows_its_progress_then_its_pools_and_no_packs(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    pod = await drafts.create_rotisserie_pod(db, ORG, channel_id=CHANNEL, cube=cube(), picks=4, offer=20, seed=5,
                                             max_seats=3)
    for user in USERS:
        await drafts.join(db, pod.id, player(user))
    prompts = (await drafts.begin(db, pod.id, ORG)).prompts
    path = links.event("draft", pod.id)
    async with site_client(db) as client:
        pending = await play_out(db, prompts, random.Random(2), stop_after=5)
        text = visible(await page(client, path))
        assert "Rotisserie draft · drafting · Test cube · 3 players · 4 picks each from 20 cards face up" in text
        progress, offer = text.split("On offer")
        assert "5 of 12 picks made" in progress and "Card" not in progress  # no card taken shows
        taken = [card for cards in (await drafts.all_pools(db, pod.id)).values() for card in cards]
        assert len(taken) == 5 and not any(card in offer for card in taken) and "15 cards on offer" in offer
        await play_out(db, pending.values(), random.Random(3))
        html = await page(client, path)
        for cards in (await drafts.all_pools(db, pod.id)).values():
            assert all(str(escape(card)) in html for card in cards)
        assert "?seat=" not in html and "mtgo.txt" not in html  # no packs to show a seat, no Magic Online log
        assert "Pools" in visible(await page(client, path + "?seat=1"))  # a seat's packs: none, the pools again
        log = json.loads(await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-draftmancer.json")))
        assert log["type"] == "Rotisserie Draft" and sum(len(u["picks"]) for u in log["users"].values()) == 12
        summary = await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-summary.txt"))
        assert f"Rotisserie draft #{pod.id}" in summary
        await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-seat-1-mtgo.txt"), status=404)


async def variant_started(db, variant: str, players: int, dealt: int) -> tuple[drafts.PodView, list]:
    columns = variants.start_options(variant, players, dealt)
    pod = await drafts.create_pod(db, ORG, channel_id=CHANNEL, cube=cube(), seed=5, max_seats=players, **columns)
    for user in USERS[:players]:
        await drafts.join(db, pod.id, player(user))
    begun = await drafts.begin(db, pod.id, ORG)
    return begun.pod, begun.prompts


async def test_a_winston_draft_shows_pile_sizes_only_then_its_pools_and_logs(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    pod, prompts = await variant_started(db, variants.WINSTON, 2, 24)
    path = links.event("draft", pod.id)
    async with site_client(db) as client:
        pending = await play_out(db, prompts, random.Random(4), stop_after=3)
        async with db.read() as session:
            piles = (await GAMES.load(session, pod.id, lock=False)).state.piles
        html = await page(client, path)
        text = visible(html)
        assert "Winston draft · drafting · Test cube · 2 players · 24 cards dealt face down" in text
        assert f"Piles: {' · '.join(str(len(p)) for p in piles)} cards" in text
        hidden = [card for pile in piles for card in pile]
        assert hidden and not any(str(escape(card)) in html or card in text for card in hidden)
        assert "Card" not in text  # no card of a pile, of the deck or of a pool
        await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-draftmancer.json"), status=404)
        await play_out(db, pending.values(), random.Random(5))
        html = await page(client, path)
        pools = await drafts.all_pools(db, pod.id)
        assert sum(map(len, pools.values())) == 24 and all(str(escape(c)) in html for cards in pools.values() for c in cards)
        log = json.loads(await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-draftmancer.json")))
        assert log["type"] == "Winston Draft" and sum(len(u["cards"]) for u in log["users"].values()) == 24
        summary = await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-summary.txt"))
        assert f"Winston draft #{pod.id}" in summary and summary.count("pool (") == 2


async def test_a_grid_draft_shows_its_grid_face_up_then_its_pools_and_logs(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    pod, prompts = await variant_started(db, variants.GRID, 3, 3)
    path = links.event("draft", pod.id)
    async with site_client(db) as client:
        text = visible(await page(client, path))
        assert "Grid draft · drafting · Test cube · 3 players · 3 grids of 3×3 cards face up" in text
        assert "Grid 1 of 3, as it is now: Card <" in text
        await play_out(db, prompts, random.Random(6))
        log = json.loads(await page(client, links.event_file("draft", pod.id, f"draft-{pod.id}-draftmancer.json")))
        assert log["type"] == "Grid Draft" and sum(len(u["picks"]) for u in log["users"].values()) == 9
