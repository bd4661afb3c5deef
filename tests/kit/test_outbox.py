"""The outbox's bookkeeping against real SQLite and PostgreSQL: rows are leased to their sender,
taken by the sweeper when due, retried with backoff, failed once for good, and parked or failed on
closed DMs as their kind says. (Sending through Discord is tested end to end.)"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.kit import outbox
from bot.store.models import OutboxMessage
from bot.store.types import utcnow

KIND = "test.kind"


async def queue(db, *messages, hold=False, now=None):
    async with db.write() as session:
        return await outbox.queue(session, *messages, hold=hold, now=now)


async def row(db, row_id: int) -> OutboxMessage:
    async with db.read() as session:
        return (await session.execute(select(OutboxMessage).where(OutboxMessage.id == row_id))).scalar_one()


async def test_after_commit_the_queued_rows_are_announced_once_and_never_on_rollback(db):
    heard = []
    db.listen(outbox.TOPIC, heard.append)
    [first] = await queue(db, outbox.Message(KIND, {"n": 1}, user_id=5))
    assert [[q.id for q in batch] for batch in heard] == [[first.id]]
    try:
        async with db.write() as session:
            await outbox.queue(session, outbox.Message(KIND, {"n": 2}, user_id=5))
            raise RuntimeError("the use case fails after queuing")
    except RuntimeError:
        pass
    await queue(db, outbox.Message(KIND, {"n": 3}, user_id=5), hold=True)
    assert len(heard) == 1  # the rolled-back row does not exist; a held row is the caller's to send
    async with db.read() as session:
        payloads = (await session.execute(select(OutboxMessage.payload).order_by(OutboxMessage.id))).scalars().all()
    assert payloads == [{"n": 1}, {"n": 3}]


async def test_the_sweeper_takes_rows_only_after_their_lease_or_at_startup(db):
    start = utcnow()
    [fresh] = await queue(db, outbox.Message(KIND, {}, channel_id=9), now=start)
    assert await outbox.take_due(db, now=start + timedelta(seconds=30)) == []  # its process is sending it
    at_startup = await outbox.take_due(db, now=start + timedelta(seconds=30), created_before=start + timedelta(seconds=1))
    assert [q.id for q in at_startup] == [fresh.id]  # queued before this process started: nobody sends it
    assert await outbox.take_due(db, now=start + timedelta(seconds=61)) == []  # leased to the sweeper now
    again = await outbox.take_due(db, now=start + timedelta(seconds=200))
    assert [(q.id, q.attempts) for q in again] == [(fresh.id, 2)]


async def test_transient_failures_back_off_and_permanent_ones_fail_once(db):
    now = utcnow()
    transient, permanent = await queue(db, outbox.Message(KIND, {"t": 1}, user_id=5), outbox.Message(KIND, {}, user_id=6))
    await outbox.settle(db, [outbox.Outcome(transient, retry=True, error="503"),
                             outbox.Outcome(permanent, error="400 Invalid Form Body")], now=now)
    retried, failed = await row(db, transient.id), await row(db, permanent.id)
    assert retried.status == "pending" and retried.next_attempt_at == now + timedelta(seconds=outbox.BACKOFF_SECONDS[0])
    assert failed.status == "failed" and "400" in failed.error
    later = now + timedelta(days=1)
    assert [q.id for q in await outbox.take_due(db, now=later)] == [transient.id]  # the failed one never again
    for attempt in range(outbox.MAX_ATTEMPTS):  # ...until the retries run out
        [again] = await outbox.take_due(db, now=later + timedelta(days=attempt + 1)) or [None]
        if again is None:
            break
        await outbox.settle(db, [outbox.Outcome(again, retry=True, error="503")], now=later)
    assert (await row(db, transient.id)).status == "failed"


async def test_a_sent_row_runs_its_kind_hook_in_the_same_transaction(db):
    seen = []

    async def hook(session, queued, channel_id, message_id):
        seen.append((queued.payload, channel_id, message_id, session.in_transaction()))

    outbox.on_sent("test.hooked", hook)
    [queued] = await queue(db, outbox.Message("test.hooked", {"p": 1}, user_id=5))
    await outbox.settle(db, [outbox.Outcome(queued, channel_id=70, message_id=71)])
    await outbox.settle(db, [outbox.Outcome(queued, channel_id=70, message_id=72)])  # a late duplicate changes nothing
    stored = await row(db, queued.id)
    assert (stored.status, stored.message_id) == ("sent", 71) and seen[0] == ({"p": 1}, 70, 71, True)


async def test_closed_dms_fail_or_wait_for_the_next_start(db):
    noticed = []

    async def notice(session, queued):
        noticed.append(queued.kind)

    outbox.on_dm_closed("test.closed", notice)
    outbox.on_dm_closed("test.parked", notice, retry_at_startup=True)
    closed, parked = await queue(db, outbox.Message("test.closed", {}, user_id=5), outbox.Message("test.parked", {}, user_id=5))
    now = utcnow()
    await outbox.settle(db, [outbox.Outcome(closed, dm_closed=True), outbox.Outcome(parked, dm_closed=True)], now=now)
    assert noticed == ["test.closed", "test.parked"]
    assert (await row(db, closed.id)).status == "failed"
    assert await outbox.take_due(db, now=now + timedelta(days=30)) == []  # the periodic sweep leaves it
    restart = now + timedelta(days=30)
    assert [q.id for q in await outbox.take_due(db, now=restart, created_before=restart)] == [parked.id]


async def test_settled_rows_are_pruned_after_a_week(db):
    now = utcnow()
    [old] = await queue(db, outbox.Message(KIND, {}, user_id=5), now=now)
    await outbox.settle(db, [outbox.Outcome(old, channel_id=1, message_id=2)], now=now)
    assert await outbox.prune(db, now=now + timedelta(days=6)) == 0
    assert await outbox.prune(db, now=now + timedelta(days=8)) == 1


async def test_a_refused_channel_post_tells_whom_its_payload_names_once(db):
    heard = []
    db.listen(outbox.TOPIC, heard.append)
    results = outbox.telling({"game_id": 3}, 77, "the result of Vortex #3")
    refused, untold, dm = await queue(db, outbox.Message(KIND, results, channel_id=9, guild_id=4),
                                      outbox.Message(KIND, {"game_id": 4}, channel_id=9, guild_id=4),
                                      outbox.Message(KIND, results, user_id=5, guild_id=4))
    heard.clear()
    outcomes = [outbox.Outcome(q, error="403 Missing Permissions", forbidden=50013) for q in (refused, untold, dm)]
    await outbox.settle(db, outcomes)
    await outbox.settle(db, outcomes[:1])  # settled twice (two processes): told once all the same
    assert [(await row(db, q.id)).status for q in (refused, untold, dm)] == [outbox.FAILED] * 3
    async with db.read() as session:
        told = (await session.execute(select(OutboxMessage).where(OutboxMessage.kind == outbox.CANNOT_POST))).scalars().all()
    assert [(r.user_id, r.guild_id, r.payload) for r in told] == [
        (77, 4, {"channel_id": 9, "guild_id": 4, "what": "the result of Vortex #3", "code": 50013})]
    assert [[q.kind for q in batch] for batch in heard] == [[outbox.CANNOT_POST]]  # sent after the commit
