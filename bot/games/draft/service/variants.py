"""Draft variants on the pods: how a pod of each variant is checked, dealt and decoded.

A pod's `variant` column names it: none for a booster draft (`rules.DraftState`, packs passed round
the table), "rotisserie" for a Rotisserie draft (`rotisserie_rules.RotisserieState`: the cards on
offer face up, picked in snake order; its `packs` is 1, its `pack_size` the picks each player makes,
its `offer` how many of the cube's cards are on offer). Every other use case (picks, bot seats,
timers, waits, pools, the end) is the booster draft's: a Rotisserie answers the booster engine's
queries as one pack held by the seat on turn (`RotisserieState.heads`).

"winston" is a Winston draft (`winston_rules.WinstonState`, 2 players: `offer` and `pack_size` are the
cards dealt) and "grid" a Grid draft (`grid_rules.GridState`, 2 or 3 players: `offer` is the grids
dealt, `pack_size` their cards). Each answers the booster engine's queries as one pack held by the
seat on turn whose "cards" are its choices (take or pass a pile; a row or a column), a pick gaining
any number of cards (`rules.GainEvent`, a pick row per card).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.games.draft import bots, grid_rules, rotisserie_rules, winston_rules
from bot.games.draft import rules as engine
from bot.kit.text import plural

ROTISSERIE, WINSTON, GRID = "rotisserie", "winston", "grid"
VARIANTS = (ROTISSERIE, WINSTON, GRID)
NAMES = {None: "booster draft", ROTISSERIE: "Rotisserie draft", WINSTON: "Winston draft", GRID: "Grid draft"}


def dealt(variant: str | None, packs: int, pack_size: int, offer: int | None) -> str:
    """What a draft of `variant` deals, in players' words (its lobby and its web page)."""
    if variant == WINSTON:
        return f"{plural(offer or pack_size, 'card')} dealt face down"
    if variant == GRID:
        return f"{plural(offer or 0, 'grid')} of 3×3 cards face up"
    if variant is not None:
        return f"{plural(pack_size, 'pick')} each from {plural(offer, 'card') if offer else 'the whole cube'} face up"
    return f"{plural(packs, 'pack')} of {plural(pack_size, 'card')}"
SEATS = {WINSTON: (winston_rules.SEATS, winston_rules.SEATS), GRID: (grid_rules.MIN_SEATS, grid_rules.MAX_SEATS)}
WINSTON_CARDS, GRIDS = 90, 18  # Draftmancer's defaults: 6 boosters of 15 between two; 18 grids
WINSTON_BOT_FITS = 2  # a bot takes a pile with this many cards its colours cast (or more), else passes


def rotisserie_config(seats: int, picks: int, offer: int | None) -> rotisserie_rules.RotisserieConfig:
    return rotisserie_rules.RotisserieConfig(seats, picks, offer)


def check_lobby(variant: str | None, *, seats: int, packs: int, pack_size: int, offer: int | None,
                cube_size: int, booster: str | None) -> None:
    """Raise `engine.DraftError` (its message for the organizer) when a lobby of `seats` seats at
    most cannot be drafted with these options, even by as few players as a draft allows."""
    if variant is None:
        engine.DraftConfig(seats, packs, pack_size).validate()
        engine.DraftConfig(engine.MIN_SEATS, packs, pack_size).validate(cube_size if booster is None else None)
        return
    if variant not in VARIANTS:
        raise engine.DraftError(f"There is no draft variant {variant!r}.")
    if booster is not None:
        raise engine.DraftError(f"A {NAMES[variant]} is of a cube, not of a set's boosters.")
    if variant in SEATS:
        fewest, most = SEATS[variant]
        if not fewest <= seats <= most:
            raise engine.DraftError(f"A {NAMES[variant]} is for {fewest}{f' or {most}' if most > fewest else ''} "
                                    f"players: give `seats:` {fewest}{f' or {most}' if most > fewest else ''}.")
        for count in range(fewest, seats + 1):
            _check_dealt(variant, count, offer, cube_size)
        return
    rotisserie_config(seats, pack_size, offer).validate()
    rotisserie_config(engine.MIN_SEATS, pack_size, offer).validate(cube_size)


def _check_dealt(variant: str, seats: int, offer: int | None, cube_size: int) -> None:
    if variant == WINSTON:
        winston_rules.WinstonConfig(offer or WINSTON_CARDS).validate(cube_size)
    else:
        grid_rules.GridConfig(seats, offer or GRIDS).validate(cube_size)


