"""Winston draft rules (issue 33, item 3): a draft variant for two players, with hidden cards.

Pure rules: no I/O, no Discord, no SQL.

The cards (a seeded shuffle of the cube, ``cards`` of them) form a face-down deck; three face-down
piles of one card each lie beside it. The player on turn looks at the first pile that has a card:

- **take** it: every card of the pile goes to their pool, a card from the deck starts the pile
  again (none once the deck is empty), and the other player is on turn;
- **pass**: a card from the deck goes onto the pile, face down, and they look at the next pile with a
  card. Passing the last such pile, they draw the top card of the deck instead (the other player
  never learns it) and the turn passes. A card is put onto the passed pile only if the deck keeps
  one for that draw; a player with no later pile and an empty deck cannot pass.

The draft ends when the deck and the piles are empty. Hidden information: only the player on turn
sees the cards of the pile they look at (:meth:`WinstonState.view`); the other sees pile sizes.

Storage contract: :meth:`WinstonState.to_dict` is ``{"v": 1, "deck": [...], "piles": [[...] × 3],
"looking": pile, "turns": N, "pools": [[...], [...]], "actions": [[seat, action], ...]}`` (a document
without ``actions`` reads as none made); :func:`replay` rebuilds it from the dealt cards and the
ordered actions (``"take"``/``"pass"``), which the draft's log replays.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.games.draft.offer_rules import OfferOnTurn
from bot.games.draft.rules import DraftComplete, DraftError, GainEvent, NotYourPack, PackState
from bot.kit.text import plural

SCHEMA_VERSION = 1
SEATS = 2
PILES = 3
TAKE, PASS = "take", "pass"
MIN_CARDS, MAX_CARDS = 2 * PILES, 720


class NotYourTurn(NotYourPack):
    """The other player is on turn."""


class OnlyChoice(DraftError):
    """Passing is not possible: the pile is the player's only choice."""


@dataclass(frozen=True)
class WinstonConfig:
    cards: int = 90
    """Cards dealt: Draftmancer's default is 6 boosters of 15 for two players."""

    def validate(self, cube_size: int | None = None) -> None:
        if not MIN_CARDS <= self.cards <= MAX_CARDS:
            raise DraftError(f"A Winston draft deals between {MIN_CARDS} and {MAX_CARDS} cards (got {self.cards}).")
        if cube_size is not None and cube_size < self.cards:
            raise DraftError(f"The cube is too small: the draft deals {plural(self.cards, 'card')}, "
                             f"but the cube has {cube_size}.")


def deal(cube: Sequence[str], config: WinstonConfig, seed: int) -> list[str]:
    config.validate(len(cube))
    deck = list(cube)
    random.Random(seed).shuffle(deck)
    return deck[: config.cards]


@dataclass(frozen=True)
class WinstonView:
    """What one player may see now: the pile sizes, the deck's size, whose turn it is, which pile
    is looked at, and ``looking_at``: that pile's cards, only for the player on turn (else None)."""

    seat: int
    on_turn: int | None
    pile: int | None
    pile_sizes: tuple[int, ...]
    deck_size: int
    looking_at: tuple[str, ...] | None
    pool: tuple[str, ...]


@dataclass(frozen=True)
class WinstonMove:
    """What one action did: ``gained`` the cards ``seat`` gained (the pile, the blind draw, or none
    for a pass that moves on to the next pile); ``drew``: they were the deck's top card."""

    seat: int
    action: str
    pile: int
    gained: tuple[str, ...]
    drew: bool
    next_seat: int | None
    next_pile: int | None


