"""/draft: asynchronous draft pods picked in DMs (by button, select or reaction)."""

from __future__ import annotations

import contextlib
import io
from functools import partial

import discord
from discord import app_commands
from discord.ext import commands

from bot.cards.export import FORMATS, export
from bot.features.config import service as guild_config
from bot.features.cubes.ui import cube_autocomplete
from bot.features.sets.ui import set_key_autocomplete
from bot.games.draft import kinds_cog, rotisserie_cog, ui
from bot.games.draft import service as drafts
from bot.games.draft.messages import DraftMessages
from bot.games.draft.pick_answers import answer_pick
from bot.games.draft.reaction_picks import DraftReactions
from bot.games.draft.set_start import open_lobby
from bot.kit import card_data, confirm, limits, lookups
from bot.kit.client import KitBot
from bot.kit.dispatch import InvalidPayload, actor_of, handles
from bot.kit.errors import UserError
from bot.kit.table_cog import TableCog, add_lobby_commands
from bot.kit.tables import Actor
from bot.kit.text import plural
from bot.web.buttons import event_view

EXPORT_CHOICES = [app_commands.Choice(name=text, value=key) for key, (_ext, text) in FORMATS.items()]
LOG_CHOICES = [app_commands.Choice(name=text, value=key) for key, text in drafts.LOG_FORMATS.items()]
PICK_MODE_CHOICES = [app_commands.Choice(name=f"{key}: {text}", value=key)
                     for key, text in guild_config.PICK_MODES.items()]
S = drafts.STATUSES
RUNNING = (S.running,)


