"""/421 set add | list | remove: the server's set lists for 421 leagues, and importing a set from
Scryfall with its progress shown (also what `/421 start` does for a set code the server lacks).

`SetListCommands` is mixed into the 421 cog; `add_set_commands` puts the `set` subgroup into the
cog's `/421` group (its commands are answered by the mixin's methods, bound to the cog)."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.cards.sets import CardSet, SetListError, parse_set_bytes
from bot.features.sets import service as set_lists
from bot.features.sets.ui import import_set, set_key_autocomplete
from bot.games.four_two_one import ui
from bot.kit import limits, lookups
from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.dispatch import InvalidPayload, actor_of
from bot.kit.errors import PermissionDenied, UserError
from bot.kit.paginate import Page, PageList, slice_page
from bot.kit.text import escape, plural
from bot.kit.uploads import read_upload
from bot.store.db import Database

SET_PAGES = PageList("fourtwoone_sets")
SETS_PER_PAGE = 25


def _choice(label: str, value: str) -> app_commands.Choice[str]:
    return app_commands.Choice(name=limits.clip(label, 100), value=value)


def _db(interaction: discord.Interaction) -> Database:
    bot: KitBot = interaction.client  # type: ignore[assignment]
    return bot.db


async def sets_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """`/421 start sets:`: completes the last name typed, keeping the ones before it."""
    if interaction.guild_id is None:
        return []
    typed = current or ""
    cut = max(typed.rfind(","), typed.rfind(" "), typed.rfind(";")) + 1
    before, last = typed[:cut], typed[cut:]
    if before and not before.endswith(" "):
        before += " "
    found = await set_lists.set_keys(_db(interaction), interaction.guild_id, last)
    return [_choice(f"{before}{s.key} — {s.name}", f"{before}{s.key}") for s in found if len(before + s.key) <= 100]


class SetListCommands:
    """The `/421 set …` commands and the Scryfall import, for the 421 cog (which has `db` and `bot`)."""

    bot: KitBot
    db: Database

    async def import_set(self, interaction: discord.Interaction, key: str, code: str) -> CardSet:
        return await import_set(self.bot, interaction, key, code)

    @app_commands.describe(
        name="What leagues call this set (`/421 start sets:`): 1–20 letters, digits, - or _. Default: the code.",
        file="A set list: `rarity,name` lines (C/U/R/M), or a CSV with a Rarity column.",
        code="A Scryfall set code to import (e.g. ala for Shards of Alara).",
        title="The set's full name, shown in leagues (an uploaded list; Scryfall gives its own).",
    )
    async def set_add(self, interaction: discord.Interaction, name: app_commands.Range[str, 1, 20] | None = None,
                      file: discord.Attachment | None = None, code: app_commands.Range[str, 2, 8] | None = None,
                      title: app_commands.Range[str, 1, 100] | None = None) -> None:
        if (file is None) == (code is None):
            raise UserError("Give exactly one of `file` (an uploaded set list) or `code` (a Scryfall set code).")
        if name is None and code is None:
            raise UserError("Give the set a `name` (what `/421 start sets:` will call it).")
        actor = actor_of(interaction)
        key = await set_lists.ensure_key_free(self.db, actor, name or code)
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            card_set = await self._add_set(interaction, key, file, code, title)
        except UserError as error:  # shown in place of the progress
            await interaction.edit_original_response(content=limits.clip(str(error), limits.CONTENT))
            return
        counts = ", ".join(f"{n} {rarity}" for rarity, n in card_set.rarity_counts().items() if n)
        basics = f"; basic lands: {', '.join(card_set.basics)}" if card_set.basics else ""
        await interaction.edit_original_response(
            content=limits.clip(f"Added the set `{key}`: **{escape(card_set.name)}**, "
                                f"{plural(len(card_set.cards), 'card')} ({counts}){basics}. Use it with `/421 start sets:{key}` or "
                                f"`/draft start set:{key}`.", limits.CONTENT))

    async def _add_set(self, interaction: discord.Interaction, key: str, file: discord.Attachment | None,
                       code: str | None, title: str | None) -> CardSet:
        if file is None:
            return await self.import_set(interaction, key, code)
        try:
            card_set = parse_set_bytes(await read_upload(file, "set list"), code=key, name=title, filename=file.filename)
        except SetListError as error:
            raise UserError(f"`{escape(file.filename)}`: {error.message}") from None
        await set_lists.add_set(self.db, actor_of(interaction), key, card_set, source_ref=file.filename)
        return card_set

    @app_commands.describe(post=lookups.POST)
    async def set_list(self, interaction: discord.Interaction, post: bool = False) -> None:
        if interaction.guild_id is None:
            raise UserError("Set lists belong to a server: use that command in one.")
        await lookups.answer_pages(interaction, SET_PAGES, str(interaction.guild_id), post=post)

    async def sets_page(self, interaction: discord.Interaction, key: str, page: int) -> Page:
        if not key.isascii() or not key.isdigit() or len(key) > 19:
            raise InvalidPayload()
        if int(key) != interaction.guild_id:
            raise PermissionDenied("Those set lists belong to another server.")
        summaries = await set_lists.list_sets(self.db, int(key))
        shown, page, pages = slice_page(ui.set_list_lines(summaries), page, SETS_PER_PAGE)
        embed = discord.Embed(title="421 set lists", colour=discord.Colour.dark_gold())
        embed.description = (limits.fit_lines(list(shown), limits.DESCRIPTION) if summaries else
                             "No set yet: add one with `/421 set add` (a file or a Scryfall code).")
        return Page(limits.fit_embed(embed), page, pages)

    @app_commands.describe(name="The set to remove (leagues that use it keep their copy).")
    @app_commands.autocomplete(name=set_key_autocomplete)
    async def set_remove(self, interaction: discord.Interaction, name: app_commands.Range[str, 1, 20]) -> None:
        actor = actor_of(interaction)
        key = set_lists.validate_key(name)
        await set_lists.check_can_manage(self.db, actor)
        [card_set] = await set_lists.get_sets(self.db, interaction.guild_id or 0, [key])

        async def remove() -> str:
            await set_lists.remove_set(self.db, actor, key)
            return f"Removed the set `{key}`."

        await confirm_then_act(interaction, f"Remove the set `{key}` ({escape(card_set.name)})? Leagues already using "
                                            "it keep their copy.", remove, db=self.db,
                               label="Remove the set", keep="Keep it")


def add_set_commands(group: app_commands.Group) -> None:
    """Put `/<group> set add | list | remove` into `group`."""
    sets = app_commands.Group(name="set", description="The set lists this server's 421 leagues can use.",
                              parent=group, guild_only=True)
    for name, description, callback in (
        ("add", "Add a set: upload its list or import it from Scryfall (organizers).", SetListCommands.set_add),
        ("list", "The set lists this server has for 421 leagues.", SetListCommands.set_list),
        ("remove", "Remove one of this server's set lists (organizers; asks first).", SetListCommands.set_remove),
    ):
        sets.add_command(app_commands.Command(name=name, description=description, callback=callback))
