"""Pick timers, run by the shared sweeper from the pod's deadline (`state.TIMER`).

Half way through a seat's time the player is reminded (once per pack); when it runs out the bot
picks for them as a bot drafter would from their pool (`variants.machine_choice`, without a bot's leaning;
in a Winston draft it takes the pile),
and after `TIMEOUTS_BEFORE_BOT` time-outs in a row a bot takes the seat and the organizer is told.
Clocks live in the pod's bookkeeping document, so they survive restarts.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.draft import rules as engine
from bot.games.draft.service import deliveries, kind_turns, variants
from bot.games.draft.service.picking import (
    PickResult,
    apply_pick,
    hand_to_bot,
    pool_of,
    schedule_timer,
)
from bot.games.draft.service.pools import pick_hints
from bot.games.draft.service.state import GAMES, STATUSES, TIMER, PackPrompt, Pod, prompt_for
from bot.kit import deadlines, outbox
from bot.store.db import Database

TIMEOUTS_BEFORE_BOT = 3  # in a row: a pick by the player resets the count


@dataclass
class TimerActions:
    """What one pod's timer did (its messages are queued)."""

    reminders: list[PackPrompt] = field(default_factory=list)
    auto_picks: list[tuple[PickResult, bool]] = field(default_factory=list)  # (result, seat now a bot)


DEADLINES = deadlines.Handlers()  # the pick timer's, carried by the draft's `FORMAT`


@DEADLINES.handles(TIMER)
async def run_timer(db: Database, due: deadlines.Due, now: datetime) -> TimerActions:
    pod_id = int(due.key)

    async def use_case(session: AsyncSession) -> TimerActions:
        actions = TimerActions()  # made here: the job may run again (see `Database.transact`)
        pod = await GAMES.load(session, pod_id)
        if pod.row.status != STATUSES.running:
            await deadlines.disarm(session, TIMER, due.key)
            return actions
        await _sweep_pod(session, pod, now, actions)
        pod.timer_due = None  # re-armed exactly (or disarmed) below
        await schedule_timer(session, pod)
        if pod.timer_due is None:
            await deadlines.disarm(session, TIMER, due.key)
        await GAMES.commit(session, pod)
        return actions

    return await db.transact(use_case, key=pod_id)


async def sweep_timers(db: Database, *, now: datetime | None = None) -> TimerActions:
    """Run every pick timer that is due at `now` (what the sweeper does, for drafts alone)."""
    total = TimerActions()
    for actions in await deadlines.run_due(db, DEADLINES, now=now, kinds=(TIMER,)):
        total.reminders += actions.reminders
        total.auto_picks += actions.auto_picks
    return total


async def _sweep_pod(session: AsyncSession, pod: Pod, now: datetime, actions: TimerActions) -> None:
    timer = timedelta(seconds=pod.row.pick_timer_seconds or 0)
    state = pod.state
    assert state is not None
    for row in list(pod.seats):
        clock = pod.clocks[row.seat] if row.seat is not None else None
        if row.is_bot or clock is None or clock.waiting_since is None or state.is_complete():
            continue
        head = state.head(row.seat)
        if head is None:
            continue
        waited = now - clock.waiting_since
        if waited >= timer:
            actions.auto_picks.append(await _time_out(session, pod, row, head, now))
        elif waited >= timer / 2 and not clock.reminded:
            clock.reminded = True
            if (prompt := prompt_for(pod, row.seat)) is not None:
                actions.reminders.append(prompt)
                reminder = deliveries.PodRef(prompt.pod_id, pod.row.variant)
                await outbox.queue(session, outbox.Message(deliveries.REMINDER, reminder.to_payload(),
                                                           user_id=prompt.user_id))


async def _time_out(session: AsyncSession, pod: Pod, row, head: engine.PackState, now: datetime) -> tuple[PickResult, bool]:
    pool = await pool_of(session, pod, row.seat)
    card = variants.machine_choice(pod.state, row.seat, await pick_hints(session, pod.row.id), pool, seed=pod.row.seed,
                                   picks_per_seat=pod.config.picks_per_seat, bot=False)
    row.timeouts += 1
    had = len(pod.state.pools[row.seat]) if pod.row.variant in variants.SEATS else 0
    result = await apply_pick(session, pod, row.seat, head.pack_id, head.picks_made, head.cards.index(card), "timeout", now)
    gained = tuple(pod.state.pools[row.seat][had:]) if pod.row.variant in variants.SEATS else ()  # a pile, a line
    to_bot = row.timeouts >= TIMEOUTS_BEFORE_BOT
    if to_bot:
        handed = await hand_to_bot(session, pod, row, now)
        result = replace(
            result, others=_merge(result.others, handed.others), next_for_picker=None, completed=handed.completed,
            bot_picks=result.bot_picks + handed.bot_picks,
        )
    await outbox.queue(session, *_timeout_messages(pod, result, to_bot, action=card, gained=gained))
    return result, to_bot


def _timed_out_note(pod: Pod, result: PickResult, to_bot: bool, action: str, gained: tuple[str, ...]) -> outbox.Message:
    """The player's DM: the card the timer picked; a Winston's pile or a Grid's line (`action`, the
    line's name) said as such, with the cards it `gained`."""
    variant = pod.row.variant
    if variant in variants.SEATS:
        note = kind_turns.TurnTimedOut(pod.row.id, variant, gained, action if variant == variants.GRID else None,
                                       to_bot=to_bot, completed=result.completed)
        return outbox.Message(kind_turns.TURN_TIMED_OUT, note.to_payload(), user_id=result.user_id)
    note = deliveries.TimedOut(pod.row.id, card=result.card, round=result.round, pick_number=result.pick_number,
                               to_bot=to_bot, completed=result.completed)
    return outbox.Message(deliveries.TIMED_OUT, note.to_payload(), user_id=result.user_id)


def _merge(first: list[PackPrompt], second: list[PackPrompt]) -> list[PackPrompt]:
    merged = {p.seat: p for p in first}
    merged.update({p.seat: p for p in second})
    return [merged[s] for s in sorted(merged)]


def _timeout_messages(pod: Pod, result: PickResult, to_bot: bool, *, action: str,
                      gained: tuple[str, ...]) -> list[outbox.Message]:
    details = {"card": result.card, "round": result.round, "pick_number": result.pick_number}
    closing = deliveries.close_pack_message(pod, result.pack_id, result.pack_pick, deliveries.Closed.TIMEOUT, **details)
    messages = [m for m in (closing,) if m is not None]
    messages.append(_timed_out_note(pod, result, to_bot, action, gained))
    if to_bot:
        organizer = deliveries.TimedOut(pod.row.id, player_id=result.user_id, to_organizer=True,
                                        completed=result.completed)
        messages.append(outbox.Message(deliveries.TIMED_OUT, organizer.to_payload(), user_id=pod.row.organizer_id))
    return messages
