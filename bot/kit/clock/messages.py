"""How a chess clock's owed messages look in Discord (outbox renderers).

The service queues them with the change that causes them (`bot.kit.clock.service`): the clock
message (posted once: an offer pings the opponent, who must accept it), its edits (each shows the
clock as stored when it is sent; an edit queued before a newer change is skipped, the newer one
shows it; the offer's line goes once it is answered) and the announcements.
"""

from __future__ import annotations

from bot.kit import limits
from bot.kit.clock import service as clock
from bot.kit.clock import ui
from bot.kit.delivery import Outgoing
from bot.kit.outbox import Queued


class ClockMessages:
    def __init__(self, bot) -> None:  # bot: MtgBot
        self.bot = bot
        for kind, renderer in {clock.POST: self.post, clock.SHOW: self.show, clock.NEWS: self.news}.items():
            bot.outbox.register(kind, renderer)

    async def post(self, queued: Queued, fresh: bool) -> Outgoing | None:
        view = await clock.still_to_post(self.bot.db, queued.payload["clock_id"])
        if view is None:
            return None
        pinged = ui.offer_pinged(view)
        return Outgoing(content=ui.offer_text(view), embeds=[ui.clock_embed(view)], view=ui.clock_view(view),
                        allowed_mentions=limits.ping(*pinged) if pinged else None)

    async def show(self, queued: Queued, fresh: bool) -> Outgoing | None:
        view = await clock.still_to_show(self.bot.db, queued.payload["clock_id"], queued.payload["version"])
        if view is None or view.message_id is None:
            return None
        return Outgoing(content=ui.offer_text(view), embeds=[ui.clock_embed(view)], view=ui.clock_view(view),
                        edit=(view.channel_id, view.message_id))

    async def news(self, queued: Queued, fresh: bool) -> Outgoing:
        pings = ui.news_pings(queued.payload)
        return Outgoing(content=ui.news_text(queued.payload), allowed_mentions=limits.ping(*pings) if pings else None)
