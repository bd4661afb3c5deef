"""A pod's page (bot/games/pod_matches/web.py) on SQLite and PostgreSQL, from matches played
through the real service: its rounds, pairings and results, the standings; only the server's own."""

from __future__ import annotations

import pytest

from bot.games.pod_matches import service as pods
from bot.web import access, names
from bot.web.links import SiteLinks
from tests.common import GUILD, OTHER_GUILD
from tests.games.draft.test_service import ADMIN
from tests.games.pod_matches.test_service import drafted, play_round
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
