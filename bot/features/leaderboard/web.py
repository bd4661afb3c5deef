"""The leaderboard's web page (`/<address>/leaderboard`: one format's or all formats' board for a season
or all time, a page of rows at a time) and the seasons the server's pages list. Served by the web core's
`bot.web.pages.SitePages`, whose helpers (its cache of computed lists, its renderer) it uses."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from aiohttp import web
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.features.leaderboard import service as leaderboard
from bot.store.models import Season
from bot.web import page_cache, params
from bot.web.names import names_of

ROWS_PER_PAGE = 50
MAX_PAGE = 10_000
ALL_FORMATS = "all"
SEASON = re.compile(rf"{leaderboard.CURRENT}|{leaderboard.ALL_TIME}|\d{{1,18}}")


@dataclass(frozen=True)
class SeasonRow:
    id: int
    name: str
    started_at: datetime
    ended_at: datetime | None


MAX_SEASONS = 100


async def season_rows(session: AsyncSession, guild_id: int) -> list[SeasonRow]:
    """The server's seasons, newest first."""
    rows = await session.execute(
        select(Season.id, Season.name, Season.started_at, Season.ended_at)
        .where(Season.guild_id == guild_id).order_by(Season.started_at.desc(), Season.id.desc()).limit(MAX_SEASONS)
    )
    return [SeasonRow(*row) for row in rows]


async def leaderboard_page(site_pages: Any, request: web.Request) -> web.Response:
    """The page; `site_pages` is the site's `SitePages` (not imported: the web core imports this module)."""
    fmt = params.choice(request.query, "format", [*site_pages.format_titles, ALL_FORMATS], ALL_FORMATS)
    season = params.shaped(request.query, "season", SEASON) or leaderboard.CURRENT
    page = params.integer(request.query, "page", 1, 1, MAX_PAGE)
    async with site_pages.db.read() as session:
        site = await site_pages._site(session, request)
        guild_id = site.guild_id
        stamped = await page_cache.stamp(session, guild_id)
        seasons = await season_rows(session, guild_id)
        if season == leaderboard.CURRENT:
            period = await leaderboard.current_period(session, guild_id)
        elif season == leaderboard.ALL_TIME:
            period = leaderboard.ALL_TIME_PERIOD
    if season not in (leaderboard.CURRENT, leaderboard.ALL_TIME):
        period = await leaderboard.period_by_key(site_pages.db, guild_id, season)
    key = page_cache.key(site, stamped, "leaderboard", fmt, season, page, period, tuple(seasons))
    kept = site_pages.lists.get(key)
    if kept is not None:
        return kept

    async def compute() -> tuple:
        rows = await leaderboard.board(site_pages.db, guild_id, period, format=None if fmt == ALL_FORMATS else fmt)
        pages = max(1, -(-len(rows) // ROWS_PER_PAGE))
        shown_page = min(page, pages)
        shown = rows[(shown_page - 1) * ROWS_PER_PAGE : shown_page * ROWS_PER_PAGE]
        async with site_pages.db.read() as session:
            names = await names_of(session, guild_id, [r.user_id for r in shown])
        return shown, names, pages, shown_page

    shown, names, pages, page = await site_pages.computed.get((guild_id, stamped, "leaderboard", period, fmt, page),
                                                        compute)
    format_title = site_pages.format_titles.get(fmt, "All formats")
    return site_pages._keep_list(key, site_pages._render(
        site, "leaderboard.html", f"Leaderboard · {format_title} · {period.title}", rows=shown, names=names,
        fmt=fmt, season=season, seasons=seasons, period=period, page=page, pages=pages, all_formats=ALL_FORMATS))
