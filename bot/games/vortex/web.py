"""Vortex's event page: the result (the winner an organizer declared, each player's life and
penalties), the table's public counts (the engine's `public_status`: never a card name), each
player's public zones (battlefield, graveyard, exile) and the public log: what the channel was
told of the game, as kept with the game (its rows in ``vortex_log``, `service.public_log`:
`service.LOG_LIMIT` events a page, the newest first, older pages at ``?log=2``, ``?log=3``...), or,
for a game dealt before that was kept, from the announcements the outbox still keeps
(`outbox.KEEP_SETTLED` after they were sent); each event told here in the site's words from a list
of public event types and fields (a card is named only where the channel named it).

Never shown: a hand, a pack, the passed pack, the shoe's cards or order, what a player looked at or
searched for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.games.vortex import rules as engine
from bot.games.vortex import service
from bot.games.vortex.models import VortexGame
from bot.kit.text import plural
from bot.store.models import OutboxMessage
from bot.web import params, registry

PAGES = registry.Pages()  # carried by its `FORMAT`
PAGES.templates("vortex", Path(__file__).parent / "templates")
# A game an organizer ended without a winner writes no results: the site's lists of finished events
# show it all the same.
PAGES.finished_tables(service.SPEC, name=lambda game_id, cube: f"Vortex #{game_id} ({cube})", title="Vortex Based Magic",
                         detail=VortexGame.cube_name)

STATUSES = service.STATUSES
PHASE = {engine.OPENING: "opening hands", engine.BASICS: "choosing basic lands", engine.PLAY: "playing",
         engine.OVER: "over"}
MAX_LOG = 500  # announcements read from the outbox (the newest), for a game without a kept log
MAX_LOG_PAGE = 100_000  # the highest ``?log=`` page asked for (a page past the oldest shows the oldest)
WHERE = {engine.HAND: "their hand", engine.BATTLEFIELD: "the battlefield", engine.TOP: "the top of the shoe"}
FROM = {engine.HAND: "their hand", engine.BATTLEFIELD: "the battlefield", engine.GRAVEYARD: "their graveyard",
        engine.EXILE: "exile"}
PUBLIC_ZONES = ((engine.BATTLEFIELD, "Battlefield"), (engine.GRAVEYARD, "Graveyard"), (engine.EXILE, "Exile"))


@dataclass(frozen=True)
class LogLine:
    parts: tuple[Any, ...]  # text (str) and players (int: a user id) and cards (tuple[str, ...])


def _cards(cards: tuple[str, ...]) -> tuple[str, ...]:
    """Cards the channel was shown (a tuple: the template shows each with its picture)."""
    return tuple(cards)


def _many(n: int, word: str) -> str:
    return plural(n, word)


def _number(n: int) -> str:
    """One minus sign (U+2212) for a negative number shown to users."""
    return f"\u2212{-n}" if n < 0 else str(n)


# What each public event says: (user of seat) -> parts. Only these types and fields are ever shown.
Tell = Callable[[Any, Callable[[int], int]], tuple[Any, ...]]
TELL: dict[type, Tell] = {
    service.GameBegan: lambda e, u: ("The game began; turn order: ",
                                     *[x for i, s in enumerate(e.turn_order) for x in ((", ",) if i else ()) + (u(s),)],
                                     f"; {_many(e.shoe_size, 'card')} in the shoe."),
    service.Drawing: lambda e, u: (u(e.seat), f" draws {_many(e.count, 'card')}."),
    service.Looked: lambda e, u: (u(e.seat), f" looked at the top {_many(e.count, 'card')} of the shoe."),
    engine.PhaseChanged: lambda e, u: (f"Now: {PHASE.get(e.phase, e.phase)}.",),
    engine.TurnStarted: lambda e, u: (("Opening turn " if e.phase == engine.OPENING else "Turn ")
                                      + f"{e.turn_in_phase}: ", u(e.seat), "."),
    engine.PackPassed: lambda e, u: (u(e.seat), f" swapped packs with the passed pack (took {_many(e.received, 'card')},"
                                                f" left {e.passed})."),
    engine.Replenished: lambda e, u: (u(e.seat), f"'s pack took {_many(e.added, 'card')} from the shoe"
                                                 f" (pack {e.pack_size}, shoe {e.shoe_size})."),
    engine.EmptyPackPenalty: lambda e, u: (u(e.seat), f" had to pick from an empty pack: the stack is countered, the "
                                                      f"turn ends, and they are at {_number(e.life)} life."),
    engine.PackOverflowDiscard: lambda e, u: (u(e.seat), "'s pack held more than 7: discarded at random: ",
                                              _cards((e.card,)), "."),
    engine.MulliganTaken: lambda e, u: (u(e.seat), " mulliganed, exiling their pack: ", _cards(e.exiled), "."),
    engine.Milled: lambda e, u: (u(e.seat), " milled: ", _cards(e.cards), "."),
    engine.TopArranged: lambda e, u: (u(e.seat), f" put {e.on_top} back on top of the shoe and {e.on_bottom} at the "
                                                 "bottom."),
    engine.CardsPutIntoShoe: lambda e, u: (u(e.seat), f" put {_many(e.count, 'card')} on the {e.position} of the "
                                                      "shoe."),
    engine.ShoeShuffled: lambda e, u: (u(e.seat), f" shuffled the shoe ({_many(e.shoe_size, 'card')})."),
    engine.ShoeRevealed: lambda e, u: (u(e.seat), " revealed the top of the shoe: ", _cards(e.cards), "."),
    engine.SearchBegan: lambda e, u: (u(e.seat), f" searches the shoe for up to {_many(e.count, 'card')}."),
    engine.SearchFinished: lambda e, u: (u(e.seat), f" found {_many(e.found, 'card')} for {WHERE.get(e.to, e.to)}",
                                         *((": ", _cards(e.cards)) if e.cards else ()), "; the shoe was shuffled."),
    engine.CardMoved: lambda e, u: (u(e.seat), " moved ", _cards((e.card,)), f" from {FROM.get(e.source, e.source)} to "
                                               f"{FROM.get(e.destination, e.destination)}."),
    engine.LifeChanged: lambda e, u: (u(e.seat), f" {'gained' if e.delta > 0 else 'lost'} {abs(e.delta)} life "
                                                 f"({_number(e.life)})."),
    engine.GameOver: lambda e, u: ("The game is over.",),
}


def _lines(told: Sequence[engine.Event], user: Callable[[int], int]) -> list[LogLine]:
    """The log's lines of events the channel was told (`user`: the user at a seat)."""
    lines = []
    for event in told:
        tell = TELL.get(type(event))
        if isinstance(event, engine.LifeChanged) and event.reason != "reported":
            continue  # a penalty's life loss: told with the penalty
        if tell is not None and isinstance(event, service.PUBLIC_EVENTS):
            lines.append(LogLine(tell(event, user)))
    return lines


