"""Goldfish Draft scoring events: reports (with history), rejections, standings, the end (results to the
leaderboard) and cancelling (the event and its scores deleted, nothing recorded)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.goldfish import rules
from bot.games.goldfish.models import GoldfishEvent, GoldfishPendingWriteup, GoldfishSubmission
from bot.kit import claims, event_results, hooks, outbox, tables
from bot.kit.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.kit.events import Payload
from bot.kit.server_settings import load_settings_row
from bot.kit.tables import Actor
from bot.kit.text import clean_name, escape, name_key
from bot.store.db import Database
from bot.store.types import utcnow

MAX_WRITEUP_CHARS = 100_000
MAX_EVENT_NAME = 100
# A rejection reason is DMed to the player with the event's name: escaped, 500 characters stay
# well inside a 2,000-character message.
MAX_REJECT_REASON = 500
# An uploaded write-up waits this long for its score form, and each player has at most this many
# waiting: an upload evicts only its own player's oldest.
PENDING_WRITEUP_TTL = timedelta(hours=1)
MAX_PENDING_WRITEUPS_PER_USER = 3
_MAX_ID = 2**63 - 1  # ids beyond a BIGINT can only come from a forged custom_id


@dataclass(frozen=True)
class EventRef(Payload):
    """The event whose final standings are posted (read from the database when it is sent); `ping`:
    the post that pings the winner (the event's channel's; the results channel's copy pings nobody)."""

    event_id: int
    ping: bool = False


class BadReport(UserError):
    """A report the rules refuse as typed (a number that isn't one, an empty write-up): the form is
    offered again with everything the player typed."""


# What the bot owes (outbox kinds): the final standings post, the rejected player's DM, and the
# channel's note that an event was cancelled.
KIND = "goldfish"  # its leaderboard format and web pages' key
FINAL = "goldfish_final"  # payload: EventRef
REJECTED = "goldfish_rejected"  # payload: Rejected
CANCELLED = "goldfish_cancelled"  # payload: Cancelled


@dataclass(frozen=True)
class Rejected(Payload):
    """To the player: the organizer rejected their score in the event, for `reason`."""

    event_id: int
    event_name: str
    reason: str


@dataclass(frozen=True)
class Cancelled(Payload):
    """In the event's channel: the organizer `by` cancelled the event `event_name` (`scores` counted then)."""

    event_name: str
    by: int
    scores: int


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
    play_order: str = "first"


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

    @property
    def parts(self) -> rules.Breakdown:
        return rules.Breakdown(**self.breakdown)


@dataclass(frozen=True)
class Standing:
    placement: int
    submission: SubmissionView


@dataclass(frozen=True)
class CloseResult:
    event: EventView
    standings: list[Standing]
    post_channel_id: int  # the event's channel
    results_channel_id: int | None = None  # the results channel's copy, if it has one


@dataclass(frozen=True)
class Rejection:
    submission: SubmissionView
    dm: outbox.Queued  # held: the organizer's command sends it and says whether it arrived


def _event_view(row: GoldfishEvent) -> EventView:
    return EventView(
        row.id, row.guild_id, row.channel_id, row.name, row.turns, row.method, row.pod_id, row.organizer_id,
        row.status, row.play_order,
    )


def _submission_view(row: GoldfishSubmission, method: str) -> SubmissionView:
    parts = rules.breakdown(life_lost=row.life_lost, cards_milled=row.cards_milled, poison=row.poison,
                            game_wins=row.game_wins, lost_or_drew=row.lost_or_drew, prevented=row.prevented,
                            method=method)
    return SubmissionView(
        row.id, row.event_id, row.user_id, row.life_lost, row.cards_milled, row.poison, row.game_wins,
        row.lost_or_drew, row.prevented, row.score, row.writeup, row.status, row.reject_reason, row.created_at, parts,
    )


def validate_turns(turns: int) -> int:
    """1 to 20 turns (FORMATS.md §1: configurable; 7 for the Goldfish Cube, 10 otherwise by default)."""
    try:
        return rules.validate_turns(turns)
    except rules.GoldfishInputError as error:
        raise UserError(str(error)) from None


async def create_event(
    db: Database, *, actor: Actor, channel_id: int, name: str, turns: int, method: str = "sum", play_order: str = "first",
) -> EventView:
    """A scoring event for a draft played elsewhere (paper, another site), in the actor's server
    (organizers only); the actor is its organizer."""
    if actor.guild_id is None:
        raise UserError("That command only works in a server, not in DMs.")
    guild_id, organizer_id = actor.guild_id, actor.user_id
    name = clean_name(name)
    if not 1 <= len(name) <= MAX_EVENT_NAME:
        raise UserError(f"An event name is 1–{MAX_EVENT_NAME} characters.")
    validate_turns(turns)
    try:
        rules.validate_method(method)
        rules.validate_play_order(play_order)
    except rules.GoldfishInputError as error:
        raise UserError(str(error)) from None
    clash = Conflict(f"There is already an event called **{escape(name)}** here; pick another name.")
    try:
        async with db.write() as session:
            await tables.require_organizer(session, actor, guild_id, "create events")
            if await _event_name_taken(session, guild_id, name):
                raise clash
            row = GoldfishEvent(
                guild_id=guild_id, channel_id=channel_id, name=name, name_key=name_key(name), turns=turns,
                method=method, play_order=play_order, organizer_id=organizer_id,
            )
            session.add(row)
            await session.flush()
            return _event_view(row)
    except IntegrityError:
        raise clash from None  # two events of one name raced; the unique key let one through


async def _event_name_taken(session: AsyncSession, guild_id: int, name: str) -> bool:
    query = select(GoldfishEvent.id).where(GoldfishEvent.guild_id == guild_id, GoldfishEvent.name_key == name_key(name))
    return (await session.execute(query)).first() is not None


async def _free_event_name(session: AsyncSession, guild_id: int, name: str) -> str:
    """`name`, or "name (2)", "name (3)", … if an event already has it (event names are unique)."""
    candidate, number = name[:MAX_EVENT_NAME], 1
    while await _event_name_taken(session, guild_id, candidate):
        number += 1
        suffix = f" ({number})"
        candidate = name[: MAX_EVENT_NAME - len(suffix)].rstrip() + suffix
    return candidate


async def open_event_for_pod(session: AsyncSession, pod: hooks.Finished) -> None:
    """A draft is complete (the draft's "draft.complete" hook, run in the transaction of its last
    pick, so a crash can't lose it): a Goldfish draft (one with `turns`) opens scoring with its
    players (`players`: the seats' user ids)."""
    turns = pod.options.get("turns")
    if not turns:
        return
    existing = (await session.execute(select(GoldfishEvent.id).where(GoldfishEvent.pod_id == pod.table_id))).first()
    if existing is not None:
        return
    # A paper event may already be called "Draft #7 (…)": this one is then numbered.
    name = await _free_event_name(session, pod.guild_id, clean_name(pod.title))
    session.add(GoldfishEvent(
        guild_id=pod.guild_id,
        channel_id=pod.channel_id,
        name=name,
        name_key=name_key(name),
        turns=turns,
        method=pod.options.get("method") or "sum",
        play_order=pod.options.get("play_order") or "first",
        pod_id=pod.table_id,
        players=sorted(pod.options.get("players") or ()),
        organizer_id=pod.organizer_id,
    ))
    await session.flush()


def settle_draft_options(chosen: Mapping[str, Any]) -> dict[str, Any] | None:
    """What `/draft start` keeps for a Goldfish draft (`goldfish`, `turns`, `method`, `play_order`,
    any of them makes it one), checked now: unset turns default from the cube (7 for the shipped
    Goldfish Cube, 10 for any other pool, FORMATS.md §1)."""
    if not any(chosen.get(key) not in (None, False) for key in ("goldfish", "turns", "method", "play_order")):
        return None
    cube = chosen.get("cube") or {}
    turns = chosen.get("turns")
    if turns is None:
        turns = rules.default_turns(bool(cube.get("shipped")) and name_key(cube.get("name", "")) == "goldfish")
    method, play_order = chosen.get("method") or "sum", chosen.get("play_order") or "first"
    try:
        rules.validate_method(method)
        rules.validate_play_order(play_order)
    except rules.GoldfishInputError as error:
        raise UserError(str(error)) from None
    return {"turns": validate_turns(turns), "method": method, "play_order": play_order}


# How players read the choices (`/goldfish start` and, through the hook, `/draft start`).
METHODS = {"sum": "sum of the components (standard)", "max": "largest component",
           "product": "product of the non-zero components"}
PLAY_ORDERS = {"first": "players play first (standard)", "second": "players play second",
               "flip": "each player flips for it"}
DRAFT_OPTIONS = hooks.Options(settle_draft_options, choices={"method": tuple(METHODS.items()),
                                                             "play_order": tuple(PLAY_ORDERS.items())})


# Declared in its Format (`follows`): the bot connects it to the draft's hook when it starts.
FOLLOWS_DRAFT = hooks.Follower("draft.complete", open_event_for_pod, options=DRAFT_OPTIONS)


async def _event_row(session: AsyncSession, guild_id: int, event_id: int) -> GoldfishEvent:
    row = await session.get(GoldfishEvent, event_id) if 0 < event_id <= _MAX_ID else None
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
    raise NotFound("There is no Goldfish event here: a Goldfish draft opens one, or `/goldfish start` starts one.")


async def _players(session: AsyncSession, event: GoldfishEvent) -> set[int] | None:
    """The players allowed to submit (a draft's seats), or None for an open paper event."""
    return None if event.players is None else set(event.players)


async def check_can_submit(db: Database, guild_id: int, event_id: int, user_id: int) -> EventView:
    """Refuse early (before the player types a write-up) what :func:`submit` would refuse anyway:
    an event that has ended, or a draft event the user did not play in."""
    async with db.read() as session:
        event = await _event_row(session, guild_id, event_id)
        _check_submitter(event, await _players(session, event), user_id)
        return _event_view(event)


def _check_submitter(event: GoldfishEvent, players: set[int] | None, user_id: int) -> None:
    if event.status != "open":
        raise Conflict(f"**{escape(event.name)}** has ended; scores are no longer taken.")
    if players is not None and user_id not in players:
        raise PermissionDenied(f"You did not play in **{escape(event.name)}**, so you can't report a score for it.")


def _check_writeup(text: str) -> str:
    text = text.strip()
    if not text:
        raise BadReport("The write-up can't be empty: describe your line of play, turn by turn.")
    if len(text) > MAX_WRITEUP_CHARS:
        raise BadReport(f"That write-up is {len(text):,} characters; the limit is {MAX_WRITEUP_CHARS:,}.")
    return text


async def hold_writeup(db: Database, guild_id: int, user_id: int, key: int, text: str) -> None:
    """Keep an uploaded write-up (checked now, before the form opens) until the score form `key`
    is sent. The player's oldest waiting uploads beyond the limit are dropped, and long-expired
    ones of anybody (kept a while past expiry, so their players hear why) are cleaned up."""
    text = _check_writeup(text)
    now = utcnow()
    pending = GoldfishPendingWriteup
    async with db.write() as session:
        await session.execute(delete(pending).where(pending.expires_at < now - PENDING_WRITEUP_TTL))
        session.add(pending(key=key, guild_id=guild_id, user_id=user_id, text=text, expires_at=now + PENDING_WRITEUP_TTL))
        await session.flush()
        beyond_limit = (
            select(pending.key)
            .where(pending.user_id == user_id)
            .order_by(pending.expires_at.desc(), pending.key.desc())
            .offset(MAX_PENDING_WRITEUPS_PER_USER)
        )
        await session.execute(delete(pending).where(pending.key.in_(beyond_limit.scalar_subquery())))


async def _take_writeup(session: AsyncSession, guild_id: int, user_id: int, key: int) -> str:
    """The uploaded write-up for the form `key`, deleted with the submission that uses it."""
    row = await session.get(GoldfishPendingWriteup, key) if 0 < key <= _MAX_ID else None
    minutes = int(PENDING_WRITEUP_TTL.total_seconds() // 60)
    again = "Nothing was saved: run `/goldfish report` again with the `writeup_file`."
    if row is None or row.guild_id != guild_id or row.user_id != user_id or row.form is not None:
        raise NotFound(
            f"The write-up file you attached is no longer held: uploads wait {minutes} minutes for their form, "
            f"and only your {MAX_PENDING_WRITEUPS_PER_USER} newest are kept. {again}"
        )
    if row.expires_at <= utcnow():
        raise UserError(f"The write-up file you attached expired: uploads wait {minutes} minutes for their form. {again}")
    await session.delete(row)
    return row.text


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
    writeup: str = "",
    writeup_key: int | None = None,
    lost_or_drew: bool = False,
    prevented: bool = False,
) -> SubmissionView:
    """Save a score. The write-up is `writeup`, or the uploaded one held for the form `writeup_key`."""
    if writeup_key is None:
        writeup = _check_writeup(writeup)
    async with db.write() as session:
        event = await _event_row(session, guild_id, event_id)
        _check_submitter(event, await _players(session, event), user_id)
        try:
            score = rules.score(
                life_lost=life_lost, cards_milled=cards_milled, poison=poison, game_wins=game_wins,
                lost_or_drew=lost_or_drew, prevented=prevented, method=event.method,
            )
        except rules.GoldfishInputError as error:
            raise BadReport(f"{error}.") from None
        if writeup_key is not None:
            writeup = await _take_writeup(session, guild_id, user_id, writeup_key)
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
    placements = event_results.rank_by_score({row.user_id: row.score for row in rows})
    return [Standing(p.placement, _submission_view(by_user[p.user_id], method)) for p in placements]


async def scores(db: Database, guild_id: int, event_id: int) -> tuple[EventView, list[Standing]]:
    async with db.read() as session:
        event = await _event_row(session, guild_id, event_id)
        return _event_view(event), _standings(await _current(session, event), event.method)


async def final_standings(db: Database, event_id: int) -> tuple[EventView, list[Standing]]:
    """A closed event's standings, for its final post (the outbox row carries only the id)."""
    async with db.read() as session:
        event = await session.get(GoldfishEvent, event_id)
        if event is None:
            raise NotFound("That event no longer exists.")
        return _event_view(event), _standings(await _current(session, event), event.method)


async def writeup(db: Database, guild_id: int, event_id: int, user_id: int) -> SubmissionView:
    """The player's counting submission (or, if it was rejected, the newest one)."""
    async with db.read() as session:
        event = await _event_row(session, guild_id, event_id)
        if not 0 < user_id <= _MAX_ID:
            raise NotFound("That player has no write-up here.")
        rows = await session.execute(
            select(GoldfishSubmission)
            .where(GoldfishSubmission.event_id == event.id, GoldfishSubmission.user_id == user_id)
            .order_by(GoldfishSubmission.id.desc())
        )
        history = list(rows.scalars())
        if not history:
            raise NotFound(f"<@{user_id}> has not reported a score for **{escape(event.name)}**.")
        chosen = next((row for row in history if row.status == "active"), history[0])
        return _submission_view(chosen, event.method)


async def history_count(db: Database, event_id: int, user_id: int) -> int:
    async with db.read() as session:
        query = select(func.count()).where(
            GoldfishSubmission.event_id == event_id, GoldfishSubmission.user_id == user_id
        )
        return (await session.execute(query)).scalar_one()


async def reject(
    db: Database, guild_id: int, event_id: int, player_id: int, *, reason: str, actor: Actor
) -> Rejection:
    """Reject the player's counting score; the DM telling them why is queued in the same
    transaction (held for the caller to send, so it can report whether it arrived). As in every
    claims flow (`bot.kit.claims`), an organizer who played is a player there: their own score is
    judged by another organizer."""
    reason = reason.strip()
    if not reason:
        raise UserError("Give a reason: the player is told why.")
    if len(reason) > MAX_REJECT_REASON:
        raise UserError(f"That reason is {len(reason):,} characters; the limit is {MAX_REJECT_REASON}.")
    async with db.write() as session:
        event = await _event_row(session, guild_id, event_id)
        await tables.require_manager(session, "event", event, actor)
        await claims.require_referee(session, "event", event, actor, players=(player_id,), match="this event",
                                     what="reject your own score")
        if event.status != "open":
            raise Conflict("That event has ended; its results are final.")
        current = [row for row in await _current(session, event) if row.user_id == player_id]
        if not current:
            raise NotFound(f"<@{player_id}> has no counting score to reject.")
        row = current[0]
        row.status, row.reject_reason = "rejected", reason
        payload = Rejected(event.id, event.name, reason).to_payload()
        [dm] = await outbox.queue(session, outbox.Message(REJECTED, payload, user_id=player_id, guild_id=guild_id),
                                  hold=True)
        return Rejection(_submission_view(row, event.method), dm)


async def close(db: Database, guild_id: int, event_id: int, *, actor: Actor) -> CloseResult:
    """End the event (`/goldfish end`): its standings become final and go to the leaderboards."""
    async with db.write() as session:
        event = await _event_row(session, guild_id, event_id)
        await tables.require_manager(session, "event", event, actor)
        if event.status != "open":
            raise Conflict(f"**{escape(event.name)}** has already ended.")
        rows = await _current(session, event)
        standings = _standings(rows, event.method)
        placements = event_results.rank_by_score({row.user_id: row.score for row in rows})
        await event_results.record_results(
            session, guild_id=guild_id, format=KIND, event_id=event.id, event_name=event.name, results=placements
        )
        event.status, event.closed_at = "closed", utcnow()
        # Posted after the commit; after a crash the sweeper posts them, once. The event's channel
        # hears it (the winner pinged there), and the results channel gets a copy that pings nobody.
        what = f"the final standings of **{escape(event.name)}**"
        posts = [outbox.Message(FINAL, outbox.telling(EventRef(event.id, ping=True).to_payload(), actor.user_id, what),
                                channel_id=event.channel_id, guild_id=guild_id)]
        settings = await load_settings_row(session, guild_id)
        board = settings.leaderboard_channel_id if settings else None
        if board and board != event.channel_id:
            posts.append(outbox.Message(FINAL, outbox.telling(EventRef(event.id).to_payload(), actor.user_id, what),
                                        channel_id=board, guild_id=guild_id))
        await outbox.queue(session, *posts)
        return CloseResult(_event_view(event), standings, event.channel_id, board if board != event.channel_id else None)


async def cancel(db: Database, guild_id: int, event_id: int, *, actor: Actor) -> int:
    """Cancel the event (`/goldfish cancel`): it is deleted with every score reported to it, and
    nothing goes to the leaderboard; its channel is told. An event that has ended is refused (its
    results are recorded). Returns how many players had a counting score."""
    async with db.write() as session:
        event = await _event_row(session, guild_id, event_id)
        await tables.require_manager(session, "event", event, actor)
        if event.status != "open":
            raise Conflict(f"**{escape(event.name)}** has already ended: its results are recorded, so it can't be "
                           "cancelled.")
        counting = len(await _current(session, event))
        payload = Cancelled(event.name, actor.user_id, counting).to_payload()
        await outbox.queue(session, outbox.Message(CANCELLED, payload, channel_id=event.channel_id, guild_id=guild_id))
        await session.execute(delete(GoldfishSubmission).where(GoldfishSubmission.event_id == event.id))
        await session.delete(event)
        return counting


def parse_number(label: str, text: str, *, whole: bool) -> float:
    """Turn what a player typed into a number (blank: 0), or a clear BadReport."""
    cleaned = text.strip().replace(",", ".") or "0"
    try:
        value = float(cleaned)
    except ValueError:
        raise BadReport(f"{label}: {text.strip()[:30]!r} is not a number.") from None
    if whole and not value.is_integer():
        raise BadReport(f"{label} must be a whole number (got {text.strip()[:30]}).")
    return int(value) if whole else value


# The score form's number fields: (field id, label in errors, whole number?).
COUNTS = (("life_lost", "Life lost", False), ("cards_milled", "Cards milled", True),
          ("poison", "Poison counters", True), ("game_wins", "Win / lose effects", True))


def parse_counts(fields: Mapping[str, str]) -> dict[str, float]:
    """The form's numbers (a field the form did not ask for is 0); every field that is not a number
    is named in one BadReport, so one correction fixes them all."""
    counts, problems = {}, []
    for field_id, label, whole in COUNTS:
        try:
            counts[field_id] = parse_number(label, fields.get(field_id, ""), whole=whole)
        except BadReport as error:
            problems.append(str(error))
    if problems:
        raise BadReport(" ".join(problems))
    return counts


@dataclass(frozen=True)
class HeldForm:
    """A refused score form as the player typed it: its event, options and fields."""

    event_id: int
    lost_or_drew: bool
    prevented: bool
    file_key: int | None
    fields: dict[str, str]


async def hold_form(db: Database, guild_id: int, user_id: int, key: int, form: HeldForm) -> None:
    """Keep a refused form as typed until the player opens it again (`held_form`); only their
    newest is kept, for as long as an uploaded write-up waits."""
    now = utcnow()
    pending = GoldfishPendingWriteup
    async with db.write() as session:
        mine = await session.execute(select(pending).where(pending.user_id == user_id))
        for row in mine.scalars():
            if row.form is not None or row.expires_at < now - PENDING_WRITEUP_TTL:
                await session.delete(row)
        session.add(pending(key=key, guild_id=guild_id, user_id=user_id, text="", expires_at=now + PENDING_WRITEUP_TTL,
                            form={"event": form.event_id, "lost": form.lost_or_drew, "prevented": form.prevented,
                                  "file": form.file_key, "fields": dict(form.fields)}))


async def held_form(db: Database, guild_id: int, user_id: int, key: int) -> HeldForm:
    """The player's refused form `key`, as they typed it (kept for the next form they send)."""
    async with db.read() as session:
        row = await session.get(GoldfishPendingWriteup, key) if 0 < key <= _MAX_ID else None
    if (row is None or row.form is None or row.guild_id != guild_id or row.user_id != user_id
            or row.expires_at <= utcnow()):
        raise NotFound("That form is no longer kept (only your newest, for an hour): run `/goldfish report` again.")
    form = row.form
    fields = {str(k): str(v) for k, v in (form.get("fields") or {}).items()}
    return HeldForm(int(form["event"]), bool(form["lost"]), bool(form["prevented"]), form.get("file"), fields)


async def saved_report(db: Database, guild_id: int, event_id: int, user_id: int) -> SubmissionView | None:
    """What the player reported last in the event (the counting report, else their newest), for
    `/goldfish report` to open with; None if they have not reported."""
    try:
        return await writeup(db, guild_id, event_id, user_id)
    except NotFound:
        return None


async def scoring_channels(session: AsyncSession, guild_id: int) -> list[tuple[int, str]]:
    """Open scoring events post in their channels (`/config show` checks the bot may)."""
    rows = await session.execute(
        select(GoldfishEvent.channel_id).where(GoldfishEvent.guild_id == guild_id, GoldfishEvent.status == "open")
    )
    return [(channel_id, "Goldfish scoring") for (channel_id,) in rows]
