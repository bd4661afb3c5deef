"""A draft pod as the services see it: loaded with its seats and documents, and shown as views.

The pod row carries two documents: `state`, the engine's (`DraftState.to_dict`, every pack and
the picks per seat), and `bookkeeping`, this package's (each seat's pick clock, and when the pick
timer's deadline is armed for). A pick reads the pod and its seats in one statement and writes the
row back with its new pick row, so a pick is bound by round trips, not by Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.formats import draft as engine
from bot.services import tables
from bot.store.models import DraftPod, DraftSeat

STATUSES = tables.Statuses(running="drafting", finished="complete")
NOUN = "draft"
BOOKKEEPING_VERSION = 1


# --- views returned to the cogs --------------------------------------------------------------


@dataclass(frozen=True)
class SeatView:
    user_id: int
    seat: int | None
    picks: int
    is_bot: bool
    dm_closed: bool
    queued: int  # packs waiting for this seat (its head included)
    has_head: bool
    waiting_since: datetime | None
    last_pick_at: datetime | None
    timeouts: int


@dataclass(frozen=True)
class PodView(tables.TableView):
    cube_name: str
    packs: int
    pack_size: int
    pick_timer_seconds: int | None
    turns: int | None
    pick_mode: str
    seats: tuple[SeatView, ...]  # join order in the lobby; seat order once drafting

    @property
    def player_ids(self) -> list[int]:
        return [seat.user_id for seat in self.seats]

    @property
    def is_full(self) -> bool:
        return len(self.seats) >= self.max_seats

    def seat_of(self, user_id: int) -> SeatView | None:
        return next((seat for seat in self.seats if seat.user_id == user_id), None)

    def round_of(self, seat: SeatView) -> int:
        return min(seat.picks // self.pack_size, self.packs - 1)

    @property
    def total_picks(self) -> int:
        return len(self.seats) * self.packs * self.pack_size


@dataclass(frozen=True)
class PackPrompt:
    """Show pack `pack_id`, as it is after `pack_pick` picks, to `user_id`."""

    pod_id: int
    guild_id: int
    channel_id: int
    user_id: int
    seat: int
    pack_id: int
    pack_pick: int
    round: int
    pick_number: int
    pack_size: int
    packs: int
    cards: tuple[str, ...]
    queued_behind: int
    pick_mode: str
    dm_closed: bool
    direction: str

    def to_payload(self) -> dict:
        return {**self.__dict__, "cards": list(self.cards)}

    @classmethod
    def from_payload(cls, payload: dict) -> PackPrompt:
        return cls(**{**payload, "cards": tuple(payload["cards"])})


# --- the loaded pod --------------------------------------------------------------------------


@dataclass
class SeatClock:
    """The part of a seat that changes with picks, kept in the pod's bookkeeping document."""

    waiting_since: datetime | None = None  # when the seat's current pack became its head
    reminded: bool = False  # reminded about that pack (pick timers)
    last_pick_at: datetime | None = None

    def to_dict(self) -> dict:
        return {"waiting_since": _iso(self.waiting_since), "reminded": self.reminded, "last_pick_at": _iso(self.last_pick_at)}

    @classmethod
    def from_dict(cls, data: dict) -> SeatClock:
        return cls(_parse_iso(data.get("waiting_since")), bool(data.get("reminded")), _parse_iso(data.get("last_pick_at")))


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _parse_iso(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


@dataclass
class Pod:
    row: DraftPod
    seats: list[DraftSeat]  # by seat number once drafting, join order in the lobby
    state: engine.DraftState | None
    clocks: list[SeatClock] = field(default_factory=list)  # by seat number, once drafting
    timer_due: datetime | None = None  # when the pick-timer deadline is armed for (None: not armed)

    def seat_row(self, user_id: int) -> DraftSeat | None:
        return next((row for row in self.seats if row.user_id == user_id), None)

    def by_seat(self, seat: int) -> DraftSeat:
        return self.seats[seat]

    @property
    def config(self) -> engine.DraftConfig:
        return engine.DraftConfig(len(self.seats), self.row.packs, self.row.pack_size)

    def save(self) -> None:
        """Write both documents back (new objects, so SQLAlchemy writes them) and count the write."""
        assert self.state is not None
        self.row.state = self.state.to_dict()
        self.row.bookkeeping = {
            "v": BOOKKEEPING_VERSION,
            "seats": [clock.to_dict() for clock in self.clocks],
            "timer_due": _iso(self.timer_due),
        }
        self.row.version += 1


def decode(loaded: tables.Loaded) -> Pod:
    row = loaded.row
    if row.state is None:
        return Pod(row, loaded.seats, None)
    config = engine.DraftConfig(len(loaded.seats), row.packs, row.pack_size)
    bookkeeping = row.bookkeeping or {}
    clocks = [SeatClock.from_dict(clock) for clock in bookkeeping.get("seats", [])]
    return Pod(row, loaded.seats, engine.DraftState.from_dict(row.state, config), clocks,
               _parse_iso(bookkeeping.get("timer_due")))


async def load_pod(session: AsyncSession, pod_id: int, *, lock: bool = False) -> Pod:
    return decode(await tables.load_rows(session, DraftPod, DraftSeat, pod_id, noun=NOUN, lock=lock))


def pod_view(pod: Pod) -> PodView:
    state = pod.state
    seats = []
    for row in pod.seats:
        queued, has_head, picks, clock = 0, False, 0, SeatClock()
        if state is not None and row.seat is not None:
            queued = len(state.queue(row.seat))
            has_head = state.head(row.seat) is not None
            picks = state.picks_by_seat[row.seat]
            clock = pod.clocks[row.seat]
        seats.append(
            SeatView(row.user_id, row.seat, picks, row.is_bot, row.dm_closed, queued, has_head,
                     clock.waiting_since, clock.last_pick_at, row.timeouts)
        )
    r = pod.row
    return PodView(
        **tables.view_columns(r), cube_name=r.cube_name, packs=r.packs, pack_size=r.pack_size,
        pick_timer_seconds=r.pick_timer_seconds, turns=r.turns, pick_mode=r.pick_mode, seats=tuple(seats),
    )


def view_of(loaded: tables.Loaded) -> PodView:
    return pod_view(decode(loaded))


def prompt_for(pod: Pod, seat: int) -> PackPrompt | None:
    """What the seat must pick from now (None: nothing, or a bot plays the seat)."""
    state = pod.state
    assert state is not None
    head = state.head(seat)
    row = pod.by_seat(seat)
    if head is None or row.is_bot:
        return None
    r = pod.row
    return PackPrompt(
        pod_id=r.id, guild_id=r.guild_id, channel_id=r.channel_id, user_id=row.user_id, seat=seat,
        pack_id=head.pack_id, pack_pick=head.picks_made, round=head.round,
        pick_number=state.picks_by_seat[seat] - head.round * r.pack_size + 1, pack_size=r.pack_size, packs=r.packs,
        cards=tuple(head.cards), queued_behind=len(state.queue(seat)) - 1, pick_mode=r.pick_mode,
        dm_closed=row.dm_closed, direction=engine.direction_name(head.round),
    )
