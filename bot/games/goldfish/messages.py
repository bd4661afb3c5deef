"""How a Goldfish event's owed messages look in Discord: its outbox renderers (registered with
`bot.kit.delivery.renders` when the cog imports this module).

The service queues them with the change that causes them (`bot.games.goldfish.service`): the final
standings when an event ends (in its channel and the results channel), the DM telling a player why their score was rejected, and the channel's
note that an event was cancelled.
"""

from __future__ import annotations

import discord

from bot.games.goldfish import service as goldfish
from bot.games.goldfish import ui
from bot.games.goldfish.service import Cancelled, EventRef, Rejected
from bot.kit import limits
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.outbox import Outcome
from bot.kit.text import escape, plural
from bot.web.buttons import event_view

RENDERERS = Renderers()  # carried by its `FORMAT`


@RENDERERS.renders(goldfish.FINAL, EventRef)
async def final(ref: EventRef, ctx: Delivery) -> Outgoing:
    """The final standings with a line naming the winner: pinged in the event's channel (`ping`), the
    results channel's copy pings nobody, so a winner hears it once."""
    event, standings = await goldfish.final_standings(ctx.db, ref.event_id)
    winners = [s.submission.user_id for s in standings if s.placement == 1]
    return Outgoing(content=ui.winner_line(event, winners), embeds=[ui.standings_embed(event, standings, final=True)],
                    allowed_mentions=discord.AllowedMentions(users=[discord.Object(w) for w in winners])
                    if ref.ping and winners else None,
                    view=await event_view(ctx.bot, ctx.message.guild_id, goldfish.KIND, ref.event_id))


@RENDERERS.renders(goldfish.REJECTED, Rejected)
async def rejected(rejection: Rejected, ctx: Delivery) -> Outgoing:
    text = (
        f"Your score in **{escape(rejection.event_name)}** was rejected by the organizer: "
        f"{escape(rejection.reason)}\nYou can report again with `/goldfish report` until the event ends."
    )
    return Outgoing(content=limits.clip(text, limits.CONTENT))


@RENDERERS.renders(goldfish.CANCELLED, Cancelled)
async def cancelled(note: Cancelled, ctx: Delivery) -> Outgoing:
    scores = ("it had no scores" if note.scores == 0 else "its 1 score was deleted" if note.scores == 1
              else f"its {plural(note.scores, 'score')} were deleted")
    text = (f"🚫 <@{note.by}> cancelled the Goldfish event **{escape(note.event_name)}**: {scores}, "
            "and nothing went to the leaderboard.")
    return Outgoing(content=limits.clip(text, limits.CONTENT))  # the client's default: it pings nobody


def delivery_problem(outcome: Outcome) -> str | None:
    """Why a DM did not arrive, in words for the organizer (None: it arrived)."""
    if outcome.message_id is not None:
        return None
    if outcome.dm_closed:
        return "their DMs are closed to the bot (privacy settings)."
    if outcome.retry:
        return "Discord did not answer; I will keep trying."
    return f"Discord refused the message (HTTP {outcome.error or 'error'})."
