"""Rotisserie draft rules (issue 33, item 2): a draft variant on the booster draft's package.

Pure rules: no I/O, no Discord, no SQL.

The cards on offer (the whole cube, or ``cards`` of them chosen by a seeded shuffle) lie face up
for everyone. Seats take turns one card at a time in **snake order**: seat 0, 1, …, n-1, then
n-1, …, 1, 0, then 0, 1, … again, until every seat has made ``picks`` picks (its pool). Turn ``t``
(0-based) belongs to :func:`seat_of_turn`; the seat on turn is the only one that may pick.

Storage contract: :meth:`RotisserieState.to_dict` is ``{"v": 1, "cards": [...],
"picks": [[seat, card], ...]}``: the cards still on offer in their dealt order and the picks in
order (the pool of a seat and the turn are derived from them); the config comes from the pod.
:func:`replay` rebuilds the state from the dealt cards and the ordered picks.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.games.draft.offer_rules import OfferOnTurn
from bot.games.draft.rules import (
    MAX_SEATS,
    MIN_SEATS,
    CardNotInPack,
    DraftComplete,
    DraftError,
    NotYourPack,
    PackState,
    PickEvent,
)
from bot.kit.text import plural

SCHEMA_VERSION = 1
MAX_PICKS = 90
"""Picks per seat at most (a 45-card pool is usual; 90 leaves room for a whole cube between two)."""


class NotYourTurn(NotYourPack):
    """Another seat is on turn."""


@dataclass(frozen=True)
class RotisserieConfig:
    """``seats`` players, ``picks`` cards each, from ``cards`` cards on offer (None: the whole cube)."""

    seats: int
    picks: int
    cards: int | None = None

    @property
    def total_picks(self) -> int:
        return self.seats * self.picks

    def validate(self, cube_size: int | None = None) -> None:
        """Raise :class:`DraftError` with a user-facing message if the config is unusable."""
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise DraftError(f"A draft needs between {MIN_SEATS} and {MAX_SEATS} players (got {self.seats}).")
        if not 1 <= self.picks <= MAX_PICKS:
            raise DraftError(f"Picks per player must be between 1 and {MAX_PICKS} (got {self.picks}).")
        if self.cards is not None and self.cards < self.total_picks:
            raise DraftError(
                f"{plural(self.cards, 'card')} on offer are too few: {plural(self.seats, 'player')} × "
                f"{plural(self.picks, 'pick')} need {plural(self.total_picks, 'card')}."
            )
        if cube_size is not None and cube_size < (self.cards or self.total_picks):
            raise DraftError(
                f"The cube is too small: the draft needs {plural(self.cards or self.total_picks, 'card')}, "
                f"but the cube has {cube_size}."
            )


def seat_of_turn(turn: int, seats: int) -> int:
    """The seat whose turn ``turn`` (0-based) is, in snake order: 0..n-1, n-1..0, 0..n-1, …"""
    if turn < 0:
        raise ValueError(f"turn must be >= 0, got {turn}")
    lap, position = divmod(turn, seats)
    return position if lap % 2 == 0 else seats - 1 - position


def deal(cube: Sequence[str], config: RotisserieConfig, seed: int) -> list[str]:
    """The cards on offer: a seeded shuffle of the cube, cut to ``config.cards`` where it is set."""
    config.validate(len(cube))
    deck = list(cube)
    random.Random(seed).shuffle(deck)
    return deck[: config.cards] if config.cards is not None else deck


@dataclass(frozen=True)
class RotisseriePick:
    """What one pick did: ``seat`` took ``card`` (the ``sequence``-th pick of the draft, 1-based; its
    ``pick_number``-th, 1-based); ``next_seat`` is on turn now (None: the draft is complete)."""

    seat: int
    card: str
    sequence: int
    pick_number: int
    next_seat: int | None


@dataclass
class RotisserieState(OfferOnTurn):
    """Mutable state of a Rotisserie draft. See the module docstring for the storage contract."""

    config: RotisserieConfig
    cards: list[str]
    """Cards still on offer, in their dealt order."""
    picks: list[tuple[int, str]] = field(default_factory=list)
    """``(seat, card)`` in pick order."""

    @classmethod
    def new(cls, config: RotisserieConfig, dealt: Sequence[str]) -> RotisserieState:
        config.validate()
        if len(dealt) < config.total_picks:
            raise DraftError(f"{plural(len(dealt), 'card')} cannot give {plural(config.total_picks, 'pick')}.")
        return cls(config=config, cards=list(dealt))

    def to_dict(self) -> dict:
        return {"v": SCHEMA_VERSION, "cards": list(self.cards), "picks": [[seat, card] for seat, card in self.picks]}

    @classmethod
    def from_dict(cls, data: Mapping, config: RotisserieConfig) -> RotisserieState:
        if data.get("v") != SCHEMA_VERSION:
            raise ValueError(f"unknown rotisserie document version {data.get('v')!r}")
        return cls(config=config, cards=list(data["cards"]), picks=[(seat, card) for seat, card in data["picks"]])

    # ----------------------------------------------------------------- queries

    @property
    def sequence(self) -> int:
        return len(self.picks)

    def is_complete(self) -> bool:
        return self.sequence >= self.config.total_picks

    @property
    def seat_count(self) -> int:
        return self.config.seats

    def on_turn(self) -> int | None:
        """The seat that picks next; None once the draft is complete."""
        return None if self.is_complete() else seat_of_turn(self.sequence, self.config.seats)

    def after(self, seat: int) -> int | None:
        """Turns before ``seat`` picks again (0: it is on turn), for "you pick in N turns"; None
        when it has made all its picks."""
        self._check_seat(seat)
        for ahead in range(self.config.total_picks - self.sequence):
            if seat_of_turn(self.sequence + ahead, self.config.seats) == seat:
                return ahead
        return None

    def pool(self, seat: int) -> list[str]:
        self._check_seat(seat)
        return [card for who, card in self.picks if who == seat]

    @property
    def picks_by_seat(self) -> list[int]:
        counts = [0] * self.config.seats
        for seat, _card in self.picks:
            counts[seat] += 1
        return counts

    # ----------------------------------------------------------------- the one mutation

    def take(self, seat: int, card: str) -> RotisseriePick:
        """Take ``card`` for ``seat``. Raises (changing nothing) :class:`DraftComplete`,
        :class:`NotYourTurn` when another seat is on turn, :class:`CardNotInPack` when the card is
        not (or no longer) on offer."""
        if self.is_complete():
            raise DraftComplete("The draft is over; there is nothing left to pick.")
        self._check_seat(seat)
        if seat != self.on_turn():
            ahead = self.after(seat)
            if ahead is None:
                raise NotYourTurn("You have made all your picks; waiting for the others to finish.")
            raise NotYourTurn(f"It is not your turn; you pick in {plural(ahead, 'turn')}.")
        try:
            self.cards.remove(card)
        except ValueError:
            raise CardNotInPack(f"{card} is not on offer (any more).") from None
        self.picks.append((seat, card))
        return RotisseriePick(
            seat=seat, card=card, sequence=self.sequence, pick_number=self.picks_by_seat[seat],
            next_seat=self.on_turn(),
        )

    # ----------------------------------------------------------------- as the pods read a draft

    # A pod's use cases (picks, bot seats, timers, waits, views) read a draft through the booster
    # engine's queries (`rules.DraftState`). A Rotisserie answers them as one pack, id 0 of round 0,
    # holding every card on offer and held by the seat on turn: its pick rows are pack 0's picks.

    @property
    def packs(self) -> list[PackState]:
        return [PackState(0, 0, 0, self.cards, self.sequence, self.sequence)]

    def current_round(self, seat: int) -> int:
        """0 until the seat has made all its picks, then 1 (the booster engine's "after the last pack")."""
        self._check_seat(seat)
        return 0 if self.picks_by_seat[seat] < self.config.picks else 1

    def next_pack_from(self, seat: int) -> int | None:
        """The seat on turn, for a seat that waits for its next turn."""
        if self.head(seat) is not None or self.after(seat) is None:
            return None
        return self.on_turn()

    def total_picks(self) -> int:
        return self.config.total_picks

    def picks_remaining(self) -> int:
        return self.config.total_picks - self.sequence

    def pick(self, seat: int, pack_id: int, card: str) -> PickEvent:
        """:meth:`take` as the booster engine's pick from pack 0 (any other pack is none of this draft)."""
        if pack_id != 0:
            raise NotYourPack("That pack does not exist in this draft.")
        taken = self.take(seat, card)
        following = taken.next_seat
        return PickEvent(
            seat=seat, pack_id=0, round=0, pick_number=taken.pick_number, card=card, sequence=taken.sequence,
            passed_to=following, newly_available=[] if following is None else [(following, 0)],
        )

    def copy(self) -> RotisserieState:
        return RotisserieState(self.config, list(self.cards), list(self.picks))



def replay(config: RotisserieConfig, dealt: Sequence[str], picks: Iterable[tuple[int, str]]) -> RotisserieState:
    """Rebuild a Rotisserie draft from its dealt cards and the ordered ``(seat, card)`` picks."""
    state = RotisserieState.new(config, dealt)
    for seat, card in picks:
        state.take(seat, card)
    return state
