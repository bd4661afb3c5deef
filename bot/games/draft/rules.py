"""Booster-draft rules engine (Goldfish Draft and any other drafted format).

Pure rules: no I/O, no Discord, no SQL. The service layer loads the stored state, calls
:meth:`DraftState.pick`, persists the mutated fields and sends the DMs named in the returned
:class:`PickEvent`.

Seats and directions
--------------------
Seats are numbered ``0 .. n-1`` around the table. **LEFT** means seat ``i`` passes to seat
``(i + 1) % n``; **RIGHT** means seat ``i`` passes to seat ``(i - 1) % n``. Round 0 (pack 1)
passes left, round 1 (pack 2) right, round 2 left again, and so on (:func:`pass_direction`).

Packs
-----
:func:`generate_packs` shuffles a copy of the cube with ``random.Random(seed)`` and deals
consecutive slices of ``pack_size`` cards. Pack id ``p`` belongs to round ``p // seats`` and
was opened by (has origin) seat ``p % seats``; i.e. ``pack_id = round * seats + origin``. The
caller stores the seed, so the packs can always be regenerated. A set draft's packs are boosters
collated from the set instead (:func:`deal_packs`, :mod:`bot.cards.boosters`), seeded the same way.

A pack from which ``k`` picks have already been made is held by seat
``(origin + direction * k) % seats`` (:meth:`PackState.holder`).

Asynchronous queue
------------------
Players pick at their own pace. Every non-empty, *opened* pack a seat holds sits in that
seat's queue, ordered by ``(round, arrived, pack_id)`` where ``arrived`` is the global pick
sequence number at which the pack reached the seat (0 for the round-0 packs everybody opens
at the start). A seat's current round is ``picks made // pack_size``; each seat makes exactly
``pack_size`` picks per round. The seat's **head** -- the only pack it may pick from -- is the
first queued pack whose round equals its current round. Packs of a later round that were
already passed to it wait behind; they become pickable once the seat has made all of its
picks of the earlier round (by then no earlier-round pack can reach it any more).

A seat's own pack for round ``r > 0`` is *opened* when that seat makes its last round
``r - 1`` pick; its ``arrived`` is set to that pick's sequence number. Until then it is not
in any queue. The draft is complete when every pack is empty; every card then lies in
exactly one seat's pool (the pools are the picks, which the caller stores).

Storage contract
----------------
:class:`DraftState` holds only plain data and can be rebuilt by the caller with the ordinary
dataclass constructor from stored fields::

    DraftState(
        config=DraftConfig(seats, packs, pack_size),
        packs=[PackState(pack_id, round, origin, cards_remaining, picks_made, arrived), ...],
        picks_by_seat=[...],   # picks made so far per seat
        sequence=...,          # picks made so far in the whole draft
    )

As a document (:meth:`DraftState.to_dict` / :meth:`DraftState.from_dict`, schema version
:data:`SCHEMA_VERSION`) it is ``{"v": 1, "packs": [{"cards", "picks_made", "arrived"}, …],
"picks_by_seat": […]}``; the config comes from the pod's columns.

Nothing else is needed: whether a later-round own pack is opened is derived from
``picks_by_seat`` (``picks_by_seat[origin] >= round * pack_size``), and holders are derived
from ``origin``, ``round`` and ``picks_made``. Equivalently, :func:`replay` rebuilds the state
from the packs and the ordered list of stored picks.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.cards import boosters
from bot.kit import events
from bot.kit.text import plural

__all__ = [
    "MIN_SEATS",
    "MAX_SEATS",
    "MIN_PACKS",
    "MAX_PACKS",
    "MIN_PACK_SIZE",
    "MAX_PACK_SIZE",
    "LEFT",
    "RIGHT",
    "DraftError",
    "cards_dealt",
    "NotYourPack",
    "CardNotInPack",
    "PackNotAtHead",
    "DraftComplete",
    "DraftConfig",
    "pass_direction",
    "direction_name",
    "generate_packs",
    "deal_packs",
    "set_sheet",
    "PackState",
    "PickEvent",
    "DraftState",
    "replay",
    "SCHEMA_VERSION",
]

MIN_SEATS, MAX_SEATS = 2, 16
MIN_PACKS, MAX_PACKS = 1, 5
MIN_PACK_SIZE, MAX_PACK_SIZE = 1, 30

SCHEMA_VERSION = 1
"""Version of :meth:`DraftState.to_dict`'s document."""

