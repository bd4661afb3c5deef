"""The Discord side of the claims flow (`bot.kit.claims`): the same buttons and words in every format
([Confirm] [Dispute]), the question an organizer is asked before confirming for an absent player, the
DM that tells that player, and the private answer to a late click on a report that already has its
result."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import discord

from bot.kit import limits
from bot.kit.claims import ABSENT_DM, ACTIONS, CONFIRM, AbsentConfirmed, AbsentConfirmNeeded, Call
from bot.kit.confirm import Done, confirm_then_act
from bot.kit.delivery import Delivery, Outgoing, renders
from bot.kit.dispatch import Component, call_cog, index, number, word
from bot.kit.errors import UserError
from bot.store.db import Database

LABELS = {"confirm": "Confirm", "dispute": "Dispute"}
STYLES = {"confirm": discord.ButtonStyle.success, "dispute": discord.ButtonStyle.danger}
LATE = "That report was already answered (its message shows how, now): your click changed nothing."


# Where a press on a format's report goes, by the format's key in the custom_id: its cog's method,
# called with `table=`, `claim=` (the claim's number) and `action=` (names: a UI module does not
# import its cog). "reject": the Dispute of 421's messages posted before issue 34.
ROUTES = {"turnabout": ("TurnaboutCog", "on_report_button"), "421": ("FourTwoOneCog", "on_claim_button"),
          "battler": ("BattlerCog", "on_report_button")}
PRESSES = (*ACTIONS, "reject")


class AnswerButton(
    Component, prefix="claim", parts=(word("format", tuple(ROUTES)), number("table"), number("claim"),
                                      word("action", PRESSES)),
):
    """[Confirm] or [Dispute] on a report, in every format: `claim:<format>:<table>:<claim>:<action>`."""

    async def handle(self, interaction: discord.Interaction, *, format: str, **parts: object) -> None:
        await call_cog(interaction, ROUTES[format], **parts)


def _old_buttons(prefix: str, format: str, *keys: tuple[str, int]) -> type[Component]:
    """The buttons of reports posted before `AnswerButton` (custom_id `prefix:<table>:<keys…>:<action>`):
    they still answer, through the same route. `keys`: the parts after the table (name, its limit
    as an index; 0 for a number)."""
    parts = (number("table"), *(index(name, limit=limit) if limit else number(name) for name, limit in keys),
             word("action", PRESSES))

    class OldAnswerButton(Component, prefix=prefix, parts=parts):
        async def handle(self, interaction: discord.Interaction, **parts: object) -> None:
            await call_cog(interaction, ROUTES[format], **parts)

    OldAnswerButton.__name__ = f"OldAnswerButton_{format}"
    return OldAnswerButton


OLD_BUTTONS = {"tar": _old_buttons("tar", "turnabout", ("match", 100_000), ("game", 3)),
               "421r": _old_buttons("421r", "421", ("claim", 0)), "btr": _old_buttons("btr", "battler", ("claim", 0))}


# A disputed report's decisions, in every format that decides with buttons: the first player (a) or
# the second (b) won, a draw, or void (the players report again); the format says which it offers
# and their labels (`decide_view`). Where a press goes, by format: called with table=, claim=, decision=.
DECISIONS = ("a", "b", "draw", "void")
DECIDE_ROUTES = {"battler": ("BattlerCog", "on_decide_button")}


class DecideButton(
    Component, prefix="decide", parts=(word("format", tuple(DECIDE_ROUTES)), number("table"), number("claim"),
                                       word("decision", DECISIONS)),
):
    """An organizer's decision on a disputed report: `decide:<format>:<table>:<claim>:<decision>`."""

    async def handle(self, interaction: discord.Interaction, *, format: str, **parts: object) -> None:
        await call_cog(interaction, DECIDE_ROUTES[format], **parts)


class OldDecideButton(Component, prefix="btd", parts=(number("table"), number("claim"), word("decision", DECISIONS))):
    """Battler's decide buttons of messages posted before `DecideButton`: the same press."""

    async def handle(self, interaction: discord.Interaction, **parts: object) -> None:
        await call_cog(interaction, DECIDE_ROUTES["battler"], **parts)


def decide_view(format: str, table: int, claim: int, choices: tuple[tuple[str, str], ...]) -> discord.ui.View:
    """A disputed report's decide buttons: `choices`, (decision, label) each, in order."""
    view = discord.ui.View(timeout=None)
    for decision, label in choices:
        custom_id = DecideButton.custom_id_for(format=format, table=table, claim=claim, decision=decision)
        view.add_item(DecideButton(discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=custom_id)))
    return view


def answer_button(format: str, table: int, claim: int, action: str) -> Component:
    """One of a report's two buttons, [Confirm] or [Dispute]."""
    custom_id = AnswerButton.custom_id_for(format=format, table=table, claim=claim, action=action)
    return AnswerButton(discord.ui.Button(label=LABELS[action], style=STYLES[action], custom_id=custom_id))


def answer_view(format: str, table: int, claim: int) -> discord.ui.View:
    """A waiting report's buttons: [Confirm] [Dispute]."""
    view = discord.ui.View(timeout=None)
    for action in ACTIONS:
        view.add_item(answer_button(format, table, claim, action))
    return view


