"""/draft rotisserie and /draft take: a Rotisserie draft's lobby and picks, added to the /draft commands
(the draft cog is at its size; the lobby, /draft join, begin, status, pool, export and cancel are
its). The channel post that pings the player on turn is rendered here too."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.features.cubes.ui import cube_autocomplete
from bot.games.draft import service as drafts
from bot.games.draft.service import rotisserie
from bot.games.draft.service.turns import NO_PACKS, TURN, Turn
from bot.games.draft.service.variants import ROTISSERIE
from bot.games.draft.set_start import open_lobby
from bot.games.draft.web import TAKE
from bot.kit import limits
from bot.kit.client import KitBot
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.dispatch import actor_of
from bot.kit.errors import PermissionDenied, UserError
from bot.kit.tables import Actor
from bot.kit.text import escape, plural
from bot.web import access
from bot.web.buttons import URL_LIMIT, link_button, view_of
from bot.web.links import LINK_HOURS, private_link

DRAFT_COG = "DraftCog"


RENDERERS = Renderers()  # carried by the draft's `FORMAT`


@RENDERERS.renders(TURN, Turn)
async def turn(t: Turn, ctx: Delivery) -> Outgoing:
    """Pings the player on turn alone; the others read it without a notification. While the server's
    web pages are on, it says the card can be taken there too."""
    guild_id = ctx.message.guild_id
    on_the_web = (guild_id is not None and ctx.bot.settings.web_base_url is not None
                  and await access.site_of(ctx.db, guild_id) is not None)
    web = " (without a card: your page of the offer on the web, to take one by its picture)" if on_the_web else ""
    return Outgoing(
        content=f"<@{t.user_id}>, it is your pick in Rotisserie draft #{t.pod_id}: pick {t.pick_number} of "
                f"{t.picks}, {plural(t.left, 'card')} on offer. Take one with `/draft take`{web}.",
        allowed_mentions=limits.ping(t.user_id),
    )


def _draft_cog(interaction: discord.Interaction):
    cog = interaction.client.get_cog(DRAFT_COG)  # type: ignore[attr-defined]
    assert cog is not None, "the draft cog adds these commands"
    return cog


@app_commands.command(name="rotisserie", description="Open a Rotisserie draft lobby: the cube face up, "
                                                      "players take one card each in turn (organizers).")
@app_commands.describe(
    cube="The card pool, laid face up.", picks="Cards each player takes (default 45).",
    cards="How many of the cube's cards are on offer, chosen at random (default: all of them).",
    seats="Most players; the draft begins by itself when this many have joined (default 8).",
    pick_timer="Minutes each pick may take before the bot picks for the player (default: no timer).",
    bots="Seats bot drafters take from the start (default none).",
)
@app_commands.autocomplete(cube=cube_autocomplete)
@app_commands.guild_only()
async def start_rotisserie(
    interaction: discord.Interaction, cube: str, picks: app_commands.Range[int, 1, 90] = 45,
    cards: app_commands.Range[int, 2, 5000] | None = None, seats: app_commands.Range[int, 2, 16] = 8,
    pick_timer: app_commands.Range[int, 1, 10080] | None = None, bots: app_commands.Range[int, 0, 15] = 0,
) -> None:
    options = rotisserie.start_options(ROTISSERIE, picks, cards) | dict(
        max_seats=seats, bots=bots, pick_timer_seconds=pick_timer * 60 if pick_timer else None,
        channel_id=interaction.channel_id, pick_mode="buttons")
    pod = await open_lobby(interaction.client, interaction, cube=cube, set_key=None, options=options)  # type: ignore[arg-type]
    await _draft_cog(interaction).post_lobby(interaction, pod)


@app_commands.command(name="take", description="Take a card on offer in a Rotisserie draft on your turn, or "
                                                "get your page to pick on the web.")
@app_commands.describe(card="The card: type part of its name, its colour or its type. Leave it out for your "
                            "page on the server's web pages, where you take a card by its picture.")
async def take(interaction: discord.Interaction, card: str | None = None) -> None:
    cog, actor = _draft_cog(interaction), actor_of(interaction)
    pod = await cog.table_here(interaction, (drafts.STATUSES.running,))
    if pod.variant != ROTISSERIE:
        raise UserError(NO_PACKS if pod.variant else "`/draft take` is a Rotisserie draft's: in this draft you pick "
                                                     "from the packs in your DMs.")
    if pod.seat_of(actor.user_id) is None:
        raise PermissionDenied("You are not playing in that draft.")
    if card is None:
        await _web_page(interaction, cog, pod.id, actor)
        return
    prompt, index = await rotisserie.take_index(cog.db, pod.id, actor, card)
    result = await drafts.pick(cog.db, pod.id, actor, pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
                               card_index=index, source="command")
    after = ("The draft is complete: your pool comes by DM." if result.completed
             else "You pick again now." if result.next_for_picker else "I'll ping you here when it is your turn again.")
    await interaction.response.send_message(limits.clip(f"You took **{escape(result.card)}**. {after}", limits.CONTENT),
                                            ephemeral=True)
    if result.held is not None:
        cog.bot.outbox.on_commit([result.held])


async def _web_page(interaction: discord.Interaction, cog, pod_id: int, actor: Actor) -> None:
    """The player's own page of the offer (`web.TAKE`): a signed link, theirs alone, in an ephemeral answer."""
    url = await private_link(cog.db, cog.bot.settings, actor.guild_id, kind=TAKE, user_id=actor.user_id,
                             ref=pod_id, hours=LINK_HOURS)
    if url is None:
        raise UserError("This server's web pages are off, so there is no page to pick on: take a card with "
                        "`/draft take card:` (it suggests the cards on offer).")
    await interaction.response.send_message(
        f"Your page of Rotisserie draft #{pod_id}: every card on offer by its picture, filtered by name, colour or "
        f"type; on your turn each has a Take button. Only you can use it; the link works for {LINK_HOURS // 24} days.\n<{url}>",
        view=view_of([link_button(url, "Pick on the web")] if len(url) <= URL_LIMIT else []), ephemeral=True)


@take.autocomplete("card")
async def card_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The cards still on offer in this channel's Rotisserie whose name, colour or type match what is typed."""
    try:
        pod = await _draft_cog(interaction).table_here(interaction, (drafts.STATUSES.running,))
    except UserError:
        return []
    offered = rotisserie.matching(await rotisserie.offer(interaction.client.db, pod.id), current)  # type: ignore[attr-defined]
    return [app_commands.Choice(name=limits.clip(" · ".join(filter(None, (c.name, c.colour, c.type_line))), 100),
                                value=c.name[:100]) for c in offered]


async def setup(bot: KitBot) -> None:
    """Add the commands to /draft (after the draft cog has added the group)."""
    group = bot.tree.get_command("draft")
    assert isinstance(group, app_commands.Group), "the draft cog loads first"
    group.add_command(start_rotisserie)
    group.add_command(take)
