"""How a chess clock looks in Discord: one message with its buttons, and the announcements.

The running player's time is a Discord relative timestamp (`<t:…:R>`) of the moment their flag
falls, so it counts down on every screen without the bot editing the message; the message is
edited once per action (a pass, a pause, a resume, the end, the flag fall). Everything shown is
computed from the stored state alone (no clock read here), so a re-render shows the same thing.
"""

from __future__ import annotations

import math

import discord

from bot.formats import clock as engine
from bot.services import clock as service
from bot.services.clock import ClockView
from bot.ui import limits
from bot.ui.dispatch import Component, number, word

MODE_NAMES = {"delay": "Delay", "bronstein": "Bronstein"}
LABELS = {"pass": "Pass clock", "pause": "Pause", "resume": "Resume", "end": "End"}
STYLES = {
    "pass": discord.ButtonStyle.primary, "pause": discord.ButtonStyle.secondary,
    "resume": discord.ButtonStyle.success, "end": discord.ButtonStyle.danger,
}
COLOURS = {
    engine.RUNNING: discord.Colour.green(), engine.PAUSED: discord.Colour.gold(),
    engine.ENDED: discord.Colour.light_grey(), engine.FLAGGED: discord.Colour.red(),
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
    increment = f"{state.increment:g} s"
    if state.mode == "bronstein":
        how = f"Bronstein: time spent on a move is refunded up to {increment}"
    else:
        how = f"Delay: the first {increment} of each move are free"
    return f"{how} · {duration(state.base)} each per game"


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


def status_text(clock: ClockView) -> str:
    state = clock.state
    if state.status == engine.RUNNING:
        return f"Running: {mention(clock.user_of(state.running))} to act · {passes(state.moves)} so far."
    if state.status == engine.PAUSED:
        return "Paused: either player presses Resume to go on."
    if state.status == engine.FLAGGED:
        loser = clock.user_of(state.flagged)
        return f"{mention(loser)} ran out of time and loses this game (an organizer can override)."
    if state.status == engine.ENDED:
        return f"Ended after {passes(state.moves)}."
    return "Not started."


def clock_embed(clock: ClockView) -> discord.Embed:
    lines = [settings_text(clock.state), "", side_line(clock, 0), side_line(clock, 1), "", status_text(clock)]
    embed = discord.Embed(
        title=f"⏱️ Chess clock #{clock.id}", description=limits.fit_lines(lines, limits.DESCRIPTION),
        colour=COLOURS.get(clock.state.status),
    )
    if clock.live:
        embed.set_footer(text="Only the two players can press. Pass the clock when you have finished acting.")
    return embed


class ClockButton(
    Component, prefix="clk", parts=(number("clock"), word("action", service.ACTIONS)), route=("ClockCog", "on_button"),
):
    @classmethod
    def make(cls, clock_id: int, action: str, *, disabled: bool = False) -> ClockButton:
        custom_id = cls.custom_id_for(clock=clock_id, action=action)
        return cls(discord.ui.Button(label=LABELS[action], style=STYLES[action], custom_id=custom_id, disabled=disabled))


def clock_view(clock: ClockView) -> discord.ui.View | None:
    """Pass clock, Pause, Resume, End (those that do nothing now are greyed out); none once over."""
    if not clock.live:
        return None
    status = clock.state.status
    enabled = {"pass": status == engine.RUNNING, "pause": status == engine.RUNNING,
               "resume": status == engine.PAUSED, "end": True}
    view = discord.ui.View(timeout=None)
    for action in service.ACTIONS:
        view.add_item(ClockButton.make(clock.id, action, disabled=not enabled[action]))
    return view


def news_text(payload: dict) -> str:
    """An announcement queued by the service (`bot.services.clock.NEWS`)."""
    users, left = payload["users"], payload["remaining"]
    clock_id = payload["clock_id"]
    if payload["what"] == "flag":
        loser, winner = users[payload["side"]], users[1 - payload["side"]]
        text = (
            f"🚩 Chess clock #{clock_id}: {mention(loser)}'s flag fell at {timestamp(payload['at'], 'T')}. "
            f"{mention(loser)} loses this game on time (an organizer can override); "
            f"{mention(winner)} had {duration(left[1 - payload['side']])} left."
        )
    else:
        text = (
            f"⏹️ Chess clock #{clock_id} ended after {passes(payload['moves'])}: "
            f"{mention(users[0])} {duration(left[0])} left, {mention(users[1])} {duration(left[1])} left."
        )
    return limits.clip(text, limits.CONTENT)


def news_pings(payload: dict) -> tuple[int, ...]:
    """A flag fall pings both players (they may have looked away); the end pings nobody."""
    return tuple(payload["users"]) if payload["what"] == "flag" else ()