async def _name(interaction: discord.Interaction, user_id: int) -> str:
    """A member's display name for a button label (plain text: a label renders no mention): from the
    cache, else asked of Discord (the bot has no members intent)."""
    guild = interaction.guild
    member = guild.get_member(user_id) if guild is not None else None
    if member is None and guild is not None:
        try:
            member = await guild.fetch_member(user_id)
        except discord.HTTPException:
            member = None
    return member.display_name if member is not None else "the opponent"


async def confirm_for_absent(
    interaction: discord.Interaction, needed: AbsentConfirmNeeded, act: Callable[[], Awaitable[str]], *, db: Database,
) -> bool:
    """An organizer who does not play in the match pressed Confirm: ask first, naming the action
    ("Confirm for <name> (absent)"), then `act` (the service confirming with `for_absent=True`): the
    prompt and the report message pressed show what it returns (the channel sees the organizer's
    name there; the service edits any other copy)."""
    pressed = interaction.message
    label = limits.clip(f"Confirm for {await _name(interaction, needed.absent)} (absent)", limits.BUTTON_LABEL)
    question = (f"<@{needed.absent}> has not answered this report. Confirm {needed.what} for them (absent)? The "
                "result counts as reported, the channel names you, and they are told by DM how to dispute it.")

    async def act_and_edit() -> Done:
        text = limits.clip(await act(), limits.CONTENT)

        async def edit_pressed() -> None:
            if pressed is not None and not pressed.flags.ephemeral:
                try:
                    await pressed.edit(content=text, view=None, allowed_mentions=discord.AllowedMentions.none())
                except discord.HTTPException:  # deleted meanwhile: the result is announced anyway
                    pass

        return Done(text, after=edit_pressed)

    return await confirm_then_act(interaction, question, act_and_edit, db=db, label=label)


async def late_click(interaction: discord.Interaction, result: str) -> None:
    """A click on a copy of a report that already has its result (its edit was lost): the copy
    becomes the result it stands for, and only the clicker is told."""
    await interaction.response.edit_message(content=limits.clip(result, limits.CONTENT), view=None,
                                            allowed_mentions=discord.AllowedMentions.none())
    await interaction.followup.send(LATE, ephemeral=True)


@dataclass(frozen=True)
class Answered:
    """A report answered by a button: what its message says from then on; for a dispute that the
    channel must hear of, the call (`call_text`, pinging `call`)."""

    text: str
    call: Call | None = None
    call_text: str = ""


async def on_answer(
    interaction: discord.Interaction, *, db: Database, answer: Callable[[bool], Awaitable[Answered]],
    late: Callable[[], Awaitable[str | None]] | None = None,
) -> None:
    """A press on a report's [Confirm] or [Dispute], the same in every format: `answer(for_absent)`
    runs the service. The pressed message becomes the answer; an organizer who does not play in the
    match is asked first (`confirm_for_absent`: the service is called again with `for_absent=True`,
    and edits the report's messages itself); a refused press on a copy of a report that already has
    its result (`late()`: that result's text, or None when the refusal stands) is a late click."""
    try:
        answered = await answer(False)
    except AbsentConfirmNeeded as needed:

        async def for_them() -> str:
            return (await answer(True)).text

        await confirm_for_absent(interaction, needed, for_them, db=db)
        return
    except UserError:
        shown = await late() if late is not None else None
        if shown is None:
            raise
        await late_click(interaction, shown)
        return
    await interaction.response.edit_message(content=limits.clip(answered.text, limits.CONTENT), view=None,
                                            allowed_mentions=discord.AllowedMentions.none())
    if answered.call is not None and answered.call_text:
        await interaction.followup.send(limits.clip(answered.call_text, limits.CONTENT),
                                        allowed_mentions=call_mentions(answered.call.users, answered.call.role))


def check_winner_or_draw(winner: object | None, draw: bool) -> None:
    """A decision's options (settle): a winner, or `draw:True`; not both, not neither."""
    if (winner is None) != draw:
        raise UserError("Give either the winner or draw:True.")


def call_mentions(users: tuple[int, ...], role: int | None) -> discord.AllowedMentions:
    """Ping exactly whom a dispute calls: users, or the organizer role."""
    roles = [discord.Object(id=role)] if role is not None else False
    return discord.AllowedMentions(everyone=False, users=[discord.Object(id=u) for u in users], roles=roles)


@renders(ABSENT_DM, AbsentConfirmed)
async def absent_confirmed(told: AbsentConfirmed, ctx: Delivery) -> Outgoing:
    text = (f"ℹ️ {told.table} (<#{told.channel_id}>): you had not answered, so <@{told.by}>, an organizer who does "
            f"not play in your match, confirmed it for you: {told.result}. {told.dispute}")
    return Outgoing(content=limits.clip(text, limits.CONTENT))


__all__ = ["ACTIONS", "AnswerButton", "ROUTES", "CONFIRM", "LABELS", "Answered", "on_answer", "answer_button", "answer_view", "call_mentions", "confirm_for_absent", "late_click"]
