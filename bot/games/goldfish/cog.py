"""/goldfish: Goldfish Draft scoring events: start, report, status, write-ups, rejections, end and cancel."""

from __future__ import annotations

import re

import discord
from discord import app_commands
from discord.ext import commands

from bot.games.goldfish import rules, ui
from bot.games.goldfish import service as goldfish
from bot.games.goldfish.messages import delivery_problem  # and its renderers, registered on import
from bot.kit import lookups
from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.dispatch import actor_of, handles, require_guild
from bot.kit.errors import NotFound, UserError
from bot.kit.paginate import Page, send_paginated
from bot.kit.text import escape, name_key, plural
from bot.web.buttons import event_view

# A game's length in turns (FORMATS.md §1: configurable).
Turns = app_commands.Range[int, rules.MIN_TURNS, rules.MAX_TURNS]
TURNS_HELP = (f"Game length, {rules.MIN_TURNS}–{rules.MAX_TURNS} turns: usually {rules.TURNS_GOLDFISH_CUBE} with the "
              f"Goldfish Cube, {rules.TURNS_ORDINARY} with any other pool.")
METHOD_CHOICES = [app_commands.Choice(name=name, value=value) for value, name in goldfish.METHODS.items()]
PLAY_ORDER_CHOICES = [app_commands.Choice(name=name, value=value) for value, name in goldfish.PLAY_ORDERS.items()]
MAX_WRITEUP_FILE = 200_000
# Event names and reasons are user text: whatever they contain must never ping anyone.
NO_PINGS = discord.AllowedMentions.none()
# Snowflakes have at most 19 digits (a forged key with more would overflow a BIGINT).
WRITEUP_PAGE_KEY = re.compile(r"(?P<event>\d{1,18}):(?P<user>\d{1,19})")


async def event_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    bot: KitBot = interaction.client  # type: ignore[assignment]
    if interaction.guild_id is None:
        return []
    events = await goldfish.list_events(bot.db, interaction.guild_id, status=None)
    needle = name_key(current)
    return [
        app_commands.Choice(name=f"#{e.id} {e.name} ({ui.STATUS_TEXT.get(e.status, '')})"[:100], value=e.id)
        for e in events
        if needle in name_key(f"#{e.id} {e.name}")
    ][:25]


