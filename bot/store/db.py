"""Engine and session setup for SQLite (aiosqlite) and PostgreSQL (asyncpg).

Services open one short transaction per user action:

    async with db.write() as session:   # BEGIN IMMEDIATE on SQLite
        ...

`db.read()` opens a deferred (read) transaction. Sessions never stay open across a Discord call.

The bot bounds every wait for the database (`write_wait`): when the database is locked or
unreachable for longer, the transaction fails with an error `bot.store.outage.is_database_outage`
recognises, so a user hears "try again" within Discord's 3-second interaction window.

A write use case can leave notices for after its commit (`notify_after_commit`): the outbox
announces the messages it queued, so the process sends them at once, and the deadlines announce
the earliest time they armed, so the sweeper wakes in time. Nothing is announced on rollback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from bot.store.outage import DatabaseUnavailable

SQLITE_BUSY_TIMEOUT_MS = 30_000
_WRITE_OPTION = "bot_write_transaction"
_NOTICES = "after_commit_notices"
log = logging.getLogger(__name__)


def notify_after_commit(session: AsyncSession, topic: str, *items: object) -> None:
    """Hand `items` to the listener of `topic` once this write transaction has committed."""
    session.info[_NOTICES][topic].extend(items)


def _prepare_sqlite_file(url: str) -> None:
    """Create the directory of a file database so the first run just works."""
    database = make_url(url).database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)


def _install_sqlite_pragmas(engine: AsyncEngine, *, foreign_keys: bool, busy_timeout_ms: int) -> None:
    sync_engine = engine.sync_engine

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin (so BEGIN IMMEDIATE works).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection) -> None:
        # A write transaction takes the write lock up front: no deadlock-prone lock upgrades
        # and no SQLITE_BUSY in the middle of a use case.
        if connection.get_execution_options().get(_WRITE_OPTION):
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.exec_driver_sql("BEGIN")


class Database:
    def __init__(
        self, url: str, *, echo: bool = False, sqlite_foreign_keys: bool = True, write_wait: float | None = None
    ) -> None:
        """`sqlite_foreign_keys=False` is for migrations only: SQLite rebuilds a table to alter it,
        and dropping the old copy with foreign keys on would cascade-delete its child rows.

        `write_wait`: the most seconds a transaction waits for the database: on SQLite half of it
        for this process's turn to write and half in SQLite's busy wait (another process holding
        the file), on PostgreSQL for a connection (connecting, or from the pool). None (tools,
        benchmarks, tests) waits as long as it takes."""
        self.url = url
        self.backend = "postgresql" if url.startswith("postgresql") else "sqlite"
        self.write_wait = write_wait
        kwargs: dict = {"echo": echo}
        if self.backend == "sqlite":
            _prepare_sqlite_file(url)
            busy_timeout_ms = SQLITE_BUSY_TIMEOUT_MS if write_wait is None else int(write_wait * 500)
            kwargs["connect_args"] = {"timeout": busy_timeout_ms / 1000}
        else:
            kwargs.update(pool_size=10, max_overflow=20, pool_pre_ping=True)
            if write_wait is not None:
                kwargs.update(pool_timeout=write_wait, connect_args={"timeout": write_wait})
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        if self.backend == "sqlite":
            _install_sqlite_pragmas(self.engine, foreign_keys=sqlite_foreign_keys, busy_timeout_ms=busy_timeout_ms)
        write_engine = self.engine.execution_options(**{_WRITE_OPTION: True})
        self._read = async_sessionmaker(self.engine, expire_on_commit=False)
        self._write = async_sessionmaker(write_engine, expire_on_commit=False)
        # SQLite has one writer at a time. Queueing writers here, in FIFO order, is far cheaper than
        # letting them spin in SQLite's busy handler (which sleeps up to 100 ms per retry).
        self._sqlite_write_lock = asyncio.Lock() if self.backend == "sqlite" else None
        self._listeners: dict[str, Callable[[list], None]] = {}

    def listen(self, topic: str, listener: Callable[[list], None]) -> None:
        """`listener(items)` runs after each commit that left notices of `topic` (it must not block)."""
        self._listeners[topic] = listener

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """One write transaction: committed on success, rolled back on any exception."""
        async with self._unreachable_is_unavailable(), self._turn_to_write(), self._write() as session:
            session.info[_NOTICES] = defaultdict(list)
            async with session.begin():
                yield session
            notices = session.info.pop(_NOTICES)
        self._announce(notices)

    @contextlib.asynccontextmanager
    async def _turn_to_write(self) -> AsyncIterator[None]:
        """This process's turn to write on SQLite, in FIFO order (bounded by half of `write_wait`)."""
        lock = self._sqlite_write_lock
        if lock is None:
            yield
            return
        if self.write_wait is None:
            await lock.acquire()
        else:
            try:
                await asyncio.wait_for(lock.acquire(), self.write_wait / 2)
            except TimeoutError:
                raise DatabaseUnavailable("no turn to write to the database in time") from None
        try:
            yield
        finally:
            lock.release()

    @contextlib.asynccontextmanager
    async def _unreachable_is_unavailable(self) -> AsyncIterator[None]:
        """asyncpg raises OSError or TimeoutError, unwrapped, when it can't reach the server."""
        try:
            yield
        except (OSError, TimeoutError) as error:
            if self.backend != "postgresql":
                raise
            raise DatabaseUnavailable(f"the database server can't be reached: {error}") from error

    def _announce(self, notices: dict[str, list]) -> None:
        for topic, items in notices.items():
            listener = self._listeners.get(topic)
            if listener is not None and items:
                try:
                    listener(items)
                except Exception:  # the commit stands; the sweeper catches up with what was missed
                    log.exception("after-commit listener for %s failed", topic)

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        async with self._unreachable_is_unavailable(), self._read() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()