LEFT = 1
"""Seat ``i`` passes to seat ``(i + 1) % n``."""
RIGHT = -1
"""Seat ``i`` passes to seat ``(i - 1) % n``."""


# --------------------------------------------------------------------------- errors


class DraftError(ValueError):
    """A rule violation; ``str(error)`` is a message fit to show the user."""


class NotYourPack(DraftError):
    """The pack is not in the seat's hands (held by someone else, empty, or unknown)."""


class CardNotInPack(DraftError):
    """The card is not (or no longer) in the pack."""


class PackNotAtHead(DraftError):
    """The seat holds the pack, but another pack must be picked from first."""


class DraftComplete(DraftError):
    """The draft is over; no more picks."""


# --------------------------------------------------------------------------- config


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class DraftConfig:
    """Shape of a draft pod: ``seats`` players, ``packs`` rounds of ``pack_size``-card packs."""

    seats: int
    packs: int = 2
    pack_size: int = 15

    @property
    def cards_needed(self) -> int:
        """Cards the cube must supply: seats × packs × pack_size."""
        return self.seats * self.packs * self.pack_size

    @property
    def total_packs(self) -> int:
        return self.seats * self.packs

    @property
    def picks_per_seat(self) -> int:
        return self.packs * self.pack_size

    def validate(self, cube_size: int | None = None) -> None:
        """Raise :class:`DraftError` with a user-facing message if the config is unusable.

        If ``cube_size`` is given, also check that the cube has enough cards.
        """
        if not _is_int(self.seats) or not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise DraftError(
                f"A draft needs between {MIN_SEATS} and {MAX_SEATS} players (got {self.seats!r})."
            )
        if not _is_int(self.packs) or not MIN_PACKS <= self.packs <= MAX_PACKS:
            raise DraftError(
                f"Packs per player must be between {MIN_PACKS} and {MAX_PACKS} (got {self.packs!r})."
            )
        if not _is_int(self.pack_size) or not MIN_PACK_SIZE <= self.pack_size <= MAX_PACK_SIZE:
            raise DraftError(
                f"Pack size must be between {MIN_PACK_SIZE} and {MAX_PACK_SIZE} cards "
                f"(got {self.pack_size!r})."
            )
        if cube_size is not None and cube_size < self.cards_needed:
            raise DraftError(
                f"The cube is too small: {plural(self.seats, 'player')} × {plural(self.packs, 'pack')} × "
                f"{plural(self.pack_size, 'card')} need {plural(self.cards_needed, 'card')}, but the cube has "
                f"{cube_size}."
            )


# --------------------------------------------------------------------------- directions


def pass_direction(round_index: int) -> int:
    """+1 (:data:`LEFT`) for rounds 0, 2, 4, …; -1 (:data:`RIGHT`) for rounds 1, 3, …"""
    if round_index < 0:
        raise ValueError(f"round_index must be >= 0, got {round_index}")
    return LEFT if round_index % 2 == 0 else RIGHT


def direction_name(round_index: int) -> str:
    """``"left"`` or ``"right"`` for the given round (see :func:`pass_direction`)."""
    return "left" if pass_direction(round_index) == LEFT else "right"


# --------------------------------------------------------------------------- packs


def generate_packs(cube: Sequence[str], config: DraftConfig, seed: int) -> list[list[str]]:
    """Deal ``config.total_packs`` packs from a seeded shuffle of ``cube``; index = pack id.

    Pack id ``p`` is round ``p // seats``, origin seat ``p % seats``. Deterministic for a given
    cube order, config and seed. Unused cube cards are simply not dealt.
    """
    config.validate(len(cube))
    deck = _shuffled(cube, seed)
    size = config.pack_size
    return [deck[i * size : (i + 1) * size] for i in range(config.total_packs)]


def cards_dealt(cube: Sequence[str], config: DraftConfig, seed: int) -> list[str]:
    """Every card :func:`generate_packs` deals to a table of ``config.seats`` seats **or fewer**
    (a smaller table deals a prefix of the same shuffle), so a lobby knows which cards its draft
    can show before its players are counted. A cube too small for the table gives all its cards."""
    return _shuffled(cube, seed)[: config.total_packs * config.pack_size]


def set_sheet(cube: Sequence[Mapping]) -> boosters.SetSheet:
    """A set draft's cube (its entries carry a ``rarity``, ``basic`` for the land slot's cards) by rarity."""
    return boosters.SetSheet.from_cards((entry["name"], entry.get("rarity")) for entry in cube)


