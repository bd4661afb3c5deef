"""/web: the link to this server's web pages, a player's links to their own pages, and a new address
for them. Also runs the site inside the bot process when `WEB_PORT` is set, renders the DM that
gives a player their own page when their event ends (`bot.kit.private_pages`), and remembers
members' display names for the pages."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.dispatch import require_guild
from bot.kit.errors import PermissionDenied, UserError
from bot.kit.private_pages import PRIVATE_LINK, PrivateLink
from bot.kit.text import escape
from bot.store.outage import is_database_outage
from bot.web import access, names, registry
from bot.web.buttons import URL_LIMIT, link_button, view_of
from bot.web.links import LINK_HOURS, SiteLinks, private_link
from bot.web.server import WebServer

log = logging.getLogger(__name__)
NO_SITE = "This bot's host has not set up its web site, so there is no link to give yet."


OWN_PAGES = 5  # the newest of a player's own pages that /web me gives
DAYS = LINK_HOURS // 24


RENDERERS = Renderers()  # the bot adds them to its table (`bot.app`)


@RENDERERS.renders(PRIVATE_LINK, PrivateLink)
async def own_page_link(owed: PrivateLink, ctx: Delivery) -> Outgoing | None:
    """A player's link to their own page of an event that just ended; none if the site went off since."""
    message = ctx.message
    if message.guild_id is None or message.user_id is None:
        return None
    url = await private_link(ctx.db, ctx.bot.settings, message.guild_id, kind=owed.page, user_id=message.user_id,
                             ref=owed.ref)
    if url is None:
        return None
    site = await access.site_of(ctx.db, message.guild_id)
    server = escape(site.title) if site is not None else "the server"
    return Outgoing(content=f"**{owed.title}** is over. Your own page of it on **{server}**'s web pages "
                            f"shows your picks and exports: only you can see it, and the link works for {DAYS} days "
                            f"(`/web me` gives it again).\n<{url}>",
                    view=view_of([link_button(url, "Your page")] if len(url) <= URL_LIMIT else []))


def home_url(bot: KitBot, site: access.Site) -> str:
    base = bot.settings.web_base_url
    if base is None:
        raise UserError(NO_SITE)
    return SiteLinks(site.address, base).home


@app_commands.guild_only()
class WebGroup(app_commands.Group, name="web", description="This server's web pages: events, results and leaderboards."):
    def __init__(self, bot: KitBot) -> None:
        super().__init__()
        self.bot = bot

    @app_commands.command(name="link", description="Get the link to this server's web pages (only you see it).")
    async def link(self, interaction: discord.Interaction) -> None:
        guild_id = require_guild(interaction)
        site = await access.site_of(self.bot.db, guild_id)
        if site is None:
            raise UserError(access.OFF)
        url = home_url(self.bot, site)
        if interaction.guild is not None and interaction.guild.name != site.title:
            await access.remember_title(self.bot.db, guild_id, interaction.guild.name)
        await interaction.response.send_message(
            f"**{escape(site.title)}** on the web: events in progress and finished, results and leaderboards.\n<{url}>",
            view=view_of([link_button(url)]), ephemeral=True)

    @app_commands.command(name="me", description="Get the links to your own pages: your picks of your drafts (only you see them).")
    async def me(self, interaction: discord.Interaction) -> None:
        guild_id = require_guild(interaction)
        site = await access.site_of(self.bot.db, guild_id)
        if site is None:
            raise UserError(access.OFF)
        home_url(self.bot, site)  # the host serves a site
        registry.load()
        async with self.bot.db.read() as session:
            pages = await registry.own_pages_of(session, guild_id, interaction.user.id, OWN_PAGES)
        if not pages:
            raise UserError("You have no pages of your own on this server's site yet: a draft you play in gets one.")
        lines = []
        for page in pages:
            url = await private_link(self.bot.db, self.bot.settings, guild_id, kind=page.kind,
                                     user_id=interaction.user.id, ref=page.ref)
            if url is not None:
                lines.append(f"**{page.title}** ({page.status}): <{url}>")
        await interaction.response.send_message(
            f"Your own pages: only you can see them, and each link works for {DAYS} days.\n" + "\n".join(lines),
            ephemeral=True)

    @app_commands.command(name="rotate", description="Give the web pages a new address; old links stop working (Manage Server, asks first).")
    async def rotate(self, interaction: discord.Interaction) -> None:
        guild_id = require_guild(interaction)
        if not interaction.permissions.manage_guild:
            raise PermissionDenied("Only members with the Manage Server permission can give the web pages a new address.")
        title = interaction.guild.name if interaction.guild is not None else None

        async def act() -> str:
            site = await access.rotate(self.bot.db, guild_id, title)
            url = home_url(self.bot, site)
            return f"The web pages have a new address; the old links no longer work. The new link (`/web link` gives it too):\n<{url}>"

        await confirm_then_act(
            interaction, "Give this server's web pages a new address? Every link to them shared so far stops working.",
            act, db=self.bot.db, label="Give a new address", keep="Keep this address")


class Web(commands.Cog):
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot
        self.server: WebServer | None = None
        self.seen = names.NameCache()

    async def cog_load(self) -> None:
        if self.bot.settings.web_port is None:
            return
        server = WebServer(self.bot.db, self.bot.settings)
        try:
            await server.start()
        except OSError as error:  # the port is taken, say: the bot plays on without its pages
            log.error("the web pages could not be served on port %s: %s", self.bot.settings.web_port, error)
            await server.stop()
            return
        self.server = server

    async def cog_unload(self) -> None:
        if self.server is not None:
            await self.server.stop()
            self.server = None

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Remember the member's display name, for the web pages (written once, and when it changes)."""
        user = interaction.user
        if interaction.guild_id is None or user.bot:
            return
        name = user.display_name
        if not self.seen.is_new(interaction.guild_id, user.id, name):
            return
        try:
            await names.remember(self.bot.db, interaction.guild_id, user.id, name)
        except Exception as error:  # noqa: BLE001 - a name is not worth an error: it is tried again next time
            self.seen.forget(interaction.guild_id, user.id)
            if not is_database_outage(error):
                raise
            log.info("a display name is remembered later: the database is unavailable (%s)", type(error).__name__)

    @commands.Cog.listener()
    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        if before.name != after.name:
            await access.remember_title(self.bot.db, after.id, after.name)


async def setup(bot: KitBot) -> None:
    await bot.add_cog(Web(bot))
    bot.tree.add_command(WebGroup(bot))
