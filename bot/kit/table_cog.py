"""The Discord side of every format's lobby, once: the join/leave/begin/cancel commands and
buttons, finding "the table here", and editing the lobby message.

A format's cog subclasses `TableCog`, names its `spec` and `lobby_button`, renders its lobby
(`lobby_embed`) and says what begin and cancel look like; `add_lobby_commands` puts the four
commands into its command group. The outbox renderers every table shares are the kit's, made from
its spec when the bot starts (`table_renderers`): its lobby message redrawn (`tables.lobby_kind`, by
the loaded cog of that spec), and, when the spec names a `cancel_notice` kind, a running table
cancelled (in the kit's words).
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.kit import tables
from bot.kit.channel_edits import edit_channel_message
from bot.kit.client import KitBot
from bot.kit.confirm import Done, confirm_then_act
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.dispatch import Component, actor_of
from bot.kit.errors import UserError
from bot.kit.lobby import LOBBY_ACTIONS, lobby_view
from bot.kit.tables import TableRef
from bot.store.db import Database

log = logging.getLogger(__name__)


class TableCog(commands.Cog):
    spec: ClassVar[tables.TableSpec]
    lobby_button: ClassVar[type[Component]]
    lobby_actions: ClassVar[tuple[str, ...]] = LOBBY_ACTIONS  # the buttons its lobby shows
    older_lobby_buttons: ClassVar[tuple[type[Component], ...]] = ()  # custom_ids of older posts, still answered
    ended_posts: ClassVar[str] = "its results are posted"  # what an ended table left in its channel

    def __init__(self, bot: KitBot) -> None:
        self.bot = bot

    @property
    def db(self) -> Database:
        return self.bot.db

    # --- what a format provides -----------------------------------------------------------------

    def lobby_embed(self, table: Any, note: str | None = None) -> discord.Embed:
        raise NotImplementedError

    def begun_text(self, table: Any) -> str | None:
        """The channel's news that the table has begun, posted once by the begin command or button;
        None when the format's begin announces it itself (so the channel hears it once)."""
        return f"{self.spec.title} #{table.id} has begun."

    join_hint: str | None = "join below"  # how to join, in the lobby's first line (None: no such line)

    def open_text(self, table: Any) -> str | None:
        """The lobby message's first line while it is open (how to join), if any."""
        return None if self.join_hint is None else f"{self.spec.name_of(table.id)} is open: {self.join_hint}."

    def headline(self, table: Any) -> str | None:
        """The lobby message's first line, from the table's stage, so that it always agrees with the
        embed below it: how to join while open, then that it has begun, ended or was cancelled
        (never an instruction of a stage that is over)."""
        s, name = self.spec.statuses, self.spec.name_of(table.id)
        if table.status == s.lobby:
            return self.open_text(table)
        return {s.running: f"{name} has begun.", s.finished: f"{name} has ended.",
                s.cancelled: f"{name} was cancelled."}.get(table.status)

    def cancel_question(self, table: Any) -> str:
        return f"Cancel {self.spec.noun} #{table.id}?"

    def cancelled_text(self, table: Any) -> str:
        return f"{self.spec.title} #{table.id} was cancelled."

    def nothing_here_text(self) -> str:
        return f"There is no {self.spec.noun} here for you. `/{self.spec.kind} start` opens one."

    def cancelled_note(self, table: Any) -> str:
        return "❌ Cancelled by the organizer."

    async def begin_table(self, table_id: int, actor: tables.Actor, **options: Any) -> Any:
        """Begin the table (a format's own `begin` command may take options and pass them here)."""
        return await tables.begin(self.db, self.spec, table_id, actor)

    async def after_begin(self, result: Any) -> None:
        """Anything the format does once it has begun (its messages are already queued)."""

    async def after_join(self, interaction: discord.Interaction, table: Any, *, by_button: bool) -> bool:
        """A format may act on a join (e.g. begin a full draft); True if it answered the interaction."""
        return False

    # --- shared helpers ------------------------------------------------------------------------------

    def lobby_view(self, table: Any) -> discord.ui.View | None:
        return lobby_view(self.lobby_button, table.id, is_open=table.status == self.spec.statuses.lobby,
                          actions=self.lobby_actions)

    async def table_here(self, interaction: discord.Interaction, statuses: tuple[str, ...] | None = None) -> Any:
        """This channel's table, else the user's latest (in this server, if in one)."""
        table = await tables.find(self.db, self.spec, guild_id=interaction.guild_id,
                                  channel_id=interaction.channel_id, user_id=interaction.user.id, statuses=statuses)
        if table is None:
            where = await tables.find_elsewhere(self.db, self.spec, guild_id=interaction.guild_id,
                                                channel_id=interaction.channel_id, user_id=interaction.user.id,
                                                statuses=statuses)
            raise UserError(self.nothing_here_text() if where is None else
                            self.elsewhere_text(where, wanted=statuses or self.spec.statuses.active))
        return table

    def elsewhere_text(self, where: tables.Elsewhere, *, wanted: tuple[str, ...]) -> str:
        """Where the table the user meant is, or why the command does not apply to it (a refusal that
        leads somewhere rather than "there is none")."""
        name, channel, s = self.spec.name_of(where.table_id), f"<#{where.channel_id}>", self.spec.statuses
        if where.status in wanted:  # the command was typed in another channel
            verb = "is open" if where.status == s.lobby else "runs" if where.status == s.running else "was played"
            return f"{name} {verb} in {channel}: use the command there."
        if where.status == s.finished:
            return f"{name} has ended: {self.ended_posts} in {channel}."
        if where.status == s.cancelled:
            return f"{name} was cancelled: nothing was recorded."
        if where.status == s.lobby:
            return f"{name} has not begun yet: an organizer begins it with `/{self.spec.kind} begin`."
        return f"{name} has already begun."

    async def edit_lobby(self, table: Any, note: str | None = None) -> None:
        await edit_channel_message(
            self.bot, table.channel_id, table.guild_id, table.lobby_message_id,
            content=self.headline(table), embed=self.lobby_embed(table, note), view=self.lobby_view(table),
        )

    async def redrawn_lobby(self, table_id: int) -> Outgoing | None:
        """A lobby message to redraw (e.g. when the table is over), for the outbox."""
        table = await tables.get(self.db, self.spec, table_id)
        if table.lobby_message_id is None:
            return None
        return Outgoing(content=self.headline(table), embeds=[self.lobby_embed(table)], view=self.lobby_view(table),
                        edit=(table.channel_id, table.lobby_message_id))

    async def post_lobby(self, interaction: discord.Interaction, table: Any, content: str | None = None) -> None:
        """Answer a start command with the lobby (in its deferred response, if it was deferred), and
        remember which message it is. Its first line is the `headline` unless `content` says more."""
        embed, view = self.lobby_embed(table), self.lobby_view(table)
        content = content or self.headline(table)
        if interaction.response.is_done():
            message = await interaction.edit_original_response(content=content, embed=embed, view=view)
        else:
            await interaction.response.send_message(content, embed=embed, view=view)
            message = await interaction.original_response()
        await tables.set_lobby_message(self.db, self.spec, table.id, message.id)

    # --- the lobby's commands and buttons ---------------------------------------------------------

    async def join_here(self, interaction: discord.Interaction) -> None:
        table = await self.table_here(interaction)
        joined = await tables.join(self.db, self.spec, table.id, actor_of(interaction))
        if not await self.after_join(interaction, joined, by_button=False):
            await interaction.response.send_message(f"You joined {self.spec.noun} #{table.id}.", ephemeral=True)
            await self.edit_lobby(joined)

    async def leave_here(self, interaction: discord.Interaction) -> None:
        table = await self.table_here(interaction)
        left = await tables.leave(self.db, self.spec, table.id, actor_of(interaction))
        await interaction.response.send_message(f"You left {self.spec.noun} #{table.id}.", ephemeral=True)
        await self.edit_lobby(left)

    async def begin_here(self, interaction: discord.Interaction) -> None:
        await self.begin_with(interaction)

    async def begin_with(self, interaction: discord.Interaction, **options: Any) -> None:
        """Begin this channel's table, with the options of a format's own `begin` command."""
        table = await self.table_here(interaction)
        result = await self.begin_table(table.id, actor_of(interaction), **options)
        news = self.begun_text(table)
        if news is None:  # the format's own announcement tells the channel
            await interaction.response.send_message(f"{self.spec.name_of(table.id)} has begun.", ephemeral=True)
        else:
            await interaction.response.send_message(news)
        await self.edit_lobby(await tables.get(self.db, self.spec, table.id))
        await self.after_begin(result)

    async def cancel_here(self, interaction: discord.Interaction) -> None:
        await self.confirm_cancel(interaction, await self.table_here(interaction))

    def extra_handlers(self) -> dict[Any, Any]:
        """The format's lobby button (and any older prefix of it) is answered by `on_lobby_button`."""
        return {button: self.on_lobby_button for button in (self.lobby_button, *self.older_lobby_buttons)}

    async def on_lobby_button(self, interaction: discord.Interaction, *, table: int, action: str) -> None:
        actor = actor_of(interaction)
        if action == "join":
            joined = await tables.join(self.db, self.spec, table, actor)
            if not await self.after_join(interaction, joined, by_button=True):
                await interaction.response.edit_message(embed=self.lobby_embed(joined), view=self.lobby_view(joined))
        elif action == "leave":
            left = await tables.leave(self.db, self.spec, table, actor)
            await interaction.response.edit_message(embed=self.lobby_embed(left), view=self.lobby_view(left))
        elif action == "begin":
            result = await self.begin_table(table, actor)
            begun = await tables.get(self.db, self.spec, table)
            # The news in the lobby's first line (no post of its own), until the table ends or is cancelled.
            news = self.begun_text(begun) or self.headline(begun)
            await interaction.response.edit_message(content=news, embed=self.lobby_embed(begun), view=None)
            await self.after_begin(result)
        else:
            await self.confirm_cancel(interaction, await tables.get(self.db, self.spec, table))

    async def confirm_cancel(self, interaction: discord.Interaction, table: Any) -> None:
        """Ask first; only the table's organizer or an organizer of its server may cancel."""

        async def cancel() -> Done:
            ended = await tables.cancel(self.db, self.spec, table.id, actor_of(interaction))
            return Done(self.cancelled_text(ended), after=lambda: self.edit_lobby(ended, note=self.cancelled_note(ended)))

        await confirm_then_act(interaction, self.cancel_question(table), cancel, db=self.db,
                               label=f"Cancel the {self.spec.noun}", keep="Keep it")


