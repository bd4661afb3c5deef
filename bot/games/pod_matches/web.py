"""A pod's page: its rounds, pairings and results, the standings (and the team score), the players'
decks once it has ended, and the pods playing, for the site's lists of running events."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.pod_matches import rules
from bot.games.pod_matches.models import PodMatches
from bot.games.pod_matches.service import ENDED, KIND, RUNNING, shown_decks
from bot.kit import tables
from bot.web import registry

PAGES = registry.Pages()  # carried by its `FORMAT`
PAGES.templates("pod", Path(__file__).parent / "templates")

DRAFT = "draft"  # the draft's page's kind: its address, by name only


def _percent(value) -> str:
    return f"{float(value) * 100:.1f}%"


@PAGES.event_page(KIND)
async def pod_page(ctx: registry.PageContext, pod_id: int) -> registry.Page | None:
    async with ctx.db.read() as session:
        row = await session.get(PodMatches, pod_id) if 0 < pod_id <= tables.MAX_ID else None
        if row is None or row.guild_id != ctx.guild_id:
            return None
        state = rules.PodState.from_dict(row.state) if row.state else None
        decks = shown_decks(row)  # none while the pod runs
    standings = [
        {"rank": s.rank, "player": s.player, "record": s.record, "points": s.match_points,
         "omw": _percent(s.opponents_match_win), "gw": _percent(s.game_win), "ogw": _percent(s.opponents_game_win),
         "dropped": s.player in state.dropped}
        for s in state.standings()] if state else []
    if standings:  # the decks in the standings' order
        decks = {s["player"]: decks[s["player"]] for s in standings if s["player"] in decks}
    everyone = [row.organizer_id, *(state.entrants if state else [s for s in row.seats if s > 0]), *decks]
    names = await ctx.names(everyone)
    return registry.Page("pod/pod.html", row.name, {
        "row": row, "state": state, "standings": standings, "names": names,
        "team_score": state.team_score() if state else None, "decks": decks,
        "draft_link": ctx.links.event(DRAFT, row.pod_id) if row.pod_id else None}, final=row.status == ENDED)


@PAGES.running_events
async def running_pods(session: AsyncSession, guild_id: int) -> list[registry.RunningEvent]:
    rows = await session.execute(
        select(PodMatches.id, PodMatches.name, PodMatches.created_at, PodMatches.state)
        .where(PodMatches.guild_id == guild_id, PodMatches.status == RUNNING)
        .order_by(PodMatches.id.desc()).limit(registry.MAX_RUNNING))
    return [registry.RunningEvent(KIND, pod_id, f"Matches: {name}", registry.OPEN,
                                  len((state or {}).get("entrants", ())), created)
            for pod_id, name, created, state in rows]
