"""Addresses of a server's pages, the same for the site's own links and for the bot's link buttons.

    /s/<address>                         the server's home
    /s/<address>/leaderboard             ?format=<key|all>&season=<current|all|season id>&page=<n>
    /s/<address>/events                  every finished event, newest first (?before=<cursor>)
    /s/<address>/events/<kind>/<id>      one event: its format's page, or its results
    /s/<address>/events/<kind>/<id>/files/<name>   a download of one event (a format's exports)
    /s/<address>/me/<signed token>       a player's own page (see `access.Grant`)
    /s/<address>/me/<signed token>/files/<name>    a download of it (a pool's exports)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urlencode

from bot.settings import Settings
from bot.store.db import Database
from bot.web import access

PREFIX = "/s"
LINK_HOURS = 24 * 7  # how long a player's signed link to their own page works


@dataclass(frozen=True)
class SiteLinks:
    """Paths (and, with a `base`, full URLs) of one server's pages."""

    address: str
    base: str = ""  # "https://mtg.example.org", or "" for paths

    @property
    def home(self) -> str:
        return f"{self.base}{PREFIX}/{self.address}"

    def leaderboard(self, format: str | None = None, season: str | None = None, page: int | None = None) -> str:
        query = {key: value for key, value in (("format", format), ("season", season)) if value not in (None, "")}
        if page not in (None, 1):
            query["page"] = page
        return f"{self.home}/leaderboard" + (f"?{urlencode(query)}" if query else "")

    def events(self, before: str | None = None) -> str:
        return f"{self.home}/events" + (f"?{urlencode({'before': before})}" if before else "")

    def event(self, kind: str, event_id: int) -> str:
        return f"{self.home}/events/{kind}/{event_id}"

    def event_file(self, kind: str, event_id: int, name: str) -> str:
        """A download of one event (a format's `registry.event_file`)."""
        return f"{self.event(kind, event_id)}/files/{name}"

    def private(self, token: str) -> str:
        return f"{self.home}/me/{token}"

    def private_file(self, token: str, name: str) -> str:
        return f"{self.private(token)}/files/{name}"


async def site_links(db: Database, settings: Settings, guild_id: int) -> SiteLinks | None:
    """Full URLs of the server's pages; None while they are off or the host serves no site."""
    base = settings.web_base_url
    if base is None:
        return None
    site = await access.site_of(db, guild_id)
    return None if site is None else SiteLinks(site.address, base)


async def private_link(
    db: Database, settings: Settings, guild_id: int, *, kind: str, user_id: int, ref: int, hours: float = LINK_HOURS,
) -> str | None:
    """A signed link to player `user_id`'s own page `kind` of object `ref`, good for `hours` (for the
    bot to DM them); None while the server's pages are off or the host serves no site."""
    base = settings.web_base_url
    site = await access.site_of(db, guild_id) if base else None
    if site is None:
        return None
    grant = access.Grant(kind, user_id, ref, int(time.time() + hours * 3600))
    secret = settings.web_secret.get_secret_value() if settings.web_secret else None
    return SiteLinks(site.address, base).private(access.sign(site, grant, secret))