def table_renderers(spec: tables.TableSpec) -> Renderers:
    """What the kit's table lifecycle queues for a table of `spec`, rendered: its lobby redrawn (by
    the loaded `TableCog` of that spec) and, if the spec names one, its cancel notice."""
    found = Renderers()
    owner = f"{__name__}.table_renderers({spec.kind!r})"
    found.add(tables.lobby_kind(spec.kind), TableRef, partial(_redraw, spec), owner=owner)
    if spec.cancel_notice is not None:
        found.add(spec.cancel_notice, TableRef, partial(_cancelled, spec), owner=owner)
    return found


async def _redraw(spec: tables.TableSpec, ref: TableRef, ctx: Delivery) -> Outgoing | None:
    cog = next((cog for cog in ctx.bot.cogs.values() if isinstance(cog, TableCog) and cog.spec.kind == spec.kind), None)
    if cog is None:
        raise LookupError(f"no cog of {spec.kind} is loaded: the lobby of {spec.kind} #{ref.table_id} waits")
    return await cog.redrawn_lobby(ref.table_id)


async def _cancelled(spec: tables.TableSpec, ref: TableRef, ctx: Delivery) -> Outgoing:
    """A running table cancelled: its channel hears it, in the same words for every format."""
    return Outgoing(content=f"❌ {spec.name_of(ref.table_id)} was {spec.cancelled_as}: nothing was recorded.")


_LOBBY_COMMANDS = {
    "join": ("Join the {noun} lobby in this channel.", TableCog.join_here),
    "leave": ("Leave the {noun} lobby in this channel.", TableCog.leave_here),
    "begin": ("Begin the {noun} in this channel now (organizer).", TableCog.begin_here),
    "cancel": ("Cancel the {noun} in this channel (organizer; asks first).", TableCog.cancel_here),
}


def add_lobby_commands(
    group: app_commands.Group, noun: str, *, cancel_description: str | None = None
) -> None:
    """Add /<group> join, leave, begin and cancel (one vocabulary in every format), answered by `TableCog` methods."""
    for name, (description, callback) in _LOBBY_COMMANDS.items():
        if name == "cancel":
            description = cancel_description or description
        command = app_commands.Command(name=name, description=description.format(noun=noun), callback=callback)
        group.add_command(app_commands.guild_only()(command))