@dataclass(frozen=True)
class LogPage:
    """The lines of one page of a game's log (oldest first), which page of how many (1: the newest),
    and whether older news is gone."""

    lines: list[LogLine]
    page: int = 1
    pages: int = 1
    partial: bool = False


async def _log(ctx: registry.PageContext, loaded: Any) -> LogPage:
    """What the channel was told of this game: the page the address asks for (``?log=``) of its kept
    log, else what the outbox still has."""
    row = loaded.row
    kept = await service.public_log(ctx.db, row.id, params.integer(ctx.query, "log", 1, 1, MAX_LOG_PAGE))
    if kept is not None and loaded.state is not None:  # kept with the game: the users by seat
        users = tuple(p.user_id for p in loaded.state.players)
        return LogPage(_lines(kept.events, users.__getitem__), kept.page, kept.pages,
                       kept.lost and kept.page == kept.pages)
    if row.started_at is None:
        return LogPage([])
    async with ctx.db.read() as session:
        query = (select(OutboxMessage.payload)
                 .where(OutboxMessage.kind == service.ANNOUNCE, OutboxMessage.guild_id == row.guild_id,
                        OutboxMessage.channel_id == row.channel_id, OutboxMessage.created_at >= row.started_at)
                 .order_by(OutboxMessage.id.desc()).limit(MAX_LOG))
        if row.finished_at is not None:
            query = query.where(OutboxMessage.created_at <= row.finished_at)
        payloads = [p for p in (await session.execute(query)).scalars() if p.get("game_id") == row.id]
    lines = []
    for payload in reversed(payloads):
        try:
            told = service.Announcement.from_payload(payload)
        except (KeyError, TypeError, ValueError):
            continue
        lines += _lines(told.events, told.users.__getitem__)
    # The log is whole if it still begins with the deal (older news is pruned, or beyond MAX_LOG).
    whole = bool(lines) and lines[0].parts[0] == "The game began; turn order: "
    return LogPage(lines, partial=not whole)


@PAGES.event_page(service.KIND)
async def event(ctx: registry.PageContext, game_id: int) -> registry.Page | None:
    if (loaded := await ctx.own_table(service.GAMES, game_id)) is None:
        return None
    row, state = loaded.row, loaded.state
    users = [p.user_id for p in state.players] if state else [s.user_id for s in loaded.seats]
    names = await ctx.names(users)
    title = f"Vortex #{row.id}"
    if state is None:
        return registry.Page("vortex/event.html", title, {"row": row, "public": None, "names": names,
                                                          "users": users, "log": LogPage([])})
    public = engine.public_status(state)
    zones = [(p.user_id, [(title, list(getattr(p, zone))) for zone, title in PUBLIC_ZONES if getattr(p, zone)])
             for p in state.players]
    log = await _log(ctx, loaded)
    shown = [card for _, listed in zones for _, cards in listed for card in cards]
    shown += [card for line in log.lines for part in line.parts if isinstance(part, tuple) for card in part]
    winner = loaded.bookkeeping.winner
    return registry.Page("vortex/event.html", title, {
        "row": row, "public": public, "names": names, "users": users, "zones": zones, "log": log,
        "winner": winner, "phase_text": PHASE.get(public.phase, public.phase),
        "pictures": await ctx.pictures(shown), "number": _number, "over": row.status == STATUSES.finished,
        "cancelled": row.status == STATUSES.cancelled}, final=row.status in (STATUSES.finished, STATUSES.cancelled))
