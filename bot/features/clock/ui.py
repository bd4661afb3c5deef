"""How a chess clock looks in Discord: one message with its buttons, and the announcements (the
messages the outbox sends are rendered here).

The running player's time is a Discord relative timestamp (`<t:…:R>`) of the moment their flag
falls, so it counts down on every screen without the bot editing the message; the message is
edited once per action (a pass, a pause, a resume, the end, the flag fall). Everything shown is
computed from the stored state alone (no clock read here), so a re-render shows the same thing.

A new clock is an offer: its message pings the opponent, says the clock does not run until they
accept it, and carries Accept, Decline and Withdraw. The game it was started for (an event's match)
is on the message from the start, with whether its flag fall decides that game.
"""

from __future__ import annotations

import math

import discord

from bot.features.clock import rules as engine
from bot.features.clock import service
from bot.features.clock.service import ClockEdit, ClockGame, ClockNews, ClockRef, ClockView
from bot.kit import limits
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.dispatch import Component, number, word

MODE_NAMES = {"delay": "Delay", "bronstein": "Bronstein"}
LABELS = {"pass": "Pass clock", "pause": "Pause", "resume": "Resume", "end": "End", "accept": "Accept",
          "decline": "Decline", "withdraw": "Withdraw"}
STYLES = {
    "pass": discord.ButtonStyle.primary, "pause": discord.ButtonStyle.secondary,
    "resume": discord.ButtonStyle.success, "end": discord.ButtonStyle.danger,
    "accept": discord.ButtonStyle.success, "decline": discord.ButtonStyle.secondary,
    "withdraw": discord.ButtonStyle.secondary,
}
COLOURS = {
    engine.OFFERED: discord.Colour.blurple(), engine.RUNNING: discord.Colour.green(),
    engine.PAUSED: discord.Colour.gold(), engine.ENDED: discord.Colour.light_grey(),
    engine.FLAGGED: discord.Colour.red(), engine.WITHDRAWN: discord.Colour.light_grey(),
    engine.DECLINED: discord.Colour.light_grey(),
}


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def duration(seconds: float) -> str:
    """`9:58`, `1:02:03` (whole seconds, rounded down, as a chess clock shows them)."""
    whole = max(0, math.floor(seconds + 1e-9))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def passes(n: int) -> str:
    return f"{n} pass" if n == 1 else f"{n} passes"


def timestamp(epoch: float, style: str = "R") -> str:
    return f"<t:{math.ceil(epoch)}:{style}>"


def settings_text(state: engine.ClockState) -> str:
    return _settings_words(state.mode, state.base, state.increment)


def _settings_words(mode: str, base: float, increment: float) -> str:
    seconds = f"{increment:g} s"
    if mode == "bronstein":
        how = f"Bronstein: time spent on a move is refunded up to {seconds}"
    else:
        how = f"Delay: the first {seconds} of each move are free"
    return f"{how} · {duration(base)} each per game"


def event_clock_text(event_clock: tuple[str, float, float]) -> str:
    """An event's clock (mode, minutes, increment) in the words of :func:`settings_text`."""
    mode, minutes, increment = event_clock
    return _settings_words(mode, minutes * 60 + (increment if mode == "bronstein" else 0), increment)


def decides_nothing(game: ClockGame) -> str:
    """Why a clock for an event's game records no result, plainly."""
    if game.event_clock is None:
        why = f"{game.event_name} is played without a chess clock"
    else:
        why = f"its settings are not the clock of {game.event_name} ({event_clock_text(game.event_clock)})"
    return f"{why}, so a flag fall records no result for match {game.match}, game {game.game}"


def side_line(clock: ClockView, side: int) -> str:
    state = clock.state
    who = mention(clock.user_of(side))
    left = engine.remaining(state, side, state.last_time or 0.0)
    if state.status == engine.FLAGGED and state.flagged == side:
        return f"🚩 {who}: flag fell {timestamp(state.flag_time or 0, 'T')}"
    if state.running == side and state.status == engine.RUNNING:
        due = engine.flag_due_at(state)
        assert due is not None
        return f"▶️ {who}: **running**, flag falls {timestamp(due)} ({duration(left)} when it started)"
    if state.running == side and state.status == engine.PAUSED:
        return f"⏸️ {who}: {duration(left)} left (paused during their move)"
    return f"⌛ {who}: {duration(left)} left"


def game_name(game: ClockGame) -> str:
    return f"{game.event_name}, match {game.match}, game {game.game}"


def game_text(game: ClockGame | None) -> str | None:
    """What the clock decides: the event's game, or nothing (and why)."""
    if game is None:
        return None
    if game.decides:
        return f"For {game_name(game)}: a flag fall loses that game (an organizer can override)."
    return f"This clock decides nothing: {decides_nothing(game)}."


