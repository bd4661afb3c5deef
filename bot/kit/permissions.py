"""What the bot may do in a server's channels, from discord.py's cache of the server's roles and
channel overwrites (kept current by the gateway): which permissions it needs to post and lacks."""

from __future__ import annotations

import discord

# What every post in a server channel needs (lobbies, announcements, results, clocks): to see the
# channel, to send, and to show embeds (without Embed Links Discord sends them without). Each one
# withholds the next (Discord counts a channel the bot can't see as no permission at all, and one
# it can't send in as no Embed Links either), so the first one missing is what to grant.
NEEDED = (("view_channel", "View Channel"), ("send_messages", "Send Messages"), ("embed_links", "Embed Links"))
CANNOT_SEE = 50001  # Discord's "Missing Access"


def missing_permission(bot: discord.Client, guild_id: int | None, channel_id: int) -> str | None:
    """The first permission the bot needs in the channel and lacks, by its name in Discord's
    settings ("" when it lacks none); None when the bot knows no such channel (deleted)."""
    guild = bot.get_guild(guild_id) if guild_id is not None else None
    channel = guild.get_channel_or_thread(channel_id) if guild is not None else None
    if channel is None or guild.me is None:
        return None
    allowed = channel.permissions_for(guild.me)
    return next((name for attribute, name in NEEDED if not getattr(allowed, attribute)), "")


def channel_problem(bot: discord.Client, guild_id: int | None, channel_id: int) -> str | None:
    """Why the bot can't post in the channel, in a few words, or None if it can."""
    missing = missing_permission(bot, guild_id, channel_id)
    if missing is None:
        return "I can't find this channel (deleted?)"
    return f"I lack the **{missing}** permission there" if missing else None


def refused_text(bot: discord.Client, guild_id: int | None, channel_id: int, what: str, code: int) -> str:
    """Telling an organizer that `what` (a results post) could not be posted in the channel."""
    problem = channel_problem(bot, guild_id, channel_id)
    if problem is None:  # fixed since, or Discord knew better than the cache: say what Discord said
        problem = "I couldn't see the channel" if code == CANNOT_SEE else "Discord said I lack a permission there"
    needed = ", ".join(name for _attribute, name in NEEDED[:-1]) + f" and {NEEDED[-1][1]}"
    return (f"⚠️ I couldn't post {what} in <#{channel_id}>: {problem}. The results are saved (`/leaderboard` "
            f"shows them). Give me {needed} in that channel, or choose another one with "
            "`/config set leaderboard_channel`; `/config show` lists every channel where I lack a permission.")
