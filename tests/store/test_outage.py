"""A database outage, on a real SQLite file and a real PostgreSQL server: every wait is bounded, the
error says "outage" (not "bug"), nothing is written, and everything works again afterwards."""

from __future__ import annotations

import asyncio
import time

import pytest
from sqlalchemy import exc, insert, select, text

from bot.store.db import Database
from bot.store.models import Season
from bot.store.outage import DatabaseUnavailable, is_database_outage, retry_while_unavailable
from tests.conftest import database_outage

WAIT = 1.0  # seconds: the bound these tests give the database


@pytest.fixture
async def bounded(db):
    """A migrated database (SQLite and PostgreSQL) opened the way the bot opens it: waits bounded."""
    database = Database(db.url, write_wait=WAIT)
    try:
        yield database
    finally:
        await database.dispose()


async def seasons(database: Database) -> int:
    async with database.read() as session:
        return len((await session.execute(select(Season))).scalars().all())


async def add_season(database: Database, name: str) -> None:
    async with database.write() as session:
        session.add(Season(guild_id=1, name=name, name_key=name))


async def test_an_outage_fails_within_the_bound_changes_nothing_and_passes(bounded):
    await add_season(bounded, "before")
    async with database_outage(bounded.url):
        started = time.monotonic()
        with pytest.raises(Exception) as raised:
            await add_season(bounded, "during")
        assert time.monotonic() - started < WAIT + 0.5
        assert is_database_outage(raised.value), repr(raised.value)
        if bounded.backend == "sqlite":
            assert await seasons(bounded) == 1  # WAL: readers are not blocked by the writer holding the lock
        else:
            with pytest.raises(Exception) as refused:
                await seasons(bounded)
            assert is_database_outage(refused.value), repr(refused.value)
    await add_season(bounded, "after")  # the pool recovers by itself (pre-ping replaces dead connections)
    assert await seasons(bounded) == 2


async def test_writers_queued_in_the_process_wait_at_most_half_the_bound(tmp_path):
    """SQLite: this process's writers queue for the one write lock; the queue wait is bounded too."""
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'q.sqlite3'}", write_wait=WAIT)
    holding, release = asyncio.Event(), asyncio.Event()

    async def slow_writer() -> None:
        async with database.write() as session:
            await session.execute(text("select 1"))
            holding.set()
            await release.wait()

    try:
        task = asyncio.create_task(slow_writer())
        await holding.wait()
        started = time.monotonic()
        with pytest.raises(DatabaseUnavailable):
            async with database.write():
                pass
        assert WAIT / 2 - 0.05 < time.monotonic() - started < WAIT
        release.set()
        await task
        async with database.write() as session:  # the turn came back: the lock was not leaked
            await session.execute(text("select 1"))
    finally:
        await database.dispose()


async def test_an_unreachable_postgresql_server_is_unavailable_not_a_bug():
    """asyncpg raises ConnectionRefusedError unwrapped; the bot must still call it an outage."""
    database = Database("postgresql+asyncpg://postgres@127.0.0.1:9/nowhere", write_wait=WAIT)
    try:
        for block in (database.read, database.write):
            with pytest.raises(DatabaseUnavailable) as raised:
                async with block() as session:
                    await session.execute(text("select 1"))
            assert is_database_outage(raised.value)
    finally:
        await database.dispose()


async def test_data_and_sql_errors_are_bugs_not_outages(db):
    await add_season(db, "one")
    with pytest.raises(exc.IntegrityError) as duplicate:
        async with db.write() as session:
            await session.execute(insert(Season).values(guild_id=1, name="one", name_key="one"))
    assert not is_database_outage(duplicate.value)
    with pytest.raises(exc.DBAPIError) as missing:
        async with db.read() as session:
            await session.execute(text("select * from no_such_table"))
    assert not is_database_outage(missing.value)
    assert not is_database_outage(ValueError("database is locked"))


async def test_retry_while_unavailable_waits_out_an_outage_only():
    calls = []

    async def flaky() -> str:
        calls.append(time.monotonic())
        if len(calls) < 3:
            raise DatabaseUnavailable("down")
        return "done"

    assert await retry_while_unavailable(flaky, patience=5, what="testing") == "done"
    assert len(calls) == 3 and calls[2] - calls[1] > calls[1] - calls[0]  # the pauses grow

    async def broken() -> None:
        calls.append(0)
        raise ValueError("a bug")

    calls.clear()
    with pytest.raises(ValueError):
        await retry_while_unavailable(broken, patience=5, what="testing")
    assert calls == [0]  # a bug is not retried

    async def down() -> None:
        raise DatabaseUnavailable("still down")

    started = time.monotonic()
    with pytest.raises(DatabaseUnavailable):
        await retry_while_unavailable(down, patience=0.5, what="testing")
    assert time.monotonic() - started < 1.0


