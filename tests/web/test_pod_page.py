"""A pod's page (bot/games/pod_matches/web.py) on SQLite and PostgreSQL, from matches played
through the real service: its rounds, pairings and results, the standings, the players' decks once it
has ended; only the server's own."""

from __future__ import annotations

import pytest

from bot.games.pod_matches import service as pods
from bot.web import access, names
from bot.web.links import SiteLinks
from tests.common import GUILD, OTHER_GUILD, player
from tests.games.draft.test_service import ADMIN
from tests.games.pod_matches.test_service import DECK, drafted, play_round
from tests.web.helpers import page, site_client, visible

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def test_a_pods_page_shows_its_rounds_and_standings(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    other, _ = await access.turn_on(db, OTHER_GUILD, "Elsewhere")
    await names.remember(db, GUILD, 1001, "Alice")
    view = await drafted(db, 4)
    async with site_client(db) as client:
        path = SiteLinks(site.address).event(pods.KIND, view.id)
        assert "The matches have not started." in visible(await page(client, path))
        view = await pods.start(db, view.id, ADMIN)
        text = visible(await page(client, path))
        assert "Round 1" in text and "playing" in text and "Alice" in text
        view = await play_round(db, view, lambda a, b: (2, 1))
        text = visible(await page(client, path))
        assert "2–1" in text and "Standings" in text and "OMW" in text and "1–0–0" in text
        await page(client, SiteLinks(other.address).event(pods.KIND, view.id), 404)  # another server's


async def test_a_pods_page_shows_the_players_decks_only_once_it_has_ended(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    await names.remember(db, GUILD, 1001, "Alice")
    view = await pods.start(db, (await drafted(db, 4)).id, ADMIN)
    a, b = next((p.a, p.b) for p in view.state.current() if p.b is not None)
    await names.remember(db, GUILD, a, "Deckbuilder")
    reported = await pods.report(db, view.id, player(a), 2, 0, deck=DECK)
    view = await pods.confirm(db, view.id, reported.claim.number, player(b))
    async with site_client(db) as client:
        path = SiteLinks(site.address).event(pods.KIND, view.id)
        running = await page(client, path)
        assert "Lightning Bolt" not in running and "Decks" not in visible(running)  # hidden while it runs
        view = await play_round(db, view, lambda x, y: (2, 1))
        await pods.end(db, view.id, ADMIN)
        html = await page(client, path)
        text = visible(html)
        assert "Decks" in text and "Deckbuilder : 7 cards" in text and "5 Lightning Bolt" in text
        assert "Sideboard: 1 Opt" in text
        # The card names are escaped: shown as typed, never markup nor a link.
        assert "2 <b>Fireball</b> [x](https://e.vil)" in text and "<b>Fireball" not in html
        assert 'href="https://e.vil' not in html
