"""Goldfish Draft scoring events: submissions (with history), rejections, standings, closing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.formats import goldfish as rules
from bot.services import leaderboard
from bot.services.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.services.guild_config import load_settings_row
from bot.store.db import Database
from bot.store.models import DraftPod, DraftSeat, GoldfishEvent, GoldfishSubmission
from bot.store.types import utcnow

MAX_WRITEUP_CHARS = 100_000
ALLOWED_TURNS = (rules.TURNS_GOLDFISH_CUBE, rules.TURNS_ORDINARY)


@dataclass(frozen=True)
class EventView:
    id: int
    guild_id: int
    channel_id: int
    name: str
    turns: int
    method: str
    pod_id: int | None
    organizer_id: int
    status: str


@dataclass(frozen=True)
class SubmissionView:
    id: int
    event_id: int
    user_id: int
    life_lost: float
    cards_milled: int
    poison: int
    game_wins: int
    lost_or_drew: bool
    prevented: bool
    score: float
    writeup: str
    status: str
    reject_reason: str | None
    created_at: datetime
    breakdown: dict[str, float]


@dataclass(frozen=True)
class Standing:
    placement: int
    submission: SubmissionView


@dataclass(frozen=True)
class CloseResult:
    event: EventView
    standings: list[Standing]
    post_channel_id: int


def _event_view(row: GoldfishEvent) -> EventView:
    return EventView(
        row.id, row.guild_id, row.channel_id, row.name, row.turns, row.method, row.pod_id, row.organizer_id, row.status
    )


def _submission_view(row: GoldfishSubmission, method: str) -> SubmissionView:
    parts = rules.breakdown(
        life_lost=row.life_lost,
        cards_milled=row.cards_milled,
        poison=row.poison,
        game_wins=row.game_wins,
        lost_or_drew=row.lost_or_drew,
        prevented=row.prevented,
        method=method,
    )
    return SubmissionView(
        row.id, row.event_id, row.user_id, row.life_lost, row.cards_milled, row.poison, row.game_wins,
        row.lost_or_drew, row.prevented, row.score, row.writeup, row.status, row.reject_reason, row.created_at, parts,
    )


def validate_turns(turns: int) -> int:
    if turns not in ALLOWED_TURNS:
        raise UserError(f"A Goldfish game is {' or '.join(map(str, ALLOWED_TURNS))} turns, not {turns}.")
    return turns


async def create_event(
    db: Database, *, guild_id: int, channel_id: int, name: str, turns: int, organizer_id: int, method: str = "sum"
) -> EventView:
    """A scoring event for a draft played elsewhere (paper, another site)."""
    name = " ".join(name.split())
    if not 1 <= len(name) <= 100:
        raise UserError("An event name is 1–100 characters.")
    validate_turns(turns)
    try:
        rules.validate_method(method)
    except rules.GoldfishInputError as error:
        raise UserError(str(error)) from None
    async with db.write() as session:
        row = GoldfishEvent(
            guild_id=guild_id, channel_id=channel_id, name=name, turns=turns, method=method, organizer_id=organizer_id
        )
        session.add(row)
        await session.flush()
        return _event_view(row)


async def open_event_for_pod(session: AsyncSession, pod: DraftPod) -> GoldfishEvent:
    """Called in the transaction that completes a Goldfish pod: scoring opens with the pod's players."""
    existing = (await session.execute(select(GoldfishEvent).where(GoldfishEvent.pod_id == pod.id))).scalar_one_or_none()
    if existing is not None:
        return existing
    row = GoldfishEvent(
        guild_id=pod.guild_id,
        channel_id=pod.channel_id,
        name=f"Draft #{pod.id} ({pod.cube_name})",
        turns=pod.turns or rules.TURNS_ORDINARY,
        pod_id=pod.id,
        organizer_id=pod.organizer_id,
    )
    session.add(row)
    await session.flush()
    return row


async def _event_row(session: AsyncSession, guild_id: int, event_id: int) -> GoldfishEvent:
    row = await session.get(GoldfishEvent, event_id)
    if row is None or row.guild_id != guild_id:
        raise NotFound(f"There is no Goldfish event #{event_id} in this server.")
    return row