def status_text(clock: ClockView) -> str:
    state = clock.state
    if state.status == engine.OFFERED:
        return (f"Offered by {mention(clock.user_of(state.offered_by or 0))}: waiting for "
                f"{mention(clock.user_of(1 - (state.offered_by or 0)))} to accept. The clock does not run until "
                "then; once accepted, " + f"{mention(clock.user_of(state.first))}'s clock runs first.")
    if state.status == engine.WITHDRAWN:
        return f"Withdrawn by {mention(clock.user_of(state.offered_by or 0))} before it was accepted: it never ran."
    if state.status == engine.DECLINED:
        return f"Declined by {mention(clock.user_of(1 - (state.offered_by or 0)))}: it never ran."
    asked = "" if state.asked is None else " " + asked_line(clock.players, state.running or 0, state.asked)
    if state.status == engine.RUNNING:
        return f"Running: {mention(clock.user_of(state.running))} to act · {passes(state.moves)} so far.{asked}"
    if state.status == engine.PAUSED:
        return f"Paused: either player presses Resume to go on.{asked}"
    if state.status == engine.FLAGGED:
        loser = clock.user_of(state.flagged)
        if clock.game is not None and clock.game.decides:
            return f"{mention(loser)} ran out of time and loses {game_name(clock.game)} (an organizer can override)."
        return f"{mention(loser)} ran out of time."
    if state.status == engine.ENDED:
        return f"Ended after {passes(state.moves)}."
    return "Not started."


def clock_embed(clock: ClockView) -> discord.Embed:
    lines = [settings_text(clock.state)]
    if (game := game_text(clock.game)) is not None:
        lines.append(game)
    lines += ["", side_line(clock, 0), side_line(clock, 1), "", status_text(clock)]
    embed = discord.Embed(
        title=f"⏱️ Chess clock #{clock.id}", description=limits.fit_lines(lines, limits.DESCRIPTION),
        colour=COLOURS.get(clock.state.status),
    )
    if clock.offered:
        embed.set_footer(text="The opponent accepts or declines; the player who offered it may withdraw it.")
    elif clock.live:
        embed.set_footer(text="Only the two players can press. Pass the clock when you have finished acting.")
    return embed


def offer_text(clock: ClockView) -> str | None:
    """The offer's line above the clock: it pings the opponent, who must act (None once answered)."""
    if not clock.offered:
        return None
    offerer = clock.user_of(clock.state.offered_by or 0)
    opponent = clock.user_of(1 - (clock.state.offered_by or 0))
    game = clock.game
    if game is None:
        what = "a chess clock"
    elif game.decides:
        what = f"a chess clock for {game_name(game)}"
    else:
        what = f"a chess clock that decides nothing: {decides_nothing(game)}"
    return (f"{mention(opponent)}, {mention(offerer)} offers you {what}. Press **Accept** to start it, "
            "or **Decline**; it does not run until you accept.")


def offer_pinged(clock: ClockView) -> tuple[int, ...]:
    return (clock.user_of(1 - (clock.state.offered_by or 0)),) if clock.offered else ()


class ClockButton(
    Component, prefix="clk", parts=(number("clock"), word("action", service.ACTIONS + service.OFFER_ACTIONS)),
):
    @classmethod
    def make(cls, clock_id: int, action: str, *, disabled: bool = False) -> ClockButton:
        custom_id = cls.custom_id_for(clock=clock_id, action=action)
        return cls(discord.ui.Button(label=LABELS[action], style=STYLES[action], custom_id=custom_id, disabled=disabled))


def clock_view(clock: ClockView, *, for_user: int | None = None) -> discord.ui.View | None:
    """Pass clock, Pause, Resume, End (those that do nothing now are greyed out); none once over.
    An offer: Accept, Decline and Withdraw, or (`for_user`, a copy shown to one player) only the
    buttons that player may press."""
    if not clock.live:
        return None
    if clock.offered:
        view = discord.ui.View(timeout=None)
        offerer = clock.user_of(clock.state.offered_by or 0)
        for action in service.OFFER_ACTIONS:
            if for_user is None or (action == "withdraw") == (for_user == offerer):
                view.add_item(ClockButton.make(clock.id, action))
        return view
    status = clock.state.status
    enabled = {"pass": status == engine.RUNNING, "pause": status == engine.RUNNING,
               "resume": status == engine.PAUSED, "end": True}
    view = discord.ui.View(timeout=None)
    for action in service.ACTIONS:
        view.add_item(ClockButton.make(clock.id, action, disabled=not enabled[action]))
    return view


def asked_line(users: tuple[int, int], side: int, action: str) -> str:
    """The running player asked to pause or end the clock: the opponent's press of the same button agrees."""
    return (f"{mention(users[side])} asks to {action} the clock (it is their move, so they cannot alone): "
            f"{mention(users[1 - side])} presses **{LABELS[action]}** to agree.")


