"""How a Vortex game's owed messages look in Discord (outbox renderers).

The service queues them with the change that causes them (`bot.games.vortex.service`); the shared outbox
sends them after the commit, or the sweeper after a crash. A DM the sweeper takes (`fresh` False) is
sent only if the player still has to answer it (the pick, the look, the search or the basic-land
choice is still open).
"""

from __future__ import annotations

from bot.games.vortex import service as vortex
from bot.games.vortex import ui
from bot.kit import limits
from bot.kit.client import KitBot
from bot.kit.delivery import Outgoing
from bot.kit.outbox import Queued


class VortexMessages:
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot
        renderers = {
            vortex.PICK: self.pick, vortex.BASICS: self.basics, vortex.LOOK: self.look, vortex.SEARCH: self.search,
            vortex.ANNOUNCE: self.announce, vortex.FINAL: self.final, vortex.ENDED: self.ended,
            vortex.DMS_CLOSED: self.dms_closed,
        }
        for kind, renderer in renderers.items():
            bot.outbox.register(kind, renderer)

    async def _wanted(self, queued: Queued, fresh: bool) -> bool:
        return fresh or await vortex.still_wanted(self.bot.db, queued.kind, queued.payload)

    async def pick(self, queued: Queued, fresh: bool) -> Outgoing | None:
        if not await self._wanted(queued, fresh):
            return None
        prompt = vortex.PickPrompt.from_payload(queued.payload)
        return Outgoing(embeds=[ui.pick_embed(prompt)], view=ui.pick_view(prompt))

    async def basics(self, queued: Queued, fresh: bool) -> Outgoing | None:
        if not await self._wanted(queued, fresh):
            return None
        prompt = vortex.BasicsPrompt.from_payload(queued.payload)
        return Outgoing(embeds=[ui.basics_embed(prompt)], view=ui.basics_view(prompt))

    async def look(self, queued: Queued, fresh: bool) -> Outgoing | None:
        if not await self._wanted(queued, fresh):
            return None
        prompt = vortex.LookPrompt.from_payload(queued.payload)
        return Outgoing(embeds=[ui.look_embed(prompt)], view=ui.look_view(prompt))

    async def search(self, queued: Queued, fresh: bool) -> Outgoing | None:
        if not await self._wanted(queued, fresh):
            return None
        prompt = vortex.SearchPrompt.from_payload(queued.payload)
        return Outgoing(embeds=[ui.search_embed(prompt)], view=ui.search_view(prompt))

    async def announce(self, queued: Queued, fresh: bool) -> Outgoing | None:
        news = vortex.Announcement.from_payload(queued.payload)
        chunks = ui.split_messages(ui.event_lines(news))
        if not chunks:
            return None
        # Only the player whose turn of normal play begins is pinged.
        return Outgoing(content=chunks[0], continued=chunks[1:],
                        allowed_mentions=limits.ping(*news.ping) if news.ping else None)

    async def final(self, queued: Queued, fresh: bool) -> Outgoing:
        game = await vortex.get_game(self.bot.db, queued.payload["game_id"])
        return Outgoing(content=ui.final_text(game))

    async def ended(self, queued: Queued, fresh: bool) -> Outgoing:
        game_id = queued.payload["game_id"]
        return Outgoing(content=f"❌ Vortex #{game_id} was cancelled by an organizer (nothing goes to the leaderboard).")

    async def dms_closed(self, queued: Queued, fresh: bool) -> Outgoing:
        user_id = queued.payload["user_id"]
        return Outgoing(
            content=f"<@{user_id}>, I can't DM you your Vortex cards. Turn on Direct Messages from server members, "
            "then run `/vortex hand resend:True`.",
            allowed_mentions=limits.ping(user_id),
        )