def deal_packs(cube: Sequence[Mapping], config: DraftConfig, seed: int, booster: str | None = None) -> list[list[str]]:
    """A pod's packs (index = pack id) from its cube's entries: a seeded shuffle of a cube
    (:func:`generate_packs`), or a set's boosters where ``booster`` is set (a too small set is a
    :class:`DraftError`)."""
    if booster is None:
        return generate_packs([entry["name"] for entry in cube], config, seed)
    config.validate()
    try:
        return boosters.collate(set_sheet(cube), config.pack_size, config.total_packs, seed)
    except boosters.BoosterError as error:
        raise DraftError(str(error)) from None


def _shuffled(cube: Sequence[str], seed: int) -> list[str]:
    deck = list(cube)
    random.Random(seed).shuffle(deck)
    return deck


@dataclass
class PackState:
    """One pack: where it came from, what is left, and how far it has travelled."""

    pack_id: int
    round: int
    origin: int
    cards: list[str]
    """Remaining cards, in their original (dealt) order."""
    picks_made: int = 0
    """Picks already taken from this pack."""
    arrived: int = 0
    """Pick sequence number when it reached its current holder (0 = at the start)."""

    def holder(self, seats: int) -> int:
        """Seat that holds the pack now: ``(origin + direction * picks_made) % seats``."""
        return (self.origin + pass_direction(self.round) * self.picks_made) % seats

    def is_empty(self) -> bool:
        return not self.cards


class DraftEvent(events.Event, family="draft"):
    """The draft's events, stored as "draft.<ClassName>" (`bot.kit.events`): a pick, and a variant's
    action that gains several cards (a subclass of a pick, so the family's root is this one)."""


@dataclass
class PickEvent(DraftEvent):
    """What one pick did; the caller persists it and DMs ``newly_available``. Named by the
    kit's codec (``bot.kit.events``) ``draft.PickEvent``."""

    seat: int
    pack_id: int
    round: int
    pick_number: int
    """1-based index of this seat's pick within the round (1 .. pack_size)."""
    card: str
    sequence: int
    """Global 1-based pick sequence number."""
    passed_to: int | None
    """Seat receiving the rest of the pack; None if the pack is now empty."""
    newly_available: list[tuple[int, int]] = field(default_factory=list)
    """``(seat, pack_id)`` for each seat whose head changed by this pick and who now has a pack
    to pick from (the picker itself included if it has a next head). Picker first."""


@dataclass
class GainEvent(PickEvent):
    """A draft variant's action (a Winston pile taken or passed, a Grid line taken) as a pick: it gains
    the picker ``gained`` (any number of cards; none for a Winston pass that moves on to the next pile).
    Each card gained is a pick row, numbered on from ``first_sequence`` (the cards gained in the draft
    before it) and ``first_pick`` (the picker's)."""

    gained: tuple[str, ...] = ()
    first_sequence: int = 0
    first_pick: int = 0


# --------------------------------------------------------------------------- state


def _queue_key(pack: PackState) -> tuple[int, int, int]:
    return (pack.round, pack.arrived, pack.pack_id)


