""""View on the web" link buttons for Discord messages, when the server's pages are on.

    buttons = await event_buttons(bot.db, bot.settings, guild_id, "turnabout", event_id)
    view = discord.ui.View(timeout=None); [view.add_item(b) for b in buttons]

A format's end-of-event post and its standings reply carry the button to the event's page with
`event_view(bot, guild_id, kind, event_id)` (an outbox renderer passes `ctx.bot` and the row's
server, `ctx.message.guild_id`): it reads whether the site is on when the message is rendered, so a
post sent late (by the sweeper, after a restart) links to the site as it is then.

Each helper returns no button while the server's pages are off or the host serves no site, so a
message never carries a link that leads nowhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import discord

from bot.settings import Settings
from bot.store.db import Database
from bot.web.links import SiteLinks, site_links

LABEL = "View on the web"
URL_LIMIT = 512  # Discord's limit for a link button's URL


def link_button(url: str, label: str = LABEL) -> discord.ui.Button:
    return discord.ui.Button(style=discord.ButtonStyle.link, url=url, label=label)


async def web_buttons(
    db: Database, settings: Settings, guild_id: int, page: Callable[[SiteLinks], str], label: str = LABEL,
) -> list[discord.ui.Button]:
    """A link button to the server's page `page(links)` (e.g. `lambda links: links.home`)."""
    links = await site_links(db, settings, guild_id)
    if links is None:
        return []
    url = page(links)
    return [link_button(url, label)] if len(url) <= URL_LIMIT else []


async def event_buttons(db: Database, settings: Settings, guild_id: int, kind: str, event_id: int) -> list[discord.ui.Button]:
    """The button to an event's page (`kind`: its format's key, as its page is registered)."""
    return await web_buttons(db, settings, guild_id, lambda links: links.event(kind, event_id))


async def leaderboard_buttons(
    db: Database, settings: Settings, guild_id: int, *, format: str | None = None, season: str | None = None,
) -> list[discord.ui.Button]:
    """The button to a leaderboard page (`season`: "all", a season id, or None for the current one)."""
    return await web_buttons(db, settings, guild_id, lambda links: links.leaderboard(format, season))


class Host(Protocol):
    """What the bot (`KitBot`) holds that the buttons need."""

    db: Database
    settings: Settings


async def event_links(host: Host, guild_id: int | None, kind: str, event_id: int) -> list[discord.ui.Button]:
    """`event_buttons` for the bot `host`; none outside a server."""
    return [] if guild_id is None else await event_buttons(host.db, host.settings, guild_id, kind, event_id)


async def event_view(host: Host, guild_id: int | None, kind: str, event_id: int) -> discord.ui.View | None:
    """The view of an event's end-of-event post or status reply: its page's button, or None."""
    return view_of(await event_links(host, guild_id, kind, event_id))


def view_of(buttons: Sequence[discord.ui.Item]) -> discord.ui.View | None:
    """A view holding `buttons` (or any items), or None when there is none."""
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    for button in buttons:
        view.add_item(button)
    return view
