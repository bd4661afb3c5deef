"""Draft pods: lobby, picks, timers and completion. One short transaction per action.

The engine (`bot.formats.draft`) decides what is legal; this module loads the pod's stored state,
applies the engine, writes back what changed and returns what the cog must send (`PackPrompt`s).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.formats import draft as engine
from bot.services import goldfish
from bot.services.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.store.db import Database
from bot.store.models import DraftDelivery, DraftPick, DraftPod, DraftSeat
from bot.store.types import utcnow

if TYPE_CHECKING:
    from bot.services.cubes import CubeDetail

ACTIVE = ("lobby", "drafting")
TIMEOUTS_BEFORE_BOT = 3  # in a row: a pick by the player resets the count
MACHINE_SOURCES = ("timeout", "bot")
MIN_PICK_TIMER = 60
MAX_PICK_TIMER = 7 * 24 * 3600


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
class PodView:
    id: int
    guild_id: int
    channel_id: int
    organizer_id: int
    lobby_message_id: int | None
    cube_name: str
    status: str
    max_seats: int
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


@dataclass(frozen=True)
class PickResult:
    pod_id: int
    user_id: int
    card: str
    round: int
    pick_number: int
    next_for_picker: PackPrompt | None
    others: list[PackPrompt]  # other humans whose head changed: DM them
    completed: bool
    bot_picks: int = 0
    # The pack state the pick was made from (for a bot hand-over: the seat's head at that moment),
    # so the message showing it can be updated.
    pack_id: int | None = None
    pack_pick: int | None = None


@dataclass(frozen=True)
class BeginResult:
    pod: PodView
    prompts: list[PackPrompt]
    completed: bool = False


@dataclass
class TimerActions:
    reminders: list[PackPrompt] = field(default_factory=list)
    auto_picks: list[tuple[PickResult, bool]] = field(default_factory=list)  # (result, seat now a bot)


# --- loading -----------------------------------------------------------------------------------


@dataclass
class SeatClock:
    """The per-seat part of a running draft that changes with picks (kept in the pod's state)."""

    waiting_since: datetime | None = None  # when the seat's current pack became its head
    reminded: bool = False  # reminded about that pack (pick timers)
    last_pick_at: datetime | None = None

    def to_json(self) -> dict:
        return {
            "waiting_since": _iso(self.waiting_since),
            "reminded": self.reminded,
            "last_pick_at": _iso(self.last_pick_at),
        }

    @classmethod
    def from_json(cls, data: dict) -> SeatClock:
        return cls(_parse_iso(data.get("waiting_since")), bool(data.get("reminded")), _parse_iso(data.get("last_pick_at")))


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _parse_iso(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def state_to_json(state: engine.DraftState, clocks: list[SeatClock]) -> dict:
    """A running draft as one document: what every pick reads and writes, in one row."""
    return {
        "packs": [{"cards": list(p.cards), "picks_made": p.picks_made, "arrived": p.arrived} for p in state.packs],
        "picks_by_seat": list(state.picks_by_seat),
        "seats": [clock.to_json() for clock in clocks],
    }


def state_from_json(data: dict, config: engine.DraftConfig) -> tuple[engine.DraftState, list[SeatClock]]:
    seats = config.seats
    packs = [
        engine.PackState(i, i // seats, i % seats, list(p["cards"]), p["picks_made"], p["arrived"])
        for i, p in enumerate(data["packs"])
    ]
    picks = list(data["picks_by_seat"])
    state = engine.DraftState(config=config, packs=packs, picks_by_seat=picks, sequence=sum(picks))
    return state, [SeatClock.from_json(clock) for clock in data["seats"]]


@dataclass
class _Loaded:
    pod: DraftPod
    seats: list[DraftSeat]  # by seat number once drafting, join order in the lobby
    state: engine.DraftState | None
    clocks: list[SeatClock] = field(default_factory=list)  # by seat number, once drafting

    def seat_row(self, user_id: int) -> DraftSeat | None:
        return next((row for row in self.seats if row.user_id == user_id), None)

    def by_seat(self, seat: int) -> DraftSeat:
        return self.seats[seat]

    def save_state(self) -> None:
        assert self.state is not None
        self.pod.state = state_to_json(self.state, self.clocks)  # a new object: SQLAlchemy writes it


async def _load(session: AsyncSession, pod_id: int, *, lock: bool = False) -> _Loaded:
    """A pod, its seats and its state in one statement: a pick is bound by round trips, not by Python."""
    query = (
        select(DraftPod, DraftSeat)
        .outerjoin(DraftSeat, DraftSeat.pod_id == DraftPod.id)
        .where(DraftPod.id == pod_id)
    )
    if lock:
        query = query.with_for_update(of=DraftPod)  # serialises picks of one pod on PostgreSQL
    rows = (await session.execute(query)).all()
    if not rows:
        raise NotFound(f"There is no draft #{pod_id}.")
    pod = rows[0][0]
    seat_rows = [seat for _, seat in rows if seat is not None]
    seats = sorted(seat_rows, key=lambda r: (r.seat if r.seat is not None else 1_000, r.joined_at, r.id))
    if pod.state is None:
        return _Loaded(pod, seats, None)
    state, clocks = state_from_json(pod.state, engine.DraftConfig(len(seats), pod.packs, pod.pack_size))
    return _Loaded(pod, seats, state, clocks)


def _pod_view(loaded: _Loaded) -> PodView:
    state = loaded.state
    seats = []
    for row in loaded.seats:
        queued, has_head, picks, clock = 0, False, 0, SeatClock()
        if state is not None and row.seat is not None:
            queued = len(state.queue(row.seat))
            has_head = state.head(row.seat) is not None
            picks = state.picks_by_seat[row.seat]
            clock = loaded.clocks[row.seat]
        seats.append(
            SeatView(
                user_id=row.user_id,
                seat=row.seat,
                picks=picks,
                is_bot=row.is_bot,
                dm_closed=row.dm_closed,
                queued=queued,
                has_head=has_head,
                waiting_since=clock.waiting_since,
                last_pick_at=clock.last_pick_at,
                timeouts=row.timeouts,
            )
        )
    pod = loaded.pod
    return PodView(
        id=pod.id,
        guild_id=pod.guild_id,
        channel_id=pod.channel_id,
        organizer_id=pod.organizer_id,
        lobby_message_id=pod.lobby_message_id,
        cube_name=pod.cube_name,
        status=pod.status,
        max_seats=pod.max_seats,
        packs=pod.packs,
        pack_size=pod.pack_size,
        pick_timer_seconds=pod.pick_timer_seconds,
        turns=pod.turns,
        pick_mode=pod.pick_mode,
        seats=tuple(seats),
    )


def _prompt(loaded: _Loaded, seat: int) -> PackPrompt | None:
    state = loaded.state
    assert state is not None
    head = state.head(seat)
    if head is None:
        return None
    row = loaded.by_seat(seat)
    if row.is_bot:
        return None
    pod = loaded.pod
    return PackPrompt(
        pod_id=pod.id,
        guild_id=pod.guild_id,
        channel_id=pod.channel_id,
        user_id=row.user_id,
        seat=seat,
        pack_id=head.pack_id,
        pack_pick=head.picks_made,
        round=head.round,
        pick_number=state.picks_by_seat[seat] - head.round * pod.pack_size + 1,
        pack_size=pod.pack_size,
        packs=pod.packs,
        cards=tuple(head.cards),
        queued_behind=len(state.queue(seat)) - 1,
        pick_mode=pod.pick_mode,
        dm_closed=row.dm_closed,
        direction=engine.direction_name(head.round),
    )


# --- lobby -------------------------------------------------------------------------------------


async def create_pod(
    db: Database,
    *,
    guild_id: int,
    channel_id: int,
    organizer_id: int,
    cube: CubeDetail,
    packs: int = 2,
    pack_size: int = 15,
    max_seats: int = 8,
    pick_timer_seconds: int | None = None,
    turns: int | None = None,
    pick_mode: str = "both",
    seed: int | None = None,
) -> PodView:
    config = engine.DraftConfig(max_seats, packs, pack_size)
    try:
        config.validate()
        engine.DraftConfig(engine.MIN_SEATS, packs, pack_size).validate(cube.size)
    except engine.DraftError as error:
        raise UserError(str(error)) from None
    if pick_timer_seconds is not None and not MIN_PICK_TIMER <= pick_timer_seconds <= MAX_PICK_TIMER:
        raise UserError("A pick timer must be between 1 minute and 7 days.")
    async with db.write() as session:
        busy = await session.execute(
            select(DraftPod.id).where(
                DraftPod.guild_id == guild_id, DraftPod.channel_id == channel_id, DraftPod.status.in_(ACTIVE)
            )
        )
        if (existing := busy.scalar_one_or_none()) is not None:
            raise Conflict(f"Draft #{existing} is already running in this channel; finish or cancel it first.")
        pod = DraftPod(
            guild_id=guild_id,
            channel_id=channel_id,
            organizer_id=organizer_id,
            cube_name=cube.name,
            status="lobby",
            max_seats=max_seats,
            packs=packs,
            pack_size=pack_size,
            pick_timer_seconds=pick_timer_seconds,
            turns=turns,
            pick_mode=pick_mode,
            seed=seed if seed is not None else random.SystemRandom().getrandbits(62),
            card_info=[_card_json(card) for card in cube.cards],
        )
        session.add(pod)
        await session.flush()
        return _pod_view(_Loaded(pod, [], [], None))


def _card_json(card) -> dict:
    data = {"name": card.name}
    for key in ("colour", "type_line", "mana_value", "rating", "rarity"):
        value = getattr(card, key, None)
        if value is not None:
            data[key] = value
    return data


async def set_lobby_message(db: Database, pod_id: int, message_id: int) -> None:
    async with db.write() as session:
        pod = await session.get(DraftPod, pod_id)
        if pod is not None:
            pod.lobby_message_id = message_id


async def get_pod(db: Database, pod_id: int) -> PodView:
    async with db.read() as session:
        return _pod_view(await _load(session, pod_id))


async def find_channel_pod(
    db: Database, guild_id: int, channel_id: int, *, statuses: tuple[str, ...] = ACTIVE
) -> PodView | None:
    """The newest pod of the channel in one of `statuses`."""
    async with db.read() as session:
        pod_id = (
            await session.execute(
                select(DraftPod.id)
                .where(DraftPod.guild_id == guild_id, DraftPod.channel_id == channel_id, DraftPod.status.in_(statuses))
                .order_by(DraftPod.id.desc())
                .limit(1)
            )
        ).scalar_one_or_none()
        return None if pod_id is None else _pod_view(await _load(session, pod_id))


async def find_user_pod(
    db: Database, user_id: int, *, guild_id: int | None = None, statuses: tuple[str, ...] = ("drafting",)
) -> PodView | None:
    """The user's most recent pod in `statuses` (in this guild, if given)."""
    async with db.read() as session:
        query = (
            select(DraftPod.id)
            .join(DraftSeat, DraftSeat.pod_id == DraftPod.id)
            .where(DraftSeat.user_id == user_id, DraftPod.status.in_(statuses))
        )
        if guild_id is not None:
            query = query.where(DraftPod.guild_id == guild_id)
        pod_id = (await session.execute(query.order_by(DraftPod.id.desc()).limit(1))).scalar_one_or_none()
        return None if pod_id is None else _pod_view(await _load(session, pod_id))


async def join(db: Database, pod_id: int, user_id: int) -> PodView:
    try:
        async with db.write() as session:
            loaded = await _load(session, pod_id, lock=True)
            pod = loaded.pod
            if pod.status != "lobby":
                raise Conflict("That draft has already started; you can't join it now.")
            if loaded.seat_row(user_id) is not None:
                raise Conflict("You are already in this draft.")
            if len(loaded.seats) >= pod.max_seats:
                raise Conflict(f"That draft is full ({pod.max_seats} players).")
            row = DraftSeat(pod_id=pod.id, guild_id=pod.guild_id, user_id=user_id)
            session.add(row)
            await session.flush()
            loaded.seats.append(row)
            return _pod_view(loaded)
    except IntegrityError:
        raise Conflict("You are already in this draft.") from None


async def leave(db: Database, pod_id: int, user_id: int) -> PodView:
    async with db.write() as session:
        loaded = await _load(session, pod_id, lock=True)
        if loaded.pod.status != "lobby":
            raise Conflict("The draft has started; ask the organizer to `/draft replace` you instead.")
        row = loaded.seat_row(user_id)
        if row is None:
            raise Conflict("You are not in this draft.")
        await session.delete(row)
        loaded.seats.remove(row)
        return _pod_view(loaded)


def _check_can_manage(pod: DraftPod, user_id: int, is_organizer: bool) -> None:
    if not is_organizer and pod.organizer_id != user_id:
        raise PermissionDenied("Only the draft's organizer (or a server organizer) can do that.")


async def begin(db: Database, pod_id: int, *, user_id: int, is_organizer: bool, now: datetime | None = None) -> BeginResult:
    now = now or utcnow()
    async with db.write() as session:
        loaded = await _load(session, pod_id, lock=True)
        pod = loaded.pod
        _check_can_manage(pod, user_id, is_organizer)
        if pod.status != "lobby":
            raise Conflict("That draft has already started." if pod.status == "drafting" else "That draft is over.")
        players = len(loaded.seats)
        config = engine.DraftConfig(max(players, engine.MIN_SEATS), pod.packs, pod.pack_size)
        if players < engine.MIN_SEATS:
            raise UserError(f"A draft needs at least {engine.MIN_SEATS} players; {players} joined so far.")
        cube = [entry["name"] for entry in await cube_info(session, pod.id)]
        try:
            config.validate(len(cube))
        except engine.DraftError as error:
            raise UserError(str(error)) from None
        rng = random.Random(pod.seed)
        order = list(loaded.seats)
        rng.shuffle(order)
        for seat, row in enumerate(order):
            row.seat = seat
        state = engine.DraftState.new(config, engine.generate_packs(cube, config, pod.seed))
        pod.status = "drafting"
        pod.started_at = now
        loaded = _Loaded(pod, order, state, [SeatClock(waiting_since=now) for _ in order])
        heads_before = _head_keys(state)
        _, completed = await _run_bot_seats(session, loaded, now)
        _finish_transaction(loaded, heads_before, now)
        prompts = [p for seat in range(players) if (p := _prompt(loaded, seat)) is not None]
        return BeginResult(_pod_view(loaded), prompts, completed)


async def cancel(db: Database, pod_id: int, *, user_id: int, is_organizer: bool) -> PodView:
    async with db.write() as session:
        loaded = await _load(session, pod_id, lock=True)
        _check_can_manage(loaded.pod, user_id, is_organizer)
        if loaded.pod.status not in ACTIVE:
            raise Conflict(f"That draft is already {loaded.pod.status}.")
        loaded.pod.status = "cancelled"
        loaded.pod.finished_at = utcnow()
        return _pod_view(loaded)


# --- picking -----------------------------------------------------------------------------------


async def pick(
    db: Database,
    pod_id: int,
    user_id: int,
    *,
    pack_id: int,
    pack_pick: int,
    card_index: int,
    source: str,
    now: datetime | None = None,
) -> PickResult:
    """Pick card `card_index` of pack `pack_id` as shown after `pack_pick` picks.

    A stale prompt (the pack has moved on, e.g. a double click) raises Conflict and changes nothing.
    """
    now = now or utcnow()
    async with db.write() as session:
        loaded = await _load(session, pod_id, lock=True)
        if loaded.pod.status != "drafting":
            raise Conflict("That draft is not running any more." if loaded.pod.status != "lobby" else "That draft has not started yet.")
        row = loaded.seat_row(user_id)
        if row is None or row.seat is None:
            raise PermissionDenied("You are not playing in that draft.")
        if row.is_bot:
            raise Conflict("A bot has taken over your seat; ask the organizer if you want it back.")
        return await _apply_pick(session, loaded, row.seat, pack_id, pack_pick, card_index, source, now)


def _head_keys(state: engine.DraftState) -> list[tuple[int, int] | None]:
    return [None if head is None else (head.pack_id, head.picks_made) for head in state.heads()]


async def _apply_pick(
    session: AsyncSession,
    loaded: _Loaded,
    seat: int,
    pack_id: int,
    pack_pick: int,
    card_index: int,
    source: str,
    now: datetime,
) -> PickResult:
    state = loaded.state
    assert state is not None
    if not 0 <= pack_id < len(state.packs) or state.packs[pack_id].picks_made != pack_pick:
        raise Conflict("Already picked: that pack has moved on. Your current pack is in your newest message.")
    pack = state.packs[pack_id]
    if not 0 <= card_index < len(pack.cards):
        raise UserError("That card is not in the pack.")
    heads_before = _head_keys(state)
    try:
        event = state.pick(seat, pack_id, pack.cards[card_index])
    except engine.DraftError as error:
        raise Conflict(str(error)) from None
    _record_pick(session, loaded, event, pack_pick, source, now)
    row = loaded.by_seat(seat)
    if source not in MACHINE_SOURCES and row.timeouts:
        row.timeouts = 0  # "repeated" time-outs means in a row
    bot_picks, completed = await _run_bot_seats(session, loaded, now)
    changed = _finish_transaction(loaded, heads_before, now)  # the picker's head always changes
    others = [p for s in sorted(changed - {seat}) if (p := _prompt(loaded, s)) is not None]
    return PickResult(
        pod_id=loaded.pod.id,
        user_id=row.user_id,
        card=event.card,
        round=event.round,
        pick_number=event.pick_number,
        next_for_picker=_prompt(loaded, seat),
        others=others,
        completed=completed,
        bot_picks=bot_picks,
        pack_id=pack_id,
        pack_pick=pack_pick,
    )


def _record_pick(
    session: AsyncSession, loaded: _Loaded, event: engine.PickEvent, pack_pick: int, source: str, now: datetime
) -> None:
    pod = loaded.pod
    session.add(
        DraftPick(
            pod_id=pod.id,
            guild_id=pod.guild_id,
            seat=event.seat,
            round=event.round,
            pick_number=event.pick_number,
            pack_id=event.pack_id,
            pack_pick=pack_pick,
            card=event.card,
            sequence=event.sequence,
            source=source,
            picked_at=now,
        )
    )
    loaded.clocks[event.seat].last_pick_at = now


async def _run_bot_seats(session: AsyncSession, loaded: _Loaded, now: datetime) -> tuple[int, bool]:
    """Bot seats pick at once whenever they have a pack; returns (bot picks made, draft complete)."""
    state = loaded.state
    assert state is not None
    bot_seats = [row.seat for row in loaded.seats if row.is_bot and row.seat is not None]
    colours, ratings = await _pick_hints(session, loaded.pod.id) if bot_seats else ({}, {})
    picks = 0
    progressed = bool(bot_seats)
    while progressed and not state.is_complete():
        progressed = False
        for seat in bot_seats:
            head = state.head(seat)
            if head is None:
                continue
            pool = await _pool_cards(session, loaded.pod.id, seat)
            pack_pick = head.picks_made
            event = state.pick(seat, head.pack_id, engine.auto_pick(head.cards, pool, colours=colours, ratings=ratings))
            _record_pick(session, loaded, event, pack_pick, "bot", now)
            picks += 1
            progressed = True
    completed = state.is_complete()
    if completed and loaded.pod.status == "drafting":
        loaded.pod.status = "complete"
        loaded.pod.finished_at = now
        if loaded.pod.turns:
            # Scoring opens in the same transaction as the last pick: a crash can't lose it.
            await goldfish.open_event_for_pod(session, loaded.pod)
    return picks, completed


async def cube_info(session: AsyncSession, pod_id: int) -> list[dict]:
    """The pod's cube with card metadata (a deferred column: picks don't load it)."""
    return (await session.execute(select(DraftPod.card_info).where(DraftPod.id == pod_id))).scalar_one()


async def _pick_hints(session: AsyncSession, pod_id: int) -> tuple[dict[str, str], dict[str, float]]:
    """Colours and ratings for auto_pick."""
    info = await cube_info(session, pod_id)
    return (
        {entry["name"]: entry.get("colour") or "" for entry in info},
        {entry["name"]: float(entry.get("rating") or 0) for entry in info},
    )


async def _pool_cards(session: AsyncSession, pod_id: int, seat: int) -> list[str]:
    # Autoflush writes this transaction's pending picks first, so they are included.
    query = select(DraftPick.card).where(DraftPick.pod_id == pod_id, DraftPick.seat == seat)
    return list((await session.execute(query.order_by(DraftPick.sequence))).scalars())


def _finish_transaction(loaded: _Loaded, heads_before: list, now: datetime) -> set[int]:
    """Restart the clocks of the seats whose head changed, save the state; return those seats."""
    state = loaded.state
    assert state is not None
    changed = set()
    for seat, (before, after) in enumerate(zip(heads_before, _head_keys(state), strict=True)):
        if before != after:
            changed.add(seat)
            clock = loaded.clocks[seat]
            clock.waiting_since = now if after is not None else None
            clock.reminded = False
    loaded.save_state()
    return changed


# --- deliveries (which message shows which pack state) ----------------------------------------


async def current_prompt(db: Database, pod_id: int, user_id: int) -> PackPrompt | None:
    async with db.read() as session:
        loaded = await _load(session, pod_id)
        row = loaded.seat_row(user_id)
        if row is None or row.seat is None:
            raise PermissionDenied("You are not playing in that draft.")
        if loaded.pod.status != "drafting":
            return None
        return _prompt(loaded, row.seat)


async def record_delivery(
    db: Database, prompt: PackPrompt, *, channel_id: int, message_id: int
) -> tuple[int, int] | None:
    """Remember that `message_id` shows `prompt`. A re-send replaces the old message, whose
    (channel id, message id) is returned so its buttons can be taken away."""
    replaced = None
    async with db.write() as session:
        existing = (
            await session.execute(
                select(DraftDelivery).where(
                    DraftDelivery.pod_id == prompt.pod_id,
                    DraftDelivery.pack_id == prompt.pack_id,
                    DraftDelivery.pack_pick == prompt.pack_pick,
                )
            )
        ).scalar_one_or_none()
        if existing is None:
            session.add(
                DraftDelivery(
                    pod_id=prompt.pod_id,
                    pack_id=prompt.pack_id,
                    pack_pick=prompt.pack_pick,
                    seat=prompt.seat,
                    channel_id=channel_id,
                    message_id=message_id,
                )
            )
        elif existing.message_id != message_id:
            replaced = (existing.channel_id, existing.message_id)
            existing.channel_id, existing.message_id = channel_id, message_id
        seat = (
            await session.execute(
                select(DraftSeat).where(DraftSeat.pod_id == prompt.pod_id, DraftSeat.seat == prompt.seat)
            )
        ).scalar_one()
        seat.dm_closed = False
    return replaced


async def delivery_message(db: Database, pod_id: int, pack_id: int, pack_pick: int) -> tuple[int, int] | None:
    """(channel id, message id) of the message that showed that pack state, if one did."""
    async with db.read() as session:
        row = (
            await session.execute(
                select(DraftDelivery.channel_id, DraftDelivery.message_id).where(
                    DraftDelivery.pod_id == pod_id,
                    DraftDelivery.pack_id == pack_id,
                    DraftDelivery.pack_pick == pack_pick,
                )
            )
        ).first()
    return None if row is None else (row[0], row[1])


@dataclass(frozen=True)
class DeliveryRef:
    pod_id: int
    pack_id: int
    pack_pick: int
    seat: int
    user_id: int
    cards: tuple[str, ...] | None  # the cards shown, if that pack state is still current (else None)


async def delivery_for_message(db: Database, message_id: int) -> DeliveryRef | None:
    """What a (reacted-to) message shows; `cards` is None when it is stale."""
    async with db.read() as session:
        row = (
            await session.execute(
                select(DraftDelivery, DraftSeat.user_id, DraftPod.state)
                .join(DraftSeat, (DraftSeat.pod_id == DraftDelivery.pod_id) & (DraftSeat.seat == DraftDelivery.seat))
                .join(DraftPod, DraftPod.id == DraftDelivery.pod_id)
                .where(DraftDelivery.message_id == message_id)
                .order_by(DraftDelivery.id.desc())
                .limit(1)
            )
        ).first()
    if row is None:
        return None
    delivery, user_id, state = row
    pack = state["packs"][delivery.pack_id] if state else None
    current = pack is not None and pack["picks_made"] == delivery.pack_pick
    return DeliveryRef(
        delivery.pod_id, delivery.pack_id, delivery.pack_pick, delivery.seat, user_id,
        tuple(pack["cards"]) if current else None,
    )


async def adopt_unrecorded_message(
    db: Database, user_id: int, *, channel_id: int, message_id: int
) -> DeliveryRef | None:
    """Record `message_id` as showing the user's current pack if that pack has no message on record."""
    pod = await find_user_pod(db, user_id)
    if pod is None:
        return None
    prompt = await current_prompt(db, pod.id, user_id)
    if prompt is None:
        return None
    async with db.read() as session:
        known = await session.execute(
            select(DraftDelivery.id).where(
                DraftDelivery.pod_id == pod.id,
                DraftDelivery.pack_id == prompt.pack_id,
                DraftDelivery.pack_pick == prompt.pack_pick,
            )
        )
        if known.first() is not None:
            # Recorded meanwhile (the reaction beat the sender's own record): it may be this message.
            return await delivery_for_message(db, message_id)
    try:
        await record_delivery(db, prompt, channel_id=channel_id, message_id=message_id)
    except IntegrityError:  # the sender recorded it at the same moment
        return await delivery_for_message(db, message_id)
    return DeliveryRef(pod.id, prompt.pack_id, prompt.pack_pick, prompt.seat, user_id, prompt.cards)


async def undelivered_prompts(db: Database, *, waiting_since_before: datetime | None = None) -> list[PackPrompt]:
    """Heads of running drafts that no message shows yet (e.g. the bot died before sending them).

    Only heads that reached their seat before `waiting_since_before` count, so a pack that a pick
    handler is sending right now is not sent twice.
    """
    cutoff = waiting_since_before or utcnow()
    async with db.read() as session:
        pod_ids = (await session.execute(select(DraftPod.id).where(DraftPod.status == "drafting"))).scalars().all()
        prompts: list[PackPrompt] = []
        for pod_id in pod_ids:
            loaded = await _load(session, pod_id)
            delivered = {
                (pack_id, pack_pick)
                for pack_id, pack_pick in await session.execute(
                    select(DraftDelivery.pack_id, DraftDelivery.pack_pick).where(DraftDelivery.pod_id == pod_id)
                )
            }
            for row in loaded.seats:
                if row.seat is None:
                    continue
                waiting_since = loaded.clocks[row.seat].waiting_since
                if waiting_since is not None and waiting_since > cutoff:
                    continue
                prompt = _prompt(loaded, row.seat)
                if prompt is not None and not prompt.dm_closed and (prompt.pack_id, prompt.pack_pick) not in delivered:
                    prompts.append(prompt)
        return prompts


async def mark_dm_closed(db: Database, pod_id: int, user_id: int) -> None:
    async with db.write() as session:
        row = (
            await session.execute(select(DraftSeat).where(DraftSeat.pod_id == pod_id, DraftSeat.user_id == user_id))
        ).scalar_one_or_none()
        if row is not None:
            row.dm_closed = True


# --- pools, logs, replacement, timers ---------------------------------------------------------


@dataclass(frozen=True)
class PoolView:
    pod_id: int
    user_id: int
    cards: list[str]
    card_info: dict[str, dict]


async def pool(db: Database, pod_id: int, user_id: int) -> PoolView:
    async with db.read() as session:
        pod = await session.get(DraftPod, pod_id)
        if pod is None:
            raise NotFound(f"There is no draft #{pod_id}.")
        seat = (
            await session.execute(select(DraftSeat.seat).where(DraftSeat.pod_id == pod_id, DraftSeat.user_id == user_id))
        ).scalar_one_or_none()
        if seat is None:
            raise PermissionDenied("You are not playing in that draft.")
        cards = await _pool_cards(session, pod_id, seat)
        return PoolView(pod_id, user_id, cards, {entry["name"]: entry for entry in await cube_info(session, pod_id)})


async def all_pools(db: Database, pod_id: int) -> dict[int, list[str]]:
    """user id -> picks in order."""
    async with db.read() as session:
        rows = await session.execute(
            select(DraftSeat.user_id, DraftPick.card)
            .join(DraftSeat, (DraftSeat.pod_id == DraftPick.pod_id) & (DraftSeat.seat == DraftPick.seat))
            .where(DraftPick.pod_id == pod_id)
            .order_by(DraftPick.sequence)
        )
        pools: dict[int, list[str]] = {}
        for user_id, card in rows:
            pools.setdefault(user_id, []).append(card)
        return pools


async def pick_log(db: Database, pod_id: int) -> dict:
    """The whole draft, every pick in order (for /draft log)."""
    async with db.read() as session:
        loaded = await _load(session, pod_id)
        picks = (
            await session.execute(select(DraftPick).where(DraftPick.pod_id == pod_id).order_by(DraftPick.sequence))
        ).scalars()
        users = {row.seat: row.user_id for row in loaded.seats}
        pod = loaded.pod
        return {
            "pod": pod.id,
            "guild": pod.guild_id,
            "cube": pod.cube_name,
            "seed": pod.seed,
            "packs": pod.packs,
            "pack_size": pod.pack_size,
            "status": pod.status,
            "seats": [{"seat": r.seat, "user_id": r.user_id, "bot": r.is_bot} for r in loaded.seats],
            "picks": [
                {
                    "sequence": p.sequence,
                    "seat": p.seat,
                    "user_id": users.get(p.seat),
                    "round": p.round + 1,
                    "pick": p.pick_number,
                    "pack": p.pack_id,
                    "card": p.card,
                    "source": p.source,
                    "at": p.picked_at.isoformat(),
                }
                for p in picks
            ],
        }


async def replace_with_bot(
    db: Database, pod_id: int, player_id: int, *, user_id: int, is_organizer: bool, now: datetime | None = None
) -> PickResult | None:
    """A bot takes over `player_id`'s seat and picks whatever reaches it from now on."""
    now = now or utcnow()
    async with db.write() as session:
        loaded = await _load(session, pod_id, lock=True)
        _check_can_manage(loaded.pod, user_id, is_organizer)
        if loaded.pod.status != "drafting":
            raise Conflict("Only a running draft's seats can be handed to a bot.")
        row = loaded.seat_row(player_id)
        if row is None:
            raise NotFound("That player is not in this draft.")
        if row.is_bot:
            raise Conflict("A bot already plays that seat.")
        return await _hand_to_bot(session, loaded, row, now)


async def _hand_to_bot(session: AsyncSession, loaded: _Loaded, row: DraftSeat, now: datetime) -> PickResult:
    state = loaded.state
    assert state is not None
    row.is_bot = True
    heads_before = _head_keys(state)
    head = heads_before[row.seat] if row.seat is not None else None
    bot_picks, completed = await _run_bot_seats(session, loaded, now)
    changed = _finish_transaction(loaded, heads_before, now)
    return PickResult(
        pod_id=loaded.pod.id,
        user_id=row.user_id,
        card="",
        round=0,
        pick_number=0,
        next_for_picker=None,
        others=[p for s in sorted(changed) if (p := _prompt(loaded, s)) is not None],
        completed=completed,
        bot_picks=bot_picks,
        pack_id=head[0] if head else None,
        pack_pick=head[1] if head else None,
    )


async def sweep_timers(db: Database, now: datetime | None = None) -> TimerActions:
    """Remind seats at half time; auto-pick when the timer runs out; hand repeat offenders to a bot."""
    now = now or utcnow()
    actions = TimerActions()
    async with db.read() as session:
        pod_ids = (
            await session.execute(
                select(DraftPod.id).where(DraftPod.status == "drafting", DraftPod.pick_timer_seconds.is_not(None))
            )
        ).scalars().all()
    for pod_id in pod_ids:
        async with db.write() as session:
            loaded = await _load(session, pod_id, lock=True)
            if loaded.pod.status != "drafting":
                continue
            await _sweep_pod(session, loaded, now, actions)
    return actions


async def _sweep_pod(session: AsyncSession, loaded: _Loaded, now: datetime, actions: TimerActions) -> None:
    timer = timedelta(seconds=loaded.pod.pick_timer_seconds or 0)
    state = loaded.state
    assert state is not None
    for row in list(loaded.seats):
        clock = loaded.clocks[row.seat] if row.seat is not None else None
        if row.is_bot or clock is None or clock.waiting_since is None or state.is_complete():
            continue
        head = state.head(row.seat)
        if head is None:
            continue
        waited = now - clock.waiting_since
        if waited >= timer:
            pool = await _pool_cards(session, loaded.pod.id, row.seat)
            colours, ratings = await _pick_hints(session, loaded.pod.id)
            card = engine.auto_pick(head.cards, pool, colours=colours, ratings=ratings)
            row.timeouts += 1
            result = await _apply_pick(
                session, loaded, row.seat, head.pack_id, head.picks_made, head.cards.index(card), "timeout", now
            )
            to_bot = row.timeouts >= TIMEOUTS_BEFORE_BOT
            if to_bot:
                bot_result = await _hand_to_bot(session, loaded, row, now)
                result = replace(
                    result,
                    others=_merge_prompts(result.others, bot_result.others),
                    next_for_picker=None,
                    completed=bot_result.completed,
                    bot_picks=result.bot_picks + bot_result.bot_picks,
                )
            actions.auto_picks.append((result, to_bot))
        elif waited >= timer / 2 and not clock.reminded:
            clock.reminded = True
            loaded.save_state()
            if (prompt := _prompt(loaded, row.seat)) is not None:
                actions.reminders.append(prompt)


def _merge_prompts(first: list[PackPrompt], second: list[PackPrompt]) -> list[PackPrompt]:
    merged = {p.seat: p for p in first}
    merged.update({p.seat: p for p in second})
    return [merged[s] for s in sorted(merged)]


async def count_picks(db: Database, pod_id: int) -> int:
    async with db.read() as session:
        return (await session.execute(select(func.count()).where(DraftPick.pod_id == pod_id))).scalar_one()


async def unannounced_complete_pods(db: Database) -> list[int]:
    async with db.read() as session:
        rows = await session.execute(
            select(DraftPod.id).where(DraftPod.status == "complete", DraftPod.announced.is_(False))
        )
        return list(rows.scalars())


async def claim_announcement(db: Database, pod_id: int) -> bool:
    """True for exactly one caller per completed pod (so the final DMs go out once)."""
    async with db.write() as session:
        result = await session.execute(
            update(DraftPod)
            .where(DraftPod.id == pod_id, DraftPod.status == "complete", DraftPod.announced.is_(False))
            .values(announced=True)
        )
        return result.rowcount == 1
