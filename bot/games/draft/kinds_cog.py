"""/draft winston and /draft grid: the lobbies of a Winston draft and a Grid draft, added to the /draft
commands as Rotisserie's are (the lobby, /draft join, begin, status, pool, export and cancel are the
draft cog's); the buttons that take or pass a pile, or take a line, and the messages of their turns
(`service.kind_turns`)."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.features.cubes.ui import cube_autocomplete
from bot.games.draft import grid_rules, winston_rules
from bot.games.draft import service as drafts
from bot.games.draft.messages import bot_took_over
from bot.games.draft.service import kind_turns, variants
from bot.games.draft.service.kind_turns import (
    GRID_TURN,
    TURN_TIMED_OUT,
    WINSTON_LOOK,
    WINSTON_TURN,
    GridTurn,
    TurnTimedOut,
    WinstonLook,
    WinstonTurn,
)
from bot.games.draft.set_start import open_lobby
from bot.kit import limits, outbox
from bot.kit.client import KitBot
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.dispatch import Component, actor_of, index, number
from bot.kit.errors import UserError
from bot.kit.text import escape, plural

DRAFT_COG = "DraftCog"
TAKE_LABEL, PASS_LABEL = "Take pile", "Pass"


class ChoiceButton(Component, prefix="dk", parts=(number("pod"), index("pick"), index("index"))):
    """A choice of a Winston or Grid draft's turn (take or pass a pile; a row or a column), stamped with
    the draft's action count: a click on a turn gone by is answered "already picked"."""

    @classmethod
    def make(cls, pod_id: int, pack_pick: int, choice: int, label: str, *, primary: bool = False) -> ChoiceButton:
        style = discord.ButtonStyle.primary if primary else discord.ButtonStyle.secondary
        custom_id = cls.custom_id_for(pod=pod_id, pick=pack_pick, index=choice)
        return cls(discord.ui.Button(label=limits.clip(label, limits.BUTTON_LABEL), style=style, custom_id=custom_id))

    async def handle(self, interaction: discord.Interaction, *, pod: int, pick: int, index: int) -> None:  # type: ignore[override]
        bot = interaction.client
        result = await drafts.pick(bot.db, pod, actor_of(interaction), pack_id=0, pack_pick=pick,  # type: ignore[attr-defined]
                                   card_index=index, source="button")
        after = ("The draft is complete: your pool comes by DM." if result.completed
                 else "" if result.next_for_picker is not None else "The other player is on turn now.")
        if interaction.guild_id is not None:  # a Grid draft's line, taken in the channel
            await interaction.response.send_message(
                limits.clip(f"You took **{escape(result.card)}**. {after}", limits.CONTENT), ephemeral=True)
            return
        if result.next_for_picker is not None and not result.card:  # passed on: the DM shows the next pile
            await interaction.response.defer()
            return
        took = (f"You took the pile: **{escape(result.card)}**." if index == 0
                else f"You passed the last pile and drew **{escape(result.card)}** from the deck.")
        await interaction.response.edit_message(content=limits.clip(f"{took} {after}", limits.CONTENT), view=None)


async def _sent(ctx: Delivery, row_id: int | None) -> tuple[int, int] | None:
    """Where the message of outbox row `row_id` was sent, once its send is recorded (a player may click
    as soon as it arrives, before that)."""
    if row_id is None:
        return None
    await ctx.bot.outbox.wait_all_recorded()  # type: ignore[attr-defined]
    return await kind_turns.message_of(ctx.db, row_id)


RENDERERS = Renderers()  # the Winston and Grid drafts' messages (the draft's FORMAT carries them)


