"""Picks: by a player (button, select, reaction, /draft pick), by the timer, or by a bot seat.

One pick is one write transaction: load the pod and its seats (locked), let the engine apply the
pick, let bot seats pick what reached them, restart the clocks of seats whose pack changed, queue
their pack DMs in the outbox, move the pick-timer deadline if it must fire earlier, and write the
pod back with the new pick rows (their unique keys make a double click count once).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.draft import rules as engine
from bot.games.draft.models import DraftPackMessage, DraftPod, DraftSeat
from bot.games.draft.service import deliveries, turns, variants
from bot.games.draft.service.pools import bot_picks_of, pick_hints, pool_cards
from bot.games.draft.service.state import (
    GAMES,
    NOUN,
    STATUSES,
    TIMER,
    PackPrompt,
    Pod,
    SeatRow,
    SeatWait,
    is_bot_user,
    prompt_for,
    seat_name,
    seat_wait,
)
from bot.kit import deadlines, hooks, outbox, tables
from bot.kit.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.store.db import Database
from bot.store.types import utcnow

MACHINE_SOURCES = ("timeout", "bot")
# Fired in the transaction that completes a pod (`hooks.Finished`: options turns, method and
# play_order, as its followers settled them at the start (`lobby.GoldfishOptions`), and players, the
# seats' user ids); other formats follow it by its name.
COMPLETE = hooks.Hook("draft.complete")  # declared in its Format (`hooks`)


@dataclass(frozen=True)
class PickResult:
    pod_id: int
    user_id: int
    card: str
    round: int
    pick_number: int
    next_for_picker: PackPrompt | None
    others: list[PackPrompt]  # other humans whose pack changed (their DMs are queued)
    completed: bool
    bot_picks: int = 0
    # The pack state the pick was made from (for a bot hand-over: the seat's head at that moment).
    pack_id: int | None = None
    pack_pick: int | None = None
    # The picker's next message, queued but held for the caller to show: their next pack (see
    # deliveries.queue_packs), or their pool when the pick ended the draft (`completed`).
    held: outbox.Queued | None = field(default=None, compare=False)
    done: bool = False  # the picker has made all their picks (the draft may go on with the others)
    pick_mode: str = "both"  # the pod's ("buttons": each pack that reaches a waiting player is a new DM)
    # `held` is recorded as shown on the message picked on (`shown_on`), in the pick's transaction:
    # the caller edits that message to it, or sends it anew if the edit fails (`deliveries.resend`).
    held_shown: bool = False


def head_keys(state: engine.DraftState) -> list[tuple[int, int] | None]:
    return [None if head is None else (head.pack_id, head.picks_made) for head in state.heads()]


async def pick(
    db: Database, pod_id: int, actor: tables.Actor, *, pack_id: int, pack_pick: int, card_index: int, source: str,
    in_server: bool = False, shown_on: tuple[int, int] | None = None, now: datetime | None = None,
) -> PickResult:
    """Pick card `card_index` of pack `pack_id` as shown after `pack_pick` picks.

    A stale prompt (the pack has moved on, e.g. a double click) raises Conflict and changes nothing.
    `in_server`: picked with /draft pick, so the DM showing that pack loses its buttons.
    `shown_on`: the (channel id, message id) of the DM picked on; the picker's next pack, if one is
    waiting and their mode shows it in place, is recorded as shown there in this same transaction.
    """
    now = now or utcnow()

    async def use_case(session: AsyncSession) -> PickResult:
        pod = await GAMES.load(session, pod_id)
        _, row = GAMES.playing(pod, actor)
        if row.is_bot:
            raise Conflict(seat_wait(pod, row.seat).text)
        result = await apply_pick(session, pod, row.seat, pack_id, pack_pick, card_index, source, now)
        if in_server:
            await outbox.queue(session, *_closing(pod, result, deliveries.Closed.SERVER, card=result.card))
        upcoming = result.next_for_picker
        if shown_on is not None and result.held is not None and upcoming is not None and deliveries.shows_in_place(upcoming):
            await outbox.show_in_place(session, result.held, *shown_on)
            return replace(result, held_shown=True)
        return result

    return await db.transact(use_case, key=pod_id)


def _closing(pod: Pod, result: PickResult, reason: deliveries.Closed, **details) -> list[outbox.Message]:
    message = deliveries.close_pack_message(pod, result.pack_id, result.pack_pick, reason, **details)
    return [message] if message is not None else []


async def apply_pick(
    session: AsyncSession, pod: Pod, seat: int, pack_id: int, pack_pick: int, card_index: int, source: str,
    now: datetime,
) -> PickResult:
    state = pod.state
    assert state is not None
    if not 0 <= pack_id < len(state.packs) or state.packs[pack_id].picks_made != pack_pick:
        raise Conflict(seat_wait(pod, seat).refusal)
    pack = state.packs[pack_id]
    if not 0 <= card_index < len(pack.cards):
        raise UserError("That card is not in the pack.")
    heads_before = head_keys(state)
    event = GAMES.call(state.pick, seat, pack_id, pack.cards[card_index])  # a refusal: Conflict
    record_pick(pod, event, pack_pick, source, now)
    row = pod.by_seat(seat)
    if source not in MACHINE_SOURCES and row.timeouts:
        row.timeouts = 0  # "repeated" time-outs means in a row
    bot_picks = await run_bot_seats(session, pod, now)
    hold = seat if source not in MACHINE_SOURCES else None
    changed, prompts, held = await finish(session, pod, heads_before, now, hold_seat=hold)
    return PickResult(
        pod_id=pod.row.id, user_id=row.user_id, card=event.card, round=event.round, pick_number=event.pick_number,
        next_for_picker=next((p for p in prompts if p.seat == seat), None),
        others=[p for p in prompts if p.seat != seat], completed=state.is_complete(), bot_picks=bot_picks,
        pack_id=pack_id, pack_pick=pack_pick, held=held, done=state.picks_by_seat[seat] >= pod.config.picks_per_seat,
        pick_mode=pod.row.pick_mode,
    )


def record_pick(pod: Pod, event: engine.PickEvent, pack_pick: int, source: str, now: datetime) -> None:
    """The pick row is written with the pod (`GAMES.commit`, or `Pod.write_picks` before a read of picks)."""
    row = pod.row
    if isinstance(event, engine.GainEvent):  # a variant's action: a pick row per card it gained (maybe none)
        pod.new_picks.extend({
            "pod_id": row.id, "guild_id": row.guild_id, "seat": event.seat, "round": 0,
            "pick_number": event.first_pick + number, "pack_id": 0, "pack_pick": event.first_sequence + number - 1,
            "card": card, "sequence": event.first_sequence + number, "source": source, "picked_at": now,
        } for number, card in enumerate(event.gained, 1))
    else:
        pod.new_picks.append({
            "pod_id": row.id, "guild_id": row.guild_id, "seat": event.seat, "round": event.round,
            "pick_number": event.pick_number, "pack_id": event.pack_id, "pack_pick": pack_pick, "card": event.card,
            "sequence": event.sequence, "source": source, "picked_at": now,
        })
    pod.clocks[event.seat].last_pick_at = now


async def pool_of(session: AsyncSession, pod: Pod, seat: int) -> list[str]:
    """The seat's picks so far, this transaction's included."""
    await pod.write_picks(session)
    return await pool_cards(session, pod.row.id, seat)


async def run_bot_seats(session: AsyncSession, pod: Pod, now: datetime) -> int:
    """Bot seats pick at once whenever they have a pack; returns how many picks they made."""
    state = pod.state
    assert state is not None
    bot_seats = [row.seat for row in pod.seats if row.is_bot and row.seat is not None]
    if not bot_seats:
        return 0
    book = await pick_hints(session, pod.row.id)
    picks, progressed = 0, True
    while progressed and not state.is_complete():
        progressed = False
        for seat in bot_seats:
            head = state.head(seat)
            if head is None:
                continue
            pool = await pool_of(session, pod, seat)
            pack_pick = head.picks_made
            card = variants.machine_choice(state, seat, book, pool, seed=pod.row.seed,
                                           picks_per_seat=pod.config.picks_per_seat, bot=True)
            event = state.pick(seat, head.pack_id, card)
            record_pick(pod, event, pack_pick, "bot", now)
            picks += 1
            progressed = True
    return picks


async def finish(
    session: AsyncSession, pod: Pod, heads_before: list, now: datetime, *, hold_seat: int | None = None
) -> tuple[set[int], list[PackPrompt], outbox.Queued | None]:
    """End a transaction that changed the packs: restart the clocks of seats whose pack changed,
    queue their DMs, complete the draft if it is over, keep the timer's deadline, save the pod.
    What `hold_seat` is sent next (its pack, or its pool if the draft is over) is held for the caller."""
    state = pod.state
    assert state is not None
    changed = set()
    for seat, (before, after) in enumerate(zip(heads_before, head_keys(state), strict=True)):
        if before != after:
            changed.add(seat)
            clock = pod.clocks[seat]
            clock.waiting_since = now if after is not None else None
            clock.reminded = False
    prompts, held = await deliveries.queue_packs(session, pod, changed, hold_seat=hold_seat)
    if state.is_complete() and pod.row.status == STATUSES.running:
        held = await _complete(session, pod, now, hold_seat) or held
    await schedule_timer(session, pod)
    await GAMES.commit(session, pod)
    return changed, prompts, held


async def _complete(session: AsyncSession, pod: Pod, now: datetime, hold_seat: int | None) -> outbox.Queued | None:
    await tables.finish(session, pod.row, kind=NOUN, finished=STATUSES.finished, now=now)
    # What follows a draft (a Goldfish draft's scoring) starts in the transaction of its last pick:
    # a crash can't lose it.
    row = pod.row
    await hooks.fire(session, COMPLETE, hooks.Finished(
        NOUN, row.id, row.guild_id, row.channel_id, row.organizer_id, f"Draft #{row.id} ({row.cube_name})",
        {"turns": row.turns, "method": row.goldfish_method, "play_order": row.goldfish_play_order,
         **(row.follow_options or {}), "players": [seat.user_id for seat in pod.seats]},
    ))
    return await deliveries.queue_completion(session, pod, hold_seat=hold_seat)


# --- the pick timer's deadline ------------------------------------------------------------------------


def next_timer_due(pod: Pod) -> datetime | None:
    """When the next reminder (half time) or time-out of this pod falls due, if any."""
    seconds = pod.row.pick_timer_seconds
    if not seconds or pod.row.status != STATUSES.running or pod.state is None:
        return None
    timer = timedelta(seconds=seconds)
    dues = [
        clock.waiting_since + (timer if clock.reminded else timer / 2)
        for row, clock in zip(pod.seats, pod.clocks, strict=True)
        if not row.is_bot and clock.waiting_since is not None and pod.state.head(row.seat) is not None
    ]
    return min(dues, default=None)


async def schedule_timer(session: AsyncSession, pod: Pod) -> None:
    """Keep the pod's timer deadline no later than its next due time. A deadline armed earlier than
    needed stays: when it fires, the handler finds nothing due yet and moves it (cheaper than a
    write on every pick)."""
    due = next_timer_due(pod)
    if due is None:
        if pod.timer_due is not None:
            await deadlines.disarm(session, TIMER, pod.row.id)
            pod.timer_due = None
    elif pod.timer_due is None or due < pod.timer_due:
        await deadlines.arm(session, TIMER, pod.row.id, due)
        pod.timer_due = due


# --- a bot takes a seat ---------------------------------------------------------------------------------


async def replace_with_bot(
    db: Database, pod_id: int, player_id: int, actor: tables.Actor, *, now: datetime | None = None
) -> PickResult:
    """A bot takes over `player_id`'s seat and picks whatever reaches it from now on."""
    now = now or utcnow()

    async def use_case(session: AsyncSession) -> PickResult:
        pod = await GAMES.load(session, pod_id)
        await tables.require_manager(session, NOUN, pod.row, actor)
        if pod.row.status != STATUSES.running:
            raise Conflict("Only a running draft's seats can be handed to a bot.")
        row = pod.seat_of(player_id)
        if row is None:
            raise NotFound("That player is not in this draft.")
        if row.is_bot:
            raise Conflict("A bot already plays that seat.")
        result = await hand_to_bot(session, pod, row, now)
        await outbox.queue(session, *_closing(pod, result, deliveries.Closed.BOT))
        return result

    return await db.transact(use_case, key=pod_id)


