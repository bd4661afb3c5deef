"""Engine and session setup for SQLite (aiosqlite) and PostgreSQL (asyncpg).

Services open one short transaction per user action:

    async with db.write() as session:   # BEGIN IMMEDIATE on SQLite
        ...

`db.read()` opens a deferred (read) transaction. Sessions never stay open across a Discord call.

The bot bounds every wait for the database (`write_wait`): when the database is locked or
unreachable for longer, the transaction fails with an error `bot.store.outage.is_database_outage`
recognises, so a user hears "try again" within Discord's 3-second interaction window. Every
operation tells the database's `outage` watch whether it reached the database, so an outage is
logged once, when it starts and when it ends (`bot.store.outage.OutageWatch`).

A hot write use case (a pick) is a job instead, run whole by the database's writer and committed
together with the other jobs queued at the same moment (`bot.store.writer`):

    result = await db.transact(job)     # async def job(session) -> result

A write use case can leave notices for after its commit (`notify_after_commit`): the outbox
announces the messages it queued, so the process sends them at once, and the deadlines announce
the earliest time they armed, so the sweeper wakes in time. Nothing is announced on rollback.

A use case can be rehearsed (`async with db.rehearsal(): await use_case(...)`): it runs exactly as
it would, raising the same refusals, but each of its write transactions is rolled back at its end
and announces nothing. A destructive command rehearses its action before it asks for confirmation.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from bot.store import writer
from bot.store.outage import DatabaseUnavailable, OutageWatch, is_database_outage

SQLITE_BUSY_TIMEOUT_MS = 30_000
# Set while a task is inside `Database.write()`: a job handed to the writer from there would wait
# for SQLite's write lock, which that task holds.
_IN_WRITE: contextvars.ContextVar[bool] = contextvars.ContextVar("in_write_transaction", default=False)
# Set inside `Database.rehearsal()`: every write transaction is rolled back instead of committed.
_REHEARSING: contextvars.ContextVar[bool] = contextvars.ContextVar("rehearsing", default=False)
POSTGRES_WRITER_LANES = 4
_WRITE_OPTION = "bot_write_transaction"
_NOTICES = "after_commit_notices"
log = logging.getLogger(__name__)
T = TypeVar("T")


def notify_after_commit(session: AsyncSession, topic: str, *items: object) -> None:
    """Hand `items` to the listener of `topic` once this write transaction has committed."""
    session.info[_NOTICES][topic].extend(items)


def _prepare_sqlite_file(url: str) -> None:
    """Create the directory of a file database so the first run just works."""
    database = make_url(url).database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)


DRIVER_STOP_WAIT = 10.0  # seconds: at most what one statement still running may take


async def driver_threads_ended(timeout: float = DRIVER_STOP_WAIT) -> None:
    """Wait, on a thread (the event loop keeps running), for aiosqlite's connection threads to end.

    aiosqlite runs each connection on a thread of its own that hands every result back to the loop.
    A task cancelled while its connection was opening (the sweeper, when the bot stops right after
    it started) leaves that connection only told to stop: its thread finishes the open and the stop
    later, and must find the loop still running, or it dies with a traceback as the process exits.
    Call it once every `Database` of the process is disposed (the bot's exit): then every such
    thread is ending. (aiosqlite offers no public handle on its threads: they are found by their
    target function.)"""
    from aiosqlite.core import _connection_worker_thread

    threads = [thread for thread in threading.enumerate()
               if getattr(thread, "_target", None) is _connection_worker_thread and thread.is_alive()]
    if threads:
        await asyncio.to_thread(_join_all, threads, timeout)


def _join_all(threads: list[threading.Thread], timeout: float) -> None:
    for thread in threads:
        thread.join(timeout)


def _install_sqlite_pragmas(
    sync_engine: Engine, *, foreign_keys: bool, busy_timeout_ms: int, synchronous: str = "NORMAL"
) -> None:
    """`synchronous`: NORMAL survives a crash of the process (WAL); FULL also a power cut (an fsync
    per commit, which the writer's group commits share)."""

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin (so BEGIN IMMEDIATE works).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection) -> None:
        # A write transaction takes the write lock up front: no deadlock-prone lock upgrades
        # and no SQLITE_BUSY in the middle of a use case.
        if connection.get_execution_options().get(_WRITE_OPTION):
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.exec_driver_sql("BEGIN")


class _Rehearsed(Exception):
    """Ends a rehearsed write transaction: rolled back, as if it had never been."""


class Database:
    def __init__(
        self, url: str, *, echo: bool = False, sqlite_foreign_keys: bool = True, write_wait: float | None = None
    ) -> None:
        """`sqlite_foreign_keys=False` is for migrations only: SQLite rebuilds a table to alter it,
        and dropping the old copy with foreign keys on would cascade-delete its child rows.

        `write_wait`: the most seconds a transaction (or a writer's batch) waits for the database:
        on SQLite half of it for this process's turn to write and half in SQLite's busy wait
        (another process holding the file), on PostgreSQL for a connection (connecting, or from the
        pool). None (tools, benchmarks, tests) waits as long as it takes."""
        self.url = url
        self.backend = "postgresql" if url.startswith("postgresql") else "sqlite"
        self.write_wait = write_wait
        self._busy_timeout_ms = SQLITE_BUSY_TIMEOUT_MS if write_wait is None else int(write_wait * 500)
        kwargs: dict = {"echo": echo}
        if self.backend == "sqlite":
            _prepare_sqlite_file(url)
            kwargs["connect_args"] = {"timeout": self._busy_timeout_ms / 1000}
        else:
            kwargs.update(pool_size=10, max_overflow=20, pool_pre_ping=True, **self._postgres_waits())
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        if self.backend == "sqlite":
            _install_sqlite_pragmas(self.engine.sync_engine, foreign_keys=sqlite_foreign_keys,
                                    busy_timeout_ms=self._busy_timeout_ms)
        writer.count_writes(self.engine.sync_engine)
        self._write_engine = self.engine.execution_options(**{_WRITE_OPTION: True})
        self._read = async_sessionmaker(self.engine, expire_on_commit=False)
        self._write = async_sessionmaker(self._write_engine, expire_on_commit=False)
        # SQLite has one writer at a time. Queueing writers here, in FIFO order, is far cheaper than
        # letting them spin in SQLite's busy handler (which sleeps up to 100 ms per retry).
        self._sqlite_write_lock = asyncio.Lock() if self.backend == "sqlite" else None
        self._listeners: dict[str, Callable[[list], None]] = {}
        # SQLite has one writer; PostgreSQL several lanes, each with a connection of its own while it
        # commits a batch, so one lane's round trips overlap the others' work.
        lanes = 1 if self.backend == "sqlite" else POSTGRES_WRITER_LANES
        turn = self._turn_to_write if self._sqlite_write_lock is not None else None
        self._lanes = [writer.GroupCommit(self._run_batch, turn, write_wait) for _ in range(lanes)]
        self._writer: writer.WriterThread | None = None  # SQLite: started by the first job
        self._writer_engine: writer.InlineEngine | None = None  # the writer thread's own connection
        # PostgreSQL: a connection per lane, kept between batches and not pinged before each one:
        # a dead connection fails its batch, which is then replaced and runs again (`writer`).
        self._lane_engine: AsyncEngine | None = None
        if self.backend == "postgresql":
            lane_engine = create_async_engine(url, echo=echo, pool_size=lanes, max_overflow=0, **self._postgres_waits())
            writer.count_writes(lane_engine.sync_engine)
            self._lane_engine = lane_engine.execution_options(**{_WRITE_OPTION: True})
        self._sqlite_foreign_keys = sqlite_foreign_keys
        database = make_url(url).database or ""
        self._sqlite_file = self.backend == "sqlite" and database not in ("", ":memory:") and not database.startswith("file:")
        self.outage = OutageWatch(self._probe)

    def _postgres_waits(self) -> dict:
        if self.write_wait is None:
            return {}
        return {"pool_timeout": self.write_wait, "connect_args": {"timeout": self.write_wait}}

    def listen(self, topic: str, listener: Callable[[list], None]) -> None:
        """`listener(items)` runs after each commit that left notices of `topic` (it must not block)."""
        self._listeners[topic] = listener

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """One write transaction: committed on success, rolled back on any exception."""
        token = _IN_WRITE.set(True)
        try:
            async with self._watched(writes=True), self._turn_to_write(), self._write() as session:
                session.info[_NOTICES] = defaultdict(list)
                try:
                    async with session.begin():
                        yield session
                        if _REHEARSING.get():
                            raise _Rehearsed
                    notices = session.info.pop(_NOTICES)
                except _Rehearsed:
                    notices = {}
        finally:
            _IN_WRITE.reset(token)
        self._announce(notices)

    @contextlib.asynccontextmanager
    async def rehearsal(self) -> AsyncIterator[None]:
        """Inside, every write transaction (and writer job) runs and is then rolled back: a use case
        raises what it would raise, and changes nothing, announces nothing."""
        token = _REHEARSING.set(True)
        try:
            yield
        finally:
            _REHEARSING.reset(token)

    @contextlib.asynccontextmanager
    async def _turn_to_write(self, deadline: float | None = None) -> AsyncIterator[None]:
        """This process's turn to write on SQLite, in FIFO order (bounded by half of `write_wait`,
        and by `deadline`, a `time.monotonic()`, for a writer's batch)."""
        lock = self._sqlite_write_lock
        if lock is None:
            yield
            return
        if self.write_wait is None:
            await lock.acquire()
        else:
            wait = self.write_wait / 2
            if deadline is not None:
                wait = min(wait, writer.seconds_left(deadline))
            try:
                await asyncio.wait_for(lock.acquire(), wait)
            except TimeoutError:
                raise DatabaseUnavailable("no turn to write to the database in time") from None
        try:
            yield
        finally:
            lock.release()

    @contextlib.asynccontextmanager
    async def _watched(self, *, writes: bool) -> AsyncIterator[None]:
        """Tell the outage watch whether the block reached the database: an outage error, or a
        block that ended well (a write; on SQLite a read proves nothing, WAL readers never wait).
        asyncpg raises OSError or TimeoutError, unwrapped, when it can't reach the server: those
        become `DatabaseUnavailable`."""
        try:
            yield
        except (OSError, TimeoutError) as error:
            if self.backend != "postgresql":
                raise
            unavailable = DatabaseUnavailable(f"the database server can't be reached: {error}")
            self.outage.failed(unavailable)
            raise unavailable from error
        except Exception as error:
            if is_database_outage(error):
                self.outage.failed(error)
            raise
        if writes or self.backend == "postgresql":
            self.outage.worked()

    async def _probe(self) -> None:
        """Reach the database the way writes do (SQLite: take its write lock), or raise."""
        async with self.write() if self.backend == "sqlite" else self.read() as session:
            await session.execute(text("SELECT 1"))

    def _announce(self, notices: dict[str, list]) -> None:
        for topic, items in notices.items():
            listener = self._listeners.get(topic)
            if listener is not None and items:
                try:
                    listener(items)
                except Exception:  # the commit stands; the sweeper catches up with what was missed
                    log.exception("after-commit listener for %s failed", topic)

    async def transact(self, job: Callable[[AsyncSession], Awaitable[T]], *, key: int = 0) -> T:
        """Run `job(session)` as a write transaction by the writer, grouped with the jobs queued at
        the same moment, and return its result once the commit holding its changes is done; its
        exception is raised here (its changes rolled back, the others' kept). Its after-commit
        notices are announced then. The job uses only its session, and may run more than once, so
        it has no effects outside the database. `key` (e.g. the pod's id): jobs with the same key
        always go to the same writer lane, so they never wait on each other's locks across lanes."""

        if _IN_WRITE.get() or threading.current_thread().name == writer.THREAD_NAME:
            raise RuntimeError("a job is handed to the writer from a use case, never from a transaction or a job")

        if _REHEARSING.get():  # not grouped with real jobs: its transaction is rolled back
            async with self.write() as session:
                return await job(session)

        async def with_notices(session: AsyncSession) -> tuple[T, dict[str, list]]:
            session.info[_NOTICES] = defaultdict(list)
            return await job(session), session.info[_NOTICES]

        async with self._watched(writes=True):
            result, notices = await self._lanes[key % len(self._lanes)].submit(with_notices)
        self._announce(notices)
        return result

    def writer_stats(self) -> writer.Stats:
        """Batches and jobs the writer has run so far (all lanes)."""
        return sum((lane.stats for lane in self._lanes), writer.Stats())

    async def _run_batch(self, jobs: list[writer.Job], deadline: float | None) -> list[writer.Outcome]:
        if self._lane_engine is not None:
            return await writer.run_batch(self._lane_engine, jobs, deadline=deadline)
        if not self._sqlite_file:
            # An in-memory SQLite database lives in its one connection, which the writer can't share.
            return await writer.run_batch(self._write_engine, jobs, deadline=deadline)
        if self._writer is None:
            self._writer = writer.WriterThread()
            # A plain sqlite3 connection, opened and used by the writer's thread only.
            engine = create_engine(make_url(self.url).set(drivername="sqlite+pysqlite"), pool_size=1, max_overflow=0,
                                   connect_args={"timeout": self._busy_timeout_ms / 1000})
            # A pick is answered only after its commit: that commit is on disk (FULL), at one fsync
            # per group of picks.
            _install_sqlite_pragmas(engine, foreign_keys=self._sqlite_foreign_keys,
                                    busy_timeout_ms=self._busy_timeout_ms, synchronous="FULL")
            writer.count_writes(engine)
            self._writer_engine = writer.InlineEngine(engine.execution_options(**{_WRITE_OPTION: True}))
        # SQLite waits for another process's lock until the batch's oldest job's time is up.
        busy = self._busy_timeout_ms
        if deadline is not None:
            busy = min(busy, int(writer.seconds_left(deadline) * 1000))
        return await self._writer.run(writer.run_batch(self._writer_engine, jobs, deadline=deadline,
                                                       busy_timeout_ms=busy))

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        async with self._watched(writes=False), self._read() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.outage.close()
        for lane in self._lanes:
            await lane.idle()
        if self._lane_engine is not None:
            await self._lane_engine.dispose()
        if self._writer is not None:
            assert self._writer_engine is not None
            await self._writer.run(self._writer_engine.dispose())  # its connection belongs to that thread
            await self._writer.stop()
            self._writer = self._writer_engine = None
        await self.engine.dispose()
