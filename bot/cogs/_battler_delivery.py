"""Discord side effects of Treasure Battler actions, run after the service committed.

A failed Discord call never loses state: private DMs that no message shows are re-sent by the sweep
(at startup: every one of a phase begun before this process started), and a finished game's results
are posted once (claimed in the database) by whoever gets there first.
"""

from __future__ import annotations

import logging
from datetime import datetime

import discord

from bot.services import battler
from bot.services.battler import ActionResult, GameView, PrivatePrompt
from bot.ui import battler as ui

log = logging.getLogger(__name__)
DISCORD_CANNOT_DM = 50007
USERS = discord.AllowedMentions(users=True, roles=False, everyone=False)


def _phase_key(prompt: PrivatePrompt) -> tuple:
    return (prompt.game_id, prompt.user_id, prompt.kind, prompt.stage, prompt.round)


class BattlerMessenger:
    def __init__(self, bot) -> None:  # bot: MtgBot (untyped to avoid an import cycle)
        self.bot = bot
        # (game, user, kind, stage, round) whose DM failed because the user's DMs are closed: the periodic sweep
        # does not retry those (and does not repeat the notice); startup and `/battler stash resend` do.
        self._closed: set[tuple] = set()

    @property
    def db(self):
        return self.bot.db

    async def deliver(self, prompt: PrivatePrompt, *, note: str | None = None) -> discord.Message | None:
        """DM `prompt` and record which message shows it; on closed DMs, say so in the game's channel."""
        try:
            channel = await self.bot.create_dm(discord.Object(id=prompt.user_id))
            kwargs: dict = {"embed": ui.prompt_embed(prompt, note=note)}
            if (view := ui.prompt_view(prompt)) is not None:
                kwargs["view"] = view
            message = await channel.send(**kwargs)
        except discord.Forbidden as error:
            if error.code == DISCORD_CANNOT_DM:
                self._closed.add(_phase_key(prompt))
                await self.post(
                    prompt.channel_id, prompt.guild_id,
                    [f"<@{prompt.user_id}>, I can't DM you your Treasure Battler choices. Turn on Direct Messages "
                     "from server members, then run `/battler stash resend:True`."],
                )
                return None
            raise
        except discord.HTTPException:
            log.warning("could not DM game %s to %s; the sweep will retry", prompt.game_id, prompt.user_id, exc_info=True)
            return None
        await battler.record_message(self.db, prompt, channel_id=message.channel.id, message_id=message.id)
        return message

    async def deliver_all(self, prompts: list[PrivatePrompt]) -> None:
        for prompt in prompts:
            await self.deliver(prompt)

    async def post(self, channel_id: int, guild_id: int | None, lines: list[str], *,
                   view: discord.ui.View | None = None) -> discord.Message | None:
        channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        message = None
        chunks = ui.split_messages(lines)
        for index, chunk in enumerate(chunks):
            kwargs: dict = {"content": chunk, "allowed_mentions": USERS}
            if view is not None and index == len(chunks) - 1:
                kwargs["view"] = view
            try:
                message = await channel.send(**kwargs)
            except discord.HTTPException:
                log.warning("could not post to channel %s", channel_id, exc_info=True)
        return message

    async def after(self, result: ActionResult) -> None:
        """Public announcements, new private DMs, an organizer's decision message, the end."""
        game = result.game
        lines = ui.event_lines(game, result.events)
        if lines:
            await self.post(game.channel_id, game.guild_id, lines)
        await self.deliver_all(result.prompts)
        if result.finished:
            await self.finish(game.id)

    async def ask_organizer(self, game: GameView, report: battler.PendingReport) -> None:
        text = f"<@{game.organizer_id}>: " + ui.report_text(game, report)
        await self.post(game.channel_id, game.guild_id, [text], view=ui.report_view(game, report))

    async def finish(self, game_id: int) -> None:
        """Final standings, once per game, to the leaderboard channel (or the game's channel)."""
        if not await battler.claim_announcement(self.db, game_id):
            return
        final = await battler.final_result(self.db, game_id)
        lines = ui.final_lines(final.game, final.standings)
        lines.append("Results were added to the leaderboard (`/leaderboard`).")
        await self.post(final.post_channel_id, final.game.guild_id, lines)

    async def finish_unannounced(self) -> None:
        for game_id in await battler.unannounced_games(self.db):
            await self.finish(game_id)

    async def resend_undelivered(self, phase_started_before: datetime) -> int:
        prompts = await battler.undelivered_prompts(self.db, phase_started_before=phase_started_before)
        prompts = [p for p in prompts if _phase_key(p) not in self._closed]
        await self.deliver_all(prompts)
        return len(prompts)
