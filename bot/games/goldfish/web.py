"""Goldfish Draft's page: an event's standings with each score's parts, and every counting write-up (the
format shows write-ups to everyone while scores come in, FORMATS.md §1; `/goldfish writeup`); and the
events taking scores, for the site's lists of running events."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.goldfish import rules
from bot.games.goldfish.models import GoldfishEvent, GoldfishSubmission
from bot.games.goldfish.service import KIND
from bot.kit import event_results, tables
from bot.web import registry

PAGES = registry.Pages()  # carried by its `FORMAT`
PAGES.templates("goldfish", Path(__file__).parent / "templates")

GOLDFISH = KIND
DRAFT = "draft"  # the table kind of the draft that opened an event: its page's address, by name only
METHOD = {"sum": "the parts added", "max": "the largest part", "product": "the parts multiplied"}
PLAY_ORDER = {"first": "everyone plays first", "second": "everyone plays second", "flip": "a coin flip decides"}


@dataclass(frozen=True)
class Score:
    placement: int
    user_id: int
    row: GoldfishSubmission
    parts: dict[str, float]


@PAGES.event_page(GOLDFISH)
async def goldfish(ctx: registry.PageContext, event_id: int) -> registry.Page | None:
    async with ctx.db.read() as session:
        event = await session.get(GoldfishEvent, event_id) if 0 < event_id <= tables.MAX_ID else None
        if event is None or event.guild_id != ctx.guild_id:
            return None
        rows = list((await session.execute(select(GoldfishSubmission).where(
            GoldfishSubmission.event_id == event.id, GoldfishSubmission.status == "active"))).scalars())
        rejected = (await session.execute(select(func.count()).where(
            GoldfishSubmission.event_id == event.id, GoldfishSubmission.status == "rejected"))).scalar_one()
        by_user = {row.user_id: row for row in rows}
        scores = [Score(p.placement, p.user_id, by_user[p.user_id], rules.breakdown(
            life_lost=by_user[p.user_id].life_lost, cards_milled=by_user[p.user_id].cards_milled,
            poison=by_user[p.user_id].poison, game_wins=by_user[p.user_id].game_wins,
            lost_or_drew=by_user[p.user_id].lost_or_drew, prevented=by_user[p.user_id].prevented, method=event.method))
                  for p in event_results.rank_by_score({row.user_id: row.score for row in rows})]
    names = await ctx.names([event.organizer_id, *by_user])
    return registry.Page("goldfish/event.html", event.name, {
        "event": event, "scores": scores, "names": names, "rejected": rejected,
        "method": METHOD.get(event.method, event.method), "play_order": PLAY_ORDER.get(event.play_order, ""),
        "draft_link": ctx.links.event(DRAFT, event.pod_id) if event.pod_id else None}, final=event.status == "closed")


@PAGES.running_events
async def open_goldfish_events(session: AsyncSession, guild_id: int) -> list[registry.RunningEvent]:
    """Goldfish events taking scores (no table: a lobby's list does not have them)."""
    rows = await session.execute(
        select(GoldfishEvent.id, GoldfishEvent.name, GoldfishEvent.created_at, func.count(GoldfishSubmission.id))
        .outerjoin(GoldfishSubmission, (GoldfishSubmission.event_id == GoldfishEvent.id)
                   & (GoldfishSubmission.status == "active"))
        .where(GoldfishEvent.guild_id == guild_id, GoldfishEvent.status == "open")
        .group_by(GoldfishEvent.id, GoldfishEvent.name, GoldfishEvent.created_at)
        .order_by(GoldfishEvent.id.desc()).limit(registry.MAX_RUNNING))
    return [registry.RunningEvent(GOLDFISH, event_id, f"Goldfish: {name}", registry.OPEN, players, created)
            for event_id, name, created, players in rows]