def start_options(variant: str, seats: int, dealt: int | None) -> dict:
    """The pod's columns of a Winston or Grid draft (`lobby.create_pod`): `dealt` cards (Winston) or
    grids (Grid), Draftmancer's defaults when unset; `pack_size` bounds a seat's picks."""
    if variant == WINSTON:
        cards = dealt or WINSTON_CARDS
        return {"variant": WINSTON, "packs": 1, "pack_size": cards, "offer": cards}
    grids = dealt or GRIDS
    return {"variant": GRID, "packs": 1, "pack_size": grids * grid_rules.GridConfig(seats).cards_per_grid,
            "offer": grids}


def deal(row: Any, cube: Sequence[Mapping], seats: int) -> Any:
    """The state a pod begins with, from its cube's entries and its seed (`engine.DraftError` when the
    cube cannot serve `seats` players)."""
    names = [entry["name"] for entry in cube]
    if row.variant == WINSTON:
        if seats != winston_rules.SEATS:
            raise engine.DraftError(f"A Winston draft is for exactly {winston_rules.SEATS} players.")
        config = winston_rules.WinstonConfig(row.offer)
        return winston_rules.WinstonState.new(config, winston_rules.deal(names, config, row.seed))
    if row.variant == GRID:
        grids = grid_rules.GridConfig(seats, row.offer)
        return grid_rules.GridState.new(grids, grid_rules.deal(names, grids, row.seed))
    if row.variant == ROTISSERIE:
        config = rotisserie_config(seats, row.pack_size, row.offer)
        return rotisserie_rules.RotisserieState.new(
            config, rotisserie_rules.deal([entry["name"] for entry in cube], config, row.seed))
    config = engine.DraftConfig(seats, row.packs, row.pack_size)
    config.validate(len(cube) if row.booster is None else None)
    return engine.DraftState.new(config, engine.deal_packs(cube, config, row.seed, row.booster))


def decode(row: Any, seats: int) -> Any:
    """The pod's stored state document as its variant's engine state."""
    if row.variant == ROTISSERIE:
        return rotisserie_rules.RotisserieState.from_dict(row.state, rotisserie_config(seats, row.pack_size, row.offer))
    if row.variant == WINSTON:
        return winston_rules.WinstonState.from_dict(row.state)
    if row.variant == GRID:
        return grid_rules.GridState.from_dict(row.state, grid_rules.GridConfig(seats, row.offer))
    return engine.DraftState.from_dict(row.state, engine.DraftConfig(seats, row.packs, row.pack_size))


def machine_choice(state: Any, seat: int, book: bots.CardBook, pool: Sequence[str], *, seed: int,
                   picks_per_seat: int, bot: bool) -> str:
    """What a bot seat (`bot`) or the pick timer chooses from the seat's head: a card of a booster or
    a Rotisserie (`bots.pick_for_seat`); in a Winston draft the timer takes the pile and a bot takes a
    pile with `WINSTON_BOT_FITS` cards its colours cast, else passes; in a Grid draft, the line that
    holds the card a bot would pick from the whole grid (the fuller line on a tie)."""
    head = state.head(seat)
    assert head is not None, "a machine chooses only for a seat on turn"

    def best(cards: Sequence[str]) -> str:
        return bots.pick_for_seat(book, list(cards), list(pool), draft_seed=seed, seat=seat,
                                  picks_per_seat=picks_per_seat, bot=bot)

    if isinstance(state, winston_rules.WinstonState):
        if not bot or winston_rules.PASS not in head.cards:
            return winston_rules.TAKE
        pile = state.piles[state.looking]
        colours = bots.deck_colours(book, list(pool)) if pool else 0
        fits = sum(1 for card in pile if not colours or not book.profile(card).colours & ~colours)
        return winston_rules.TAKE if fits >= WINSTON_BOT_FITS or len(pile) > winston_rules.PILES else winston_rules.PASS
    if isinstance(state, grid_rules.GridState):
        cards = [card for card in state.grid if card is not None]
        wanted = state.grid.index(best(cards))
        lines = [line for line in state.legal_lines() if wanted in grid_rules.LINES[line]]
        line = max(lines, key=lambda line: sum(state.grid[c] is not None for c in grid_rules.LINES[line]))
        return grid_rules.line_name(line)
    return best(head.cards)