async def get_event(db: Database, guild_id: int, event_id: int) -> EventView:
    async with db.read() as session:
        return _event_view(await _event_row(session, guild_id, event_id))


async def list_events(db: Database, guild_id: int, *, status: str | None = "open", limit: int = 25) -> list[EventView]:
    async with db.read() as session:
        query = select(GoldfishEvent).where(GoldfishEvent.guild_id == guild_id)
        if status is not None:
            query = query.where(GoldfishEvent.status == status)
        rows = await session.execute(query.order_by(GoldfishEvent.id.desc()).limit(limit))
        return [_event_view(row) for row in rows.scalars()]


async def default_event(db: Database, guild_id: int, channel_id: int | None, *, status: str | None = "open") -> EventView:
    """The newest event of this channel, else of the server; a clear error if there is none."""
    events = await list_events(db, guild_id, status=status, limit=50)
    for event in events:
        if event.channel_id == channel_id:
            return event
    if events:
        return events[0]
    raise NotFound("There is no Goldfish event here: a Goldfish draft opens one, or `/goldfish event` creates one.")


async def _players(session: AsyncSession, event: GoldfishEvent) -> set[int] | None:
    """The players allowed to submit (a pod's seats), or None for an open paper event."""
    if event.pod_id is None:
        return None
    rows = await session.execute(select(DraftSeat.user_id).where(DraftSeat.pod_id == event.pod_id))
    return set(rows.scalars())


async def check_can_submit(db: Database, guild_id: int, event_id: int, user_id: int) -> EventView:
    """Refuse early (before the player types a write-up) what :func:`submit` would refuse anyway:
    a closed event, or a draft event the user did not play in."""
    async with db.read() as session:
        event = await _event_row(session, guild_id, event_id)
        if event.status != "open":
            raise Conflict(f"**{event.name}** is closed; submissions are no longer taken.")
        players = await _players(session, event)
        if players is not None and user_id not in players:
            raise PermissionDenied(f"You did not play in **{event.name}**, so you can't submit a score for it.")
        return _event_view(event)


async def submit(
    db: Database,
    guild_id: int,
    event_id: int,
    user_id: int,
    *,
    life_lost: float,
    cards_milled: int,
    poison: int,
    game_wins: int,
    writeup: str,
    lost_or_drew: bool = False,
    prevented: bool = False,
) -> SubmissionView:
    writeup = writeup.strip()
    if not writeup:
        raise UserError("The write-up can't be empty: describe your line of play, turn by turn.")
    if len(writeup) > MAX_WRITEUP_CHARS:
        raise UserError(f"That write-up is {len(writeup):,} characters; the limit is {MAX_WRITEUP_CHARS:,}.")
    async with db.write() as session:
        event = await _event_row(session, guild_id, event_id)
        if event.status != "open":
            raise Conflict(f"**{event.name}** is closed; submissions are no longer taken.")
        players = await _players(session, event)
        if players is not None and user_id not in players:
            raise PermissionDenied(f"You did not play in **{event.name}**, so you can't submit a score for it.")
        try:
            score = rules.score(
                life_lost=life_lost, cards_milled=cards_milled, poison=poison, game_wins=game_wins,
                lost_or_drew=lost_or_drew, prevented=prevented, method=event.method,
            )
        except rules.GoldfishInputError as error:
            raise UserError(str(error)) from None
        previous = await session.execute(
            select(GoldfishSubmission).where(
                GoldfishSubmission.event_id == event.id,
                GoldfishSubmission.user_id == user_id,
                GoldfishSubmission.status == "active",
            )
        )
        for row in previous.scalars():
            row.status = "superseded"
        row = GoldfishSubmission(
            event_id=event.id, guild_id=guild_id, user_id=user_id, life_lost=float(life_lost),
            cards_milled=int(cards_milled), poison=int(poison), game_wins=int(game_wins),
            lost_or_drew=lost_or_drew, prevented=prevented, score=score, writeup=writeup, status="active",
            created_at=utcnow(),
        )
        session.add(row)
        await session.flush()
        return _submission_view(row, event.method)


