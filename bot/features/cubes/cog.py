"""/cube: list, show, add (upload or CubeCobra) and remove card pools."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.cards.cubecobra import CubeCobraError, fetch_cube
from bot.cards.model import CardList
from bot.cards.parse import MAX_BYTES, CubeFormatError, parse_cube_bytes
from bot.cards.scryfall import card_link_markdown
from bot.features.cubes import service as cubes
from bot.features.cubes.ui import cube_autocomplete, resolution_report
from bot.kit import card_data, lookups
from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.dispatch import actor_of, handles, require_guild
from bot.kit.errors import UserError
from bot.kit.paginate import Page, PageList, slice_page
from bot.kit.text import escape

CARDS_PER_PAGE = 30
CUBE_PAGES = PageList("cube")  # a cube's card list (declared in `bot.app`'s shared page lists)


@app_commands.guild_only()
class CubeGroup(app_commands.Group, name="cube", description="Card pools for drafts and games."):
    def __init__(self, bot: KitBot) -> None:
        super().__init__()
        self.bot = bot

    @handles(CUBE_PAGES)
    async def render_page(self, interaction: discord.Interaction, key: str, page: int) -> Page:
        """`key` is the cube's ref (its id), never its name: names can be too long for a custom_id."""
        cube = await cubes.get_cube_by_ref(self.bot.db, require_guild(interaction), key)
        cards, page, pages = slice_page(cube.cards, page, CARDS_PER_PAGE)
        base = self.bot.settings.scryfall_base
        first = page * CARDS_PER_PAGE
        lines = [f"{first + i + 1}. {card_link_markdown(card.name, base)}" for i, card in enumerate(cards)]
        embed = discord.Embed(title=f"Cube: {cube.name}", description="\n".join(lines) or "(empty)")
        source = cube.source if not cube.source_ref else f"{cube.source} ({escape(cube.source_ref)})"
        embed.add_field(name="Size", value=str(cube.size))
        embed.add_field(name="Source", value=source)
        if cube.description:
            embed.add_field(name="About", value=cube.description[:1024], inline=False)
        return Page(embed, page, pages)

    @app_commands.command(name="list", description="List the cubes this server can use.")
    @app_commands.describe(post=lookups.POST)
    async def list_(self, interaction: discord.Interaction, post: bool = False) -> None:
        summaries = await cubes.list_cubes(self.bot.db, require_guild(interaction))
        embed = discord.Embed(title="Cubes", colour=discord.Colour.dark_green())
        for summary in summaries[:25]:
            origin = "shipped with the bot" if summary.source == "shipped" else summary.source
            embed.add_field(name=summary.name, value=f"{summary.size} cards · {origin}", inline=False)
        if len(summaries) > 25:
            embed.set_footer(text=f"…and {len(summaries) - 25} more: type in any cube option to search.")
        await lookups.answer(interaction, post=post, embed=embed)

    @app_commands.command(name="show", description="Show a cube's size, source and card list.")
    @app_commands.describe(name="The cube to show.", page="Page of the card list to open (default 1).", post=lookups.POST)
    @app_commands.autocomplete(name=cube_autocomplete)
    async def show(
        self, interaction: discord.Interaction, name: str, page: app_commands.Range[int, 1, 500] = 1, post: bool = False
    ) -> None:
        cube = await cubes.get_cube(self.bot.db, require_guild(interaction), name)
        await lookups.answer_pages(interaction, CUBE_PAGES, cube.ref, post=post, page=page - 1)

    @app_commands.command(name="add", description="Add a cube from an uploaded list or a CubeCobra id (organizers).")
    @app_commands.describe(
        name="A name for the cube in this server.",
        file="A card list: plain text (one card per line), or a CubeCobra CSV/JSON export.",
        cubecobra="A CubeCobra cube id (the part after /cube/overview/).",
    )
    async def add(
        self,
        interaction: discord.Interaction,
        name: str,
        file: discord.Attachment | None = None,
        cubecobra: str | None = None,
    ) -> None:
        actor = actor_of(interaction)
        guild_id = await cubes.check_organizer(self.bot.db, actor, "add cubes")
        if (file is None) == (cubecobra is None):
            raise UserError("Give exactly one of `file` (an upload) or `cubecobra` (a cube id).")
        # A clashing name is refused before the upload is read or CubeCobra is asked (add_cube checks again).
        await cubes.ensure_name_free(self.bot.db, guild_id, name)
        await interaction.response.defer(ephemeral=True, thinking=True)
        if file is not None:
            card_list, source, ref = await self._read_upload(file), "upload", file.filename
        else:
            ref = (cubecobra or "").strip()
            card_list, source = await self._import_cubecobra(ref), "cubecobra"
        # Scryfall's data for the names (never fails: when Scryfall is down the sweeper completes it later).
        resolution = await card_data.resolve(self.bot.db, self.bot.scryfall, card_list.names())
        card_list = CardList(card_data.enrich(card_list.cards, resolution), card_list.source)
        summary = await cubes.add_cube(
            self.bot.db, actor, name, card_list, source=source, source_ref=ref, complete_later=resolution.unreachable,
        )
        singleton = "singleton" if card_list.is_singleton() else "not singleton"
        saved = f"Added cube **{escape(summary.name)}**: {summary.size} cards ({singleton}) from {source} {escape(ref)}."
        await interaction.followup.send(resolution_report(saved, resolution), ephemeral=True)

    async def _read_upload(self, file: discord.Attachment):
        if file.size > MAX_BYTES:
            raise UserError(f"`{file.filename}` is {file.size:,} bytes; the limit is {MAX_BYTES:,} bytes (1 MiB).")
        try:
            data = await file.read()
        except discord.HTTPException:
            raise UserError("Discord would not give me that file; try uploading it again.") from None
        try:
            return parse_cube_bytes(data, file.filename)
        except CubeFormatError as error:
            raise UserError(f"`{file.filename}`: {error}") from None

    async def _import_cubecobra(self, cube_id: str):
        try:
            return await fetch_cube(
                cube_id,
                base=self.bot.settings.cubecobra_base,
                timeout=self.bot.settings.cubecobra_timeout,
            )
        except (CubeCobraError, CubeFormatError) as error:
            raise UserError(str(error)) from None

    @app_commands.command(name="remove", description="Remove one of this server's cubes (organizers; asks first).")
    @app_commands.describe(name="The cube to remove.")
    @app_commands.autocomplete(name=cube_autocomplete)
    async def remove(self, interaction: discord.Interaction, name: str) -> None:
        actor = actor_of(interaction)
        guild_id = await cubes.check_organizer(self.bot.db, actor, "remove cubes")
        cube = await cubes.get_cube(self.bot.db, guild_id, name)
        if cube.source == "shipped":
            raise UserError(f"**{escape(cube.name)}** is a shipped cube and can't be removed.")

        async def remove() -> str:
            await cubes.remove_cube(self.bot.db, actor, cube.name)
            return f"Removed the cube **{escape(cube.name)}**."

        await confirm_then_act(interaction, f"Remove the cube **{escape(cube.name)}** ({cube.size} cards)?", remove,
                               db=self.bot.db, label="Remove the cube", keep="Keep it")


async def setup(bot: KitBot) -> None:
    bot.tree.add_command(CubeGroup(bot))
