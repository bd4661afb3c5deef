"""Treasure Battler's event page: the players' public counts (poison, treasures, basics, status),
the pairings being played, the game log (every finished pairing, stage by stage, newest first), the
packyard (public), and once the game is over the final standings and every player's stash.

What everyone may see (FORMATS.md §2, "Visibility"): basics and treasures are public, stash cards and
dealt packs are private (DMs only), the packyard is public. So stashes show only after the game, and
packs never."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.games.battler import rules as engine
from bot.games.battler import service
from bot.web import registry

PAGES = registry.Pages()  # carried by its `FORMAT`
PAGES.templates("battler", Path(__file__).parent / "templates")

STATUSES = service.STATUSES
PHASE = {engine.SETUP: "setting up (choosing basics)", engine.PLAY: "playing", engine.DRAFT: "drafting",
         engine.CAROUSEL: "carousel", engine.OVER: "over"}
PLAYER_STATUS = {engine.ALIVE: "", engine.GHOST: "ghost", engine.PLAYOFF: "play-off", engine.OUT: "out"}
CAROUSEL = {"off": "no carousel", "round": "a carousel every draft", "stage": "a carousel every stage"}


@dataclass(frozen=True)
class Line:
    """A finished pairing, as the log shows it."""

    stage: int
    round: int
    a: int  # user ids
    b: int
    winner: int | None  # None: a draw, or not finished
    result: str  # "won", "draw", "unfinished"
    conceded_by: int | None
    playoff: bool


def _log(state: engine.BattlerState) -> list[Line]:
    user = [p.user_id for p in state.players]
    lines = []
    for entry in state.history:
        a, b, result = entry["a"], entry["b"], entry.get("result")
        winner = {"a": a, "b": b}.get(result or "")
        conceded = entry.get("conceded_by")
        lines.append(Line(entry["stage"], entry["round"], user[a], user[b], None if winner is None else user[winner],
                          "won" if winner is not None else (result or "unfinished"),
                          None if conceded is None else user[conceded], bool(entry.get("playoff"))))
    return list(reversed(lines))


def _standings(state: engine.BattlerState) -> list[tuple[int, list[int]]]:
    """(place, user ids) from the engine's groups: the winner first, later deaths before earlier."""
    out, place = [], 1
    for group in engine.standings(state):
        out.append((place, [state.players[seat].user_id for seat in group]))
        place += len(group)
    return out


@PAGES.event_page(service.SPEC.kind)
async def event(ctx: registry.PageContext, game_id: int) -> registry.Page | None:
    if (loaded := await ctx.own_table(service.GAMES, game_id)) is None:
        return None
    row, state = loaded.row, loaded.state
    over = row.status == STATUSES.finished and state is not None and state.phase == engine.OVER
    users = [p.user_id for p in state.players] if state else [s.user_id for s in loaded.seats]
    names = await ctx.names(users)
    context = {
        "row": row, "state": state, "names": names, "over": over, "users": users,
        "phase_text": ("ended by an organizer without a winner" if row.status == STATUSES.cancelled
                       else PHASE.get(state.phase, state.phase) if state else None),
        "settings": engine.BattlerSettings(**row.settings) if state is None else state.settings,
        "carousel": CAROUSEL, "player_status": PLAYER_STATUS, "log": _log(state) if state else [],
        "standings": _standings(state) if over else [],
        "pictures": {},
    }
    if state is not None:
        shown = list(state.packyard) + list(state.carousel_cards)
        if over:
            shown += [card for p in state.players for card in p.stash]
        context["pictures"] = await ctx.pictures(shown)
    return registry.Page("battler/event.html", f"Treasure Battler #{row.id}", context,
                         final=row.status in (STATUSES.finished, STATUSES.cancelled))