async def hand_to_bot(session: AsyncSession, pod: Pod, row: SeatRow, now: datetime) -> PickResult:
    state = pod.state
    assert state is not None
    row.is_bot = True
    heads_before = head_keys(state)
    head = heads_before[row.seat] if row.seat is not None else None
    bot_picks = await run_bot_seats(session, pod, now)
    _, prompts, _ = await finish(session, pod, heads_before, now)
    return PickResult(
        pod_id=pod.row.id, user_id=row.user_id, card="", round=0, pick_number=0, next_for_picker=None,
        others=prompts, completed=state.is_complete(), bot_picks=bot_picks,
        pack_id=head[0] if head else None, pack_pick=head[1] if head else None,
    )


# --- a player takes their seat back ---------------------------------------------------------------------


@dataclass(frozen=True)
class RejoinResult:
    pod_id: int
    user_id: int
    bot_picks: int  # what the bot picked for the seat: it stays in the player's pool
    prompt: PackPrompt | None  # the pack the player picks from now (queued to their DMs), if any
    wait: SeatWait  # where the player stands now


async def rejoin(
    db: Database, pod_id: int, actor: tables.Actor, *, player_id: int | None = None, now: datetime | None = None
) -> RejoinResult:
    """The player takes back, at once, the seat a bot plays for them (after repeated time-outs or
    `/draft replace`); what the bot picked stays in their pool. By the player themselves, or for
    `player_id` by the draft's organizer or a server organizer (judged in the draft's server)."""
    now = now or utcnow()
    user_id = actor.user_id if player_id is None else player_id
    yours = user_id == actor.user_id

    async def use_case(session: AsyncSession) -> RejoinResult:
        pod = await GAMES.load(session, pod_id)
        tables.check_same_server(NOUN, pod.row, actor)
        if not yours:
            await tables.require_manager(session, NOUN, pod.row, actor)
        if pod.row.status != STATUSES.running:
            raise Conflict("Only a running draft's seats can be taken back.")
        row = pod.seat_of(user_id)
        if row is None or row.seat is None:
            raise (PermissionDenied("You are not playing in that draft.") if yours
                   else NotFound("That player is not in this draft."))
        if not row.is_bot:
            raise Conflict("You already play your seat." if yours else f"<@{user_id}> already plays their seat.")
        return await give_seat_back(session, pod, row, now)

    return await db.transact(use_case, key=pod_id)


