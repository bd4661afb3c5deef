"""What the web tests share: settings for a test site, results written straight into the database
(as every format's end writes them: the result rows and the leaderboards' totals), and an aiohttp
test client of the site."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from html import unescape

from aiohttp.test_utils import TestClient, TestServer

import bot.games
from bot.cards.scryfall_api import CardData
from bot.kit import card_data, event_results
from bot.settings import Settings
from bot.store.db import Database
from bot.store.models import EventResult
from bot.web.app import make_app
from bot.web.guard import RateLimiter
from bot.web.page_cache import Computed, PageCache

START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)


def site_settings(**values) -> Settings:
    """Settings as a test site has them: none from the environment or a .env file."""
    values.setdefault("web_rate_limit", 0)
    return Settings(_env_file=None, **values)


async def add_results(
    db: Database, guild_id: int, format: str, event_id: int, name: str, users: Sequence[int], *,
    finished_at: datetime = START, season_id: int | None = None, scores: Sequence[float] | None = None,
) -> None:
    """An event's results: `users` in order of placement."""
    results = [event_results.Placement(user_id, place, event_results.placement_points(place, range(1, len(users) + 1)),
                                     scores[place - 1] if scores else None)
               for place, user_id in enumerate(users, start=1)]
    async with db.write() as session:
        _add(session, guild_id, format, event_id, name, results, finished_at, season_id)
        await event_results.add_to_totals(session, guild_id=guild_id, format=format, season_id=season_id,
                                        results=results)


async def add_many(db: Database, guild_id: int, count: int, users: Sequence[int], *, start: datetime = START) -> None:
    """`count` finished events, one a minute from `start`, every format in turn."""
    formats = list(bot.games.leaderboard_titles())
    async with db.write() as session:
        for index in range(count):
            ordered = [users[(index + k) % len(users)] for k in range(min(4, len(users)))]
            results = [event_results.Placement(user_id, place, 5.0 - place) for place, user_id in enumerate(ordered, 1)]
            fmt = formats[index % len(formats)]
            _add(session, guild_id, fmt, index + 1, f"Event {index + 1}", results, start + timedelta(minutes=index))
            await event_results.add_to_totals(session, guild_id=guild_id, format=fmt, season_id=None, results=results)


def _add(session, guild_id: int, format: str, event_id: int, name: str, results: Sequence[event_results.Placement],
         finished_at: datetime, season_id: int | None = None) -> None:
    """Result rows as `event_results.record_results` writes them, at a given time and season."""
    for result in results:
        session.add(EventResult(
            guild_id=guild_id, format=format, event_id=event_id, event_name=name, season_id=season_id,
            user_id=result.user_id, placement=result.placement, points=result.points, score=result.score,
            finished_at=finished_at))


def image_of(name: str, host: str = "https://cards.scryfall.io") -> str:
    """A card's image address as Scryfall's card data gives it (on `host`)."""
    return f"{host}/normal/front/{abs(hash(name)) % 10}/{name_key_path(name)}.jpg?1700000000"


def name_key_path(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "card"


async def add_card_data(db: Database, cards: dict[str, tuple[float, str]], host: str | None = "https://cards.scryfall.io") -> None:
    """Scryfall's data of `cards` ({name: (mana value, type line)}), with an image on `host` (None: no image)."""
    await card_data.store(db, {name: CardData(
        name=name, front_name=name.split(" // ")[0], colours="R", colour_identity="R", type_line=type_line,
        mana_value=mana_value, rarity="common", set_code="tst",
        image_uris={"normal": image_of(name, host)} if host else {}) for name, (mana_value, type_line) in cards.items()})


@contextlib.asynccontextmanager
async def site_client(db: Database, settings: Settings | None = None, limiter: RateLimiter | None = None,
                      page_cache: PageCache | None = None, computed: Computed | None = None) -> AsyncIterator[TestClient]:
    app = make_app(db, settings or site_settings(), limiter=limiter, page_cache=page_cache, computed=computed)
    async with TestClient(TestServer(app)) as client:
        yield client


async def page(client: TestClient, path: str, status: int = 200) -> str:
    """The page's HTML, checking its status."""
    response = await client.get(path)
    text = await response.text()
    assert response.status == status, (path, response.status, text[:500])
    return text


def visible(html: str) -> str:
    """The page's text as a reader sees it: tags stripped, entities read, whitespace collapsed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


NOT_FOUND = "/s/" + "A" * 43  # an address no server has: what a forged or foreign id must look like
