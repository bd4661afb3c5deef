"""Looking things up is quiet: a status, standings, a list or a leaderboard answers only the one who
asked, unless they ask to post it for everyone (the `post:` option every look-up command takes,
described by `POST`); a posted answer pings nobody."""

from __future__ import annotations

from typing import Any

import discord

from bot.kit.paginate import PageList, send_paginated

POST = "True: post it in the channel for everyone (by default only you see it)."


async def answer(interaction: discord.Interaction, *, post: bool, **message: Any) -> None:
    """A look-up's answer (`message`: what `send_message` takes), to the one who asked or, with
    `post`, in the channel for everyone."""
    await interaction.response.send_message(**message, ephemeral=not post,
                                            allowed_mentions=discord.AllowedMentions.none())


async def answer_pages(interaction: discord.Interaction, pages: PageList, key: str, *, post: bool, page: int = 0) -> None:
    """A look-up answered in pages (`bot.kit.paginate`), privately unless `post`."""
    await send_paginated(interaction, pages, key, ephemeral=not post, page=page)
