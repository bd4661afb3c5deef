"""How a Turnabout event's owed messages look in Discord (outbox renderers).

The service queues them with the change that causes them (`bot.games.turnabout.service`); the shared
outbox sends them after the commit, or the sweeper after a crash. Each payload is a snapshot, so a
late send shows exactly what happened then.
"""

from __future__ import annotations

from bot.games.turnabout import service as turnabout
from bot.games.turnabout import ui
from bot.kit import limits
from bot.kit.delivery import Outgoing
from bot.kit.outbox import Queued


class TurnaboutMessages:
    def __init__(self, bot) -> None:  # bot: MtgBot
        self.bot = bot
        renderers = {
            turnabout.ANNOUNCE: self.announce, turnabout.DECKLIST: self.decklist, turnabout.FINAL: self.final,
            turnabout.ENDED: self.cancelled,
        }
        for kind, renderer in renderers.items():
            bot.outbox.register(kind, renderer)

    async def announce(self, queued: Queued, fresh: bool) -> Outgoing | None:
        news = turnabout.Announcement.from_payload(queued.payload)
        chunks = ui.split_messages(ui.event_lines(news))
        if not chunks:
            return None
        # Only the players a new round calls to play (and the organizer for a dispute) are pinged.
        return Outgoing(content=chunks[0], continued=chunks[1:],
                        allowed_mentions=limits.ping(*news.ping) if news.ping else None)

    async def decklist(self, queued: Queued, fresh: bool) -> Outgoing:
        content, file = ui.decklist_messages(queued.payload)  # a long list: one message, the list attached
        return Outgoing(content=content, files=[file] if file is not None else [])

    async def final(self, queued: Queued, fresh: bool) -> Outgoing:
        chunks = ui.split_messages(ui.final_lines(turnabout.Announcement.from_payload(queued.payload)))
        return Outgoing(content=chunks[0], continued=chunks[1:])

    async def cancelled(self, queued: Queued, fresh: bool) -> Outgoing:
        name = turnabout.event_name(queued.payload["event_id"])
        return Outgoing(content=f"❌ {name} was cancelled by an organizer: no results were recorded.")