class DraftCog(TableCog):
    spec = drafts.SPEC
    join_hint = None  # the lobby's embed says how to join
    lobby_button = ui.LobbyButton

    def __init__(self, bot: KitBot) -> None:
        super().__init__(bot)
        self.messages = DraftMessages(bot)
        self.reactions = DraftReactions(bot, self.messages)

    async def cog_load(self) -> None:
        self.reactions.start_reconciling()

    async def cog_unload(self) -> None:
        self.reactions.stop()

    @property
    def scryfall(self) -> str:
        return self.bot.settings.scryfall_base

    def lobby_embed(self, table: drafts.PodView, note: str | None = None) -> discord.Embed:
        return ui.lobby_embed(table, note)

    def cancel_question(self, table: drafts.PodView) -> str:
        return f"Cancel draft #{table.id}? Nobody can pick in it any more, and it gets no log."

    def begun_text(self, table: drafts.PodView) -> str:
        return ui.begun_text(table)

    async def after_join(self, interaction: discord.Interaction, pod: drafts.PodView, *, by_button: bool) -> bool:
        """A full lobby begins at once, on the organizer's behalf."""
        if not pod.is_full:
            return False
        try:
            await drafts.begin(self.db, pod.id, Actor(pod.organizer_id, pod.guild_id))
        except UserError as error:
            # The join stands (the lobby shows it); say why the draft could not begin by itself.
            note = f"⚠️ The lobby is full but the draft can't begin: {error}"
            if by_button:
                await interaction.response.edit_message(embed=ui.lobby_embed(pod, note), view=ui.lobby_view(pod))
            else:
                await interaction.response.send_message(f"You joined draft #{pod.id}. {note}", ephemeral=True)
                await self.edit_lobby(pod, note)
            return True
        begun = await drafts.get_pod(self.db, pod.id)
        self.fetch_pictures(pod.id, await self.bot.pictures.enabled(pod.guild_id))
        if by_button:
            await interaction.response.edit_message(content=self.headline(begun), embed=ui.lobby_embed(begun), view=None)
        else:
            await interaction.response.send_message(
                f"{interaction.user.mention} joined draft #{pod.id}, which is full and has begun: each player's first "
                "pack is in their DMs.")
            await self.edit_lobby(begun)
        return True

    # --- commands --------------------------------------------------------------------------

    draft = app_commands.Group(name="draft", description="Asynchronous draft pods, picked in DMs.")
    add_lobby_commands(draft, "draft")

    @draft.command(name="start", description="Open a draft lobby in this channel (organizers).")
    @app_commands.describe(**ui.START_OPTIONS)
    @app_commands.autocomplete(cube=cube_autocomplete, set_=set_key_autocomplete, scoring=ui.follower_choices("method"),
                               play_order=ui.follower_choices("play_order"), matches=ui.follower_choices("matches"))
    @app_commands.choices(pick_mode=PICK_MODE_CHOICES)
    @app_commands.rename(set_="set")
    @app_commands.guild_only()
    async def start(
        self,
        interaction: discord.Interaction,
        cube: str | None = None,
        set_: app_commands.Range[str, 1, 20] | None = None,
        packs: app_commands.Range[int, 1, 5] = 2,
        pack_size: app_commands.Range[int, 1, 30] = 15,
        seats: app_commands.Range[int, 2, 16] = 8,
        pick_timer: app_commands.Range[int, 1, 10080] | None = None,
        goldfish: bool = False, turns: app_commands.Range[int, 1, 100] | None = None,
        scoring: str | None = None, play_order: str | None = None,
        pick_mode: app_commands.Choice[str] | None = None,
        bots: app_commands.Range[int, 0, 15] = 0,
        matches: str | None = None, teams: app_commands.Range[int, 2, 2] | None = None,
    ) -> None:
        config = await guild_config.get_config(self.db, interaction.guild_id)
        scored = None
        if goldfish or turns or scoring or play_order:
            scored = drafts.GoldfishOptions(turns, scoring or "sum", play_order or "first")
        options = dict(packs=packs, pack_size=pack_size, max_seats=seats, bots=bots, goldfish=scored,
                       pick_timer_seconds=pick_timer * 60 if pick_timer else None, channel_id=interaction.channel_id,
                       pick_mode=pick_mode.value if pick_mode else config.default_pick_mode, follow={"matches": matches, "teams": teams})
        pod = await open_lobby(self.bot, interaction, cube=cube, set_key=set_, options=options)
        await self.post_lobby(interaction, pod)
        self.fetch_pictures(pod.id, config.pictures)

    def fetch_pictures(self, pod_id: int, enabled: bool = True) -> None:
        """Fetch the images of every card the draft can show, in the background, before its packs go out."""
        if enabled:
            self.bot.pictures.prefetch_later(f"draft:{pod_id}", partial(drafts.cards_to_show, self.db, pod_id))

    async def after_begin(self, result: drafts.BeginResult) -> None:
        self.fetch_pictures(result.pod.id, await self.bot.pictures.enabled(result.pod.guild_id))

    @draft.command(name="status", description="Show the draft's round, picks, queues and who it is waiting on.")
    @app_commands.describe(post=lookups.POST)
    async def status(self, interaction: discord.Interaction, post: bool = False) -> None:
        pod = await self.table_here(interaction, (S.lobby, S.running, S.finished))
        picks = await drafts.count_picks(self.db, pod.id)
        view = await event_view(self.bot, pod.guild_id, drafts.SPEC.kind, pod.id) or discord.utils.MISSING
        await interaction.response.send_message(embed=ui.status_embed(pod, picks), view=view, ephemeral=not post)

    @draft.command(name="pool", description="Show the cards you have picked so far (only you see it).")
    async def pool(self, interaction: discord.Interaction) -> None:
        pod = await self.table_here(interaction, (S.running, S.finished))
        pool = await drafts.pool(self.db, pod.id, interaction.user.id)
        picture = await self.messages.pool_picture(pool)
        await interaction.response.send_message(
            embed=ui.pool_embed(pool, self.scryfall, picture=picture and picture.url), ephemeral=True,
            files=[picture.file] if picture else [],
        )

    @draft.command(name="pick", description="Pick from your current pack here, if your DMs are closed.")
    async def pick(self, interaction: discord.Interaction) -> None:
        pod = await self.table_here(interaction, RUNNING)
        prompt = await drafts.current_prompt(self.db, pod.id, interaction.user.id)
        if prompt is None:
            raise UserError("No pack is waiting for you right now; I'll tell you when one arrives.")
        picture = await self.messages.pack_picture(prompt)
        await interaction.response.send_message(
            embed=ui.pack_embed(prompt, self.scryfall, picture=picture and picture.url),
            view=ui.pack_view(prompt, in_dm=False), ephemeral=True, files=[picture.file] if picture else [],
        )

    @draft.command(name="resend", description="DM me my current pack (a Winston draft: the pile I look at) again, after opening my DMs.")
    async def resend(self, interaction: discord.Interaction) -> None:
        pod = await self.table_here(interaction, RUNNING)
        held = await kinds_cog.resend(self.db, pod, interaction.user.id)  # a Winston's pile too
        if held is None:
            raise UserError("No pack is waiting for you right now.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        [outcome] = await self.bot.outbox.send_batch([held], fresh=True)
        text = "Sent: check your DMs." if outcome.message_id else "I still can't DM you: check your privacy settings."
        await interaction.followup.send(text, ephemeral=True)

    @draft.command(name="replace", description="Hand a player's seat to a bot that picks for them (organizer).")
    @app_commands.describe(player="The player whose seat a bot takes over.")
    @app_commands.guild_only()
    async def replace(self, interaction: discord.Interaction, player: discord.User) -> None:
        pod = await self.table_here(interaction, RUNNING)
        result = await drafts.replace_with_bot(self.db, pod.id, player.id, actor_of(interaction))
        await interaction.response.send_message(
            f"A bot now plays {player.mention}'s seat in draft #{pod.id} ({plural(result.bot_picks, 'pick')} made so far)."
        )

    @draft.command(name="rejoin",
                   description="Take back your seat from the bot that took it over (organizers: give a player's back).")
    @app_commands.describe(player="Organizers: the player whose seat to give back (default: your own seat).")
    async def rejoin(self, interaction: discord.Interaction, player: discord.User | None = None) -> None:
        pod = await self.table_here(interaction, RUNNING)
        actor = actor_of(interaction)
        result = await drafts.rejoin(self.db, pod.id, actor, player_id=player.id if player else None)
        by = None if result.user_id == actor.user_id else actor.user_id
        await interaction.response.send_message(
            ui.rejoined_announcement(result, by=by),
            # Handed back by an organizer: the player is told (they play again, and pick soon).
            allowed_mentions=limits.ping(result.user_id) if by else discord.AllowedMentions.none(),
        )

    @draft.command(name="export", description="Get your pool as a file (plain text, Arena, MTGO .dek, Cockatrice).")
    @app_commands.describe(format="File format (default: plain text).")
    @app_commands.choices(format=EXPORT_CHOICES)
    async def export_(self, interaction: discord.Interaction, format: app_commands.Choice[str] | None = None) -> None:
        pod = await self.table_here(interaction, (S.running, S.finished))
        pool = await drafts.pool(self.db, pod.id, interaction.user.id)
        if format is not None and format.value == "mtgo":  # Scryfall may be asked for MTGO ids: the answer waits
            await interaction.response.defer(ephemeral=True, thinking=True)
            result = await card_data.for_mtgo(self.db, self.bot.scryfall, pool.cards)
            text, files = ui.mtgo_export_answer(pod.id, len(pool.cards), result)
            await interaction.followup.send(text, files=files, ephemeral=True)
            return
        names = await card_data.export_names(self.db, pool.cards)  # the names deck files know
        extension, text = export(pool.cards, format.value if format else "text", deck_name=f"Draft {pod.id}", names=names)
        file = discord.File(io.BytesIO(text.encode()), filename=f"draft-{pod.id}-pool.{extension}")
        await interaction.response.send_message(f"Your {plural(len(pool.cards), 'pick')} from draft #{pod.id}.", file=file, ephemeral=True)

    @draft.command(name="seat", description="Hand a seat a bot plays to a new player (organizer).")
    @app_commands.describe(seat="The bot's seat.", player="The new player (not in the draft).")
    @app_commands.guild_only()
    async def seat(self, interaction: discord.Interaction, seat: app_commands.Range[int, 1, 16], player: discord.User) -> None:
        pod = await self.table_here(interaction, RUNNING)
        actor = actor_of(interaction)

        async def hand() -> confirm.Done:
            result = await drafts.hand_seat(self.db, pod.id, seat - 1, player.id, actor)
            return confirm.Done(f"Seat {seat} of draft #{pod.id} is {player.mention}'s now.", after=partial(
                interaction.followup.send, ui.handed_announcement(result), allowed_mentions=limits.ping(player.id)))

        await confirm.confirm_then_act(interaction, f"Hand seat {seat} of draft #{pod.id} (a bot plays it) to {player.mention}? "
                                       "They keep its picks and draft it from now on.", hand, db=self.db, label="Hand the seat over", keep="Keep the bot")

    @seat.autocomplete("seat")
    async def seat_autocomplete(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
        pod = await drafts.find_pod(self.db, guild_id=interaction.guild_id, channel_id=interaction.channel_id,
                                    user_id=interaction.user.id, statuses=RUNNING)
        return ui.bot_seat_choices(await drafts.bot_seats(self.db, pod.id) if pod else [], current)

    @draft.command(name="log", description="Get the complete draft's log: Draftmancer, Magic Online or a summary.")
    @app_commands.describe(format="Draftmancer's JSON log, your Magic Online log, or a text summary.",
                           seat="Organizers: the seat whose Magic Online log you want (default: yours).")
    @app_commands.choices(format=LOG_CHOICES)
    async def log_(self, interaction: discord.Interaction, format: app_commands.Choice[str],
                   seat: app_commands.Range[int, 1, 16] | None = None) -> None:
        pod = await self.table_here(interaction, (S.running, S.finished, S.cancelled))
        await interaction.response.defer(ephemeral=True, thinking=True)  # Scryfall may be asked for card ids
        log_file = await drafts.draft_log(self.db, pod.id, actor_of(interaction), format.value, seat=seat,
                                          scryfall=self.bot.scryfall)
        file = discord.File(io.BytesIO(log_file.data), filename=log_file.name)
        await interaction.followup.send(f"{log_file.about}.", file=file, ephemeral=True)

    @handles(ui.PickButton)  # picks
    async def on_pick_button(self, interaction: discord.Interaction, *, pod: int, pack: int, pick: int, index: int) -> None:
        await self._pick(interaction, pod, pack, pick, index, "button")

    @handles(ui.PickSelect)
    async def on_pick_select(self, interaction: discord.Interaction, *, pod: int, pack: int, pick: int, part: int,
                             value: int) -> None:
        if value // ui.SELECT_PART != part:  # each menu of a big pack offers its own 25 cards
            raise InvalidPayload()
        await self._pick(interaction, pod, pack, pick, value, "select")

    async def _pick(self, interaction: discord.Interaction, pod_id: int, pack_id: int, pack_pick: int, index: int,
                    source: str) -> None:
        in_dm = interaction.guild_id is None
        message = interaction.message
        # The DM picked on is changing from the pick to its answer: what else is sent to that
        # message (another player's pick ending the draft turns it into the pool) waits for it.
        dm = message.id if in_dm and message is not None else None
        with self.messages.states.changing(dm) if dm is not None else contextlib.nullcontext():
            result = await drafts.pick(
                self.db, pod_id, actor_of(interaction), pack_id=pack_id, pack_pick=pack_pick, card_index=index,
                source=source, in_server=not in_dm, shown_on=(interaction.channel_id, dm) if dm is not None else None,
            )
            await answer_pick(self.bot, self.messages, interaction, result, dm)

    @commands.Cog.listener()
    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        await self.reactions.on_toggle(payload, added=True)

    @commands.Cog.listener()
    async def on_raw_reaction_remove(self, payload: discord.RawReactionActionEvent) -> None:
        """A highlight the player clicks off counts too: a bot can't remove their old one in a DM."""
        await self.reactions.on_toggle(payload, added=False)

    @commands.Cog.listener()
    async def on_shard_connect(self, shard_id: int) -> None:
        """A new gateway session: reactions made while the bot was disconnected are read again."""
        self.reactions.on_shard_connect(shard_id)


async def setup(bot: KitBot) -> None:
    await bot.add_cog(DraftCog(bot))
    await rotisserie_cog.setup(bot)  # /draft rotisserie and /draft take: a Rotisserie's commands
    await kinds_cog.setup(bot)  # /draft winston and /draft grid