async def test_jobs_queued_while_another_process_locks_sqlite_are_refused_in_time_and_never_commit(tmp_path):
    """Another connection holds SQLite's write lock: clicks queued together, and more while the
    first batch waits, are each refused within the bound (a batch that failed for the lock is not
    run again job by job, each waiting anew), and none of them commits once the lock is gone."""
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'lock.sqlite3'}", write_wait=WAIT)
    answered: list[float] = []

    def insert_item(name: str):
        async def job(session):
            await session.execute(text("insert into item (name) values (:name)"), {"name": name})
            return name
        return job

    async def committed() -> list[str]:
        async with database.read() as session:
            return list((await session.execute(text("select name from item order by id"))).scalars())

    async def click(name: str) -> BaseException | None:
        started = time.monotonic()
        try:
            await database.transact(insert_item(name))
        except Exception as error:  # the outcome is checked below
            return error
        finally:
            answered.append(time.monotonic() - started)
        return None

    try:
        async with database.write() as session:
            await session.execute(text("create table item (id integer primary key, name varchar(20))"))
        async with database_outage(database.url):
            first = [asyncio.create_task(click(f"first {i}")) for i in range(4)]
            await asyncio.sleep(WAIT / 4)  # more clicks arrive while the first batch waits for the lock
            later = [asyncio.create_task(click(f"later {i}")) for i in range(4)]
            errors = await asyncio.gather(*first, *later)
        assert all(error is not None and is_database_outage(error) for error in errors), errors
        assert max(answered) < WAIT + 0.3, answered  # was about one more second per queued job
        await database.transact(insert_item("after"))  # anything left queued would have committed before this
        assert await committed() == ["after"]
    finally:
        await database.dispose()


async def test_an_outage_is_one_warning_line_when_it_starts_and_one_when_it_ends(bounded, caplog):
    await add_season(bounded, "before")
    caplog.set_level("DEBUG", logger="bot.store")
    async with database_outage(bounded.url):
        for attempt in range(3):
            with pytest.raises(Exception) as raised:
                await add_season(bounded, f"during {attempt}")
            assert is_database_outage(raised.value)
            bounded.outage.refused()  # as an interaction answered "busy" counts it
        assert bounded.outage.down
    await asyncio.wait_for(bounded.outage.back(10), 11)  # the watch's probe finds it back by itself
    assert not bounded.outage.down
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 2, warnings
    assert warnings[0].startswith("the database is unavailable")
    assert warnings[1].startswith("the database is back after") and "3 interactions were answered" in warnings[1]
    assert not any(record.exc_info for record in caplog.records)
    await add_season(bounded, "after")
    assert await seasons(bounded) == 2


async def test_a_lane_whose_connection_died_runs_its_next_batch_on_a_new_one(bounded):
    """PostgreSQL ends every connection (a restart): the writer's first batch after it just works."""

    async def one(session):
        return (await session.execute(text("select 1"))).scalar_one()

    assert await bounded.transact(one) == 1
    async with database_outage(bounded.url):
        pass
    assert await bounded.transact(one) == 1


# PostgreSQL only: on SQLite a batch's waits are all bounded (the turn, the busy wait).
@pytest.mark.parametrize("db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True)
async def test_a_job_queued_behind_a_stuck_batch_is_refused_in_time_and_never_runs(bounded):
    """PostgreSQL: a batch waits on a row another connection holds. A job queued behind it on the
    same lane is refused once its time is up (its user hears "nothing was changed"), and does not
    run when the lane moves again."""
    await add_season(bounded, "held")
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold_the_row() -> None:
        async with bounded.write() as session:
            await session.execute(text("SELECT id FROM seasons WHERE name = 'held' FOR UPDATE"))
            holding.set()
            await release.wait()

    def rename(to: str):
        async def job(session):
            await session.execute(text("UPDATE seasons SET name_key = :to WHERE name = 'held'"), {"to": to})
        return job

    async def add(name: str):
        async def job(session):
            session.add(Season(guild_id=1, name=name, name_key=name))
        return job

    holder = asyncio.create_task(hold_the_row())
    await holding.wait()
    stuck = asyncio.create_task(bounded.transact(rename("stuck")))  # taken into a batch: waits on the row
    for _ in range(500):  # until that batch waits on the row (at most 10 s)
        async with bounded.read() as session:
            if (await session.execute(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    " AND datname = current_database()"))).scalar_one():
                break
        await asyncio.sleep(0.02)  # polling a bounded wait
    else:
        pytest.fail("the batch never waited on the row")
    started = time.monotonic()
    with pytest.raises(DatabaseUnavailable):
        await bounded.transact(await add("behind"))
    assert time.monotonic() - started < WAIT + 0.3
    release.set()
    await holder
    await stuck  # the batch that was running commits: its caller was waiting for it
    await add_season(bounded, "after")
    async with bounded.read() as session:
        names = set((await session.execute(text("SELECT name FROM seasons"))).scalars())
    assert names == {"held", "after"}  # "behind" never ran


async def test_listeners_of_the_return_run_outside_the_operation_that_saw_it(bounded):
    """The return is often seen by a write transaction (on SQLite, the watch's own probe): what a
    listener starts then (the outbox sending owed messages, recorded by the writer) is not inside it."""
    recorded: list[int] = []
    done = asyncio.Event()

    async def one(session):
        return (await session.execute(text("select 1"))).scalar_one()

    async def record() -> None:
        try:
            recorded.append(await bounded.transact(one))
        finally:
            done.set()

    bounded.outage.on_back(lambda: asyncio.get_running_loop().create_task(record()))
    async with database_outage(bounded.url):
        with pytest.raises(Exception) as raised:
            await add_season(bounded, "during")
        assert is_database_outage(raised.value)
    await asyncio.wait_for(bounded.outage.back(10), 11)
    await asyncio.wait_for(done.wait(), 10)
    assert recorded == [1]
