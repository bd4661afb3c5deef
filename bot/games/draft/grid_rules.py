"""Grid draft rules (issue 33, item 4): a draft variant for two or three players.

Pure rules: no I/O, no Discord, no SQL.

Each grid is dealt face up as a 3×3 square (cells 0..8, row by row). Its players take turns: each
takes a **row or a column** of what is left of it (the cards still in that line; a line with no
card left cannot be taken), once per grid. The first player rotates: grid ``g`` starts with seat
``g % seats``, then the next seats in order. Two players: a grid is 9 cards and the 3 or 4 left
after both took are set aside. Three players (as Draftmancer deals them): a grid is 12 cards, the
3 extra refill the cells the first player emptied, then the other two take their lines. A line is
numbered as Draftmancer numbers it: 0-2 the columns, 3-5 the rows.

Storage contract: :meth:`GridState.to_dict` is ``{"v": 1, "grid": [9 cells, null where taken],
"extra": [...], "picks": [[seat, [cells]], ...], "dealt": [[cards] per grid]}``; the config comes from
the pod; :meth:`GridState.from_dict` replays the picks on the grids as dealt (the document's, or the
ones given), and :func:`replay` rebuilds the state from the grids and the picks' lines.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.games.draft.offer_rules import OfferOnTurn
from bot.games.draft.rules import DraftComplete, DraftError, GainEvent, NotYourPack, PackState
from bot.kit.text import plural

SCHEMA_VERSION = 1
MIN_SEATS, MAX_SEATS = 2, 3
MIN_GRIDS, MAX_GRIDS = 1, 30
LINES = tuple(tuple(3 * i + column for i in range(3)) for column in range(3)) + tuple(
    tuple(3 * row + i for i in range(3)) for row in range(3)
)
"""Cells of line 0..5: columns 0-2, then rows 0-2."""


class NotYourTurn(NotYourPack):
    """Another seat is on turn."""


class EmptyLine(DraftError):
    """The row or column has no card left (or is no line)."""


def line_name(line: int) -> str:
    """"column 2", "row 1" (1-based, as players count)."""
    return f"column {line + 1}" if line < 3 else f"row {line - 2}"


@dataclass(frozen=True)
class GridConfig:
    seats: int
    grids: int = 18

    @property
    def cards_per_grid(self) -> int:
        return 9 if self.seats == 2 else 12

    @property
    def cards_needed(self) -> int:
        return self.grids * self.cards_per_grid

    def validate(self, cube_size: int | None = None) -> None:
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise DraftError(f"A Grid draft is for {MIN_SEATS} or {MAX_SEATS} players (got {self.seats}).")
        if not MIN_GRIDS <= self.grids <= MAX_GRIDS:
            raise DraftError(f"A Grid draft deals between {MIN_GRIDS} and {MAX_GRIDS} grids (got {self.grids}).")
        if cube_size is not None and cube_size < self.cards_needed:
            raise DraftError(
                f"The cube is too small: {plural(self.grids, 'grid')} of {self.cards_per_grid} need "
                f"{plural(self.cards_needed, 'card')}, but the cube has {cube_size}."
            )


def deal(cube: Sequence[str], config: GridConfig, seed: int) -> list[list[str]]:
    """The grids (each ``cards_per_grid`` cards: 9 cells, then the refill) from a seeded shuffle."""
    config.validate(len(cube))
    deck = list(cube)
    random.Random(seed).shuffle(deck)
    size = config.cards_per_grid
    return [deck[i * size : (i + 1) * size] for i in range(config.grids)]


def seat_of_turn(turn: int, seats: int) -> int:
    """Turn ``turn`` (0-based; ``seats`` turns a grid) is grid ``turn // seats``'s, whose first seat is
    ``grid % seats``."""
    grid, position = divmod(turn, seats)
    return (grid + position) % seats


@dataclass(frozen=True)
class GridPick:
    """``seat`` took ``cards`` (line ``line`` of grid ``grid``, 0-based); ``next_seat`` is on turn
    now (None: the draft is complete); ``new_grid``: that turn is on a newly dealt grid."""

    seat: int
    grid: int
    line: int
    cards: tuple[str, ...]
    sequence: int
    next_seat: int | None
    new_grid: bool


@dataclass
class GridState(OfferOnTurn):
    """Mutable state of a Grid draft. See the module docstring for the storage contract."""

    config: GridConfig
    dealt: list[list[str]]
    grid: list[str | None]
    extra: list[str]
    picks: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    """``(seat, cells taken)`` in order."""
    pools: list[list[str]] = field(default_factory=list)

    @classmethod
    def new(cls, config: GridConfig, dealt: Sequence[Sequence[str]]) -> GridState:
        config.validate()
        if len(dealt) != config.grids or any(len(g) != config.cards_per_grid for g in dealt):
            raise DraftError(f"Expected {plural(config.grids, 'grid')} of {config.cards_per_grid} cards.")
        grids = [list(g) for g in dealt]
        return cls(config, grids, list(grids[0][:9]), list(grids[0][9:]), [], [[] for _ in range(config.seats)])

    def to_dict(self) -> dict:
        return {"v": SCHEMA_VERSION, "grid": list(self.grid), "extra": list(self.extra),
                "picks": [[seat, list(cells)] for seat, cells in self.picks], "dealt": [list(g) for g in self.dealt]}

    @classmethod
    def from_dict(cls, data: Mapping, config: GridConfig, dealt: Sequence[Sequence[str]] | None = None) -> GridState:
        """The stored state; the pools are derived again from the grids as dealt and the picks."""
        if data.get("v") != SCHEMA_VERSION:
            raise ValueError(f"unknown grid document version {data.get('v')!r}")
        state = replay(config, data["dealt"] if dealt is None else dealt, [])
        for seat, cells in data["picks"]:
            state._apply_cells(seat, tuple(cells))
        if state.grid != list(data["grid"]) or state.extra != list(data["extra"]):
            raise ValueError("the grid document does not match its picks")
        return state

    # ----------------------------------------------------------------- queries

    @property
    def sequence(self) -> int:
        return len(self.picks)

    @property
    def current_grid(self) -> int:
        return self.sequence // self.config.seats

    def is_complete(self) -> bool:
        return self.current_grid >= self.config.grids

    @property
    def seat_count(self) -> int:
        return self.config.seats

    def on_turn(self) -> int | None:
        return None if self.is_complete() else seat_of_turn(self.sequence, self.config.seats)

    def legal_lines(self) -> list[int]:
        """The lines that still hold a card (none once the draft is complete)."""
        if self.is_complete():
            return []
        return [line for line, cells in enumerate(LINES) if any(self.grid[c] is not None for c in cells)]

    # ----------------------------------------------------------------- the one mutation

    def take(self, seat: int, line: int) -> GridPick:
        """``seat`` takes line ``line`` (0-2 columns, 3-5 rows). Raises (changing nothing)
        :class:`DraftComplete`, :class:`NotYourTurn`, :class:`EmptyLine`."""
        if self.is_complete():
            raise DraftComplete("The draft is over; there is nothing left to pick.")
        if seat != self.on_turn():
            raise NotYourTurn("It is not your turn.")
        if not isinstance(line, int) or isinstance(line, bool) or not 0 <= line < len(LINES):
            raise EmptyLine("Take a row or a column of the grid.")
        cells = tuple(c for c in LINES[line] if self.grid[c] is not None)
        if not cells:
            raise EmptyLine(f"{line_name(line).capitalize()} has no card left; take another row or column.")
        grid = self.current_grid
        cards = self._apply_cells(seat, cells)
        return GridPick(seat, grid, line, cards, self.sequence, self.on_turn(),
                        new_grid=not self.is_complete() and self.current_grid != grid)

    def line_of(self, cells: Sequence[int]) -> int:
        """The line a stored pick took (the first whose cards left were exactly ``cells``), for the log."""
        return next(line for line, cells_of_line in enumerate(LINES)
                    if set(cells) <= set(cells_of_line) and len(cells) == sum(self.grid[c] is not None for c in cells_of_line))

    # ----------------------------------------------------------------- as the pods read a draft

    # A pod's use cases read a draft through the booster engine's queries (`rules.DraftState`). A Grid
    # draft answers them as one pack, id 0, held by the seat on turn, whose "cards" are the lines it
    # may take ("column 1" … "row 3", `line_name`) and whose picks made are the lines taken so far.

    @property
    def packs(self) -> list[PackState]:
        return [PackState(0, 0, 0, [line_name(line) for line in self.legal_lines()], self.sequence, self.sequence)]

    @property
    def picks_by_seat(self) -> list[int]:
        return [len(pool) for pool in self.pools]

    def total_picks(self) -> int:
        return self.config.cards_needed

    def picks_remaining(self) -> int:
        return self.config.cards_needed - sum(self.picks_by_seat)

    def pick(self, seat: int, pack_id: int, card: str) -> GainEvent:
        """:meth:`take` as the booster engine's pick from pack 0: ``card`` names the line."""
        if pack_id != 0:
            raise NotYourPack("That pack does not exist in this draft.")
        names = [line_name(line) for line in range(len(LINES))]
        if card not in names:
            raise EmptyLine("Take a row or a column of the grid.")
        before = sum(self.picks_by_seat)
        seat_before = len(self.pools[seat]) if 0 <= seat < self.config.seats else 0
        taken = self.take(seat, names.index(card))
        following = taken.next_seat
        return GainEvent(
            seat=seat, pack_id=0, round=0, pick_number=seat_before + 1, card=", ".join(taken.cards),
            sequence=before + len(taken.cards), passed_to=following,
            newly_available=[] if following is None else [(following, 0)],
            gained=taken.cards, first_sequence=before, first_pick=seat_before,
        )

    def copy(self) -> GridState:
        return GridState(self.config, self.dealt, list(self.grid), list(self.extra), list(self.picks),
                         [list(pool) for pool in self.pools])

    def _apply_cells(self, seat: int, cells: tuple[int, ...]) -> tuple[str, ...]:
        cards = tuple(self.grid[c] for c in cells)
        if not cells or any(card is None for card in cards):
            raise ValueError("the stored pick takes no card or an empty cell")
        for c in cells:
            self.grid[c] = None
        self.pools[seat].extend(cards)  # type: ignore[arg-type]
        self.picks.append((seat, cells))
        if self.sequence % self.config.seats == 1 and self.extra:
            self._refill()
        if self.sequence % self.config.seats == 0 and not self.is_complete():
            dealt = self.dealt[self.current_grid]
            self.grid, self.extra = list(dealt[:9]), list(dealt[9:])
        return cards  # type: ignore[return-value]

    def _refill(self) -> None:
        """Three players: the grid's 3 extra cards fill the cells its first player emptied."""
        for c in range(9):
            if self.grid[c] is None and self.extra:
                self.grid[c] = self.extra.pop(0)

    def set_aside(self, grid: int) -> list[str]:
        """Cards of a finished grid (``grid`` below :attr:`current_grid`) that nobody took."""
        if not 0 <= grid < self.current_grid:
            raise ValueError(f"grid {grid} is not over")
        seats = self.config.seats
        turns = self.picks[grid * seats : (grid + 1) * seats]
        taken = [card for seat, cells in turns for card in self._cards_of(grid, seat, cells)]
        left = list(self.dealt[grid])
        for card in taken:
            left.remove(card)
        return left

    def _cards_of(self, grid: int, seat: int, cells: tuple[int, ...]) -> list[str]:
        """The cards a stored pick of ``grid`` took, read back from the seat's pool."""
        start = sum(len(c) for s, c in self.picks[: self._index_of(grid, seat)] if s == seat)
        return self.pools[seat][start : start + len(cells)]

    def _index_of(self, grid: int, seat: int) -> int:
        seats = self.config.seats
        return next(i for i in range(grid * seats, (grid + 1) * seats) if self.picks[i][0] == seat)


def replay(config: GridConfig, dealt: Sequence[Sequence[str]], picks: Iterable[tuple[int, int]]) -> GridState:
    """Rebuild a Grid draft from its grids as dealt and the ordered ``(seat, line)`` picks."""
    state = GridState.new(config, dealt)
    for seat, line in picks:
        state.take(seat, line)
    return state
