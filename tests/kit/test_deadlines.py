"""The deadlines table against real SQLite and PostgreSQL: arming moves a deadline, the sweeper
runs only what is due, and a handler that fails is retried after its lease."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.kit import deadlines
from bot.store.types import utcnow

RAN: list[tuple[str, str]] = []
HANDLERS = deadlines.Handlers()


@HANDLERS.handles("test.ok")
async def _ok(db, due, now):
    RAN.append((due.kind, due.key))
    async with db.write() as session:
        await deadlines.disarm(session, due.kind, due.key)
    return due.key


@HANDLERS.handles("test.crash")
async def _crash(db, due, now):
    RAN.append((due.kind, due.key))
    raise RuntimeError("the handler dies half way")


async def arm(db, kind, key, at, payload=None):
    async with db.write() as session:
        await deadlines.arm(session, kind, key, at, payload)


async def test_arming_again_moves_the_deadline_and_only_due_ones_run(db):
    RAN.clear()
    now = utcnow()
    await arm(db, "test.ok", 1, now + timedelta(minutes=10))
    await arm(db, "test.ok", 1, now + timedelta(minutes=1))  # moved, not duplicated
    await arm(db, "test.ok", 2, now + timedelta(minutes=5))
    assert await deadlines.next_due_at(db) == now + timedelta(minutes=1)
    assert await deadlines.run_due(db, HANDLERS, now=now) == []
    assert await deadlines.run_due(db, HANDLERS, now=now + timedelta(minutes=2)) == ["1"]
    assert await deadlines.run_due(db, HANDLERS, now=now + timedelta(minutes=6)) == ["2"]
    assert RAN == [("test.ok", "1"), ("test.ok", "2")] and await deadlines.next_due_at(db) is None


async def test_a_failing_handler_is_retried_after_the_lease(db):
    RAN.clear()
    now = utcnow()
    await arm(db, "test.crash", "x", now)
    await deadlines.run_due(db, HANDLERS, now=now)
    await deadlines.run_due(db, HANDLERS, now=now + timedelta(seconds=1))  # leased: not run twice at once
    assert RAN == [("test.crash", "x")]
    await deadlines.run_due(db, HANDLERS, now=now + deadlines.LEASE + timedelta(seconds=1))
    assert RAN == [("test.crash", "x")] * 2


async def test_disarm_and_kinds(db):
    RAN.clear()
    now = utcnow()
    await arm(db, "test.ok", "a", now)
    await arm(db, "test.crash", "b", now)
    async with db.write() as session:
        assert await deadlines.due_at(session, "test.crash", "b") == now
        await deadlines.disarm(session, "test.crash", "b")
    assert await deadlines.run_due(db, HANDLERS, now=now, kinds=("test.crash",)) == []
    assert await deadlines.run_due(db, HANDLERS, now=now, kinds=("test.ok",)) == ["a"]


def test_a_kind_has_one_handler():
    async def other(db, due, now):
        return None

    elsewhere = deadlines.Handlers()
    elsewhere.add("test.ok", other)
    with pytest.raises(ValueError, match="test.ok"):
        deadlines.Handlers(HANDLERS, elsewhere)
    assert deadlines.Handlers(HANDLERS, HANDLERS).of("test.ok") is _ok  # the same collection twice is fine


async def test_a_kind_the_table_has_no_handler_for_waits(db):
    RAN.clear()
    now = utcnow()
    await arm(db, "test.ok", "c", now)
    assert await deadlines.run_due(db, deadlines.Handlers(), now=now) == []
    assert RAN == []  # retried after its lease, by a bot whose table has it
    assert await deadlines.run_due(db, HANDLERS, now=now + deadlines.LEASE + timedelta(seconds=1)) == ["c"]
