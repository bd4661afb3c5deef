"""Goldfish Draft: the score modal, standings and write-ups (no rules, no SQL)."""

from __future__ import annotations

import re

import discord

from bot.services.goldfish import EventView, Standing, SubmissionView
from bot.services.leaderboard import BoardRow

WRITEUP_PAGE_CHARS = 3500


def _fmt(value: float) -> str:
    return f"{value:g}"


def breakdown_text(sub: SubmissionView) -> str:
    parts = sub.breakdown
    text = (
        f"life {_fmt(sub.life_lost)} → {_fmt(parts['life'])}, milled {sub.cards_milled} → {_fmt(parts['mill'])}, "
        f"poison {sub.poison} → {_fmt(parts['poison'])}, wins {sub.game_wins} → {_fmt(parts['win'])}"
    )
    if sub.lost_or_drew:
        text += " · lost/drew: 0"
    if sub.prevented:
        text += " · win prevented: 0"
    return text


def standings_embed(event: EventView, standings: list[Standing], *, final: bool = False) -> discord.Embed:
    title = f"{'Final standings' if final else 'Standings'} · {event.name}"
    embed = discord.Embed(title=title, colour=discord.Colour.orange())
    lines = [
        f"**{s.placement}.** <@{s.submission.user_id}> — **{_fmt(s.submission.score)}** ({breakdown_text(s.submission)})"
        for s in standings
    ]
    embed.description = "\n".join(lines) or "No scores yet."
    embed.set_footer(text=f"Event #{event.id} · {event.turns} turns · scoring: {event.method} · {event.status}")
    return embed


def writeup_pages(sub: SubmissionView) -> list[str]:
    """The write-up cut into pages at line breaks where possible; nothing is dropped."""
    text, pages = sub.writeup, []
    while text:
        if len(text) <= WRITEUP_PAGE_CHARS:
            pages.append(text)
            break
        cut = text.rfind("\n", 0, WRITEUP_PAGE_CHARS)
        cut = cut if cut > WRITEUP_PAGE_CHARS // 2 else WRITEUP_PAGE_CHARS
        pages.append(text[:cut])
        text = text[cut:].lstrip("\n")
    return pages or ["(empty)"]


def writeup_embed(event: EventView, sub: SubmissionView, page: int, pages: list[str]) -> discord.Embed:
    embed = discord.Embed(title=f"Write-up · {event.name}", description=pages[page], colour=discord.Colour.orange())
    embed.add_field(name="Player", value=f"<@{sub.user_id}>")
    embed.add_field(name="Score", value=_fmt(sub.score))
    embed.add_field(name="Breakdown", value=breakdown_text(sub), inline=False)
    if sub.status == "rejected":
        embed.add_field(name="Rejected", value=sub.reject_reason or "-", inline=False)
    return embed


def leaderboard_embed(title: str, rows: list[BoardRow], first_rank: int = 1) -> discord.Embed:
    embed = discord.Embed(title=title, colour=discord.Colour.purple())
    lines = [
        f"**{row.rank}.** <@{row.user_id}> · {_fmt(row.points)} pts · {row.events} events · {row.wins} wins"
        + (f" · best {_fmt(row.best_score)}" if row.best_score is not None else "")
        for row in rows
    ]
    embed.description = "\n".join(lines) or "No finished events yet."
    return embed


SUBMIT_ID = re.compile(r"gf:submit:(?P<event>\d+):(?P<lost>[01])(?P<prevented>[01]):(?P<file>-|\d+)")


def submit_custom_id(event_id: int, *, lost_or_drew: bool, prevented: bool, file_key: str | None) -> str:
    """Everything a score form needs besides what the player types, so any process can take the
    submission (after a restart too) and two open forms never share state."""
    return f"gf:submit:{event_id}:{int(lost_or_drew)}{int(prevented)}:{file_key or '-'}"


def modal_values(data: dict) -> dict[str, str]:
    """The text inputs of a modal submission (``interaction.data``) by custom_id."""
    values: dict[str, str] = {}

    def walk(components: list) -> None:
        for component in components or []:
            if component.get("type") == 4 and component.get("custom_id"):
                values[component["custom_id"]] = component.get("value") or ""
            walk(component.get("components") or [])
            if isinstance(component.get("component"), dict):
                walk([component["component"]])

    walk(data.get("components") or [])
    return values


class ScoreModal(discord.ui.Modal):
    """Life lost, cards milled, poison, win effects and the write-up.

    Only a form: it is never registered with discord.py. Its submission is handled from the
    custom_id (see :data:`SUBMIT_ID`) by the Goldfish cog's interaction listener.
    """

    def __init__(self, event: EventView, custom_id: str, *, with_writeup: bool = True) -> None:
        super().__init__(title=f"Score: {event.name}"[:45], custom_id=custom_id, timeout=None)
        self.life_lost = discord.ui.TextInput(label="Life the goldfish lost (may exceed 20)", default="0", max_length=12, custom_id="life_lost")
        self.cards_milled = discord.ui.TextInput(label="Cards milled", default="0", max_length=12, custom_id="cards_milled")
        self.poison = discord.ui.TextInput(label="Poison counters", default="0", max_length=12, custom_id="poison")
        self.game_wins = discord.ui.TextInput(label="'Win the game' effects", default="0", max_length=6, custom_id="game_wins")
        for item in (self.life_lost, self.cards_milled, self.poison, self.game_wins):
            self.add_item(item)
        if with_writeup:
            self.add_item(
                discord.ui.TextInput(
                    label="Write-up: your line of play, turn by turn",
                    style=discord.TextStyle.paragraph,
                    max_length=4000,
                    custom_id="writeup",
                    placeholder="T1: Mountain, Goblin Guide, attack (2)…",
                )
            )
        # Stopped before it is sent, so discord.py does not keep it (keyed by custom_id alone, one
        # player's open form would replace another's) and the listener is the only handler.
        self.stop()
