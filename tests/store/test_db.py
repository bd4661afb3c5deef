"""The store's SQLite setup (WAL, foreign keys, BEGIN IMMEDIATE) and basic behaviour on both backends."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from bot.store.db import Database, notify_after_commit
from bot.store.models import Season


@pytest.fixture
async def sqlite_db(tmp_path):
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'nested' / 'dir' / 'bot.sqlite3'}")
    yield database
    await database.dispose()


async def test_sqlite_file_and_directory_are_created(sqlite_db, tmp_path):
    async with sqlite_db.read() as session:
        await session.execute(text("select 1"))
    assert (tmp_path / "nested" / "dir" / "bot.sqlite3").exists()


async def test_sqlite_pragmas(sqlite_db):
    async with sqlite_db.read() as session:
        assert (await session.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await session.execute(text("PRAGMA foreign_keys"))).scalar() == 1
        assert (await session.execute(text("PRAGMA busy_timeout"))).scalar() >= 1000


async def test_write_transactions_take_the_lock_up_front(tmp_path):
    """Two writers that both read then write never lose an update (BEGIN IMMEDIATE serialises them)."""
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'c.sqlite3'}")
    try:
        async with database.write() as session:
            await session.execute(text("create table counter (n integer)"))
            await session.execute(text("insert into counter values (0)"))

        async def increment() -> None:
            async with database.write() as session:
                value = (await session.execute(text("select n from counter"))).scalar()
                await asyncio.sleep(0)  # let the other writer try to interleave
                await session.execute(text("update counter set n = :n"), {"n": value + 1})

        await asyncio.gather(*(increment() for _ in range(20)))
        async with database.read() as session:
            assert (await session.execute(text("select n from counter"))).scalar() == 20
    finally:
        await database.dispose()


async def test_failed_write_rolls_back(db):
    with pytest.raises(RuntimeError):
        async with db.write() as session:
            session.add(Season(guild_id=1, name="s1", name_key="s1"))
            await session.flush()
            raise RuntimeError("boom")
    async with db.read() as session:
        assert (await session.execute(text("select count(*) from seasons"))).scalar() == 0


async def test_a_rehearsal_raises_what_the_use_case_would_and_changes_nothing(db):
    """Writes and writer jobs inside a rehearsal run, then roll back; no after-commit notice is
    announced; the same use case after the rehearsal commits as usual."""
    announced: list = []
    db.listen("test-topic", announced.extend)

    async def use_case(name: str) -> None:
        async with db.write() as session:
            session.add(Season(guild_id=1, name=name, name_key=name))
            await session.flush()
            notify_after_commit(session, "test-topic", name)
            if (await session.execute(text("select count(*) from seasons"))).scalar() > 1:
                raise ValueError("only one season")

    async def job(session) -> None:
        session.add(Season(guild_id=2, name="job", name_key="job"))
        notify_after_commit(session, "test-topic", "job")

    async with db.rehearsal():
        await use_case("s1")
        await db.transact(job)
    async with db.read() as session:
        assert (await session.execute(text("select count(*) from seasons"))).scalar() == 0
    assert announced == []

    await use_case("s1")
    assert announced == ["s1"]
    with pytest.raises(ValueError, match="only one season"):
        async with db.rehearsal():
            await use_case("s2")
    async with db.read() as session:
        assert (await session.execute(text("select name from seasons"))).scalars().all() == ["s1"]
