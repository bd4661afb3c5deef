"""Turnabout's event page: the registrations, the pairings round by round with each match's report
(MP per game, the match's MP and VP), the standings with their tiebreakers and, once the event has
ended, the final ranking with each player's rating award and every registered decklist.

What everyone may see: deck names and scoring options are announced when registration closes;
pairings, reports and results are posted in the channel. A decklist goes only to the opponent who
plays it in game 1 (by DM), so the page shows the lists only once the event has ended."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.games.turnabout import rules as engine
from bot.games.turnabout import service
from bot.kit import claims
from bot.kit.events import decode
from bot.web import registry

PAGES = registry.Pages()  # carried by its `FORMAT`
PAGES.templates("turnabout", Path(__file__).parent / "templates")

GAME_STATUS = {engine.PENDING: "not reported yet", engine.FLAGGED: "lost on time, waiting for its report",
               claims.REPORTED: "reported, waiting for the opponent", claims.DISPUTED: "disputed, waiting for an organizer",
               engine.FINAL: "final"}
STATUS = {service.STATUSES.lobby: "registration open", service.STATUSES.running: "running",
          service.STATUSES.finished: "ended", service.STATUSES.cancelled: "cancelled"}


@dataclass(frozen=True)
class GameLine:
    number: int
    deck_of: str  # whose deck each plays: "each plays the opponent's deck" / "their own"
    status: str
    winner: int | None  # user id; None: a draw or not final
    final: bool
    points: tuple[int, int]  # MP to a, b


@dataclass(frozen=True)
class MatchLine:
    number: int
    a: int  # user ids
    b: int | None  # None: a bye
    games: list[GameLine]
    result: engine.MatchResult | None


async def _load(ctx: registry.PageContext, event_id: int) -> service.Loaded | None:
    return await ctx.own_table(service.GAMES, event_id)


def _rounds(loaded: service.Loaded) -> list[tuple[int, list[MatchLine]]]:
    state = loaded.state
    assert state is not None
    user = [p.user_id for p in state.players]
    rounds = []
    for number in range(1, state.round + 1):
        lines = []
        for m in state.round_matches(number):
            games = []
            for g in m.games:
                final = g.status == engine.FINAL
                status = service.game_status(loaded, m.number, g)  # a report waiting is the kit's claim
                games.append(GameLine(
                    g.number, "each plays the opponent's deck" if g.number == 1 else "each plays their own deck",
                    GAME_STATUS.get(status, status), user[g.winner] if final and g.winner is not None else None,
                    final, engine.game_points(state, m, g)))
            lines.append(MatchLine(m.number, user[m.a], None if m.b is None else user[m.b], games,
                                   engine.match_result(state, m)))
        rounds.append((number, lines))
    return list(reversed(rounds))  # the newest round first


async def _ratings(ctx: registry.PageContext, user_ids: list[int]) -> dict[int, tuple[float, int]]:
    """Each player's Turnabout rating in the server (every finished event's award summed, as kept
    with the leaderboard totals), and events."""
    if not user_ids:
        return {}
    async with ctx.db.read() as session:
        return await service.rating_totals(session, ctx.guild_id, user_ids)


@PAGES.event_page(service.KIND, other_events=True)
async def event(ctx: registry.PageContext, event_id: int) -> registry.Page | None:
    loaded = await _load(ctx, event_id)
    if loaded is None:
        return None
    row, state = loaded.row, loaded.state
    ended = row.status == service.STATUSES.finished
    if state is None:  # registration open (or cancelled before it closed): the registrations only
        registrations = [(s.user_id, s.deck, s.scoring) for s in loaded.seats]
        names = await ctx.names(u for u, _, _ in registrations)
        return registry.Page("turnabout/event.html", service.event_name(row.id), {
            "row": row, "phase": STATUS.get(row.status, row.status), "registrations": registrations,
            "names": names, "state": None, "rounds": [], "standings": [], "placings": [], "ratings": {},
            "decklists": [], "settings": decode(row.settings, engine.Settings), "scoring_names": SCORING})
    standings = engine.standings(state)
    placings = engine.final_ranking(state) if ended else []
    users = [p.user_id for p in state.players]
    decklists = [(p.user_id, p.deck, p.scoring, p.decklist) for p in state.players if p.decklist] if ended else []
    names = await ctx.names(users)
    pictures = await ctx.pictures(name for *_, cards in decklists for _, name in cards) if decklists else {}
    return registry.Page("turnabout/event.html", service.event_name(row.id), {
        "row": row, "phase": STATUS.get(row.status, row.status), "registrations": [], "names": names,
        "state": state, "rounds": _rounds(loaded), "standings": standings, "placings": placings,
        "ratings": await _ratings(ctx, users) if ended else {}, "decklists": decklists, "pictures": pictures,
        "settings": state.settings, "scoring_names": SCORING, "user": users},
        # Ended: its ratings sum later events too, which the kept page's key sees (`bot.web.page_cache`).
        final=row.status in (service.STATUSES.finished, service.STATUSES.cancelled))


SCORING = {"dominaria": "Dominaria (10 + the winner's life)", "tolaria": "Tolaria (10 + half the winner's library)",
           "phyrexia": "Phyrexia (30 − 2 × the winner's poison)"}