@dataclass
class DraftState:
    """Mutable state of a draft pod. See the module docstring for the storage contract."""

    config: DraftConfig
    packs: list[PackState]
    """Index = pack id."""
    picks_by_seat: list[int]
    """Picks made so far, per seat."""
    sequence: int = 0
    """Picks made so far in the whole draft (= sequence number of the last pick)."""

    # ----------------------------------------------------------------- document

    def to_dict(self) -> dict:
        return {
            "v": SCHEMA_VERSION,
            "packs": [{"cards": list(p.cards), "picks_made": p.picks_made, "arrived": p.arrived} for p in self.packs],
            "picks_by_seat": list(self.picks_by_seat),
        }

    @classmethod
    def from_dict(cls, data: Mapping, config: DraftConfig) -> DraftState:
        if data.get("v") != SCHEMA_VERSION:
            raise ValueError(f"unknown draft document version {data.get('v')!r}")
        seats = config.seats
        packs = [
            PackState(i, i // seats, i % seats, list(p["cards"]), p["picks_made"], p["arrived"])
            for i, p in enumerate(data["packs"])
        ]
        picks = list(data["picks_by_seat"])
        return cls(config=config, packs=packs, picks_by_seat=picks, sequence=sum(picks))

    @staticmethod
    def pack_in_dict(data: Mapping, pack_id: int) -> tuple[int, tuple[str, ...]] | None:
        """(picks made, remaining cards) of one pack, read from a document without decoding it all."""
        packs = data.get("packs") or []
        if not 0 <= pack_id < len(packs):
            return None
        return packs[pack_id]["picks_made"], tuple(packs[pack_id]["cards"])

    # ----------------------------------------------------------------- construction

    @classmethod
    def new(cls, config: DraftConfig, packs: list[list[str]]) -> DraftState:
        """Start a draft from dealt packs (index = pack id, as from :func:`generate_packs`).

        Every round-0 pack is opened by its origin (``arrived`` 0). Later rounds' packs are held
        by their origin but stay out of the queue until that seat finishes the previous round.
        """
        config.validate()
        if len(packs) != config.total_packs:
            raise DraftError(
                f"Expected {config.total_packs} packs ({config.seats} players × {config.packs}), "
                f"got {len(packs)}."
            )
        for pack_id, cards in enumerate(packs):
            if len(cards) != config.pack_size:
                raise DraftError(
                    f"Pack {pack_id} has {len(cards)} cards; every pack must have {config.pack_size}."
                )
        n = config.seats
        return cls(
            config=config,
            packs=[
                PackState(pack_id=i, round=i // n, origin=i % n, cards=list(cards))
                for i, cards in enumerate(packs)
            ],
            picks_by_seat=[0] * n,
            sequence=0,
        )

    def copy(self) -> DraftState:
        """Independent deep copy (the config is frozen and shared)."""
        return DraftState(
            config=self.config,
            packs=[
                PackState(p.pack_id, p.round, p.origin, list(p.cards), p.picks_made, p.arrived)
                for p in self.packs
            ],
            picks_by_seat=list(self.picks_by_seat),
            sequence=self.sequence,
        )

    # ----------------------------------------------------------------- queries

    def current_round(self, seat: int) -> int:
        """``picks made // pack_size``; equals ``config.packs`` once the seat has made all picks."""
        self._check_seat(seat)
        return self.picks_by_seat[seat] // self.config.pack_size

    def _is_open(self, pack: PackState) -> bool:
        """Non-empty and in someone's queue (round 0, already passed, or origin done with the prior round)."""
        if not pack.cards:
            return False
        if pack.round == 0 or pack.picks_made > 0:
            return True
        return self.picks_by_seat[pack.origin] >= pack.round * self.config.pack_size

    def queue(self, seat: int) -> list[PackState]:
        """Opened, non-empty packs held by ``seat``, ordered by (round, arrived, pack_id)."""
        self._check_seat(seat)
        n = self.config.seats
        held = [p for p in self.packs if self._is_open(p) and p.holder(n) == seat]
        held.sort(key=_queue_key)
        return held

    def head(self, seat: int) -> PackState | None:
        """The pack ``seat`` may pick from now, or None if it must wait (or is done)."""
        self._check_seat(seat)
        rnd = self.picks_by_seat[seat] // self.config.pack_size
        n = self.config.seats
        best: PackState | None = None
        for p in self.packs:
            if p.round == rnd and self._is_open(p) and p.holder(n) == seat:
                if best is None or _queue_key(p) < _queue_key(best):
                    best = p
        return best

    def heads(self) -> list[PackState | None]:
        """:meth:`head` for every seat, in one pass over the packs."""
        n = self.config.seats
        size = self.config.pack_size
        best: list[PackState | None] = [None] * n
        for p in self.packs:
            if not self._is_open(p):
                continue
            h = p.holder(n)
            if self.picks_by_seat[h] // size != p.round:
                continue
            cur = best[h]
            if cur is None or _queue_key(p) < _queue_key(cur):
                best[h] = p
        return best

    def waiting_on(self) -> list[int]:
        """Seats that have a head (the draft is waiting for their pick), ascending."""
        return [seat for seat, h in enumerate(self.heads()) if h is not None]

    def next_pack_from(self, seat: int) -> int | None:
        """The seat ``seat`` waits on: the nearest upstream seat (in the seat's current round's
        direction) holding a pack of that round that still has a card left when it reaches
        ``seat``. Every pack ``seat`` gets next passes through that seat's hands, so nothing
        reaches ``seat`` before that seat picks from a pack of the round. None if ``seat`` has a
        pack to pick from now, or has made all its picks."""
        self._check_seat(seat)
        rnd = self.current_round(seat)
        if rnd >= self.config.packs or self.head(seat) is not None:
            return None
        n, direction = self.config.seats, pass_direction(rnd)
        nearest: int | None = None
        for p in self.packs:
            if p.round != rnd or not p.cards:
                continue
            distance = ((seat - p.holder(n)) * direction) % n  # passes before it reaches `seat`
            if 0 < distance < len(p.cards) and (nearest is None or distance < nearest):
                nearest = distance
        return None if nearest is None else (seat - direction * nearest) % n

    def is_complete(self) -> bool:
        """True once every pack is empty."""
        return all(not p.cards for p in self.packs)

    def total_picks(self) -> int:
        """Picks the whole draft takes: seats × packs × pack_size (= cards dealt)."""
        return self.config.cards_needed

    def picks_remaining(self) -> int:
        return self.total_picks() - self.sequence

    # ----------------------------------------------------------------- the one mutation

    def pick(self, seat: int, pack_id: int, card: str) -> PickEvent:
        """Take ``card`` from pack ``pack_id`` for ``seat``; mutate the state and describe it.

        Raises (without changing anything) :class:`DraftComplete` if the draft is over,
        :class:`NotYourPack` if the seat does not hold the pack (or it is empty / unknown),
        :class:`PackNotAtHead` if the seat holds it but must pick from another pack first,
        :class:`CardNotInPack` if the card is not in the pack.
        """
        cfg = self.config
        n = cfg.seats
        size = cfg.pack_size
        if self.is_complete():
            raise DraftComplete("The draft is over; there is nothing left to pick.")
        self._check_seat(seat)
        if self.picks_by_seat[seat] >= cfg.picks_per_seat:
            raise NotYourPack("You have made all your picks; waiting for the others to finish.")
        if not _is_int(pack_id) or not 0 <= pack_id < len(self.packs):
            raise NotYourPack("That pack does not exist in this draft.")
        pack = self.packs[pack_id]
        if not pack.cards:
            raise NotYourPack("That pack is empty.")
        if pack.holder(n) != seat:
            raise NotYourPack("That pack is not in front of you right now.")
        head = self.head(seat)
        if head is None or head.pack_id != pack_id:
            if head is None:
                raise PackNotAtHead(
                    "You can't pick from that pack yet; wait until the other packs of "
                    f"pack round {self.current_round(seat) + 1} reach you."
                )
            raise PackNotAtHead(f"You can't pick from that pack yet; pick from pack {head.pack_id} first.")
        try:
            index = pack.cards.index(card)
        except ValueError:
            raise CardNotInPack(f"{card} is not in that pack (any more).") from None

        # Who had a head before: only the picker and the receiver can change.
        rnd = pack.round
        direction = pass_direction(rnd)
        receiver = (seat + direction) % n
        receiver_before = self.head(receiver)

        # Apply.
        self.sequence += 1
        seq = self.sequence
        pick_number = self.picks_by_seat[seat] - rnd * size + 1
        del pack.cards[index]
        pack.picks_made += 1
        self.picks_by_seat[seat] += 1
        passed_to: int | None = None
        if pack.cards:
            passed_to = receiver
            pack.arrived = seq
        if self.picks_by_seat[seat] % size == 0 and self.picks_by_seat[seat] < cfg.picks_per_seat:
            # Last pick of this round: the seat opens its own next-round pack.
            own = self.packs[(rnd + 1) * n + seat]
            own.arrived = seq

        newly: list[tuple[int, int]] = []
        picker_after = self.head(seat)
        if picker_after is not None:
            newly.append((seat, picker_after.pack_id))
        if receiver != seat:
            receiver_after = self.head(receiver)
            if receiver_after is not None and (
                receiver_before is None or receiver_before.pack_id != receiver_after.pack_id
            ):
                newly.append((receiver, receiver_after.pack_id))

        return PickEvent(
            seat=seat,
            pack_id=pack_id,
            round=rnd,
            pick_number=pick_number,
            card=card,
            sequence=seq,
            passed_to=passed_to,
            newly_available=newly,
        )

    def _check_seat(self, seat: int) -> None:
        if not _is_int(seat) or not 0 <= seat < self.config.seats:
            raise DraftError(f"There is no seat {seat!r} in this draft.")


def replay(config: DraftConfig, packs: list[list[str]], picks: Iterable[tuple[int, int, str]]) -> DraftState:
    """Rebuild a draft from its dealt packs and the ordered ``(seat, pack_id, card)`` picks.

    Raises the same :class:`DraftError` subclasses as :meth:`DraftState.pick` on an illegal pick.
    """
    state = DraftState.new(config, packs)
    for seat, pack_id, card in picks:
        state.pick(seat, pack_id, card)
    return state
