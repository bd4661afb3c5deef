"""Sending draft packs to players: DMs, background reactions, closed DMs, completion posts.

Everything here runs after the service committed; a failed Discord call never loses state (the
startup sweep re-sends any pack that no message shows).
"""

from __future__ import annotations

import asyncio
import io
import logging
from datetime import datetime

import discord

from bot.cards.export import export
from bot.services import drafts
from bot.services.drafts import PackPrompt, PickResult
from bot.ui.draft import pack_embed, pack_view, pool_embed, regional_indicator, uses_reactions

log = logging.getLogger(__name__)
DISCORD_CANNOT_DM = 50007


class DraftMessenger:
    def __init__(self, bot) -> None:  # bot: MtgBot (untyped to avoid an import cycle)
        self.bot = bot
        self._reaction_tasks: dict[int, asyncio.Task] = {}
        # Messages sent but not yet recorded: a reaction that beats the record waits for it.
        self._recording: dict[int, asyncio.Future] = {}

    @property
    def scryfall(self) -> str:
        return self.bot.settings.scryfall_base

    # --- packs -----------------------------------------------------------------------------

    async def deliver(self, prompt: PackPrompt, *, picked_line: str | None = None) -> discord.Message | None:
        """DM `prompt` to its player; on closed DMs, tell them in the pod's channel instead."""
        if prompt.dm_closed:
            return None
        try:
            channel = await self.bot.create_dm(discord.Object(id=prompt.user_id))
            kwargs = {"embed": pack_embed(prompt, self.scryfall, picked_line=picked_line)}
            if (view := pack_view(prompt)) is not None:
                kwargs["view"] = view
            message = await channel.send(**kwargs)
        except discord.Forbidden as error:
            if error.code == DISCORD_CANNOT_DM:
                await self._dms_closed(prompt)
                return None
            raise
        except discord.HTTPException:
            log.warning("could not DM pack %s to %s; the sweep will retry", prompt.pack_id, prompt.user_id, exc_info=True)
            return None
        recorded = asyncio.get_running_loop().create_future()
        self._recording[message.id] = recorded
        try:
            replaced = await drafts.record_delivery(
                self.bot.db, prompt, channel_id=message.channel.id, message_id=message.id
            )
        finally:
            recorded.set_result(None)
            self._recording.pop(message.id, None)
        self.start_reactions(message, prompt)
        if replaced is not None:
            await self._retire(*replaced)
        return message

    async def _retire(self, channel_id: int, message_id: int) -> None:
        """An older message showed the same pack: take its buttons away so only the new one is live."""
        self.stop_reactions(message_id)
        old = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            await old.edit(content="This pack was sent again below.", embed=None, view=None)
        except discord.HTTPException:
            log.info("could not retire the old pack message %s", message_id)

    async def close_pack_message(self, result: PickResult, text: str) -> None:
        """The bot picked from the pack a player was shown (time-out, seat handed to a bot): replace
        that message's pack and buttons with `text`, so no stale pack looks pickable."""
        if result.pack_id is None or result.pack_pick is None:
            return
        found = await drafts.delivery_message(self.bot.db, result.pod_id, result.pack_id, result.pack_pick)
        if found is None:
            return
        channel_id, message_id = found
        self.stop_reactions(message_id)
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            await message.edit(content=text, embed=None, view=None)
        except discord.HTTPException:
            log.info("could not close the pack message %s", message_id)

    async def wait_recorded(self, message_id: int) -> None:
        """Let a just-sent pack message's delivery record land before a reaction on it is looked up."""
        pending = self._recording.get(message_id)
        if pending is not None:
            await pending

    async def deliver_all(self, prompts: list[PackPrompt]) -> None:
        for prompt in prompts:
            await self.deliver(prompt)

    def start_reactions(self, message: discord.Message | discord.PartialMessage, prompt: PackPrompt) -> None:
        """Add 🇦… in the background: the buttons are usable at once, and a reaction the player adds
        before the bot does counts just the same."""
        if not uses_reactions(prompt):
            return
        task = asyncio.create_task(self._add_reactions(message, len(prompt.cards)), name=f"reactions-{message.id}")
        self._reaction_tasks[message.id] = task
        task.add_done_callback(lambda _t, mid=message.id: self._reaction_tasks.pop(mid, None))

    async def _add_reactions(self, message, count: int) -> None:
        try:
            for index in range(count):
                await message.add_reaction(regional_indicator(index))
        except discord.HTTPException:
            log.info("stopped adding reactions to %s", message.id, exc_info=True)

    def stop_reactions(self, message_id: int) -> None:
        task = self._reaction_tasks.pop(message_id, None)
        if task is not None:
            task.cancel()

    async def _dms_closed(self, prompt: PackPrompt) -> None:
        await drafts.mark_dm_closed(self.bot.db, prompt.pod_id, prompt.user_id)
        channel = self.bot.get_partial_messageable(prompt.channel_id, guild_id=prompt.guild_id)
        try:
            await channel.send(
                f"<@{prompt.user_id}>, I can't DM you your draft pack. Turn on **Direct Messages** from server "
                "members (Server menu → Privacy Settings), then run `/draft resend`. Meanwhile, "
                "pick here with `/draft pick`.",
                allowed_mentions=discord.AllowedMentions(users=True),
            )
        except discord.HTTPException:
            log.warning("could not tell %s that their DMs are closed", prompt.user_id, exc_info=True)

    # --- after a pick ----------------------------------------------------------------------

    async def after_pick(self, result: PickResult, *, skip_picker: bool) -> None:
        """DM everyone whose pack changed, then finish the draft if it is over."""
        if result.next_for_picker is not None and not skip_picker:
            await self.deliver(result.next_for_picker)
        await self.deliver_all(result.others)
        if result.completed:
            await self.finish(result.pod_id)

    async def finish(self, pod_id: int) -> None:
        """Final pools by DM and a channel summary, once per pod (claimed in the database)."""
        if not await drafts.claim_announcement(self.bot.db, pod_id):
            return
        pod = await drafts.get_pod(self.bot.db, pod_id)
        pools = await drafts.all_pools(self.bot.db, pod_id)
        for seat in pod.seats:
            if seat.is_bot or seat.dm_closed:
                continue
            pool = await drafts.pool(self.bot.db, pod_id, seat.user_id)
            extension, text = export(pool.cards, "text")
            try:
                channel = await self.bot.create_dm(discord.Object(id=seat.user_id))
                await channel.send(
                    embed=pool_embed(pool, self.scryfall, f"Draft #{pod_id} is complete: your pool"),
                    file=discord.File(io.BytesIO(text.encode()), filename=f"draft-{pod_id}-pool.{extension}"),
                )
            except discord.HTTPException:
                log.warning("could not DM the final pool to %s", seat.user_id, exc_info=True)
        summary = "\n".join(
            f"<@{uid}>: {len(cards)} cards, first picks {', '.join(cards[:3])}" for uid, cards in pools.items()
        )
        next_step = (
            f"\nGoldfish scoring is open: play your {pod.turns}-turn game and `/goldfish submit`."
            if pod.turns
            else ""
        )
        channel = self.bot.get_partial_messageable(pod.channel_id, guild_id=pod.guild_id)
        try:
            await channel.send(
                f"🏁 **Draft #{pod_id} is complete.** Everyone got their pool by DM "
                f"(`/draft export` for other formats).\n{summary}{next_step}",
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException:
            log.warning("could not post the summary of draft %s", pod_id, exc_info=True)

    # --- background ------------------------------------------------------------------------

    async def finish_unannounced(self) -> None:
        for pod_id in await drafts.unannounced_complete_pods(self.bot.db):
            await self.finish(pod_id)

    async def resend_undelivered(self, waiting_since_before: datetime) -> int:
        prompts = await drafts.undelivered_prompts(self.bot.db, waiting_since_before=waiting_since_before)
        await self.deliver_all(prompts)
        return len(prompts)

    async def run_timers(self) -> None:
        actions = await drafts.sweep_timers(self.bot.db)
        for prompt in actions.reminders:
            await self._remind(prompt)
        for result, to_bot in actions.auto_picks:
            await self.close_pack_message(
                result,
                f"⌛ Draft #{result.pod_id} · Pack {result.round + 1}, pick {result.pick_number}: "
                f"time ran out, I picked **{result.card}** for you.",
            )
            await self._tell_timeout(result, to_bot)
            await self.after_pick(result, skip_picker=False)

    async def _remind(self, prompt: PackPrompt) -> None:
        try:
            channel = await self.bot.create_dm(discord.Object(id=prompt.user_id))
            await channel.send(f"⏰ Half your pick time is gone in draft #{prompt.pod_id}: your pack is waiting above.")
        except discord.HTTPException:
            log.info("could not remind %s", prompt.user_id)

    async def _tell_timeout(self, result: PickResult, to_bot: bool) -> None:
        note = f"⌛ Time ran out in draft #{result.pod_id}: I picked **{result.card}** for you."
        if to_bot:
            note += " After repeated timeouts a bot now plays your seat; ask the organizer if you want it back."
            pod = await drafts.get_pod(self.bot.db, result.pod_id)
            try:
                organizer = await self.bot.create_dm(discord.Object(id=pod.organizer_id))
                await organizer.send(f"Draft #{pod.id}: <@{result.user_id}> timed out repeatedly; a bot took their seat.")
            except discord.HTTPException:
                log.info("could not tell the organizer of draft %s", pod.id)
        try:
            channel = await self.bot.create_dm(discord.Object(id=result.user_id))
            await channel.send(note)
        except discord.HTTPException:
            log.info("could not tell %s about a timeout", result.user_id)
