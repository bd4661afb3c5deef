"""How a Treasure Battler game's owed messages look in Discord (outbox renderers).

The service queues them with the change that causes them (`bot.games.battler.service`); the shared
outbox sends them after the commit, or the sweeper after a crash. A private DM the sweeper takes
(`fresh` False) is sent only if it is still the player's current one.
"""

from __future__ import annotations

from bot.games.battler import service as battler
from bot.games.battler import ui
from bot.kit import limits
from bot.kit.client import KitBot
from bot.kit.delivery import Outgoing
from bot.kit.outbox import Queued


class BattlerMessages:
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot
        renderers = {
            battler.PROMPT: self.prompt, battler.ANNOUNCE: self.announce, battler.DISPUTE: self.dispute,
            battler.FINAL: self.final, battler.ENDED: self.ended, battler.DMS_CLOSED: self.dms_closed,
        }
        for kind, renderer in renderers.items():
            bot.outbox.register(kind, renderer)

    async def prompt(self, queued: Queued, fresh: bool) -> Outgoing | None:
        prompt = battler.PrivatePrompt.from_payload(queued.payload)
        if not fresh and not await battler.still_wanted(self.bot.db, prompt):
            return None
        return Outgoing(embeds=[ui.prompt_embed(prompt)], view=ui.prompt_view(prompt))

    async def announce(self, queued: Queued, fresh: bool) -> Outgoing | None:
        news = battler.Announcement.from_payload(queued.payload)
        chunks = ui.split_messages(ui.event_lines(news))
        if not chunks:
            return None
        # Only the players these events call to act are pinged (a new phase, their carousel pick).
        return Outgoing(content=chunks[0], continued=chunks[1:],
                        allowed_mentions=limits.ping(*news.ping) if news.ping else None)

    async def dispute(self, queued: Queued, fresh: bool) -> Outgoing:
        news = battler.Announcement.from_payload(queued.payload)
        report = battler.report_from_payload(queued.payload["report"])
        return Outgoing(content=ui.dispute_text(news, report, news.organizer_id), view=ui.report_view(news.game_id, report),
                        allowed_mentions=limits.ping(news.organizer_id))

    async def final(self, queued: Queued, fresh: bool) -> Outgoing:
        final = await battler.final_result(self.bot.db, queued.payload["game_id"])
        lines = [*ui.final_lines(final.game, final.standings), "Results were added to the leaderboard (`/leaderboard`)."]
        chunks = ui.split_messages(lines)
        return Outgoing(content=chunks[0], continued=chunks[1:])

    async def ended(self, queued: Queued, fresh: bool) -> Outgoing:
        game_id = queued.payload["game_id"]
        return Outgoing(content=f"❌ Treasure Battler #{game_id} was ended by an organizer without a winner (not recorded).")

    async def dms_closed(self, queued: Queued, fresh: bool) -> Outgoing:
        user_id = queued.payload["user_id"]
        return Outgoing(
            content=f"<@{user_id}>, I can't DM you your Treasure Battler choices. Turn on Direct Messages from server "
            "members, then run `/battler stash resend:True`.",
            allowed_mentions=limits.ping(user_id),
        )