async def give_seat_back(session: AsyncSession, pod: Pod, row: SeatRow, now: datetime) -> RejoinResult:
    """The seat's player plays it again: its pick clock and time-out count start afresh, and the
    pack it has now, if any, is sent to them (a bot picks whatever reaches it at once, so the player
    usually waits for the next one, which comes the usual way)."""
    state = pod.state
    assert state is not None and row.seat is not None
    row.is_bot, row.timeouts = False, 0
    clock = pod.clocks[row.seat]
    clock.waiting_since = now if state.head(row.seat) is not None else None
    clock.reminded = False
    prompt = prompt_for(pod, row.seat)
    if pod.row.variant is not None:  # its turn is posted in the channel, not DMed
        await turns.queue_turns(session, pod, [row.seat])
    elif prompt is not None and not prompt.dm_closed:
        deliveries.want_heads(pod, [row.seat], [prompt])
        await outbox.queue(session, deliveries.pack_message(prompt, rejoined=True))
    await schedule_timer(session, pod)
    await GAMES.commit(session, pod)
    return RejoinResult(pod.row.id, row.user_id, await bot_picks_of(session, pod.row.id, row.seat), prompt,
                        seat_wait(pod, row.seat))


# --- an organizer hands a bot's seat to a new player ------------------------------------------------------


