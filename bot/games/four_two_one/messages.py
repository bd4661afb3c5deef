"""How a 421 league's owed messages look in Discord (outbox renderers).

The service queues them with the change that causes them (`bot.games.four_two_one.service`); the shared
outbox sends them after the commit, or the sweeper after a crash. Each payload is a snapshot, so a
late send shows exactly what happened then.
"""

from __future__ import annotations

from bot.games.four_two_one import service as four_two_one
from bot.games.four_two_one import ui
from bot.games.four_two_one.service import Announcement
from bot.kit import limits
from bot.kit.client import KitBot
from bot.kit.delivery import Outgoing
from bot.kit.outbox import Queued


class FourTwoOneMessages:
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot
        renderers = {
            four_two_one.ANNOUNCE: self.announce, four_two_one.FINAL: self.final, four_two_one.CANCELLED: self.cancelled,
        }
        for kind, renderer in renderers.items():
            bot.outbox.register(kind, renderer)

    async def announce(self, queued: Queued, fresh: bool) -> Outgoing | None:
        news = Announcement.from_payload(queued.payload)
        chunks = ui.split_messages(ui.event_lines(news))
        if not chunks:
            return None
        # The take-apart menu rides on the announcement that asks for it; only the player called to
        # act (and a new round's players) are pinged.
        view = ui.take_apart_view(news.league_id, news.take_apart) if len(news.take_apart) >= 2 else None
        return Outgoing(content=chunks[0], continued=chunks[1:], view=view,
                        allowed_mentions=limits.ping(*news.ping) if news.ping else None)

    async def final(self, queued: Queued, fresh: bool) -> Outgoing:
        chunks = ui.split_messages(ui.final_lines(Announcement.from_payload(queued.payload)))
        return Outgoing(content=chunks[0], continued=chunks[1:])

    async def cancelled(self, queued: Queued, fresh: bool) -> Outgoing:
        name = four_two_one.league_name(queued.payload["league_id"])
        return Outgoing(content=f"❌ {name} was cancelled by an organizer: no results were recorded.")