class GoldfishCog(commands.Cog, name="GoldfishCog"):
    group = app_commands.Group(
        name="goldfish", description="Goldfish Draft scoring: start, report, status, write-ups, end.", guild_only=True
    )

    def __init__(self, bot: KitBot) -> None:
        self.bot = bot

    async def _event(self, interaction: discord.Interaction, event_id: int | None, *, status: str | None = "open"):
        guild_id = require_guild(interaction)
        if event_id is not None:
            return await goldfish.get_event(self.bot.db, guild_id, event_id)
        return await goldfish.default_event(self.bot.db, guild_id, interaction.channel_id, status=status)

    @group.command(name="start", description="Start a scoring event for a draft played elsewhere (organizers).")
    @app_commands.describe(
        name="The event's name (up to 100 characters, unique in this server).",
        turns=TURNS_HELP,
        method="How the components combine (default: sum).",
        play_order="Who plays first in every game of this event (default: the player).",
    )
    @app_commands.choices(method=METHOD_CHOICES, play_order=PLAY_ORDER_CHOICES)
    async def start(
        self, interaction: discord.Interaction, name: app_commands.Range[str, 1, 100], turns: Turns,
        method: app_commands.Choice[str] | None = None, play_order: app_commands.Choice[str] | None = None,
    ) -> None:
        event = await goldfish.create_event(
            self.bot.db, actor=actor_of(interaction), channel_id=interaction.channel_id, name=name,
            turns=turns, method=method.value if method else "sum",
            play_order=play_order.value if play_order else "first",
        )
        await interaction.response.send_message(
            f"Goldfish event **#{event.id} {escape(event.name)}** is open for scores ({plural(event.turns, 'turn')}, "
            f"{ui.METHOD_TEXT[event.method]}, {ui.PLAY_ORDER_TEXT[event.play_order]}). Players read `/goldfish rules`, "
            "play their game, then `/goldfish report`.",
            allowed_mentions=NO_PINGS,
        )

    @group.command(name="rules", description="The rules every Goldfish game follows (turns, play order, the goldfish).")
    @app_commands.describe(event="The event whose rules to show (default: this channel's newest; none: the general rules).")
    @app_commands.autocomplete(event=event_autocomplete)
    async def show_rules(self, interaction: discord.Interaction, event: int | None = None) -> None:
        try:
            chosen = await self._event(interaction, event, status=None)
        except NotFound:
            if event is not None:
                raise
            chosen = None  # no event in this server yet: the general rules
        await interaction.response.send_message(embed=ui.rules_embed(chosen), ephemeral=True)

    @group.command(name="report", description="Report your score and write-up (again to correct it).")
    @app_commands.describe(event="The event (default: this channel's newest open one).",
                           lost_or_drew="You lost or drew the game (scores 0).",
                           prevented="An effect stopped you from winning at the end (scores 0).",
                           writeup_file="A text file with a long write-up (instead of typing it in the form).")
    @app_commands.autocomplete(event=event_autocomplete)
    async def report(
        self, interaction: discord.Interaction, event: int | None = None, lost_or_drew: bool = False,
        prevented: bool = False, writeup_file: discord.Attachment | None = None,
    ) -> None:
        chosen = await self._event(interaction, event)
        # Closed event or not a player of this draft: say so now, not after the write-up is typed.
        chosen = await goldfish.check_can_submit(self.bot.db, chosen.guild_id, chosen.id, interaction.user.id)
        file_key = None
        if writeup_file is not None:
            # The upload waits in the database for the form, keyed by this command's id.
            file_key = interaction.id
            text = await self._read_writeup(writeup_file)
            await goldfish.hold_writeup(self.bot.db, chosen.guild_id, interaction.user.id, interaction.id, text)
        if lost_or_drew and file_key is not None:  # nothing left to ask: a lost game's numbers count for nothing
            sub = await goldfish.submit(self.bot.db, chosen.guild_id, chosen.id, interaction.user.id, life_lost=0,
                                        cards_milled=0, poison=0, game_wins=0, writeup_key=file_key,
                                        lost_or_drew=True, prevented=prevented)
            await self._saved(interaction, chosen, sub)
            return
        saved = await goldfish.saved_report(self.bot.db, chosen.guild_id, chosen.id, interaction.user.id)
        form = goldfish.HeldForm(chosen.id, lost_or_drew, prevented, file_key, ui.form_values(saved) if saved else {})
        await interaction.response.send_modal(self._form(chosen, form))

    @staticmethod
    def _form(event: goldfish.EventView, form: goldfish.HeldForm) -> ui.ScoreModal:
        custom_id = ui.submit_custom_id(event.id, lost_or_drew=form.lost_or_drew, prevented=form.prevented,
                                        file_key=form.file_key)
        return ui.ScoreModal(event, custom_id, with_writeup=form.file_key is None, with_numbers=not form.lost_or_drew,
                             values=form.fields)

    @handles(ui.SCORE_FORM)
    async def on_score_form(
        self, interaction: discord.Interaction, *, event: int, lost: str, prevented: str, file: int | None,
        fields: dict[str, str],
    ) -> None:
        """A submitted score form (see `ui.SCORE_FORM`): any process takes it, after a restart too. One
        the rules refuse as typed is kept, and the error offers it again with every value."""
        chosen = await goldfish.get_event(self.bot.db, require_guild(interaction), event)
        try:
            sub = await goldfish.submit(
                self.bot.db, chosen.guild_id, chosen.id, interaction.user.id, **goldfish.parse_counts(fields),
                writeup=fields.get("writeup", ""), writeup_key=file, lost_or_drew=lost == "1",
                prevented=prevented == "1",
            )
        except goldfish.BadReport as error:
            typed = goldfish.HeldForm(chosen.id, lost == "1", prevented == "1", file, dict(fields))
            await goldfish.hold_form(self.bot.db, chosen.guild_id, interaction.user.id, interaction.id, typed)
            await interaction.response.send_message(
                f"{error} Nothing was saved yet: **Correct the form** opens it again with everything you typed.",
                view=ui.form_again_view(interaction.id), ephemeral=True, allowed_mentions=NO_PINGS)
            return
        await self._saved(interaction, chosen, sub)

    @handles(ui.FormAgainButton)
    async def on_form_again(self, interaction: discord.Interaction, *, form: int) -> None:
        """The refused form, offered again as the player typed it."""
        typed = await goldfish.held_form(self.bot.db, require_guild(interaction), interaction.user.id, form)
        event = await goldfish.check_can_submit(self.bot.db, require_guild(interaction), typed.event_id,
                                                interaction.user.id)
        await interaction.response.send_modal(self._form(event, typed))

    async def _saved(self, interaction: discord.Interaction, event: goldfish.EventView, sub: goldfish.SubmissionView):
        await interaction.response.send_message(
            f"Saved your score for **{escape(event.name)}**: **{sub.score:g}** ({ui.breakdown_text(sub)}). "
            "You can report again until the event ends: `/goldfish report` opens with this report.",
            ephemeral=True, allowed_mentions=NO_PINGS,
        )

    async def _read_writeup(self, file: discord.Attachment) -> str:
        if file.size > MAX_WRITEUP_FILE:
            raise UserError(f"That write-up file is over {MAX_WRITEUP_FILE // 1000} KB.")
        try:
            data = await file.read()
        except discord.HTTPException:
            raise UserError("Discord would not give me that file; try uploading it again.") from None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise UserError("The write-up file must be UTF-8 text.") from None
        if "\x00" in text:
            raise UserError("That looks like a binary file: the write-up file must be UTF-8 text.")
        if not text.strip():
            raise UserError("The write-up can't be empty: that file has no text.")
        return text

    @group.command(name="status", description="Show an event's standings with each score's breakdown.")
    @app_commands.describe(event="The event (default: this channel's newest).", post=lookups.POST)
    @app_commands.autocomplete(event=event_autocomplete)
    async def status(self, interaction: discord.Interaction, event: int | None = None, post: bool = False) -> None:
        chosen = await self._event(interaction, event, status=None)
        view, standings = await goldfish.scores(self.bot.db, chosen.guild_id, chosen.id)
        link = await event_view(self.bot, chosen.guild_id, goldfish.KIND, chosen.id) or discord.utils.MISSING
        await interaction.response.send_message(embed=ui.standings_embed(view, standings, final=view.status == "closed"),
                                                view=link, ephemeral=not post)

    @group.command(name="writeup", description="Read a player's write-up (long ones page with buttons).")
    @app_commands.describe(player="Whose write-up.", event="The event (default: this channel's newest).", post=lookups.POST)
    @app_commands.autocomplete(event=event_autocomplete)
    async def writeup(self, interaction: discord.Interaction, player: discord.User, event: int | None = None, post: bool = False) -> None:
        chosen = await self._event(interaction, event, status=None)
        await goldfish.writeup(self.bot.db, chosen.guild_id, chosen.id, player.id)  # a clear error if none
        await send_paginated(interaction, ui.WRITEUP_PAGES, f"{chosen.id}:{player.id}", ephemeral=not post)

    @handles(ui.WRITEUP_PAGES)
    async def render_writeup(self, interaction: discord.Interaction, key: str, page: int) -> Page:
        """`key` is "<event id>:<player id>"."""
        match = WRITEUP_PAGE_KEY.fullmatch(key)
        if match is None:
            raise NotFound("That write-up is no longer here.")
        event_id, user_id = int(match["event"]), int(match["user"])
        guild_id = require_guild(interaction)
        event = await goldfish.get_event(self.bot.db, guild_id, event_id)
        sub = await goldfish.writeup(self.bot.db, guild_id, event_id, user_id)
        pages = ui.writeup_pages(sub)
        page = min(max(page, 0), len(pages) - 1)
        return Page(ui.writeup_embed(event, sub, page, pages), page, len(pages))

    @group.command(name="reject", description="Reject a player's score; they are told why by DM (organizers).")
    @app_commands.describe(
        player="Whose score to reject.",
        reason=f"Why: the player is told by DM (up to {goldfish.MAX_REJECT_REASON} characters).",
        event="The event.",
    )
    @app_commands.autocomplete(event=event_autocomplete)
    async def reject(
        self, interaction: discord.Interaction, player: discord.User,
        reason: app_commands.Range[str, 1, goldfish.MAX_REJECT_REASON], event: int | None = None,
    ) -> None:
        chosen = await self._event(interaction, event)
        rejected = await goldfish.reject(
            self.bot.db, chosen.guild_id, chosen.id, player.id, reason=reason,
            actor=actor_of(interaction),
        )
        await interaction.response.send_message(
            f"Rejected {player.mention}'s score in **{escape(chosen.name)}**.", ephemeral=True, allowed_mentions=NO_PINGS
        )
        [sent] = await self.bot.outbox.send_batch([rejected.dm], fresh=True)
        if (problem := delivery_problem(sent)) is not None:
            await interaction.followup.send(
                f"{player.mention} was not told by DM: {problem} They can read the reason with `/goldfish writeup`.",
                ephemeral=True, allowed_mentions=NO_PINGS,
            )

    @group.command(name="end", description="End an event: standings become final and go to the leaderboard (asks first).")
    @app_commands.describe(event="The event to end (default: this channel's newest open one).")
    @app_commands.autocomplete(event=event_autocomplete)
    async def end(self, interaction: discord.Interaction, event: int | None = None) -> None:
        chosen = await self._event(interaction, event)
        actor = actor_of(interaction)

        async def end() -> str:
            result = await goldfish.close(self.bot.db, chosen.guild_id, chosen.id, actor=actor)
            copy = f" and <#{result.results_channel_id}>" if result.results_channel_id else ""
            return f"**{escape(chosen.name)}** has ended. Final standings are posted in <#{result.post_channel_id}>{copy}."

        await confirm_then_act(
            interaction, f"End **{escape(chosen.name)}** now? Its standings become final and go to the leaderboard; "
                         "no more scores can be reported.", end, db=self.bot.db,
            around=self.bot.outbox.replies.answering, label="End the event", keep="Keep scoring",
        )

    @group.command(name="cancel", description="Cancel an event: it and its scores are deleted, nothing is recorded "
                                              "(asks first).")
    @app_commands.describe(event="The event to cancel (default: this channel's newest open one).")
    @app_commands.autocomplete(event=event_autocomplete)
    async def cancel(self, interaction: discord.Interaction, event: int | None = None) -> None:
        chosen = await self._event(interaction, event)
        actor = actor_of(interaction)
        _view, standings = await goldfish.scores(self.bot.db, chosen.guild_id, chosen.id)

        async def cancel() -> str:
            await goldfish.cancel(self.bot.db, chosen.guild_id, chosen.id, actor=actor)
            return f"**{escape(chosen.name)}** is cancelled: it and its scores are deleted, and nothing was recorded."

        await confirm_then_act(
            interaction, f"Cancel **{escape(chosen.name)}**? The event and its {plural(len(standings), 'score')} are "
                         "deleted for good, and nothing goes to the leaderboard.", cancel, db=self.bot.db,
            around=self.bot.outbox.replies.answering, label="Cancel the event", keep="Keep it",
        )

    @group.command(name="flip", description="Coin flips for your write-up: you choose the first, then they alternate.")
    @app_commands.describe(first="The first flip's result.", count="How many flips (default 1).")
    @app_commands.choices(first=[app_commands.Choice(name=s, value=s) for s in rules.COIN_SIDES])
    async def flip(self, interaction: discord.Interaction, first: app_commands.Choice[str], count: app_commands.Range[int, 1, 50] = 1) -> None:
        results = rules.flip_sequence(first.value, count)
        await interaction.response.send_message(f"Flips: {', '.join(results)} (the goldfish always calls {rules.GOLDFISH_CALL}).")

    @group.command(name="roll", description="Die rolls for your write-up: you choose the first, later ones count up.")
    @app_commands.describe(first="The first roll.", count="How many rolls (default 1).")
    async def roll(self, interaction: discord.Interaction, first: app_commands.Range[int, 1, 6], count: app_commands.Range[int, 1, 50] = 1) -> None:
        await interaction.response.send_message(f"Rolls: {', '.join(map(str, rules.roll_sequence(first, count)))}")



async def setup(bot: KitBot) -> None:
    await bot.add_cog(GoldfishCog(bot))
