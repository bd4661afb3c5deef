"""A Rotisserie on the web (bot/games/draft/web.py), on SQLite and PostgreSQL, through the real
services: the draft's page shows the cards still on offer as images, filtered by name, colour and
type with a plain GET form; the player on turn picks from their own signed page with a form bound
to that pick (the same `drafts.pick` as `/draft take`), and every other post does nothing: another
player's, a forged link, a stale or replayed form, one for a card gone, a second submit."""

from __future__ import annotations

import re
import time
from html import unescape

import pytest
from markupsafe import escape

from bot.cards.model import Card
from bot.features.cubes.service import CubeDetail
from bot.games.draft import service as drafts
from bot.games.draft.rotisserie_rules import seat_of_turn
from bot.games.draft.service.state import GAMES
from bot.games.draft.web import TAKE
from bot.web import access
from bot.web.links import SiteLinks
from tests.common import CHANNEL, GUILD, ORG, OTHER_GUILD, player
from tests.web.helpers import page, site_client, visible

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
USERS = [1001, 1002, 1003]
TYPES = ["Creature — Elf", "Instant", "Sorcery", "Artifact", "Land"]


def cube(size: int = 30) -> CubeDetail:
    """Cards of every colour and type: "Card <007>" is colour "WUBRG"[7 % 5], type TYPES[7 % 5]
    (every 10th is multicolour)."""
    cards = tuple(Card(name=f"Card <{i:03d}>", colour="WU" if i % 10 == 9 else "WUBRG"[i % 5],
                       type_line=TYPES[i % 5]) for i in range(size))
    return CubeDetail(name="Test cube", size=size, source="upload", source_ref=None, cards=cards)


async def rotisserie(db, picks: int = 3, offer: int = 20):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    pod = await drafts.create_rotisserie_pod(db, ORG, channel_id=CHANNEL, cube=cube(), picks=picks, offer=offer,
                                             seed=5, max_seats=3)
    for user in USERS:
        await drafts.join(db, pod.id, player(user))
    await drafts.begin(db, pod.id, ORG)
    return site, pod.id


def own_link(site: access.Site, user_id: int, pod_id: int, kind: str = TAKE, hours: float = 1) -> str:
    grant = access.Grant(kind, user_id, pod_id, int(time.time() + hours * 3600))
    return SiteLinks(site.address).private(access.sign(site, grant, None))


async def state(db, pod_id: int):
    async with db.read() as session:
        return (await GAMES.load(session, pod_id, lock=False)).state


async def on_turn(db, pod_id: int) -> int:
    found = await state(db, pod_id)
    return USERS[found.on_turn()] if found.on_turn() is not None else None


def forms(html: str) -> list[dict[str, str]]:
    """Each Take form's hidden fields."""
    return [{name: unescape(value) for name, value in re.findall(r'name="(\w+)" value="([^"]*)"', form)}
            for form in re.findall(r'<form method="post".*?</form>', html, re.S)]


async def post(client, path: str, fields: dict[str, str], status: int = 303):
    response = await client.post(path, data=fields, allow_redirects=False)
    text = await response.text()
    assert response.status == status, (path, response.status, text[:500])
    return response, text


def offered_names(html: str) -> list[str]:
    section = html.split("<h2>On offer</h2>")[1]
    return [unescape(name) for name in re.findall(r'class="tile-name">([^<]*)<|alt="([^"]*)"', section) for name in name if name]


async def test_the_draft_page_shows_the_offer_as_images_filtered_without_script(db):
    site, pod_id = await rotisserie(db)
    path = SiteLinks(site.address).event("draft", pod_id)
    async with site_client(db) as client:
        html = await page(client, path)
        offer = list((await state(db, pod_id)).cards)
        assert offered_names(html) == offer and "20 cards on offer." in visible(html)
        assert '<form class="filter" method="get"' in html and "<script" not in html
        assert '<form method="post"' not in html and "Take</button>" not in html  # the public page takes nothing

        by_colour = offered_names(await page(client, path + "?colour=G"))
        assert by_colour and all(int(name[6:9]) % 5 == 4 and int(name[6:9]) % 10 != 9 for name in by_colour)
        multi = offered_names(await page(client, path + "?colour=M"))
        assert multi and all(int(name[6:9]) % 10 == 9 for name in multi)
        creatures = offered_names(await page(client, path + "?type=Creature"))
        assert creatures and all(int(name[6:9]) % 5 == 0 for name in creatures)
        one = offer[3]
        html = await page(client, path + "?q=" + one[6:9])
        assert offered_names(html) == [one] and "1 card of 20 on offer match" in visible(html)
        assert 'value="' + one[6:9] + '"' in html  # the filter keeps what was typed
        assert offered_names(await page(client, path + "?q=sorcery&colour=B")) == [
            name for name in offer if int(name[6:9]) % 5 == 2]  # black and a sorcery: i % 5 == 2
        assert offered_names(await page(client, path + "?q=sorcery&colour=R")) == []
        await page(client, path + "?colour=purple", status=400)
        await page(client, path + "?q=" + "x" * 101, status=400)