def asked_text(result: service.ActionResult) -> str | None:
    """What the running player is told when their Pause or End only asked (None: it was done)."""
    asked = next((e for e in result.events if isinstance(e, engine.ClockAsked)), None)
    if asked is None:
        return None
    opponent = mention(result.clock.user_of(1 - asked.side))
    return (f"It is your move, so you cannot {asked.action} chess clock #{result.clock.id} alone: you asked "
            f"{opponent}, who presses **{LABELS[asked.action]}** to agree.")


def end_question(clock: ClockView, user_id: int) -> str:
    """The End button's question: the player whose move it is only asks their opponent."""
    if _only_asks(clock, user_id):
        return (f"Ask {mention(clock.user_of(1 - clock.state.running))} to end chess clock #{clock.id}? It is your "
                "move, so it ends only when they press End too.")
    return f"End chess clock #{clock.id} now? Both clocks stop and the buttons go away."


def end_label(clock: ClockView, user_id: int) -> str:
    """The button that does what `end_question` asks."""
    return "Ask to end it" if _only_asks(clock, user_id) else "End the clock"


def _only_asks(clock: ClockView, user_id: int) -> bool:
    state = clock.state
    return (state.status in (engine.RUNNING, engine.PAUSED) and user_id in clock.players
            and clock.players.index(user_id) == state.running)


def news_text(news: ClockNews) -> str:
    """An announcement queued by the service (`bot.features.clock.service.NEWS`)."""
    users, left = news.users, news.remaining
    match news.event:
        case engine.FlagFell(side=side, at=at):
            loser, winner = users[side], users[1 - side]
            game = news.game
            if game is None:
                verdict = f"{mention(loser)} ran out of time"
            elif news.recorded:
                verdict = f"{mention(loser)} loses {game_name(game)} on time (an organizer can override)"
            elif game.decides:
                verdict = f"That game ({game_name(game)}) already has a result, so nothing is recorded"
            else:
                verdict = f"Nothing is recorded for {game_name(game)}: the clock was informal"
            text = (
                f"🚩 Chess clock #{news.clock_id}: {mention(loser)}'s flag fell at {timestamp(at, 'T')}. "
                f"{verdict}; {mention(winner)} had {duration(left[1 - side])} left."
            )
        case engine.ClockAsked(side=side, action=action):
            text = f"⏸️ Chess clock #{news.clock_id}: " + asked_line(users, side, action)
        case engine.ClockEnded():
            text = (
                f"⏹️ Chess clock #{news.clock_id} ended after {passes(news.moves)}: "
                f"{mention(users[0])} {duration(left[0])} left, {mention(users[1])} {duration(left[1])} left."
            )
    return limits.clip(text, limits.CONTENT)


def news_pings(news: ClockNews) -> tuple[int, ...]:
    """A flag fall pings both players (they may have looked away); a request to pause or end pings
    the opponent, who agrees to it; the end pings nobody."""
    if isinstance(news.event, engine.ClockAsked):
        return (news.users[1 - news.event.side],)
    return tuple(news.users) if isinstance(news.event, engine.FlagFell) else ()


# --- what the outbox sends (queued by the service with the change that causes it) ----------------------
# The clock message is posted once (an offer pings the opponent, who must accept it); each edit shows
# the clock as stored when it is sent (an edit queued before a newer change is skipped: the newer one
# shows it; the offer's line goes once it is answered).


RENDERERS = Renderers()  # the bot adds them to its table (`bot.app`)


@RENDERERS.renders(service.POST, ClockRef)
async def post(ref: ClockRef, ctx: Delivery) -> Outgoing | None:
    clock = await service.still_to_post(ctx.db, ref.clock_id)
    if clock is None:
        return None
    pinged = offer_pinged(clock)
    return Outgoing(content=offer_text(clock), embeds=[clock_embed(clock)], view=clock_view(clock),
                    allowed_mentions=limits.ping(*pinged) if pinged else None)


@RENDERERS.renders(service.SHOW, ClockEdit)
async def show(edit: ClockEdit, ctx: Delivery) -> Outgoing | None:
    clock = await service.still_to_show(ctx.db, edit.clock_id, edit.version)
    if clock is None or clock.message_id is None:
        return None
    return Outgoing(content=offer_text(clock), embeds=[clock_embed(clock)], view=clock_view(clock),
                    edit=(clock.channel_id, clock.message_id))


@RENDERERS.renders(service.NEWS, ClockNews)
async def news(news: ClockNews, ctx: Delivery) -> Outgoing:
    pings = news_pings(news)
    return Outgoing(content=news_text(news), allowed_mentions=limits.ping(*pings) if pings else None)
