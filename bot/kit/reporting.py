"""How an interaction's error reaches the user (and the log), in one place.

User mistakes (`UserError` and discord.py's check failures) get their message, ephemerally, and so
does a database outage ("try again in a moment", see `bot.store.outage`). Anything else is a bug: it is logged with a short id the user can quote, and the log names the command or
component, the ids involved and the option names, never what the user typed (write-ups, reasons).
"""

from __future__ import annotations

import logging
import uuid

import discord
from discord import app_commands

from bot.kit import limits
from bot.kit.errors import UserError
from bot.store.outage import is_database_outage

log = logging.getLogger("bot")
# Said within Discord's 3 seconds: the database's waits are bounded (`Database(write_wait=…)`).
DATABASE_BUSY = "The database is busy right now, so nothing was changed. Please try again in a moment."


def user_message_for(error: BaseException) -> str | None:
    """The message to show for a mistake the user made (or an outage), or None for a bug."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        original = getattr(error, "original", None) or error.__cause__
        if original is not None and original is not error:
            return user_message_for(original)
    if isinstance(error, UserError):
        return str(error)
    if is_database_outage(error):
        return DATABASE_BUSY
    if isinstance(error, app_commands.MissingPermissions):
        perms = ", ".join(p.replace("_", " ").replace("guild", "server").title() for p in error.missing_permissions)
        return f"You need the {perms} permission to do that."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "That command only works in a server, not in DMs."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or "You can't use that command here."
    if isinstance(error, app_commands.TransformerError):
        return "That is not a valid value for that option."
    return None


def describe(interaction: discord.Interaction) -> str:
    """What the interaction was, without user-typed text: for the log."""
    data = interaction.data or {}
    parts = [f"type={interaction.type.name}", f"user={interaction.user.id}",
             f"guild={interaction.guild_id}", f"channel={interaction.channel_id}"]
    if interaction.command is not None:
        parts.append(f"command=/{interaction.command.qualified_name}")
        parts.append(f"options={_option_names(data.get('options') or [])}")
    elif data.get("custom_id"):
        parts.append(f"custom_id={str(data['custom_id'])[:100]!r}")
    return " ".join(parts)


def _option_names(options: list) -> list[str]:
    names: list[str] = []
    for option in options:
        if option.get("type") in (1, 2):  # subcommand (group): its options are the interesting ones
            names += _option_names(option.get("options") or [])
        else:
            names.append(str(option.get("name")))
    return names


def error_text(interaction: discord.Interaction, error: BaseException) -> str:
    """What to tell the user about `error`: a mistake's message, or (logged with an id the user can
    quote) that something went wrong on our side."""
    message = user_message_for(error)
    if message is None:
        error_id = uuid.uuid4().hex[:8]
        log.error("unexpected error %s in interaction %s", error_id, describe(interaction), exc_info=error)
        message = f"Sorry, something went wrong on our side (error id `{error_id}`). Nothing you did was lost."
    elif message == DATABASE_BUSY:  # the outage is logged once, by the database's watch, which counts this
        watch = getattr(getattr(interaction.client, "db", None), "outage", None)
        if watch is not None:
            watch.refused()
        log.debug("database unavailable during interaction %s: %s", describe(interaction), type(error).__name__)
    return limits.clip(message, limits.CONTENT)


def answer_was_lost(error: BaseException) -> bool:
    """Discord no longer takes an answer to this interaction (10062 Unknown interaction: too late,
    or lost on the way). Not our bug; the user sees no answer and may repeat what they did."""
    original = getattr(error, "original", None) or error
    return isinstance(original, discord.NotFound) and original.code == 10062


async def report_interaction_error(interaction: discord.Interaction, error: BaseException) -> None:
    """User mistakes get their message; anything else is logged with an id the user can quote."""
    if answer_was_lost(error):
        log.warning("the answer to interaction %s was lost (10062 Unknown interaction)", describe(interaction))
        return
    await send_ephemeral(interaction, error_text(interaction, error))


async def send_ephemeral(interaction: discord.Interaction, message: str) -> None:
    message = limits.clip(message, limits.CONTENT)  # a long explanation must still reach the user
    try:
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not tell the user about an error", exc_info=True)