async def test_the_player_on_turn_picks_from_their_page_and_nothing_else_counts(db):
    site, pod_id = await rotisserie(db)
    async with site_client(db) as client:
        first = await on_turn(db, pod_id)
        mine = own_link(site, first, pod_id)
        html = await page(client, mine)
        assert "It is your pick" in visible(html) and "<script" not in html
        take_forms = forms(html)
        assert [f["card"] for f in take_forms] == list((await state(db, pod_id)).cards)
        chosen = take_forms[2]

        # Someone else's page shows the offer, whose turn it is, and no Take button.
        other = next(u for u in USERS if u != first)
        theirs = await page(client, own_link(site, other, pod_id))
        assert forms(theirs) == [] and "yours comes in" in visible(theirs)

        before = await state(db, pod_id)
        # Refused, and nothing changes: the form posted to another player's page (its token is this
        # page's), a forged link, an expired one, another server's pod, a form with no token.
        await post(client, own_link(site, other, pod_id), chosen, status=403)
        forged = mine[:-3] + ("AAA" if not mine.endswith("AAA") else "BBB")
        await post(client, forged, chosen, status=404)
        await post(client, own_link(site, first, pod_id, hours=-1), chosen, status=404)
        await post(client, own_link(site, first, pod_id, kind="draft-pool"), chosen, status=404)  # a page with no form
        await post(client, mine, {**chosen, "form": "x" * 22}, status=403)
        await post(client, mine, {**chosen, "pick": str(int(chosen["pick"]) + 1)}, status=403)  # the token is the pick's
        await post(client, mine, {**chosen, "card": "Card <999>"}, status=409)
        response = await client.post(mine, data=b"card=x", headers={"Content-Type": "text/plain"},
                                     allow_redirects=False)
        assert response.status == 400
        assert (await state(db, pod_id)).picks == before.picks

        # The pick, then the same form again (a double submit): it counts once.
        response, _ = await post(client, mine, {**chosen, "q": "Card"})
        assert response.headers["Location"] == mine + "?q=Card"
        again, text = await post(client, mine, chosen, status=409)
        assert "made already" in visible(text)
        after = await state(db, pod_id)
        assert after.picks == [*before.picks, (USERS.index(first), chosen["card"])]
        assert chosen["card"] not in after.cards
        stored = await drafts.all_pools(db, pod_id)
        assert sum(len(cards) for cards in stored.values()) == 1

        # The old page's other forms are stale now: refused, nothing changes.
        await post(client, mine, take_forms[5], status=409)
        assert (await state(db, pod_id)).picks == after.picks


async def test_a_whole_rotisserie_picked_from_the_web(db):
    site, pod_id = await rotisserie(db, picks=2, offer=12)
    async with site_client(db) as client:
        for turn in range(6):
            user = await on_turn(db, pod_id)
            assert USERS.index(user) == seat_of_turn(turn, 3)
            own = own_link(site, user, pod_id)
            await post(client, own, forms(await page(client, own))[-1])
        done = await page(client, own_link(site, USERS[0], pod_id))
        assert forms(done) == [] and "nothing to take" in visible(done)
    pools = await drafts.all_pools(db, pod_id)
    assert sorted(len(cards) for cards in pools.values()) == [2, 2, 2]


async def test_another_servers_pod_is_not_found(db):
    site, pod_id = await rotisserie(db)
    other, _ = await access.turn_on(db, OTHER_GUILD, "Elsewhere")
    async with site_client(db) as client:
        user = await on_turn(db, pod_id)
        await page(client, own_link(other, user, pod_id), status=404)
        await page(client, SiteLinks(other.address).event("draft", pod_id), status=404)
        assert str(escape("Card <")) not in await page(client, SiteLinks(other.address).home)


async def test_a_seat_handed_to_a_bot_says_so_and_has_no_button(db):
    site, pod_id = await rotisserie(db)
    first = await on_turn(db, pod_id)
    waiting = next(u for u in USERS if u != first)
    await drafts.replace_with_bot(db, pod_id, waiting, ORG)
    async with site_client(db) as client:
        html = await page(client, own_link(site, waiting, pod_id))
        assert "A bot plays your seat" in visible(html) and forms(html) == []
