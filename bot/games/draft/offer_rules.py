"""What the draft variants (Rotisserie, Winston, Grid) share with the booster engine: each is seen by
it as one pack held by the seat on turn, its offer (`packs[0]`: the cards face up, the pile looked
at, the lines left), and no pack anywhere else. A variant's state defines `packs`, `on_turn()`,
`is_complete()` and `seat_count`; these answer the booster engine's queries from them."""

from __future__ import annotations

from bot.games.draft.rules import DraftError, PackState


class OfferOnTurn:
    seat_count: int  # the variant's seats (a property or a field of its state)

    def head(self, seat: int) -> PackState | None:
        """The offer, for the seat on turn; None for every other seat."""
        self._check_seat(seat)
        return self.packs[0] if seat == self.on_turn() else None  # type: ignore[attr-defined]

    def heads(self) -> list[PackState | None]:
        on_turn = self.on_turn()  # type: ignore[attr-defined]
        return [self.packs[0] if seat == on_turn else None for seat in range(self.seat_count)]  # type: ignore[attr-defined]

    def queue(self, seat: int) -> list[PackState]:
        head = self.head(seat)
        return [] if head is None else [head]

    def current_round(self, seat: int) -> int:
        """0 while the draft runs, then 1 (the booster engine's "after the last pack")."""
        self._check_seat(seat)
        return 1 if self.is_complete() else 0  # type: ignore[attr-defined]

    def waiting_on(self) -> list[int]:
        return [] if self.is_complete() else [self.on_turn()]  # type: ignore[attr-defined]

    def next_pack_from(self, seat: int) -> int | None:
        """The seat on turn, for a seat that waits for its next turn."""
        return None if self.is_complete() or self.head(seat) is not None else self.on_turn()  # type: ignore[attr-defined]

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.seat_count:
            raise DraftError(f"There is no seat {seat!r} in this draft.")