async def _current(session: AsyncSession, event: GoldfishEvent) -> list[GoldfishSubmission]:
    rows = await session.execute(
        select(GoldfishSubmission).where(
            GoldfishSubmission.event_id == event.id, GoldfishSubmission.status == "active"
        )
    )
    return list(rows.scalars())


def _standings(rows: list[GoldfishSubmission], method: str) -> list[Standing]:
    by_user = {row.user_id: row for row in rows}
    placements = leaderboard.rank_by_score({row.user_id: row.score for row in rows})
    return [Standing(p.placement, _submission_view(by_user[p.user_id], method)) for p in placements]


async def scores(db: Database, guild_id: int, event_id: int) -> tuple[EventView, list[Standing]]:
    async with db.read() as session:
        event = await _event_row(session, guild_id, event_id)
        return _event_view(event), _standings(await _current(session, event), event.method)


async def writeup(db: Database, guild_id: int, event_id: int, user_id: int) -> SubmissionView:
    """The player's counting submission (or, if it was rejected, the newest one)."""
    async with db.read() as session:
        event = await _event_row(session, guild_id, event_id)
        rows = await session.execute(
            select(GoldfishSubmission)
            .where(GoldfishSubmission.event_id == event.id, GoldfishSubmission.user_id == user_id)
            .order_by(GoldfishSubmission.id.desc())
        )
        history = list(rows.scalars())
        if not history:
            raise NotFound(f"<@{user_id}> has not submitted a score for **{event.name}**.")
        chosen = next((row for row in history if row.status == "active"), history[0])
        return _submission_view(chosen, event.method)


async def history_count(db: Database, event_id: int, user_id: int) -> int:
    async with db.read() as session:
        query = select(func.count()).where(
            GoldfishSubmission.event_id == event_id, GoldfishSubmission.user_id == user_id
        )
        return (await session.execute(query)).scalar_one()


def _require_manager(event: GoldfishEvent, user_id: int, is_organizer: bool) -> None:
    if not is_organizer and event.organizer_id != user_id:
        raise PermissionDenied("Only the event's organizer (or a server organizer) can do that.")


async def reject(
    db: Database, guild_id: int, event_id: int, player_id: int, *, reason: str, user_id: int, is_organizer: bool
) -> SubmissionView:
    reason = reason.strip()
    if not reason:
        raise UserError("Give a reason: the player is told why.")
    async with db.write() as session:
        event = await _event_row(session, guild_id, event_id)
        _require_manager(event, user_id, is_organizer)
        if event.status != "open":
            raise Conflict("That event is closed; its results are final.")
        current = [row for row in await _current(session, event) if row.user_id == player_id]
        if not current:
            raise NotFound(f"<@{player_id}> has no counting submission to reject.")
        row = current[0]
        row.status, row.reject_reason = "rejected", reason[:1000]
        return _submission_view(row, event.method)


async def close(db: Database, guild_id: int, event_id: int, *, user_id: int, is_organizer: bool) -> CloseResult:
    """Close the event: its standings become final and go to the leaderboards."""
    async with db.write() as session:
        event = await _event_row(session, guild_id, event_id)
        _require_manager(event, user_id, is_organizer)
        if event.status != "open":
            raise Conflict(f"**{event.name}** is already closed.")
        rows = await _current(session, event)
        standings = _standings(rows, event.method)
        placements = leaderboard.rank_by_score({row.user_id: row.score for row in rows})
        await leaderboard.record_results(
            session, guild_id=guild_id, format="goldfish", event_id=event.id, event_name=event.name, results=placements
        )
        event.status, event.closed_at = "closed", utcnow()
        settings = await load_settings_row(session, guild_id)
        channel = settings.leaderboard_channel_id if settings and settings.leaderboard_channel_id else event.channel_id
        return CloseResult(_event_view(event), standings, channel)


def parse_number(label: str, text: str, *, whole: bool) -> float:
    """Turn what a player typed into a number, or a clear UserError."""
    cleaned = text.strip().replace(",", ".") or "0"
    try:
        value = float(cleaned)
    except ValueError:
        raise UserError(f"{label}: {text.strip()[:30]!r} is not a number.") from None
    if whole and not value.is_integer():
        raise UserError(f"{label} must be a whole number (got {text.strip()}).")
    return int(value) if whole else value
