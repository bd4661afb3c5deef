"""/draft: asynchronous draft pods picked in DMs (by button, select or reaction)."""

from __future__ import annotations

import io
import json
import logging
from dataclasses import replace

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.app import MtgBot, report_interaction_error
from bot.cards.export import FORMATS, export
from bot.cogs._checks import interaction_is_organizer, is_organizer, require_guild
from bot.cogs._draft_delivery import DraftMessenger
from bot.cogs._sweep import ResendCutoff, edit_channel_message
from bot.cogs.cube import cube_autocomplete
from bot.services import cubes, drafts, guild_config
from bot.services.errors import Conflict, UserError
from bot.ui import draft as ui
from bot.ui.confirm import ask_confirmation

log = logging.getLogger(__name__)

EXPORT_CHOICES = [app_commands.Choice(name=text, value=key) for key, (_ext, text) in FORMATS.items()]
TURN_CHOICES = [
    app_commands.Choice(name="7 turns (Goldfish Cube)", value=7),
    app_commands.Choice(name="10 turns (ordinary card pool)", value=10),
]
PICK_MODE_CHOICES = [
    app_commands.Choice(name=f"{key}: {text}", value=key) for key, text in guild_config.PICK_MODES.items()
]


class DraftCog(commands.Cog):
    def __init__(self, bot: MtgBot) -> None:
        self.bot = bot
        self.messenger = DraftMessenger(bot)
        ui.LobbyButton.handler = self.handle_lobby
        ui.PickButton.handler = self.handle_pick
        ui.PickSelect.handler = self.handle_pick
        self.resend_cutoff = ResendCutoff()

    async def cog_load(self) -> None:
        self.sweep.change_interval(seconds=self.bot.settings.sweep_interval)
        self.sweep.start()

    async def cog_unload(self) -> None:
        self.sweep.cancel()

    @property
    def db(self):
        return self.bot.db

    # --- helpers ---------------------------------------------------------------------------

    async def _organizer(self, interaction: discord.Interaction) -> bool:
        return await interaction_is_organizer(self.db, interaction)

    async def _pod_here(self, interaction: discord.Interaction, *, statuses=("lobby", "drafting")) -> drafts.PodView:
        """The pod of this channel, else the user's latest pod (in this server, if in one)."""
        if interaction.guild_id is not None and interaction.channel_id is not None:
            pod = await drafts.find_channel_pod(
                self.db, interaction.guild_id, interaction.channel_id, statuses=statuses
            )
            if pod is not None:
                return pod
        pod = await drafts.find_user_pod(self.db, interaction.user.id, guild_id=interaction.guild_id, statuses=statuses)
        if pod is None:
            raise UserError("There is no draft here for you. `/draft start` opens one.")
        return pod

    async def _edit_lobby(self, pod: drafts.PodView, note: str | None = None) -> None:
        await edit_channel_message(
            self.bot, pod.channel_id, pod.guild_id, pod.lobby_message_id,
            embed=ui.lobby_embed(pod, note), view=ui.lobby_view(pod),
        )

    # --- commands --------------------------------------------------------------------------

    draft = app_commands.Group(name="draft", description="Asynchronous draft pods, picked in DMs.")

    @draft.command(name="start", description="Open a draft lobby in this channel (organizers).")
    @app_commands.describe(
        cube="The card pool to draft from.",
        packs="Packs per player (default 2).",
        pack_size="Cards per pack (default 15).",
        seats="Most players; the draft begins by itself when this many have joined (default 8).",
        pick_timer="Minutes each pick may take before the bot picks for the player (default: no timer).",
        turns="Make it a Goldfish Draft: the game length players score after drafting.",
        pick_mode="How players pick in DMs (default: the server's setting).",
    )
    @app_commands.autocomplete(cube=cube_autocomplete)
    @app_commands.choices(turns=TURN_CHOICES, pick_mode=PICK_MODE_CHOICES)
    @app_commands.guild_only()
    async def start(
        self,
        interaction: discord.Interaction,
        cube: str,
        packs: app_commands.Range[int, 1, 5] = 2,
        pack_size: app_commands.Range[int, 1, 30] = 15,
        seats: app_commands.Range[int, 2, 16] = 8,
        pick_timer: app_commands.Range[int, 1, 10080] | None = None,
        turns: app_commands.Choice[int] | None = None,
        pick_mode: app_commands.Choice[str] | None = None,
    ) -> None:
        guild_id = require_guild(interaction)
        config = await guild_config.get_config(self.db, guild_id)
        if not is_organizer(interaction, config):
            raise UserError("Only organizers can start a draft (Manage Server or the organizer role).")
        cube_detail = await cubes.get_cube(self.db, guild_id, cube)
        pod = await drafts.create_pod(
            self.db,
            guild_id=guild_id,
            channel_id=interaction.channel_id,
            organizer_id=interaction.user.id,
            cube=cube_detail,
            packs=packs,
            pack_size=pack_size,
            max_seats=seats,
            pick_timer_seconds=pick_timer * 60 if pick_timer else None,
            turns=turns.value if turns else None,
            pick_mode=pick_mode.value if pick_mode else config.default_pick_mode,
        )
        await interaction.response.send_message(embed=ui.lobby_embed(pod), view=ui.lobby_view(pod))
        message = await interaction.original_response()
        await drafts.set_lobby_message(self.db, pod.id, message.id)

    @draft.command(name="join", description="Join the draft lobby in this channel.")
    @app_commands.guild_only()
    async def join(self, interaction: discord.Interaction) -> None:
        pod = await self._pod_here(interaction, statuses=("lobby", "drafting"))
        await self._join(interaction, pod.id, respond=False)

    @draft.command(name="leave", description="Leave the draft lobby in this channel.")
    @app_commands.guild_only()
    async def leave(self, interaction: discord.Interaction) -> None:
        pod = await self._pod_here(interaction, statuses=("lobby", "drafting"))
        updated = await drafts.leave(self.db, pod.id, interaction.user.id)
        await interaction.response.send_message(f"You left draft #{pod.id}.", ephemeral=True)
        await self._edit_lobby(updated)

    @draft.command(name="begin", description="Begin the draft in this channel now (organizer).")
    @app_commands.guild_only()
    async def begin(self, interaction: discord.Interaction) -> None:
        pod = await self._pod_here(interaction, statuses=("lobby", "drafting"))
        result = await drafts.begin(
            self.db, pod.id, user_id=interaction.user.id, is_organizer=await self._organizer(interaction)
        )
        await interaction.response.send_message(f"Draft #{pod.id} has begun: check your DMs!")
        await self._after_begin(result)

    @draft.command(name="cancel", description="Cancel the draft in this channel (organizer; asks first).")
    @app_commands.guild_only()
    async def cancel(self, interaction: discord.Interaction) -> None:
        pod = await self._pod_here(interaction)
        await self._cancel(interaction, pod)

    @draft.command(name="status", description="Show the draft's round, picks, queues and who it is waiting on.")
    async def status(self, interaction: discord.Interaction) -> None:
        pod = await self._pod_here(interaction, statuses=("lobby", "drafting", "complete"))
        picks = await drafts.count_picks(self.db, pod.id)
        await interaction.response.send_message(embed=ui.status_embed(pod, picks))

    @draft.command(name="pool", description="Show the cards you have picked so far (only you see it).")
    async def pool(self, interaction: discord.Interaction) -> None:
        pod = await self._pod_here(interaction, statuses=("drafting", "complete"))
        pool = await drafts.pool(self.db, pod.id, interaction.user.id)
        await interaction.response.send_message(embed=ui.pool_embed(pool, self.bot.settings.scryfall_base), ephemeral=True)

    @draft.command(name="pick", description="Pick from your current pack here, if your DMs are closed.")
    async def pick(self, interaction: discord.Interaction) -> None:
        pod = await self._pod_here(interaction, statuses=("drafting",))
        prompt = await drafts.current_prompt(self.db, pod.id, interaction.user.id)
        if prompt is None:
            raise UserError("No pack is waiting for you right now; I'll tell you when one arrives.")
        await interaction.response.send_message(
            embed=ui.pack_embed(prompt, self.bot.settings.scryfall_base),
            view=ui.pack_view(prompt, in_dm=False),
            ephemeral=True,
        )

    @draft.command(name="resend", description="DM me my current pack again (after opening your DMs).")
    async def resend(self, interaction: discord.Interaction) -> None:
        pod = await self._pod_here(interaction, statuses=("drafting",))
        prompt = await drafts.current_prompt(self.db, pod.id, interaction.user.id)
        if prompt is None:
            raise UserError("No pack is waiting for you right now.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        message = await self.messenger.deliver(replace(prompt, dm_closed=False))
        text = "Sent: check your DMs." if message else "I still can't DM you: check your privacy settings."
        await interaction.followup.send(text, ephemeral=True)

    @draft.command(name="replace", description="Hand a player's seat to a bot that picks for them (organizer).")
    @app_commands.describe(player="The player whose seat a bot takes over.")
    @app_commands.guild_only()
    async def replace(self, interaction: discord.Interaction, player: discord.User) -> None:
        pod = await self._pod_here(interaction, statuses=("drafting",))
        result = await drafts.replace_with_bot(
            self.db, pod.id, player.id, user_id=interaction.user.id, is_organizer=await self._organizer(interaction)
        )
        await interaction.response.send_message(
            f"A bot now plays {player.mention}'s seat in draft #{pod.id} ({result.bot_picks} picks made so far)."
        )
        await self.messenger.close_pack_message(
            result, f"🤖 The organizer handed your seat in draft #{pod.id} to a bot; it picks for you from now on."
        )
        await self.messenger.after_pick(result, skip_picker=True)

    @draft.command(name="export", description="Get your pool as a file (plain text, Arena, MTGO .dek, Cockatrice).")
    @app_commands.describe(format="File format (default: plain text).")
    @app_commands.choices(format=EXPORT_CHOICES)
    async def export_(self, interaction: discord.Interaction, format: app_commands.Choice[str] | None = None) -> None:
        pod = await self._pod_here(interaction, statuses=("drafting", "complete"))
        pool = await drafts.pool(self.db, pod.id, interaction.user.id)
        extension, text = export(pool.cards, format.value if format else "text", deck_name=f"Draft {pod.id}")
        file = discord.File(io.BytesIO(text.encode()), filename=f"draft-{pod.id}-pool.{extension}")
        await interaction.response.send_message(f"Your {len(pool.cards)} picks from draft #{pod.id}.", file=file, ephemeral=True)

    @draft.command(name="log", description="Download the draft's full pick log as JSON (organizer).")
    @app_commands.guild_only()
    async def log_(self, interaction: discord.Interaction) -> None:
        pod = await self._pod_here(interaction, statuses=("drafting", "complete", "cancelled"))
        if pod.organizer_id != interaction.user.id and not await self._organizer(interaction):
            raise UserError("Only the draft's organizer can download its log.")
        data = json.dumps(await drafts.pick_log(self.db, pod.id), indent=2)
        file = discord.File(io.BytesIO(data.encode()), filename=f"draft-{pod.id}-log.json")
        await interaction.response.send_message(f"Pick log of draft #{pod.id}.", file=file, ephemeral=True)

    # --- lobby buttons ---------------------------------------------------------------------

    async def handle_lobby(self, interaction: discord.Interaction, pod_id: int, action: str) -> None:
        try:
            if action == "join":
                await self._join(interaction, pod_id, respond=True)
            elif action == "leave":
                pod = await drafts.leave(self.db, pod_id, interaction.user.id)
                await interaction.response.edit_message(embed=ui.lobby_embed(pod), view=ui.lobby_view(pod))
            elif action == "begin":
                result = await drafts.begin(
                    self.db, pod_id, user_id=interaction.user.id, is_organizer=await self._organizer(interaction)
                )
                await interaction.response.edit_message(embed=ui.lobby_embed(result.pod), view=None)
                await self._after_begin(result)
            elif action == "cancel":
                await self._cancel(interaction, await drafts.get_pod(self.db, pod_id))
        except Exception as error:  # noqa: BLE001 - every error gets a proper answer
            await report_interaction_error(interaction, error)

    async def _join(self, interaction: discord.Interaction, pod_id: int, *, respond: bool) -> None:
        pod = await drafts.join(self.db, pod_id, interaction.user.id)
        if not pod.is_full:
            if respond:
                await interaction.response.edit_message(embed=ui.lobby_embed(pod), view=ui.lobby_view(pod))
            else:
                await interaction.response.send_message(f"You joined draft #{pod.id}.", ephemeral=True)
                await self._edit_lobby(pod)
            return
        # The lobby is full: begin at once, on the organizer's behalf.
        try:
            result = await drafts.begin(self.db, pod_id, user_id=pod.organizer_id, is_organizer=True)
        except UserError as error:
            # The join stands (the lobby shows it); say why the draft could not begin by itself.
            note = f"⚠️ The lobby is full but the draft can't begin: {error}"
            if respond:
                await interaction.response.edit_message(embed=ui.lobby_embed(pod, note), view=ui.lobby_view(pod))
            else:
                await interaction.response.send_message(f"You joined draft #{pod.id}. {note}", ephemeral=True)
                await self._edit_lobby(pod, note)
            return
        if respond:
            await interaction.response.edit_message(embed=ui.lobby_embed(result.pod), view=None)
        else:
            await interaction.response.send_message(f"You joined draft #{pod.id}; it is full and has begun.")
            await self._edit_lobby(result.pod)
        await self._after_begin(result)

    async def _after_begin(self, result: drafts.BeginResult) -> None:
        await self.messenger.deliver_all(result.prompts)
        if result.completed:
            await self.messenger.finish(result.pod.id)

    async def _cancel(self, interaction: discord.Interaction, pod: drafts.PodView) -> None:
        is_org = await self._organizer(interaction)
        if pod.organizer_id != interaction.user.id and not is_org:
            raise UserError("Only the draft's organizer (or a server organizer) can cancel it.")
        confirmed = await ask_confirmation(interaction, f"Cancel draft #{pod.id}? Picks so far are kept in its log.")
        if confirmed is None:
            return
        updated = await drafts.cancel(self.db, pod.id, user_id=interaction.user.id, is_organizer=is_org)
        await confirmed.response.edit_message(content=f"Draft #{pod.id} was cancelled.", view=None)
        await self._edit_lobby(updated, note="❌ Cancelled by the organizer.")

    # --- picks -----------------------------------------------------------------------------

    async def handle_pick(
        self, interaction: discord.Interaction, pod_id: int, pack_id: int, pack_pick: int, index: int, source: str
    ) -> None:
        in_dm = interaction.guild_id is None
        try:
            result = await drafts.pick(
                self.db, pod_id, interaction.user.id, pack_id=pack_id, pack_pick=pack_pick, card_index=index, source=source
            )
        except Conflict as error:
            await interaction.response.send_message(str(error), ephemeral=True)
            return
        except Exception as error:  # noqa: BLE001
            await report_interaction_error(interaction, error)
            return
        base = self.bot.settings.scryfall_base
        line = ui.picked_line(result.round, result.pick_number, result.card, base)
        upcoming = result.next_for_picker
        if interaction.message is not None:
            self.messenger.stop_reactions(interaction.message.id)
        # Buttons-only DMs (and ephemeral /draft pick) reuse the message for the next pack: one call per pick.
        reuse = upcoming is not None and (not in_dm or upcoming.pick_mode == "buttons")
        if reuse:
            await interaction.response.edit_message(
                embed=ui.pack_embed(upcoming, base, picked_line=line), view=ui.pack_view(upcoming, in_dm=in_dm)
            )
            if in_dm and interaction.message is not None:
                await drafts.record_delivery(
                    self.db, upcoming, channel_id=interaction.channel_id, message_id=interaction.message.id
                )
        else:
            embed = ui.picked_embed(result.round, result.pick_number, result.card, pod_id, base, upcoming is not None)
            await interaction.response.edit_message(embed=embed, view=None)
        if not in_dm:  # picked through /draft pick: a DM copy of that pack must not look pickable
            await self.messenger.close_pack_message(result, f"You picked from this pack in the server: **{result.card}**.")
        await self.messenger.after_pick(result, skip_picker=reuse)

    @commands.Cog.listener()
    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        if payload.guild_id is not None or self.bot.user is None or payload.user_id == self.bot.user.id:
            return
        index = ui.index_of_reaction(str(payload.emoji))
        if index is None:
            return
        await self.messenger.wait_recorded(payload.message_id)
        ref = await drafts.delivery_for_message(self.db, payload.message_id)
        if ref is None:
            # Sent by another process (or just before a crash) and not recorded yet: if the player's
            # current pack has no message on record, this message is the one showing it.
            ref = await drafts.adopt_unrecorded_message(
                self.db, payload.user_id, channel_id=payload.channel_id, message_id=payload.message_id
            )
        if ref is None or ref.user_id != payload.user_id:
            return
        channel = self.bot.get_partial_messageable(payload.channel_id)
        if ref.cards is None:
            await channel.send("Already picked: that pack has moved on. Your current pack is in your newest message.")
            return
        if index >= len(ref.cards):
            return
        try:
            result = await drafts.pick(
                self.db, ref.pod_id, payload.user_id, pack_id=ref.pack_id, pack_pick=ref.pack_pick,
                card_index=index, source="reaction",
            )
        except (Conflict, UserError) as error:
            await channel.send(str(error))
            return
        self.messenger.stop_reactions(payload.message_id)
        embed = ui.picked_embed(
            result.round, result.pick_number, result.card, ref.pod_id, self.bot.settings.scryfall_base,
            result.next_for_picker is not None,
        )
        try:
            await channel.get_partial_message(payload.message_id).edit(embed=embed, view=None)
        except discord.HTTPException:
            log.warning("could not confirm a reaction pick on %s", payload.message_id, exc_info=True)
        await self.messenger.after_pick(result, skip_picker=False)

    # --- background sweep (timers, undelivered packs) -------------------------------------

    @tasks.loop(seconds=30)
    async def sweep(self) -> None:
        try:
            if not self.bot.owns_shard_zero:
                return  # one process sweeps (the one that gets the DMs), so nothing is sent twice
            sent = await self.messenger.resend_undelivered(self.resend_cutoff.next())
            if sent:
                log.info("re-sent %d undelivered draft packs", sent)
            await self.messenger.run_timers()
            await self.messenger.finish_unannounced()
        except Exception:
            log.exception("draft sweep failed; it will run again")

    @sweep.before_loop
    async def _wait_until_ready(self) -> None:
        await self.bot.wait_until_ready()


async def setup(bot: MtgBot) -> None:
    bot.add_dynamic_items(ui.LobbyButton, ui.PickButton, ui.PickSelect)
    await bot.add_cog(DraftCog(bot))
