"""The Discord side of the claims flow (`bot.kit.claims`): the same buttons and words in every format
([Confirm] [Dispute]), the question an organizer is asked before confirming for an absent player, the
DM that tells that player, and the private answer to a late click on a report that already has its
result."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import partial

import discord

from bot.kit import claims, limits
from bot.kit.claims import ABSENT_DM, ACTIONS, CONFIRM, AbsentConfirmed, AbsentConfirmNeeded, Call
from bot.kit.confirm import Done, confirm_then_act
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.dispatch import Component, InvalidPayload, Part, actor_of, call_handler, index, number, word
from bot.kit.errors import UserError
from bot.kit.tables import Actor
from bot.store.db import Database

LABELS = {"confirm": "Confirm", "dispute": "Dispute"}
STYLES = {"confirm": discord.ButtonStyle.success, "dispute": discord.ButtonStyle.danger}
LATE = "That report was already answered (its message shows how, now): your click changed nothing."


@dataclass(frozen=True)
class Pressed:
    """What a format's cog answers of the kit's report buttons: `answers(format)` (Confirm / Dispute)
    or `decides(format)` (an organizer's decision), its method marked `@handles(claims_ui.answers("421"))`
    and called with `table=`, `claim=` (the claim's number) and `action=` or `decision=`."""

    press: str  # "answer" or "decide"
    format: str  # the format's key, as the custom_id carries it


def answers(format: str) -> Pressed:
    return Pressed("answer", format)


def decides(format: str) -> Pressed:
    return Pressed("decide", format)


# "reject": the Dispute of 421's messages posted before issue 34.
PRESSES = (*ACTIONS, "reject")
# A disputed report's decisions where a format decides with buttons: the first player (a) or the
# second (b) won, a draw, or void (report again); the format gives the ones it offers, labelled.
DECISIONS = ("a", "b", "draw", "void")


def _format_key(raw: str) -> str:
    if not (0 < len(raw) <= 20 and raw.isascii() and raw.replace("_", "").isalnum()):
        raise InvalidPayload()
    return raw


def _pressed(name: str, prefix: str, press: str, *parts: Part, format: str = "") -> type[Component]:
    """A component answered by the cog method that handles `Pressed(press, format)`, `format` being its
    custom_id's first part unless given (the buttons of messages posted before the kit's, whose
    custom_id names no format). A format nobody answers is a damaged custom_id."""
    leading = () if format else (Part("format", _format_key),)

    async def handle(self: Component, interaction: discord.Interaction, **args: object) -> None:
        target = Pressed(press, str(args.pop("format", format)))
        if target not in getattr(interaction.client, "handlers", {}):
            raise InvalidPayload()
        await call_handler(interaction, target, **args)

    return type(name, (Component,), {"handle": handle},
                prefix=prefix, parts=(*leading, number("table"), *parts))


AnswerButton = _pressed("AnswerButton", "claim", "answer", number("claim"), word("action", PRESSES))
DecideButton = _pressed("DecideButton", "decide", "decide", number("claim"), word("decision", DECISIONS))
OLD_BUTTONS = {  # the same presses, from messages posted before these (their custom_ids)
    "tar": _pressed("OldTurnaboutButton", "tar", "answer", index("match", limit=100_000), index("game", limit=3),
                    word("action", PRESSES), format="turnabout"),
    "421r": _pressed("Old421Button", "421r", "answer", number("claim"), word("action", PRESSES), format="421"),
    "btr": _pressed("OldBattlerButton", "btr", "answer", number("claim"), word("action", PRESSES), format="battler"),
    "btd": _pressed("OldDecideButton", "btd", "decide", number("claim"), word("decision", DECISIONS),
                    format="battler"),
}
COMPONENTS: tuple[type[Component], ...] = (AnswerButton, DecideButton, *OLD_BUTTONS.values())


def _view(component: type[Component], format: str, table: int, claim: int,
          buttons: tuple[tuple[str, str, discord.ButtonStyle], ...], part: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for value, label, style in buttons:
        custom_id = component.custom_id_for(format=format, table=table, claim=claim, **{part: value})
        view.add_item(component(discord.ui.Button(label=label, style=style, custom_id=custom_id)))
    return view


def answer_view(format: str, table: int, claim: int) -> discord.ui.View:
    """A waiting report's buttons: [Confirm] [Dispute]."""
    return _view(AnswerButton, format, table, claim, tuple((a, LABELS[a], STYLES[a]) for a in ACTIONS), "action")


def decide_view(format: str, table: int, claim: int, choices: tuple[tuple[str, str], ...]) -> discord.ui.View:
    """A disputed report's decide buttons: `choices`, (decision, label) each, in order."""
    return _view(DecideButton, format, table, claim,
                 tuple((d, label, discord.ButtonStyle.primary) for d, label in choices), "decision")


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

    return await confirm_then_act(interaction, question, act_and_edit, db=db, label=label, keep="Leave it for now")


async def record_answer(interaction: discord.Interaction, record: Callable[[int, int], Awaitable[None]]) -> None:
    """The message this interaction's answer posted shows a claim with its buttons: `record(channel_id,
    message_id)` keeps it (the format's call of `claims.shown_in`), so its buttons go once the claim no
    longer waits for them. Unknown (Discord did not say): its buttons stay, and a click says what became of it."""
    try:
        message = await interaction.original_response()
    except discord.HTTPException:
        return
    await record(message.channel.id, message.id)


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


# --- the words of a report's message, the same in every format --------------------------------------
# A format gives only its match's name (`what`: "Match 1, game 2", "421 league #3, round 2, Match A",
# "Report #3") and how its result reads (`result`: "<@1> **won** with 4 life (**12 match points**)").

AGREED, UNOPPOSED, VOID = claims.AGREED, claims.UNOPPOSED, claims.VOID  # besides CONFIRM, DISPUTE and "decide"
GONE = "This report no longer waits for an answer: the channel has what became of it."
WAITS = "an organizer who does not play in it can confirm it for them if they are absent"


def _at(user: int | None, otherwise: str) -> str:
    return f"<@{user}>" if user is not None else otherwise


def waiting_text(what: str, reporter: int, result: str, opponent: int, *, again: bool = False) -> str:
    """A report waiting for its opponent, with [Confirm] [Dispute] (`again`: shown once more when its
    reporter repeats it, as its first message may be lost)."""
    still = " (still waiting)" if again else ""
    return (f"📝 {what}: <@{reporter}> reports {result}{still}. <@{opponent}> confirms or disputes it, or reports it "
            f"too ({WAITS}).")


def answered_text(what: str, result: str, how: str, by: int | None = None, *, absent: int | None = None,
                  reporter: int | None = None) -> str:
    """A report's message once it no longer waits (its buttons gone): what counts and how it came to
    (`how`: `CONFIRM` — by `by`, or by the organizer `by` for the `absent` opponent —, `AGREED` by
    `by`'s matching report, `UNOPPOSED` — final at once, the opponent has dropped —, "decide" by the
    organizer `by`, `DISPUTE` by `by` of `reporter`'s report, `VOID` by the organizer `by`; `ENDED`: it was
    not confirmed before its round, phase or table ended; `AGAIN_SHOWN`: a newer copy has its buttons)."""
    if how == claims.AGAIN_SHOWN:
        return f"📝 {what}: {_at(reporter, 'it was')} reported {result}. It was shown again: the newest copy has its buttons."
    if how in (claims.ENDED, "cancelled"):
        return f"⏹️ {what}: {_at(reporter, 'it was')} reported {result}; it was not confirmed in time and does not count."
    if how == "dispute":
        return (f"⚠️ {what}: {_at(reporter, 'it was')} reported {result}; {_at(by, 'it was')} disputed it. An "
                "organizer who does not play in it decides it.")
    if how == VOID:
        return f"⚖️ {what}: voided by {_at(by, 'an organizer')}; its players report it again."
    if how in (claims.DECIDE, "settled"):
        return f"⚖️ {what}: {result}, decided by {_at(by, 'an organizer')}."
    if how == AGREED:
        came = f"confirmed by <@{by}>'s matching report" if by is not None else "both players reported it"
    elif how == UNOPPOSED:
        came = f"reported by {_at(by, 'a player')}: final, as their opponent has dropped"
    elif absent is not None:
        came = f"confirmed for <@{absent}> (absent) by {_at(by, 'an organizer')}"
    else:
        came = f"confirmed by <@{by}>" if by is not None else "confirmed"
    return f"✅ {what}: {result}, {came}."


def said(words: claims.Words | None) -> str:
    """A report's message as `words` say (`bot.kit.claims.Words`); None: a claim forgotten since."""
    if words is None:
        return GONE
    return answered_text(words.what, words.result, words.how, words.by, absent=words.absent, reporter=words.reporter)


RENDERERS = Renderers()  # the kit's own (the bot adds them to its table)


@RENDERERS.renders(claims.ANSWERED, claims.Closed)
async def answered_copy(closed: claims.Closed, ctx: Delivery) -> Outgoing:
    """A copy of a report's message once the report no longer waits for it: what became of it, no buttons."""
    return Outgoing(content=limits.clip(said(closed.words), limits.CONTENT), edit=(closed.channel_id, closed.message_id))


# --- the one press path: the kit answers [Confirm] [Dispute] for every format ---------------------------


@dataclass(frozen=True)
class Press:
    """A press on a report's [Confirm] or [Dispute], as the kit hands it to the format (`Answering`):
    the table, the claim's number, the action ("reject": the Dispute of 421's old buttons), who pressed
    and which message; `parts`: what else the custom_id or a form carries (an old Turnabout button's
    match and game, Battler's treasures)."""

    db: Database
    table: int
    claim: int
    action: str
    actor: Actor
    pressed: int | None
    guild_id: int | None
    parts: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Answering:
    """How a format answers the kit's report buttons, declared in its `Format.claims` (the kit binds
    its one handler, `on_press`, to them): `answer(press, for_absent)` runs the confirm or dispute use
    case and says what the message shows from then on; `late(press)` the result a late click shows
    (None: the refusal stands); `first(interaction, press)`, if given, may answer the press itself
    first (Battler asks the opponent's treasures in a form, which then calls `answer_press`)."""

    format: str
    answer: Callable[[Press, bool], Awaitable[Answered]]
    late: Callable[[Press], Awaitable[str | None]]
    first: Callable[[discord.Interaction, Press], Awaitable[bool]] | None = None

    @property
    def target(self) -> Pressed:
        return answers(self.format)


@dataclass(frozen=True)
class Deciding:
    """How a format answers the kit's decide buttons (`decide_view`), declared in its `Format.claims`
    beside its `Answering` (the kit binds its one handler, `on_decide`): `decide(press, decision)` runs
    the format's decide use case (through `bot.kit.claims.decide`) and says what the message shows from
    then on; `late(press)` what a copy of a claim decided meanwhile shows (None: the refusal stands)."""

    format: str
    decide: Callable[[Press, str], Awaitable[Answered]]
    late: Callable[[Press], Awaitable[str | None]] | None = None

    @property
    def target(self) -> Pressed:
        return decides(self.format)


def late_of(games: object, rules: claims.Rules, *, deciding: bool = False) -> Callable[[Press], Awaitable[str | None]]:
    """A format's late-click answer from the kit's books: the words of what became of the claim."""

    async def late(press: Press) -> str | None:
        found = await claims.late_words(press.db, games, rules, press.table, press.claim, press.guild_id,
                                        deciding=deciding)
        return None if found is None else said(found)

    return late


def press_of(interaction: discord.Interaction, db: Database, *, table: int, action: str, claim: int = 0,
             **parts: object) -> Press:
    pressed = interaction.message.id if interaction.message is not None else None
    return Press(db, table, claim, action, actor_of(interaction), pressed, interaction.guild_id, parts)


async def answer_press(interaction: discord.Interaction, answering: Answering, press: Press) -> None:
    await on_answer(interaction, db=press.db, answer=lambda for_absent: answering.answer(press, for_absent),
                    late=lambda: answering.late(press))


async def on_decide(interaction: discord.Interaction, *, deciding: Deciding, db: Database, decision: str,
                    **args: object) -> None:
    """The kit's handler of a disputed report's decide buttons in every format, answered as a press
    (`on_answer`): the pressed message becomes the decision; a refused press on a copy of a claim
    decided meanwhile is a late click."""
    press = press_of(interaction, db, action="decide", **args)  # type: ignore[arg-type]
    late = (lambda: deciding.late(press)) if deciding.late is not None else None
    await on_answer(interaction, db=db, answer=lambda _: deciding.decide(press, decision), late=late)


async def on_press(interaction: discord.Interaction, *, answering: Answering, db: Database, **args: object) -> None:
    """The kit's handler of [Confirm] [Dispute] in every format (its custom_id names the format)."""
    press = press_of(interaction, db, **args)  # type: ignore[arg-type]
    if answering.first is not None and await answering.first(interaction, press):
        return
    await answer_press(interaction, answering, press)


Declared = Pressed | Answering | Deciding


def bind(declared: Iterable[Declared], db: Database) -> dict[Pressed, Callable[..., Awaitable[None]]]:
    """The kit's handlers of the presses formats declare with an `Answering` or a `Deciding` (a
    `Pressed` is a cog's)."""
    bound: dict[Pressed, Callable[..., Awaitable[None]]] = {}
    for d in declared:
        if isinstance(d, Answering):
            bound[d.target] = partial(on_press, answering=d, db=db)
        elif isinstance(d, Deciding):
            bound[d.target] = partial(on_decide, deciding=d, db=db)
    return bound


def targets(declared: Iterable[Declared]) -> list[Pressed]:
    """The presses declared, each answered by a cog method or by the kit (checked at startup)."""
    return [d if isinstance(d, Pressed) else d.target for d in declared]


def check_winner_or_draw(winner: object | None, draw: bool) -> None:
    """A decision's options (settle): a winner, or `draw:True`; not both, not neither."""
    if (winner is None) != draw:
        raise UserError("Give either the winner or draw:True.")


def call_mentions(users: tuple[int, ...], role: int | None) -> discord.AllowedMentions:
    """Ping exactly whom a dispute calls: users, or the organizer role."""
    roles = [discord.Object(id=role)] if role is not None else False
    return discord.AllowedMentions(everyone=False, users=[discord.Object(id=u) for u in users], roles=roles)


@RENDERERS.renders(ABSENT_DM, AbsentConfirmed)
async def absent_confirmed(told: AbsentConfirmed, ctx: Delivery) -> Outgoing:
    text = (f"ℹ️ {told.table} (<#{told.channel_id}>): you had not answered, so <@{told.by}>, an organizer who does "
            f"not play in your match, confirmed it for you: {told.result}. {told.dispute}")
    return Outgoing(content=limits.clip(text, limits.CONTENT))


__all__ = ["waiting_text", "answered_text", "said", "Deciding", "on_decide", "late_of", "record_answer", "ACTIONS", "AnswerButton", "COMPONENTS", "Pressed", "answers", "decides", "CONFIRM", "LABELS", "Answered", "on_answer", "answer_view", "call_mentions", "confirm_for_absent", "late_click"]
