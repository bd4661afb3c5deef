"""The group-commit writer (`Database.transact`) on a real SQLite file and a real PostgreSQL server:
jobs queued together commit together, a job that fails is rolled back alone (before or after it
wrote, or when its change makes the whole COMMIT fail), nobody is answered before the commit that
holds their change, and on PostgreSQL a job that loses a deadlock runs again."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import text

from bot.store.db import Database
from tests.conftest import create_scratch_database

WAIT = 10  # seconds any wait in these tests may take, at most


async def make_tables(db: Database) -> None:
    async with db.write() as session:
        await session.execute(text("create table item (id integer primary key, note varchar(20))"))
        await session.execute(text("create table parent (id integer primary key)"))
        await session.execute(text(
            "create table child (id integer primary key,"
            " parent_id integer references parent(id) deferrable initially deferred)"
        ))


def insert(item_id: int, *, then=None):
    """A job that inserts item `item_id` (then calls `then(session)`, which may fail) and returns the id."""

    async def job(session):
        await session.execute(text("insert into item (id, note) values (:id, 'x')"), {"id": item_id})
        if then is not None:
            await then(session)
        return item_id

    return job


async def items(db: Database) -> list[int]:
    """What a fresh connection sees committed (a Database of its own, not the writer's)."""
    reader = Database(db.url)
    try:
        async with reader.read() as session:
            return list((await session.execute(text("select id from item order by id"))).scalars())
    finally:
        await reader.dispose()


async def test_jobs_queued_together_commit_in_one_transaction(db):
    await make_tables(db)
    before = db.writer_stats()
    results = await asyncio.gather(*(db.transact(insert(i)) for i in range(1, 21)))
    assert results == list(range(1, 21))
    assert await items(db) == list(range(1, 21))
    ran = db.writer_stats()
    assert (ran.batches - before.batches, ran.jobs - before.jobs) == (1, 20)


async def test_a_job_that_fails_before_writing_changes_nothing_for_the_others(db):
    await make_tables(db)

    async def refuse(session):
        raise ValueError("no")

    results = await asyncio.gather(db.transact(insert(1)), db.transact(refuse), db.transact(insert(2)),
                                   return_exceptions=True)
    assert results[0] == 1 and isinstance(results[1], ValueError) and results[2] == 2
    assert await items(db) == [1, 2]


async def test_a_job_that_fails_after_writing_is_rolled_back_alone(db):
    await make_tables(db)

    async def fail(session):
        raise ValueError("after a write")

    results = await asyncio.gather(db.transact(insert(1)), db.transact(insert(2, then=fail)), db.transact(insert(3)),
                                   return_exceptions=True)
    assert results[0] == 1 and isinstance(results[1], ValueError) and results[2] == 3
    assert await items(db) == [1, 3]


async def test_a_statement_that_fails_is_rolled_back_alone(db):
    await make_tables(db)
    results = await asyncio.gather(db.transact(insert(1)), db.transact(insert(1)), db.transact(insert(2)),
                                   return_exceptions=True)
    assert results[0] == 1 and "item" in str(results[1]).lower() and results[2] == 2  # a duplicate key
    assert await items(db) == [1, 2]


async def test_a_commit_that_fails_fails_only_the_job_that_caused_it(db):
    """A deferred constraint fails at COMMIT, for the whole transaction: each job then runs alone."""
    await make_tables(db)

    async def orphan(session):
        await session.execute(text("insert into child (id, parent_id) values (1, 999)"))

    results = await asyncio.gather(db.transact(insert(1)), db.transact(insert(2, then=orphan)), db.transact(insert(3)),
                                   return_exceptions=True)
    assert results[0] == 1 and isinstance(results[1], Exception) and results[2] == 3
    assert await items(db) == [1, 3]
    assert await db.transact(insert(4)) == 4  # the writer works on afterwards
    assert await items(db) == [1, 3, 4]


async def test_nobody_is_answered_before_the_commit(db):
    """A batch is held open after its first job wrote: neither caller has an answer and no other
    connection sees either row; once it commits, both are answered and both rows are there."""
    await make_tables(db)
    wrote, release = threading.Event(), threading.Event()
    loop = asyncio.get_running_loop()
    gate = asyncio.Event()

    async def hold(session):
        wrote.set()
        if db.backend == "sqlite":  # the job runs on the writer's thread
            release.wait(WAIT)
        else:  # on the caller's event loop
            await asyncio.wait_for(gate.wait(), WAIT)

    first = asyncio.create_task(db.transact(insert(1, then=hold)))
    second = asyncio.create_task(db.transact(insert(2)))
    assert await loop.run_in_executor(None, wrote.wait, WAIT)
    assert not first.done() and not second.done()
    assert await items(db) == []
    release.set()
    gate.set()
    assert await asyncio.wait_for(asyncio.gather(first, second), WAIT) == [1, 2]
    assert await items(db) == [1, 2]


async def test_notices_are_announced_after_the_commit_and_only_for_jobs_that_stand(db):
    from bot.store.db import notify_after_commit

    await make_tables(db)
    announced: list = []
    db.listen("test.topic", announced.extend)

    def noting(item_id: int, *, fail: bool = False):
        async def job(session):
            await session.execute(text("insert into item (id, note) values (:id, 'x')"), {"id": item_id})
            notify_after_commit(session, "test.topic", item_id)
            if fail:
                raise ValueError("rolled back")
            return item_id

        return job

    results = await asyncio.gather(db.transact(noting(1)), db.transact(noting(2, fail=True)), db.transact(noting(3)),
                                   return_exceptions=True)
    assert isinstance(results[1], ValueError)
    assert sorted(announced) == [1, 3]


async def test_a_job_is_never_handed_over_from_inside_a_write_transaction(db):
    """On SQLite that would wait for the write lock its own caller holds."""
    await make_tables(db)
    with pytest.raises(RuntimeError, match="never from a transaction"):
        async with db.write():
            await db.transact(insert(1))
    assert await items(db) == []


@pytest.mark.postgres
async def test_a_job_that_loses_a_deadlock_runs_again(tmp_path):
    """Two lanes lock two rows in opposite orders: PostgreSQL aborts one statement, whose job is
    rolled back (freeing its locks) and runs again; both callers get their results. (SQLite has
    one writer: its jobs never wait on each other's locks.)"""
    async for url in create_scratch_database("postgresql", tmp_path):
        await _deadlock_between_lanes(Database(url))


async def _deadlock_between_lanes(db: Database) -> None:
    try:
        async with db.write() as session:
            await session.execute(text("create table lock_me (id integer primary key, n integer)"))
            await session.execute(text("insert into lock_me values (1, 0), (2, 0)"))
        first_locked, second_locked = asyncio.Event(), asyncio.Event()

        def crossing(mine: int, theirs: int, locked: asyncio.Event, other: asyncio.Event):
            async def job(session):
                await session.execute(text("update lock_me set n = n + 1 where id = :id"), {"id": mine})
                locked.set()
                await asyncio.wait_for(other.wait(), WAIT)
                await session.execute(text("update lock_me set n = n + 1 where id = :id"), {"id": theirs})
                return mine

            return job

        before = db.writer_stats()
        results = await asyncio.wait_for(asyncio.gather(
            db.transact(crossing(1, 2, first_locked, second_locked), key=0),
            db.transact(crossing(2, 1, second_locked, first_locked), key=1),
        ), 3 * WAIT)
        assert results == [1, 2]
        async with db.read() as session:
            assert (await session.execute(text("select n from lock_me order by id"))).scalars().all() == [2, 2]
        assert db.writer_stats().jobs - before.jobs == 3  # the loser ran twice
    finally:
        await db.dispose()


async def test_on_sqlite_the_writer_commits_to_disk(tmp_path):
    """synchronous=FULL on the writer's connection (a power cut loses no answered pick); WAL,
    foreign keys and the busy timeout as on every connection. (PostgreSQL flushes its WAL at
    every commit already.)"""
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'w.sqlite3'}")

    async def pragmas(session):
        return [(await session.execute(text(f"PRAGMA {name}"))).scalar()
                for name in ("synchronous", "journal_mode", "foreign_keys", "busy_timeout")]

    try:
        assert await db.transact(pragmas) == [2, "wal", 1, 30_000]
    finally:
        await db.dispose()
