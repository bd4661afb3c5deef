"""Prepared statements (`bot.store.prepared`) store and read exactly what SQLAlchemy does, in a
writer job (sqlite3 on the writer's thread, asyncpg) and in an ordinary transaction (aiosqlite),
on SQLite and PostgreSQL; and a job's session offers the AsyncSession methods services use."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import bindparam, insert, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from bot.store.db import Database
from bot.store.models import OutboxMessage, Season
from bot.store.prepared import Prepared

OUTBOX = OutboxMessage.__table__
COLUMNS = ("kind", "guild_id", "channel_id", "user_id", "payload", "status", "attempts", "next_attempt_at", "created_at")
INSERT = Prepared(insert(OUTBOX).values({c: bindparam(c) for c in COLUMNS}).returning(OUTBOX.c.id))
READ = Prepared(select(OUTBOX.c.payload, OUTBOX.c.created_at, OUTBOX.c.attempts).where(OUTBOX.c.id == bindparam("id")))
WHEN = datetime(2024, 2, 29, 23, 59, 58, 123456, tzinfo=UTC)
PAYLOAD = {"cards": ["Æther Vial", "Lim-Dûl's Vault"], "n": 3, "nested": {"ok": True, "none": None}}


def row(user_id: int) -> dict:
    return {"kind": "test.kind", "guild_id": 1, "channel_id": None, "user_id": user_id, "payload": PAYLOAD,
            "status": "sent", "attempts": 2, "next_attempt_at": WHEN, "created_at": WHEN}


async def test_what_a_prepared_insert_stores_reads_back_as_the_orm_reads_it(db):
    async def job(session):
        return await INSERT.scalar(session, row(7))

    written_id = await db.transact(job)
    async with db.read() as session:
        stored = await session.get(OutboxMessage, written_id)
        assert (stored.payload, stored.created_at, stored.attempts, stored.user_id) == (PAYLOAD, WHEN, 2, 7)

    async def read(session):
        return await READ.rows(session, {"id": written_id})

    assert await db.transact(read) == [(PAYLOAD, WHEN, 2)]
    async with db.write() as session:  # an ordinary transaction (aiosqlite on SQLite): the same rows
        assert await READ.rows(session, {"id": written_id}) == [(PAYLOAD, WHEN, 2)]
        other_id = await INSERT.scalar(session, row(8))
    async with db.read() as session:
        assert (await session.get(OutboxMessage, other_id)).payload == PAYLOAD


async def test_a_failed_prepared_statement_raises_dbapi_error_and_only_its_job_fails(db):
    async def duplicate(session):
        first = await INSERT.scalar(session, row(1))
        await Prepared(insert(OUTBOX).values(id=bindparam("id"), **{c: bindparam(c) for c in COLUMNS})).run(
            session, {"id": first, **row(1)})

    async def fine(session):
        return await INSERT.scalar(session, row(2))

    results = await asyncio.gather(db.transact(fine), db.transact(duplicate), db.transact(fine), return_exceptions=True)
    assert isinstance(results[1], DBAPIError) and results[1].orig is not None
    async with db.read() as session:
        users = (await session.execute(select(OutboxMessage.user_id).order_by(OutboxMessage.id))).scalars().all()
    assert users == [2, 2]  # the failed job's first row went with it


async def test_a_job_uses_its_session_as_services_use_an_async_session(db):
    async def job(session):
        assert session.in_transaction()
        session.add(Season(guild_id=1, name="S1", name_key="s1"))
        await session.flush()
        found = await session.scalar(select(Season).where(Season.name_key == "s1"))
        again = await session.get(Season, found.id)
        names = (await session.scalars(select(Season.name))).all()
        await session.execute(text("update seasons set name = 'S2' where id = :id"), {"id": found.id})
        await session.refresh(again)
        gone = Season(guild_id=1, name="S3", name_key="s3")
        session.add(gone)
        await session.flush()
        await session.delete(gone)
        return found.id, names, again.name

    season_id, names, renamed = await db.transact(job)
    assert names == ["S1"] and renamed == "S2"
    async with db.read() as session:
        assert (await session.execute(select(Season.id, Season.name))).all() == [(season_id, "S2")]


async def test_a_job_may_catch_a_failed_insert_in_a_savepoint(db):
    """As `_show_on_pack_message` does when another process records the same message at once: the
    failed insert is rolled back to its savepoint and the job (and its batch) goes on."""
    async with db.write() as session:
        session.add(Season(guild_id=1, name="S1", name_key="s1"))

    async def job(session):
        try:
            async with session.begin_nested():
                session.add(Season(guild_id=1, name="again", name_key="s1"))  # unique (guild_id, name_key)
        except IntegrityError:
            pass
        session.add(Season(guild_id=1, name="S2", name_key="s2"))
        return "done"

    async def other(session):
        session.add(Season(guild_id=1, name="S3", name_key="s3"))

    assert await asyncio.gather(db.transact(job), db.transact(other)) == ["done", None]
    async with db.read() as session:
        assert sorted((await session.execute(select(Season.name))).scalars().all()) == ["S1", "S2", "S3"]


@pytest.mark.parametrize("count", [1, 3])
async def test_a_job_that_raises_leaves_its_orm_changes_out(db, count):
    async def bad(session):
        session.add(Season(guild_id=1, name="bad", name_key="bad"))
        await session.flush()
        raise ValueError("no")

    def good(number: int):
        async def job(session):
            session.add(Season(guild_id=1, name="good", name_key=f"good{number}"))

        return job

    jobs = [bad] + [good(n) for n in range(count - 1)]
    results = await asyncio.gather(*(db.transact(job) for job in jobs), return_exceptions=True)
    assert isinstance(results[0], ValueError) and results[1:] == [None] * (count - 1)
    async with db.read() as session:
        assert (await session.execute(select(Season.name))).scalars().all() == ["good"] * (count - 1)


async def test_the_writer_is_reused_after_dispose_and_a_second_database(db_url):
    """Two Database objects on one file each have their writer; they take turns at SQLite's lock."""
    first, second = Database(db_url), Database(db_url)
    try:
        async with first.write() as session:
            await session.execute(text("create table t (id integer primary key)"))

        def insert_job(value: int):
            async def job(session):
                await session.execute(text("insert into t values (:v)"), {"v": value})

            return job

        await asyncio.gather(*(db.transact(insert_job(v)) for db, v in ((first, 1), (second, 2), (first, 3))))
        async with second.read() as session:
            assert (await session.execute(text("select id from t order by id"))).scalars().all() == [1, 2, 3]
    finally:
        await first.dispose()
        await second.dispose()
