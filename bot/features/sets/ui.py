"""Importing a set from Scryfall in answer to a command, its progress shown as the pages load."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.cards.sets import CardSet, ImportProgress, SetListError, fetch_scryfall_set
from bot.features.sets import service as set_lists
from bot.kit import limits
from bot.kit.client import KitBot
from bot.kit.dispatch import actor_of
from bot.kit.errors import UserError
from bot.kit.text import escape, plural, plural_word

SCRYFALL_TIMEOUT = 60.0


async def set_key_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The server's sets whose key or name contains what was typed."""
    if interaction.guild_id is None:
        return []
    bot: KitBot = interaction.client  # type: ignore[assignment]
    found = await set_lists.set_keys(bot.db, interaction.guild_id, current or "")
    return [app_commands.Choice(name=limits.clip(f"{s.key} — {s.name} ({plural(s.card_count, 'card')})", 100),
                                value=s.key) for s in found]


async def import_set(bot: KitBot, interaction: discord.Interaction, key: str, code: str) -> CardSet:
    """Import set `code` from Scryfall and store it as `key`, showing the pages as they load in the
    interaction's deferred response."""
    async def progress(status: ImportProgress) -> None:
        of = f" of {status.total_cards}" if status.total_cards else ""
        cards = plural_word(status.total_cards or status.cards_loaded, "card")
        await interaction.edit_original_response(
            content=f"⏳ Importing `{code}` from Scryfall: {status.cards_loaded}{of} {cards} "
                    f"(page {status.pages_loaded})…")

    await interaction.edit_original_response(content=f"⏳ Importing `{code}` from Scryfall…")
    try:
        card_set = await fetch_scryfall_set(code, base=bot.settings.scryfall_base, progress=progress,
                                            timeout=SCRYFALL_TIMEOUT)
    except SetListError as error:
        raise UserError(f"Could not import `{escape(code)}`: {error.message}") from None
    await set_lists.add_set(bot.db, actor_of(interaction), key, card_set, source_ref=code)
    return card_set
