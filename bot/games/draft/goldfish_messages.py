"""How a Goldfish event's owed messages look in Discord (outbox renderers).

The service queues them with the change that causes them (`bot.games.draft.goldfish_service`): the final
standings when an event closes, and the DM telling a player why their score was rejected.
"""

from __future__ import annotations

from bot.games.draft import goldfish_service as goldfish
from bot.games.draft import goldfish_ui as ui
from bot.kit import limits
from bot.kit.client import KitBot
from bot.kit.delivery import Outgoing
from bot.kit.outbox import Outcome, Queued
from bot.kit.text import escape


class GoldfishMessages:
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot
        bot.outbox.register(goldfish.FINAL, self.final)
        bot.outbox.register(goldfish.REJECTED, self.rejected)

    async def final(self, queued: Queued, fresh: bool) -> Outgoing:
        event, standings = await goldfish.final_standings(self.bot.db, queued.payload["event_id"])
        return Outgoing(embeds=[ui.standings_embed(event, standings, final=True)])

    async def rejected(self, queued: Queued, fresh: bool) -> Outgoing:
        payload = queued.payload
        text = (
            f"Your score in **{escape(payload['event_name'])}** was rejected by the organizer: "
            f"{escape(payload['reason'])}\nYou can submit again with `/goldfish submit` until the event closes."
        )
        return Outgoing(content=limits.clip(text, limits.CONTENT))


def delivery_problem(outcome: Outcome) -> str | None:
    """Why a DM did not arrive, in words for the organizer (None: it arrived)."""
    if outcome.message_id is not None:
        return None
    if outcome.dm_closed:
        return "their DMs are closed to the bot (privacy settings)."
    if outcome.retry:
        return "Discord did not answer; I will keep trying."
    return f"Discord refused the message (HTTP {outcome.error or 'error'})."