@RENDERERS.renders(WINSTON_LOOK, WinstonLook)
async def winston_look(look: WinstonLook, ctx: Delivery) -> Outgoing | None:
    """The pile the player on turn looks at; an edit of their last DM while they pass on. None once
    the player has acted on it (a row sent again after a restart must not show an older pile)."""
    if not await drafts.is_head(ctx.db, look.pod_id, look.seat, 0, look.pack_pick):
        return None
    sizes = " · ".join(f"**{size}**" if pile == look.pile else str(size) for pile, size in enumerate(look.pile_sizes))
    rule = ("Take it, or pass: a card from the deck goes onto it, face down, and you look at the next pile "
            "(after the last pile, you draw the deck's top card)." if look.can_pass
            else "It is your only choice: the deck is empty and no pile follows it.")
    lines = [f"**Winston draft #{look.pod_id}** · your turn · pile {look.pile + 1} of {len(look.pile_sizes)} "
             f"({plural(len(look.cards), 'card')}):",
             *(f"• {escape(card)}" for card in look.cards),
             f"Piles: {sizes} cards · {plural(look.deck_size, 'card')} in the deck.", rule]
    view = discord.ui.View(timeout=None)
    view.add_item(ChoiceButton.make(look.pod_id, look.pack_pick, 0, f"{TAKE_LABEL} ({plural(len(look.cards), 'card')})",
                                    primary=True))
    if look.can_pass:
        view.add_item(ChoiceButton.make(look.pod_id, look.pack_pick, 1, PASS_LABEL))
    return Outgoing(content=limits.fit_lines(lines, limits.CONTENT), view=view, edit=await _sent(ctx, look.previous))


async def resend(db, pod, user_id: int) -> outbox.Queued | None:
    """`/draft resend`: the player's current pack; in a Winston draft, the pile they look at on their
    turn (a Rotisserie's or a Grid's turns are in the channel: `drafts.resend` says so)."""
    if pod.variant != variants.WINSTON:
        return await drafts.resend(db, pod.id, user_id)
    held = await kind_turns.resend_look(db, pod.id, user_id)
    if held is None:
        raise UserError("It is not your turn: the pile you look at comes by DM when it is.")
    return held


@RENDERERS.renders(TURN_TIMED_OUT, TurnTimedOut)
async def turn_timed_out(p: TurnTimedOut, ctx: Delivery) -> Outgoing:
    """The timer took the pile (Winston) or a line (Grid) for the player: said as such, with its cards."""
    cards = ", ".join(f"**{escape(card)}**" for card in p.cards) or "nothing"
    what = f"I took {p.line} for you: {cards}." if p.line else f"I took the pile for you: {cards}."
    note = f"⌛ Time ran out in {variants.NAMES[p.variant]} #{p.pod_id}: {what}"
    return Outgoing(content=limits.clip(note + bot_took_over(p.to_bot, p.completed), limits.CONTENT))


@RENDERERS.renders(WINSTON_TURN, WinstonTurn)
async def winston_turn(turn: WinstonTurn, ctx: Delivery) -> Outgoing:
    """Whose turn it is, and the sizes everyone may know (no card of a pile)."""
    pools = ", ".join(f"{drafts.seat_name(user)} {plural(size, 'card')}"
                      for user, size in zip(turn.players, turn.pools, strict=True))
    return Outgoing(content=f"Winston draft #{turn.pod_id}: {drafts.seat_name(turn.user_id)} is on turn, looking at "
                            f"the piles by DM. Piles: {' · '.join(map(str, turn.pile_sizes))} cards · "
                            f"{plural(turn.deck_size, 'card')} in the deck. Pools: {pools}.",
                    allowed_mentions=discord.AllowedMentions.none())


@RENDERERS.renders(GRID_TURN, GridTurn)
async def grid_turn(turn: GridTurn, ctx: Delivery) -> Outgoing | None:
    """The grid as it is, pinging the player on turn alone; the post of the turn before goes. None once
    that turn is over (a row sent again after a restart)."""
    if not turn.lines:
        where = await _sent(ctx, turn.previous)
        return None if where is None else Outgoing(content=f"Grid draft #{turn.pod_id}: every grid is taken.", edit=where)
    if not await drafts.is_head(ctx.db, turn.pod_id, turn.seat, 0, turn.pack_pick):
        return None
    rows = [" · ".join(escape(card) if card else "—" for card in turn.cells[3 * row:3 * row + 3]) for row in range(3)]
    embed = discord.Embed(title=f"Grid draft #{turn.pod_id} · grid {turn.grid} of {turn.grids}",
                          description="\n".join(f"**Row {row + 1}:** {cards}" for row, cards in enumerate(rows))
                          + "\n(Columns 1 to 3 read left to right.)", colour=discord.Colour.gold())
    view = discord.ui.View(timeout=None)
    for choice, line in enumerate(turn.lines):
        view.add_item(ChoiceButton.make(turn.pod_id, turn.pack_pick, choice, line.capitalize()))
    where = await _sent(ctx, turn.previous)
    return Outgoing(content=f"<@{turn.user_id}>, your pick in Grid draft #{turn.pod_id}: take a row or a column.",
                    embeds=[limits.fit_embed(embed)], view=view, allowed_mentions=limits.ping(turn.user_id), delete=where)


