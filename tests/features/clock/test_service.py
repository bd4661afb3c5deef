"""Chess clock service against real SQLite and PostgreSQL databases, with a fake clock: every
action gets its `now` (epoch seconds), the flag-fall deadline is run with the sweeper's `now`."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, func, select

from bot.features.clock import rules as engine
from bot.features.clock import service as clock
from bot.features.clock.models import ChessClock
from bot.kit import deadlines, outbox
from bot.kit.errors import NotFound, PermissionDenied, UserError
from bot.kit.tables import Actor
from bot.store.models import OutboxMessage
from tests.common import CHANNEL, GUILD, ORG, OTHER_GUILD, player

OTHER_CHANNEL = 11
ALICE, BOB, CAROL = 1001, 1002, 1003
T0 = 1_800_000_000.0  # the fake clock's start, epoch seconds


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(T0 + seconds, UTC)


async def offer(db, *, mode="delay", minutes=10, increment=3, first=0, channel=CHANNEL) -> clock.ClockView:
    started = await clock.start(db, player(ALICE), channel_id=channel, opponent_id=BOB, minutes=minutes,
                                increment=increment, mode=mode, first=first, now=T0 - 30)
    assert started.new
    return started.clock


async def new_clock(db, **options) -> clock.ClockView:
    """Alice offers a clock to Bob, who accepts it at T0: it runs from then."""
    offered = await offer(db, **options)
    return (await clock.accept(db, offered.id, player(BOB), now=T0)).clock


async def flag_deadline(db, clock_id: int) -> float | None:
    async with db.read() as session:
        due = await deadlines.due_at(session, clock.FLAG, clock_id)
    return None if due is None else due.timestamp() - T0


async def queued(db, kind: str) -> list[dict]:
    async with db.read() as session:
        rows = (await session.execute(
            select(OutboxMessage).where(OutboxMessage.kind == kind).order_by(OutboxMessage.id)
        )).scalars().all()
        return [r.payload for r in rows]


async def outbox_count(db) -> int:
    async with db.read() as session:
        return (await session.execute(select(func.count()).select_from(OutboxMessage))).scalar_one()


async def shown_as(db, message_id: int = 555) -> None:
    """Discord accepted the clock's POST (the outbox settles it, running the kind's hook)."""
    async with db.read() as session:
        row = (await session.execute(select(OutboxMessage).where(OutboxMessage.kind == clock.POST))).scalars().one()
    item = outbox.Queued(row.id, outbox.Message(row.kind, row.payload, channel_id=row.channel_id), 0, row.created_at)
    await outbox.settle(db, [outbox.Outcome(item, channel_id=CHANNEL, message_id=message_id)])


async def test_delay_mode_with_a_fake_clock(db):
    started = await new_clock(db)
    assert started.status == "running" and started.players == (ALICE, BOB) and started.state.running == 0
    assert await queued(db, clock.POST) == [{"clock_id": started.id}]
    assert await flag_deadline(db, started.id) == pytest.approx(603)  # 3 s delay + 10:00
    await shown_as(db)
    assert (await clock.get(db, started.id)).message_id == 555
    # Accepted before its message was recorded: the message gets the edit it missed.
    assert await queued(db, clock.SHOW) == [{"clock_id": started.id, "version": 1}]
    async with db.write() as session:
        await session.execute(delete(OutboxMessage).where(OutboxMessage.kind == clock.SHOW))

    # Alice passes within her delay: nothing comes off her bank.
    passed = await clock.pass_clock(db, started.id, player(ALICE), now=T0 + 2)
    assert passed.clock.state.banks == [600, 600] and passed.clock.state.running == 1
    assert await flag_deadline(db, started.id) == pytest.approx(2 + 3 + 600)
    assert await queued(db, clock.SHOW) == [{"clock_id": started.id, "version": passed.clock.version}]

    # Bob takes 13 s: 10 s count.
    passed = await clock.pass_clock(db, started.id, player(BOB), now=T0 + 15)
    assert passed.clock.state.banks == [600, 590]
    assert await flag_deadline(db, started.id) == pytest.approx(15 + 603)

    # Alice is 5 s into her move when Bob pauses for a judge: no flag while paused.
    paused = await clock.pause(db, started.id, player(BOB), now=T0 + 20)
    assert paused.clock.status == "paused" and await flag_deadline(db, started.id) is None
    assert engine.remaining(paused.clock.state, 0, T0 + 500) == pytest.approx(598)
    assert await deadlines.run_due(db, clock.DEADLINES, now=at(10_000)) == []

    # Resumed 80 s later: her delay is used up, 2 s of the move already count.
    resumed = await clock.resume(db, started.id, player(ALICE), now=T0 + 100)
    assert resumed.clock.status == "running"
    assert await flag_deadline(db, started.id) == pytest.approx(100 + 598)
    passed = await clock.pass_clock(db, started.id, player(ALICE), now=T0 + 110)
    assert passed.clock.state.banks == [588, 590] and passed.clock.state.moves == 3

    ended = await clock.end(db, started.id, player(ALICE), now=T0 + 111)  # Bob's move: Alice may end it
    assert ended.clock.status == "ended" and ended.clock.state.banks == [588, 590]
    assert await flag_deadline(db, started.id) is None
    [news] = map(clock.ClockNews.from_payload, await queued(db, clock.NEWS))
    assert isinstance(news.event, engine.ClockEnded) and news.remaining == (588, 590) and news.users == (ALICE, BOB)
    async with db.read() as session:
        row = await session.get(ChessClock, started.id)
        assert row.live is None and row.finished_at is not None


async def test_bronstein_refunds_up_to_the_limit_from_ten_minutes_plus_the_limit(db):
    started = await new_clock(db, mode="bronstein", increment=3, first=1)
    assert started.state.banks == [603, 603] and started.state.running == 1
    assert await flag_deadline(db, started.id) == pytest.approx(603)  # no delay: the whole move counts
    passed = await clock.pass_clock(db, started.id, player(BOB), now=T0 + 10)  # 10 s, 3 refunded
    assert passed.clock.state.banks == [603, 596]
    passed = await clock.pass_clock(db, started.id, player(ALICE), now=T0 + 12)  # 2 s, all refunded
    assert passed.clock.state.banks == [603, 596]
    # While Bob thinks, his time runs down from 596 with no refund yet.
    assert engine.remaining(passed.clock.state, 1, T0 + 62) == pytest.approx(546)
    assert await flag_deadline(db, started.id) == pytest.approx(12 + 596)
    passed = await clock.pass_clock(db, started.id, player(BOB), now=T0 + 62)  # 50 s, 3 refunded
    assert passed.clock.state.banks == [603, 549]


async def test_the_flag_falls_on_the_deadline_and_listeners_run_in_its_transaction(db):
    heard: list[tuple[int, str, int | None, bool]] = []

    async def listener(session, row):
        heard.append((row.id, row.status, clock.flagged_user(row), session.in_transaction()))

    clock.FLAG_FALL_LISTENERS.append(listener)
    try:
        started = await new_clock(db, minutes=0.05, increment=0)  # 3 s: only the service API allows it
        assert await deadlines.run_due(db, clock.DEADLINES, now=at(2.9)) == []
        assert await deadlines.run_due(db, clock.DEADLINES, now=at(3.5)) == [started.id]
        flagged = await clock.get(db, started.id)
        assert flagged.status == "flagged" and flagged.state.flagged == 0 and flagged.state.flag_time == T0 + 3
        assert heard == [(started.id, "flagged", ALICE, True)]
        [news] = map(clock.ClockNews.from_payload, await queued(db, clock.NEWS))
        assert news.event == engine.FlagFell(side=0, at=T0 + 3)
        assert await flag_deadline(db, started.id) is None
        with pytest.raises(UserError, match="flag has fallen"):
            await clock.pass_clock(db, started.id, player(ALICE), now=T0 + 4)
        # Over: the pair may start a new clock here.
        assert (await new_clock(db)).id != started.id
    finally:
        clock.FLAG_FALL_LISTENERS.remove(listener)


async def test_a_failing_listener_rolls_the_flag_fall_back_for_a_retry(db):
    async def broken(session, row):
        raise RuntimeError("the format's listener fails")

    clock.FLAG_FALL_LISTENERS.append(broken)
    try:
        started = await new_clock(db, minutes=0.05, increment=0)
        assert await deadlines.run_due(db, clock.DEADLINES, now=at(4)) == []
        assert (await clock.get(db, started.id)).status == "running"
        assert await queued(db, clock.NEWS) == []
    finally:
        clock.FLAG_FALL_LISTENERS.remove(broken)
    # Retried after the deadline's lease: now it falls, at the time it was due.
    assert await deadlines.run_due(db, clock.DEADLINES, now=at(4) + deadlines.LEASE) == [started.id]
    assert (await clock.get(db, started.id)).state.flag_time == T0 + 3


async def test_a_late_pass_is_a_flag_fall(db):
    heard = []

    async def listener(session, row):
        heard.append(clock.flagged_user(row))

    clock.FLAG_FALL_LISTENERS.append(listener)
    try:
        started = await new_clock(db, minutes=1, increment=0, first=1)
        late = await clock.pass_clock(db, started.id, player(BOB), now=T0 + 61)
        assert late.flag_fell and late.clock.status == "flagged" and heard == [BOB]
        assert await flag_deadline(db, started.id) is None
    finally:
        clock.FLAG_FALL_LISTENERS.remove(listener)


async def test_a_moved_on_clock_re_arms_its_deadline_instead_of_flagging(db):
    started = await new_clock(db, minutes=1, increment=0)
    await clock.pass_clock(db, started.id, player(ALICE), now=T0 + 30)
    # The sweeper took the deadline before the pass moved it (a race): nothing falls, it follows.
    async with db.write() as session:
        await deadlines.arm(session, clock.FLAG, started.id, at(31))
    assert await deadlines.run_due(db, clock.DEADLINES, now=at(31)) == [None]  # ran, nothing fell
    assert await flag_deadline(db, started.id) == pytest.approx(90)
    assert (await clock.get(db, started.id)).status == "running"


async def test_only_the_two_players_press_and_refusals_change_nothing(db):
    started = await new_clock(db)
    await shown_as(db)
    before, messages = await clock.get(db, started.id), await outbox_count(db)
    refusals = [
        (PermissionDenied, "Only the two players", lambda: clock.pass_clock(db, started.id, player(CAROL), now=T0 + 1)),
        (PermissionDenied, "Only the two players", lambda: clock.end(db, started.id, player(CAROL), now=T0 + 1)),
        (PermissionDenied, "another server", lambda: clock.pause(db, started.id, player(ALICE, OTHER_GUILD), now=T0 + 1)),
        (UserError, "whose clock is running", lambda: clock.pass_clock(db, started.id, player(BOB), now=T0 + 1)),
        (UserError, "Cannot resume", lambda: clock.resume(db, started.id, player(BOB), now=T0 + 1)),
        (UserError, "Unknown clock action", lambda: clock.act(db, started.id, player(ALICE), "explode", now=T0 + 1)),
        (NotFound, "no clock", lambda: clock.pass_clock(db, started.id + 99, player(ALICE), now=T0 + 1)),
    ]
    for error, message, call in refusals:
        with pytest.raises(error, match=message):
            await call()
    with pytest.raises(PermissionDenied):
        await clock.check_player(db, started.id, player(CAROL))
    after = await clock.get(db, started.id)
    assert after.version == before.version and after.state == before.state
    assert await outbox_count(db) == messages
    assert await flag_deadline(db, started.id) == pytest.approx(603)


async def test_one_live_clock_per_pair_per_channel_and_bad_settings(db):
    first = await new_clock(db)
    again = await clock.start(db, player(BOB), channel_id=CHANNEL, opponent_id=ALICE, minutes=1, now=T0)
    assert not again.new and again.clock.id == first.id and again.clock.status == "running"  # the pair in any order
    await new_clock(db, channel=OTHER_CHANNEL)  # another channel
    await clock.start(db, player(ALICE), channel_id=CHANNEL, opponent_id=CAROL, now=T0)  # another pair
    bad = [
        ({"opponent_id": ALICE}, "not yourself"),
        ({"opponent_id": BOB, "minutes": 0}, "more than 0"),
        ({"opponent_id": BOB, "minutes": 181}, "at most 180"),
        ({"opponent_id": BOB, "increment": -1}, "between 0 and 60"),
        ({"opponent_id": BOB, "mode": "fischer"}, "Unknown clock mode"),
        ({"opponent_id": BOB, "first": 2}, "plays first"),
    ]
    for options, message in bad:
        with pytest.raises(UserError, match=message):
            await clock.start(db, player(ALICE), channel_id=OTHER_CHANNEL + 1, now=T0, **options)
    with pytest.raises(UserError, match="server"):
        await clock.start(db, Actor(ALICE, None), channel_id=CHANNEL, opponent_id=BOB, now=T0)
    await clock.end(db, first.id, player(BOB), now=T0 + 5)
    assert (await new_clock(db)).id > first.id


async def test_find_live_finds_a_players_clock_here_even_when_paused(db):
    started = await new_clock(db)
    await clock.pause(db, started.id, player(BOB), now=T0 + 5)
    for user in (ALICE, BOB):
        found = await clock.find_live(db, guild_id=GUILD, channel_id=CHANNEL, user_id=user)
        assert found is not None and found.id == started.id and found.status == "paused"
    assert await clock.find_live(db, guild_id=GUILD, channel_id=CHANNEL, user_id=CAROL) is None
    assert await clock.find_live(db, guild_id=GUILD, channel_id=OTHER_CHANNEL, user_id=ALICE) is None
    assert await clock.find_live(db, guild_id=OTHER_GUILD, channel_id=CHANNEL, user_id=ALICE) is None
    ended = await clock.end(db, started.id, player(BOB), now=T0 + 500)  # paused: no time passed
    assert ended.clock.state.banks == [598, 600]
    assert await clock.find_live(db, guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE) is None
    with pytest.raises(UserError, match="already over"):
        await clock.check_player(db, started.id, player(BOB))


async def test_an_offered_clock_runs_only_once_the_opponent_accepts_it(db):
    offered = await offer(db, minutes=1, increment=0, first=1)
    assert offered.status == "offered" and offered.live and offered.game is None
    assert await queued(db, clock.POST) == [{"clock_id": offered.id}]
    assert await flag_deadline(db, offered.id) is None
    assert await deadlines.run_due(db, clock.DEADLINES, now=at(10**6)) == []  # it cannot flag
    before, messages = await clock.get(db, offered.id), await outbox_count(db)
    refusals = [
        (UserError, "only your opponent can accept", lambda: clock.accept(db, offered.id, player(ALICE), now=T0)),
        (PermissionDenied, "Only the two players", lambda: clock.accept(db, offered.id, player(CAROL), now=T0)),
        (UserError, "not been accepted yet", lambda: clock.pass_clock(db, offered.id, player(BOB), now=T0)),
        (UserError, "not been accepted yet", lambda: clock.pause(db, offered.id, player(BOB), now=T0)),
        (UserError, "can decline it", lambda: clock.act(db, offered.id, player(BOB), "withdraw", now=T0)),
        (UserError, "only your opponent can decline", lambda: clock.act(db, offered.id, player(ALICE), "decline")),
    ]
    for error, message, call in refusals:
        with pytest.raises(error, match=message):
            await call()
    with pytest.raises(UserError, match="withdraw or decline it instead"):
        await clock.check_player(db, offered.id, player(ALICE))
    assert (await clock.get(db, offered.id)).version == before.version and await outbox_count(db) == messages

    # Running /clock start again (either player, any settings) finds the offer: nothing new.
    again = await clock.start(db, player(BOB), channel_id=CHANNEL, opponent_id=ALICE, minutes=30, now=T0)
    assert not again.new and again.clock.id == offered.id and again.clock.offered
    found = await clock.find_live(db, guild_id=GUILD, channel_id=CHANNEL, user_id=BOB)
    assert found is not None and found.id == offered.id

    accepted = await clock.accept(db, offered.id, player(BOB), now=T0 + 100, message_id=777)
    assert accepted.clock.status == "running" and accepted.clock.state.running == 1
    assert accepted.clock.message_id == 777
    assert await flag_deadline(db, offered.id) == pytest.approx(160)  # a minute from the acceptance
    assert await deadlines.run_due(db, clock.DEADLINES, now=at(161)) == [offered.id]


async def test_an_offer_withdrawn_or_declined_never_runs_and_frees_the_pair(db):
    offered = await offer(db)
    withdrawn = await clock.act(db, offered.id, player(ALICE), "withdraw")
    assert withdrawn.clock.status == "withdrawn" and not withdrawn.clock.live
    assert await clock.still_to_post(db, offered.id) is None  # an offer taken back is never posted
    with pytest.raises(UserError, match="withdrawn"):
        await clock.accept(db, offered.id, player(BOB), now=T0)
    second = await offer(db)
    assert second.id != offered.id
    declined = await clock.act(db, second.id, player(BOB), "decline", message_id=556)  # pressed on its message
    assert declined.clock.status == "declined" and await flag_deadline(db, second.id) is None
    assert await queued(db, clock.SHOW) == [{"clock_id": second.id, "version": declined.clock.version}]
    assert await clock.find_live(db, guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE) is None


async def test_the_running_player_asks_and_the_opponent_or_an_organizer_who_does_not_play_agrees(db):
    """Issue 34: the player whose time runs cannot pause or end the clock alone."""
    started = await new_clock(db)  # Alice to act
    await shown_as(db)
    asked = await clock.pause(db, started.id, player(ALICE), now=T0 + 5)
    assert asked.events == (engine.ClockAsked(0, "pause"),) and asked.clock.status == "running"
    assert await flag_deadline(db, started.id) == pytest.approx(603)  # her time still runs
    [news] = map(clock.ClockNews.from_payload, await queued(db, clock.NEWS))
    assert news.event == engine.ClockAsked(0, "pause") and news.users == (ALICE, BOB)
    paused = await clock.pause(db, started.id, player(BOB), now=T0 + 8)  # Bob agrees
    assert paused.clock.status == "paused" and await flag_deadline(db, started.id) is None

    # Paused, Alice (whose move it is) asks to end it; someone else with no say is refused; an organizer
    # who does not play ends it alone.
    asked = await clock.end(db, started.id, player(ALICE), now=T0 + 9)
    assert asked.events == (engine.ClockAsked(0, "end"),) and asked.clock.status == "paused"
    with pytest.raises(PermissionDenied, match="Only the two players"):
        await clock.end(db, started.id, player(CAROL), now=T0 + 10)
    with pytest.raises(PermissionDenied, match="Only the two players"):
        await clock.pass_clock(db, started.id, ORG, now=T0 + 10)  # an organizer never passes for a player
    ended = await clock.end(db, started.id, ORG, now=T0 + 10)
    assert ended.clock.status == "ended" and ended.clock.state.banks == [595, 600]


async def test_an_organizer_who_plays_on_the_clock_is_a_player_there(db):
    started = await clock.start(db, ORG, channel_id=CHANNEL, opponent_id=BOB, now=T0)
    await clock.accept(db, started.clock.id, player(BOB), now=T0)
    asked = await clock.end(db, started.clock.id, ORG, now=T0 + 1)  # the organizer's own time runs
    assert asked.events == (engine.ClockAsked(0, "end"),) and asked.clock.status == "running"
