"""Shared fixtures: a migrated database on a real SQLite file and on a real PostgreSQL server.

PostgreSQL: TEST_POSTGRES_URL (default postgresql+asyncpg://postgres@127.0.0.1:5432/test) names an
admin connection; every test gets its own fresh database created from it and dropped afterwards.
Without a reachable server the PostgreSQL variants are skipped (and the summary says so), except
under CI=true, where they fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import uuid
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.engine import make_url

from bot.store.db import Database
from bot.store.migrate import upgrade

DEFAULT_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

_pg_results = {"passed": 0, "failed": 0, "skipped": 0}
_pg_reachable: dict[str, str | None] = {}


def postgres_admin_url() -> str:
    return os.environ.get("TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


def _asyncpg_dsn(url: str, database: str | None = None) -> str:
    parsed = make_url(url).set(drivername="postgresql")
    if database is not None:
        parsed = parsed.set(database=database)
    return parsed.render_as_string(hide_password=False)


async def _probe_postgres(url: str) -> str | None:
    import asyncpg

    try:
        connection = await asyncio.wait_for(asyncpg.connect(_asyncpg_dsn(url)), timeout=5)
    except (TimeoutError, OSError, asyncpg.PostgresError) as error:
        return f"{type(error).__name__}: {error}"
    await connection.close()
    return None


async def require_postgres() -> str:
    """The admin URL, or skip (fail under CI) when no server answers."""
    url = postgres_admin_url()
    if url not in _pg_reachable:
        _pg_reachable[url] = await _probe_postgres(url)
    problem = _pg_reachable[url]
    if problem is not None:
        message = f"PostgreSQL not reachable at {url} ({problem}); set TEST_POSTGRES_URL"
        if IN_CI:
            pytest.fail(f"CI=true requires PostgreSQL: {message}")
        pytest.skip(message)
    return url


async def _admin_execute(url: str, statement: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(_asyncpg_dsn(url))
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


async def create_scratch_database(kind: str, tmp_path) -> AsyncIterator[str]:
    """Yield the URL of a new empty database of `kind`; it is removed afterwards."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
        return
    admin = await require_postgres()
    name = f"bot_test_{uuid.uuid4().hex[:12]}"
    await _admin_execute(admin, f'CREATE DATABASE "{name}"')
    try:
        yield make_url(admin).set(database=name).render_as_string(hide_password=False)
    finally:
        await _admin_execute(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.asynccontextmanager
async def database_outage(url: str) -> AsyncIterator[None]:
    """The database at `url` is unavailable until the block ends. SQLite: another connection holds
    the write lock (`BEGIN EXCLUSIVE`; in WAL mode readers still read). PostgreSQL: the database
    refuses new connections and every open one (the bot's pool included) is ended."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        holder = sqlite3.connect(parsed.database, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            await asyncio.to_thread(holder.execute, "BEGIN EXCLUSIVE")  # waits out a write in progress
            try:
                yield
            finally:
                await asyncio.to_thread(holder.execute, "ROLLBACK")
        finally:
            holder.close()
        return
    admin, name = postgres_admin_url(), parsed.database
    await _admin_execute(admin, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
    try:
        await _admin_execute(
            admin, f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}' AND pid <> pg_backend_pid()"
        )
        yield
    finally:
        await _admin_execute(admin, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
async def db_url(request, tmp_path) -> AsyncIterator[str]:
    async for url in create_scratch_database(request.param, tmp_path):
        yield url


@pytest.fixture
async def db(db_url) -> AsyncIterator[Database]:
    """A database migrated to head, on SQLite and on PostgreSQL."""
    database = Database(db_url)
    await upgrade(database)
    try:
        yield database
    finally:
        await database.dispose()


def pytest_runtest_logreport(report) -> None:
    if "postgres" not in report.keywords:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        _pg_results[report.outcome] += 1


def pytest_terminal_summary(terminalreporter) -> None:
    counts = _pg_results
    line = f"PostgreSQL tests: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
    if counts["skipped"] and not IN_CI:
        line += " (no PostgreSQL server reachable: set TEST_POSTGRES_URL to run them)"
    terminalreporter.write_sep("=", line)


def pytest_sessionfinish(session, exitstatus) -> None:
    # CI must prove the PostgreSQL path, not quietly skip it.
    if IN_CI and session.testscollected and _pg_results["passed"] == 0 and exitstatus == 0:
        session.exitstatus = 1
