"""How a Treasure Battler game's owed messages look in Discord: its outbox renderers (registered
when the cog imports this module; beside `ui`, which would pass 700 lines with them).

The service queues them with the change that causes them (`bot.games.battler.service`); the shared
outbox sends them after the commit, or the sweeper after a crash. A private DM the sweeper takes
(`fresh` False) is sent only if it is still the player's current one. A running game cancelled by an
organizer and a player's closed DMs are told in the kit's words.
"""

from __future__ import annotations

from bot.games.battler import rules as engine
from bot.games.battler import service as battler
from bot.games.battler import ui
from bot.games.battler.service import Announcement, Dispute, PhaseOver, PlayPost, PrivatePrompt
from bot.kit import claims_ui, limits
from bot.kit.claims import Call
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.tables import TableRef
from bot.web.buttons import event_view

RENDERERS = Renderers()  # carried by its `FORMAT`
RENDERERS.dms_closed(battler.DMS_CLOSED, what="your Treasure Battler choices", resend="/battler resend")


@RENDERERS.renders(battler.PROMPT, PrivatePrompt)
async def prompt(prompt: PrivatePrompt, ctx: Delivery) -> Outgoing | None:
    if not ctx.fresh and not await battler.still_wanted(ctx.db, prompt):
        return None
    return Outgoing(embeds=[ui.prompt_embed(prompt)], view=ui.prompt_view(prompt))


@RENDERERS.renders(battler.PHASE_OVER, PhaseOver)
async def phase_over(over: PhaseOver, ctx: Delivery) -> Outgoing:
    """A DM of a phase that has ended says so, its buttons gone (edited in place: no notification)."""
    return Outgoing(embeds=[ui.phase_over_embed(over)], view=None, edit=(over.channel_id, over.message_id))


@RENDERERS.renders(battler.PLAY_DONE, PlayPost)
async def play_done(post: PlayPost, ctx: Delivery) -> Outgoing | None:
    """A PLAY phase's post once the phase is over: the same text, its report buttons gone."""
    chunks = ui.split_messages([line for line in ui.event_lines(post.news) if line != ui.PLAY_HOW_TO])
    return Outgoing(content=chunks[0], edit=(post.channel_id, post.message_id)) if chunks else None


@RENDERERS.renders(battler.ANNOUNCE, Announcement)
async def announce(news: Announcement, ctx: Delivery) -> Outgoing | None:
    chunks = ui.split_messages(ui.event_lines(news))
    if not chunks:
        return None
    # Only the players these events call to act are pinged (a new phase, their carousel pick). A PLAY
    # phase's post carries the report buttons, so nobody has to type a report.
    playing = any(isinstance(e, engine.PairingsMade) for e in news.events)
    return Outgoing(content=chunks[0], continued=chunks[1:], view=ui.play_view(news.game_id) if playing else None,
                    allowed_mentions=limits.ping(*news.ping) if news.ping else None)


@RENDERERS.renders(battler.DISPUTE, Dispute)
async def dispute(call: Dispute, ctx: Delivery) -> Outgoing:
    """The call to decide a disputed report: the organizers who do not play in it are pinged."""
    referees = call.call if call.call is not None else Call(users=(call.organizer_id,))
    return Outgoing(content=ui.dispute_text(call, call.report, referees.text()),
                    view=ui.report_view(call.game_id, call.report),
                    allowed_mentions=claims_ui.call_mentions(referees.users, referees.role))


@RENDERERS.renders(battler.FINAL, TableRef)
async def final(post: TableRef, ctx: Delivery) -> Outgoing:
    final = await battler.final_result(ctx.db, post.table_id)
    lines = [*ui.final_lines(final.game, final.standings), "Results were added to the leaderboard (`/leaderboard`)."]
    chunks = ui.split_messages(lines)
    return Outgoing(content=chunks[0], continued=chunks[1:],
                    view=await event_view(ctx.bot, ctx.message.guild_id, battler.SPEC.kind, post.table_id))