def _draft_cog(interaction: discord.Interaction):
    cog = interaction.client.get_cog(DRAFT_COG)  # type: ignore[attr-defined]
    assert cog is not None, "the draft cog adds these commands"
    return cog


async def _open(interaction: discord.Interaction, cube: str, options: dict, pick_timer: int | None, bots: int) -> None:
    options |= dict(bots=bots, pick_timer_seconds=pick_timer * 60 if pick_timer else None,
                    channel_id=interaction.channel_id, pick_mode="buttons")
    pod = await open_lobby(interaction.client, interaction, cube=cube, set_key=None, options=options)  # type: ignore[arg-type]
    await _draft_cog(interaction).post_lobby(interaction, pod)


TIMER_HELP = "Minutes each turn may take before the bot acts for the player (default: no timer)."


@app_commands.command(name="winston", description="Open a Winston draft lobby for 2: take or pass face-down piles "
                                                  "by DM (organizers).")
@app_commands.describe(cube="The card pool.", cards=f"Cards dealt from the cube (default {variants.WINSTON_CARDS}).",
                       pick_timer=TIMER_HELP + " Time out: the player takes the pile.",
                       bots="1: a bot drafter takes the second seat (default none).")
@app_commands.autocomplete(cube=cube_autocomplete)
@app_commands.guild_only()
async def start_winston(interaction: discord.Interaction, cube: str,
                        cards: app_commands.Range[int, winston_rules.MIN_CARDS, winston_rules.MAX_CARDS] | None = None,
                        pick_timer: app_commands.Range[int, 1, 10080] | None = None,
                        bots: app_commands.Range[int, 0, 1] = 0) -> None:
    options = variants.start_options(variants.WINSTON, winston_rules.SEATS, cards) | dict(max_seats=winston_rules.SEATS)
    await _open(interaction, cube, options, pick_timer, bots)


@app_commands.command(name="grid", description="Open a Grid draft lobby for 2 or 3: take a row or a column of "
                                               "3×3 grids in turn (organizers).")
@app_commands.describe(cube="The card pool.", grids=f"Grids dealt (default {variants.GRIDS}).",
                       seats="Players: 2 (9 cards a grid) or 3 (12); it begins by itself when full (default 2).",
                       pick_timer=TIMER_HELP, bots="Seats bot drafters take from the start (default none).")
@app_commands.autocomplete(cube=cube_autocomplete)
@app_commands.guild_only()
async def start_grid(interaction: discord.Interaction, cube: str,
                     grids: app_commands.Range[int, grid_rules.MIN_GRIDS, grid_rules.MAX_GRIDS] | None = None,
                     seats: app_commands.Range[int, grid_rules.MIN_SEATS, grid_rules.MAX_SEATS] = 2,
                     pick_timer: app_commands.Range[int, 1, 10080] | None = None,
                     bots: app_commands.Range[int, 0, 2] = 0) -> None:
    options = variants.start_options(variants.GRID, seats, grids) | dict(max_seats=seats)
    await _open(interaction, cube, options, pick_timer, bots)


async def setup(bot: KitBot) -> None:
    """Add the commands to /draft (after the draft cog has added the group)."""
    group = bot.tree.get_command("draft")
    assert isinstance(group, app_commands.Group), "the draft cog loads first"
    group.add_command(start_winston)
    group.add_command(start_grid)