@dataclass(frozen=True)
class SeatHandover:
    pod_id: int
    seat: int  # 0-based
    user_id: int  # the new player
    was: int  # who the seat was (a bot drafter's id, or the player a bot replaced)
    picks: int  # the seat's picks so far: the new player's pool
    prompt: PackPrompt | None  # the pack the new player picks from now (queued to their DMs), if any
    wait: SeatWait


async def hand_seat(
    db: Database, pod_id: int, seat: int, player_id: int, actor: tables.Actor, *, now: datetime | None = None
) -> SeatHandover:
    """An organizer gives seat `seat` (0-based), which a bot plays (from the start, or after its
    player timed out), to `player_id`, who is not in the draft: they play it from now on, with
    every pick made for it so far as their pool, and get its current pack by DM."""
    now = now or utcnow()

    async def use_case(session: AsyncSession) -> SeatHandover:
        pod = await GAMES.load(session, pod_id)
        await tables.require_manager(session, NOUN, pod.row, actor)
        if pod.row.status != STATUSES.running or pod.state is None:
            raise Conflict("Only a running draft's seats can be handed over.")
        if not 0 <= seat < len(pod.seats):
            raise UserError(f"Draft #{pod_id} has seats 1–{len(pod.seats)}.")
        row = pod.by_seat(seat)
        if not row.is_bot:
            raise Conflict(f"Seat {seat + 1} is not a bot's: {seat_name(row.user_id)} plays it.")
        if is_bot_user(player_id):
            raise UserError("That is not a player.")
        if pod.seat_of(player_id) is not None:
            raise Conflict(f"<@{player_id}> already has a seat in draft #{pod_id}.")
        if pod.state.picks_by_seat[seat] >= pod.config.picks_per_seat:
            raise Conflict(f"Seat {seat + 1} has made all its picks: nothing is left to play.")
        was = row.user_id
        row.user_id, row.dm_closed = player_id, False
        await session.execute(update(DraftSeat).where(DraftSeat.id == row.id).values(user_id=player_id, dm_closed=False))
        # The seat's old pack messages are in its old player's DMs: the new player's come anew.
        await session.execute(delete(DraftPackMessage).where(DraftPackMessage.pod_id == pod_id,
                                                             DraftPackMessage.seat == seat))
        row.is_bot, row.timeouts = False, 0
        clock = pod.clocks[seat]
        clock.waiting_since = now if pod.state.head(seat) is not None else None
        clock.reminded = False
        prompt = prompt_for(pod, seat)
        if pod.row.variant is not None:  # its turn is posted in the channel, not DMed
            await turns.queue_turns(session, pod, [seat])
        elif prompt is not None:
            deliveries.want_heads(pod, [seat], [prompt])
            await outbox.queue(session, deliveries.pack_message(prompt))
        await schedule_timer(session, pod)
        await GAMES.commit(session, pod)
        return SeatHandover(pod_id, seat, player_id, was, pod.state.picks_by_seat[seat], prompt, seat_wait(pod, seat))

    return await db.transact(use_case, key=pod_id)


async def bot_seats(db: Database, pod_id: int) -> list[tuple[int, int]]:
    """The seats a bot plays in a running draft: (seat, its user id), for choosing one to hand over."""
    async with db.read() as session:
        rows = await session.execute(select(DraftSeat.seat, DraftSeat.user_id).join(DraftPod, DraftPod.id == DraftSeat.pod_id)
                                     .where(DraftSeat.pod_id == pod_id, DraftSeat.is_bot, DraftSeat.seat.is_not(None),
                                            DraftPod.status == STATUSES.running)
                                     .order_by(DraftSeat.seat))
        return [(seat, user_id) for seat, user_id in rows]
