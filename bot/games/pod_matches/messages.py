"""A pod's owed messages (outbox renderers, registered with `bot.kit.delivery.renders` when the cog
imports this module): each round's pairings (pinging each pair once), news of the channel (a
dispute, a decision, a drop), and the final standings (the pod's channel pings the winner; the
results channel's copy pings nobody)."""

from __future__ import annotations

import discord

from bot.games.pod_matches import service as pods
from bot.games.pod_matches import ui
from bot.games.pod_matches.service import News, PodRef, RoundRef
from bot.kit import limits
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.web.buttons import event_view


def _users(ids) -> discord.AllowedMentions:
    return discord.AllowedMentions(users=[discord.Object(u) for u in ids if u > 0], roles=False, everyone=False)


RENDERERS = Renderers()  # carried by its `FORMAT`


@RENDERERS.renders(pods.PAIRED, RoundRef)
async def paired(ref: RoundRef, ctx: Delivery) -> Outgoing:
    view = await pods.get_pod(ctx.db, ref.pod_id)
    if view.state is None or view.state.round != ref.round:  # a later round is out: this one was posted
        return Outgoing(content=f"Round {ref.round} of **{limits.clip(view.name, 200)}** was paired.")
    return Outgoing(content=ui.round_text(view), allowed_mentions=_users(ui.round_pings(view)))


@RENDERERS.renders(pods.NEWS, News)
async def news(note: News, ctx: Delivery) -> Outgoing:
    return Outgoing(content=limits.clip(note.text, limits.CONTENT), allowed_mentions=_users(note.ping))


@RENDERERS.renders(pods.FINAL, PodRef)
async def final(ref: PodRef, ctx: Delivery) -> Outgoing:
    view = await pods.get_pod(ctx.db, ref.pod_id)
    winner = view.state.standings()[0].player if view.state else None
    return Outgoing(content=ui.winner_line(view), embeds=[ui.standings_embed(view, final=True)],
                    allowed_mentions=_users([winner]) if ref.ping and winner else None,
                    view=await event_view(ctx.bot, ctx.message.guild_id, pods.KIND, ref.pod_id))
