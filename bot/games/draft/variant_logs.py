"""Draft logs of the draft variants (Rotisserie, Grid, Winston) as Draftmancer writes them. Pure: no
I/O, no Discord, no SQL.

Draftmancer's ``DraftLog`` (``src/DraftLog.ts``, version 2.1) covers all three: its ``GenericDraftPick``
has a ``GridDraftPick`` (``{"pick": [cells], "booster": [9 card ids or null]}``) and a
``WinstonDraftPick`` (``{"pickedPile": n, "piles": [[ids] × 3]}``, or ``{"randomCard": id, "piles":
…}`` for a card drawn from the deck), and its Rotisserie draft logs each pick as ``{"pick": [0],
"booster": [the card's id]}`` with no boosters (``src/Session.ts``: ``rotisserieDraftPick``,
``gridDraftPick``, ``winstonTakePile``/``winstonSkipPile``). The log's ``type`` is "Rotisserie
Draft", "Grid Draft" or "Winston Draft". Each exporter replays the picks with the variant's rules,
so a record that does not add up is refused, and refuses a draft that is not over: no log shows a
hidden card, or a player's picks, while the draft goes on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bot.games.draft import grid_rules, rotisserie_rules, winston_rules
from bot.games.draft.logs import LogSeat, draftmancer_card, draftmancer_document
from bot.games.draft.rules import DraftError
from bot.kit.text import plural


@dataclass(frozen=True)
class VariantRecord:
    """What any finished variant draft names in its log (the picks are the exporter's)."""

    draft_id: int
    title: str
    seats: Sequence[LogSeat]
    finished_at: datetime
    cards: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    started_at: datetime | None = None

    @property
    def began(self) -> datetime:
        return self.started_at or self.finished_at

    def carddata(self, names: Sequence[str]) -> dict[str, dict]:
        return {name: draftmancer_card(name, self.cards.get(name, {})) for name in dict.fromkeys(names)}


def _over(complete: bool) -> None:
    if not complete:
        raise ValueError("The draft is not over: its log shows every pick only once all are made.")


def _replayed(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except DraftError as error:
        raise ValueError(f"The record's picks do not replay: {error}") from None


def rotisserie_log(record: VariantRecord, config: rotisserie_rules.RotisserieConfig, dealt: Sequence[str],
                   picks: Sequence[tuple[int, str]]) -> dict[str, Any]:
    """A complete Rotisserie draft's Draftmancer log: every card on offer in ``carddata``, no boosters."""
    state = _replayed(rotisserie_rules.replay, config, dealt, picks)
    _over(state.is_complete())
    carddata = record.carddata(dealt)
    ids = {name: card["id"] for name, card in carddata.items()}
    users = [([{"pick": [0], "booster": [ids[card]]} for card in state.pool(seat)], [ids[c] for c in state.pool(seat)])
             for seat in range(config.seats)]
    return draftmancer_document("Rotisserie Draft", record, boosters=[], carddata=carddata, users=users)


def grid_log(record: VariantRecord, config: grid_rules.GridConfig, grids: Sequence[Sequence[str]],
             picks: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """A complete Grid draft's Draftmancer log: the grids as dealt, and each pick as the cells taken
    from the grid as it was shown (taken cells null)."""
    carddata = record.carddata([card for grid in grids for card in grid])
    ids = {name: card["id"] for name, card in carddata.items()}
    state = _replayed(grid_rules.replay, config, grids, [])
    users: list[tuple[list, list]] = [([], []) for _ in range(config.seats)]
    for seat, line in picks:
        shown = [None if card is None else ids[card] for card in state.grid]
        event = _replayed(state.take, seat, line)
        cells = [cell for cell in grid_rules.LINES[line] if shown[cell] is not None]
        users[seat][0].append({"pick": cells, "burn": [], "booster": shown})
        users[seat][1].extend(ids[card] for card in event.cards)
    _over(state.is_complete())
    return draftmancer_document("Grid Draft", record, boosters=[[ids[c] for c in grid] for grid in grids],
                               carddata=carddata, users=users)


def grid_lines(config: grid_rules.GridConfig, grids: Sequence[Sequence[str]],
               cell_picks: Sequence[Sequence[Any]]) -> list[tuple[int, int]]:
    """The ``(seat, line)`` picks of a Grid draft from its stored ``[seat, [cells]]`` picks."""
    state = _replayed(grid_rules.replay, config, grids, [])
    lines = []
    for seat, cells in cell_picks:
        line = state.line_of(cells)
        _replayed(state.take, seat, line)
        lines.append((seat, line))
    return lines


def winston_log(record: VariantRecord, config: winston_rules.WinstonConfig, dealt: Sequence[str],
                actions: Sequence[tuple[int, str]]) -> dict[str, Any]:
    """A complete Winston draft's Draftmancer log: the deck as dealt as its one booster, and each turn
    as the piles at its start with the pile taken, or the card drawn from the deck."""
    carddata = record.carddata(dealt)
    ids = {name: card["id"] for name, card in carddata.items()}
    state = _replayed(winston_rules.replay, config, dealt, [])
    users: list[tuple[list, list]] = [([], []) for _ in range(winston_rules.SEATS)]
    piles_at_start = [[ids[c] for c in pile] for pile in state.piles]
    for seat, action in actions:
        move = _replayed(state.act, seat, action)
        if not move.gained:
            continue
        entry = ({"randomCard": ids[move.gained[0]]} if move.drew else {"pickedPile": move.pile}) | {
            "piles": piles_at_start}
        users[seat][0].append(entry)
        users[seat][1].extend(ids[card] for card in move.gained)
        piles_at_start = [[ids[c] for c in pile] for pile in state.piles]
    _over(state.is_complete())
    return draftmancer_document("Winston Draft", record, boosters=[[ids[c] for c in dealt]], carddata=carddata,
                               users=users)


def rotisserie_summary(record: VariantRecord, config: rotisserie_rules.RotisserieConfig, dealt: Sequence[str],
                       picks: Sequence[tuple[int, str]]) -> str:
    """A complete Rotisserie draft in plain text: the table, every pick in order, each player's pool."""
    state = _replayed(rotisserie_rules.replay, config, dealt, picks)
    _over(state.is_complete())
    names = [" ".join(seat.name.split()) + (" (bot)" if seat.bot else "") for seat in record.seats]
    lines = [
        f"Rotisserie draft #{record.draft_id} · {' '.join(record.title.split())}",
        f"{plural(config.seats, 'player')} · {plural(config.picks, 'pick')} each from {plural(len(dealt), 'card')} "
        f"face up · finished {record.finished_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC",
        "Picks in turn, seat 1 to the last and back:",
        *(f"  {number}. {names[seat]}: {card}" for number, (seat, card) in enumerate(picks, 1)),
    ]
    for seat, name in enumerate(names):
        pool = state.pool(seat)
        lines += ["", f"{name} (seat {seat + 1}), pool ({plural(len(pool), 'card')}): {', '.join(pool)}"]
    return "\n".join(lines) + "\n"


def pools_summary(record: VariantRecord, kind: str, picks: Sequence[tuple[int, str]]) -> str:
    """A complete Winston or Grid draft in plain text: the table and each player's pool, in the order taken."""
    names = [" ".join(seat.name.split()) + (" (bot)" if seat.bot else "") for seat in record.seats]
    lines = [f"{kind.capitalize()} #{record.draft_id} · {' '.join(record.title.split())}",
             f"{plural(len(names), 'player')} · {plural(len(picks), 'card')} taken · "
             f"finished {record.finished_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"]
    for seat, name in enumerate(names):
        pool = [card for who, card in picks if who == seat]
        lines += ["", f"{name} (seat {seat + 1}), pool ({plural(len(pool), 'card')}): {', '.join(pool)}"]
    return "\n".join(lines) + "\n"
