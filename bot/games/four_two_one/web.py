"""421's event page (a league): the standings, this round's matches and who sits out, the history of
every earlier match with the loser's option, the sets (those added, and when the rest join), the decks
taken apart, every deck (all deck lists are public, FORMATS.md §5) and the pool with the copies left."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import service
from bot.web import registry
from bot.web.cards import curve_html, tile_html

PAGES = registry.Pages()  # carried by its `FORMAT`
PAGES.templates("421", Path(__file__).parent / "templates")

STATUSES = service.STATUSES
PHASE = {STATUSES.lobby: "open for players", STATUSES.running: "running", STATUSES.finished: "over",
         STATUSES.cancelled: "cancelled"}
OPTION = {"A": "altered their deck", "B": "built a new deck", "C": "claimed a set-aside deck",
          "D": "had the winner build a new deck"}
STEP = {"build": "to build a deck", "alter": "to alter their deck", "take_apart": "to take apart two unused decks",
        "choose": "to choose an option", "report": "the result"}
RARITY_ORDER = {"mythic": 0, "rare": 1, "uncommon": 2, "common": 3, "basic": 4}


@dataclass(frozen=True)
class DeckLine:
    id: int
    holder: int | None  # user id
    status: str  # "in use", "sitting out", "set aside"
    built_by: int  # user id
    built_round: int
    cards: list[tuple[int, str]]  # (count, name), by name
    size: int

    @property
    def copies(self) -> list[str]:
        """A name per copy, as a deck's piles show it."""
        return [name for count, name in self.cards for _ in range(count)]


@dataclass(frozen=True)
class SetLine:
    code: str
    name: str
    cards: int
    added: bool
    when: str  # "from the start", "with deck 6", "with deck 11 once someone has 10 points"


def _sets(state: engine.LeagueState) -> list[SetLine]:
    additions = state.settings.additions or []
    lines = []
    for index, found in enumerate(state.sets):
        if index == 0:
            when = "from the start"
        elif index - 1 < len(additions):
            addition = additions[index - 1]
            when = f"with deck {addition.at_deck}" + (
                f" once a player has {addition.min_score} points" if addition.min_score else "")
        else:
            when = "not scheduled"
        lines.append(SetLine(found.code.upper(), found.name, len(found.cards), index < state.sets_added, when))
    return lines


def _decks(state: engine.LeagueState, user: list[int]) -> list[DeckLine]:
    out = []
    for deck in state.decks:
        holder = engine.holder_of(state, deck.id)
        cards = sorted(((count, name) for name, count in deck.cards.items() if count), key=lambda c: c[1].casefold())
        out.append(DeckLine(deck.id, None if holder is None else user[holder], engine.deck_status(state, deck.id),
                            user[deck.built_by], deck.built_round, cards, sum(deck.cards.values())))
    return out


@PAGES.event_page(service.KIND)
async def event(ctx: registry.PageContext, league_id: int) -> registry.Page | None:
    if (loaded := await ctx.own_table(service.GAMES, league_id)) is None:
        return None
    row, state = loaded.row, loaded.state
    title = service.league_name(row.id)
    if state is None:
        names = await ctx.names(s.user_id for s in loaded.seats)
        return registry.Page("421/event.html", title, {
            "row": row, "state": None, "phase": PHASE.get(row.status, row.status), "names": names,
            "joined": [s.user_id for s in loaded.seats]})
    user = [p.user_id for p in state.players]
    names = await ctx.names(user)
    pool = sorted(engine.pool_cards(state, include_used_up=True),
                  key=lambda c: (RARITY_ORDER.get(c.rarity, 5), c.name.casefold()))
    decks = _decks(state, user)
    existing = {deck.id for deck in state.decks}
    taken_apart = [deck_id for deck_id in range(1, state.next_deck_id) if deck_id not in existing]
    pending = [(STEP.get(a.kind, a.kind), [user[s] for s in a.seats], a.match) for a in engine.pending_actions(state)]
    shown = [c.name for c in pool] + [name for deck in decks for _, name in deck.cards]
    pictures = await ctx.pictures(shown)
    tiles = {name: tile_html(name, pictures) for deck in decks for _, name in deck.cards}
    facts = await ctx.card_facts(tiles)
    return registry.Page("421/event.html", title, {
        "row": row, "state": state, "phase": PHASE.get(row.status, row.status), "names": names, "user": user,
        "standings": engine.standings(state), "history": list(reversed(state.history)), "decks": decks,
        "sets": _sets(state), "taken_apart": taken_apart, "pool": pool, "options": OPTION, "pending": pending,
        "limit": engine.deck_limit(state), "pictures": pictures,
        "curves": {deck.id: curve_html(deck.copies, facts, tiles) for deck in decks}},
        final=row.status in (STATUSES.finished, STATUSES.cancelled))