@dataclass
class WinstonState(OfferOnTurn):
    """Mutable state of a Winston draft. See the module docstring for the storage contract."""

    deck: list[str]
    """Face down; the top card is the last."""
    piles: list[list[str]]
    looking: int | None
    turns: int = 0
    pools: list[list[str]] = field(default_factory=lambda: [[] for _ in range(SEATS)])
    actions: list[tuple[int, str]] = field(default_factory=list)
    """``(seat, action)`` in order, for the draft's log."""

    @classmethod
    def new(cls, config: WinstonConfig, dealt: Sequence[str]) -> WinstonState:
        config.validate()
        if len(dealt) != config.cards:
            raise DraftError(f"Expected {plural(config.cards, 'card')}, got {len(dealt)}.")
        deck = list(dealt)
        piles = [[deck.pop()] for _ in range(PILES)]
        return cls(deck=deck, piles=piles, looking=0)

    def to_dict(self) -> dict:
        return {"v": SCHEMA_VERSION, "deck": list(self.deck), "piles": [list(p) for p in self.piles],
                "looking": self.looking, "turns": self.turns, "pools": [list(p) for p in self.pools],
                "actions": [[seat, action] for seat, action in self.actions]}

    @classmethod
    def from_dict(cls, data: Mapping) -> WinstonState:
        if data.get("v") != SCHEMA_VERSION:
            raise ValueError(f"unknown winston document version {data.get('v')!r}")
        return cls(deck=list(data["deck"]), piles=[list(p) for p in data["piles"]], looking=data["looking"],
                   turns=data["turns"], pools=[list(p) for p in data["pools"]],
                   actions=[(seat, action) for seat, action in data.get("actions", [])])

    # ----------------------------------------------------------------- queries

    def is_complete(self) -> bool:
        return self.looking is None

    seat_count = SEATS

    def on_turn(self) -> int | None:
        return None if self.is_complete() else self.turns % SEATS

    def can_pass(self) -> bool:
        return not self.is_complete() and (bool(self.deck) or self._next_pile(self.looking) is not None)

    def view(self, seat: int) -> WinstonView:
        """What ``seat`` may be shown: the cards of the pile looked at only if it is on turn."""
        self._check_seat(seat)
        mine = seat == self.on_turn()
        return WinstonView(
            seat=seat, on_turn=self.on_turn(), pile=self.looking,
            pile_sizes=tuple(len(p) for p in self.piles), deck_size=len(self.deck),
            looking_at=tuple(self.piles[self.looking]) if mine and self.looking is not None else None,
            pool=tuple(self.pools[seat]),
        )

    # ----------------------------------------------------------------- the mutations

    def act(self, seat: int, action: str) -> WinstonMove:
        """``seat`` takes or passes the pile it looks at. Raises (changing nothing)
        :class:`DraftComplete`, :class:`NotYourTurn`, :class:`OnlyChoice`."""
        if self.is_complete():
            raise DraftComplete("The draft is over; there is nothing left to pick.")
        self._check_seat(seat)
        if seat != self.on_turn():
            raise NotYourTurn("It is not your turn; the other player is looking at a pile.")
        if action == TAKE:
            move = self._take(seat)
        elif action == PASS:
            move = self._pass(seat)
        else:
            raise DraftError("Take the pile or pass it.")
        self.actions.append((seat, action))
        return move

    def _take(self, seat: int) -> WinstonMove:
        pile = self.looking
        assert pile is not None
        gained = tuple(self.piles[pile])
        self.pools[seat].extend(gained)
        self.piles[pile] = [self.deck.pop()] if self.deck else []
        return self._end_turn(seat, TAKE, pile, gained, drew=False)

    def _pass(self, seat: int) -> WinstonMove:
        pile = self.looking
        assert pile is not None
        following = self._next_pile(pile)
        if following is None and not self.deck:
            raise OnlyChoice("This pile is your only choice: the deck is empty and no pile follows it.")
        if self.deck and (following is not None or len(self.deck) > 1):
            self.piles[pile].append(self.deck.pop())
        if following is not None:
            self.looking = following
            return WinstonMove(seat, PASS, pile, (), False, seat, following)
        drawn = self.deck.pop()
        self.pools[seat].append(drawn)
        return self._end_turn(seat, PASS, pile, (drawn,), drew=True)

    def _end_turn(self, seat: int, action: str, pile: int, gained: tuple[str, ...], *, drew: bool) -> WinstonMove:
        self.turns += 1
        self.looking = self._next_pile(-1)
        return WinstonMove(seat, action, pile, gained, drew, self.on_turn(), self.looking)

    def mid_turn(self) -> bool:
        """Has the player on turn passed a pile already this turn (a turn starts at the first pile with a card)?"""
        return not self.is_complete() and self.looking != self._next_pile(-1)

    # ----------------------------------------------------------------- as the pods read a draft

    # A pod's use cases (picks, bot seats, timers, waits, views) read a draft through the booster
    # engine's queries (`rules.DraftState`). A Winston draft answers them as one pack, id 0, held by
    # the player on turn, whose "cards" are the choices it has ("take", and "pass" when it can), and
    # whose picks made are the actions so far; a pick is an action, gaining any number of cards.

    def choices(self) -> list[str]:
        if self.is_complete():
            return []
        return [TAKE, PASS] if self.can_pass() else [TAKE]

    @property
    def packs(self) -> list[PackState]:
        return [PackState(0, 0, 0, self.choices(), len(self.actions), len(self.actions))]

    @property
    def picks_by_seat(self) -> list[int]:
        return [len(pool) for pool in self.pools]

    def picks_remaining(self) -> int:
        return len(self.deck) + sum(len(pile) for pile in self.piles)

    def total_picks(self) -> int:
        return sum(self.picks_by_seat) + self.picks_remaining()

    def pick(self, seat: int, pack_id: int, card: str) -> GainEvent:
        """:meth:`act` as the booster engine's pick from pack 0: ``card`` is the action."""
        if pack_id != 0:
            raise NotYourPack("That pack does not exist in this draft.")
        before, seat_before = sum(self.picks_by_seat), len(self.pools[seat]) if seat in range(SEATS) else 0
        move = self.act(seat, card)
        following = move.next_seat
        return GainEvent(
            seat=seat, pack_id=0, round=0, pick_number=seat_before + 1, card=", ".join(move.gained),
            sequence=before + len(move.gained), passed_to=following,
            newly_available=[] if following is None else [(following, 0)],
            gained=move.gained, first_sequence=before, first_pick=seat_before,
        )

    def copy(self) -> WinstonState:
        return WinstonState.from_dict(self.to_dict())

    def _next_pile(self, after: int) -> int | None:
        return next((i for i in range(after + 1, PILES) if self.piles[i]), None)



def replay(config: WinstonConfig, dealt: Sequence[str], actions: Iterable[tuple[int, str]]) -> WinstonState:
    """Rebuild a Winston draft from its dealt cards and the ordered ``(seat, action)`` actions."""
    state = WinstonState.new(config, dealt)
    for seat, action in actions:
        state.act(seat, action)
    return state
