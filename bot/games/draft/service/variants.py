"""Draft variants on the pods: how a pod of each variant is checked, dealt and decoded.

A pod's `variant` column names it: none for a booster draft (`rules.DraftState`, packs passed round
the table), "rotisserie" for a Rotisserie draft (`rotisserie_rules.RotisserieState`: the cards on
offer face up, picked in snake order; its `packs` is 1, its `pack_size` the picks each player makes,
its `offer` how many of the cube's cards are on offer). Every other use case (picks, bot seats,
timers, waits, pools, the end) is the booster draft's: a Rotisserie answers the booster engine's
queries as one pack held by the seat on turn (`RotisserieState.heads`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.games.draft import rotisserie_rules
from bot.games.draft import rules as engine

ROTISSERIE = "rotisserie"
VARIANTS = (ROTISSERIE,)
NAMES = {None: "booster draft", ROTISSERIE: "Rotisserie draft"}


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
        raise engine.DraftError("A Rotisserie draft is of a cube, not of a set's boosters.")
    rotisserie_config(seats, pack_size, offer).validate()
    rotisserie_config(engine.MIN_SEATS, pack_size, offer).validate(cube_size)


def deal(row: Any, cube: Sequence[Mapping], seats: int) -> Any:
    """The state a pod begins with, from its cube's entries and its seed (`engine.DraftError` when the
    cube cannot serve `seats` players)."""
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
    return engine.DraftState.from_dict(row.state, engine.DraftConfig(seats, row.packs, row.pack_size))
