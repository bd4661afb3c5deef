"""Group commit: write use cases run whole by one writer, several in one database transaction.

A use case handed to `Database.transact` is a job, `async def job(session) -> result`. The writer
takes every job queued at that moment (up to `MAX_BATCH`) and runs them one after the other in one
transaction, then commits once. Only after that commit does any caller get its result (or its
job's exception): nothing is answered before the change that caused it is on disk. A job that
raises is rolled back alone (`run_batch`): if it wrote nothing, there is nothing to undo; if it
did, the batch runs again with a SAVEPOINT per job (two statements a job, which the common case
saves); if the COMMIT itself fails, each job runs again alone.

In time (`Database(write_wait=…)`): a job's caller waits at most `budget` seconds (the bot's
`write_wait`) for its job to be taken into a batch; if it is not, the caller gives up with
`DatabaseUnavailable` and the job never runs (nothing commits after its user heard "nothing was
changed"). A batch taken waits for the database (SQLite's turn and busy wait) only until its oldest
job's time is up, and a batch that failed because the database is unavailable is not run again job
by job (each would wait again while holding the write turn): every job of it fails at once, as
"busy". Once a job is taken its caller waits for its outcome, which those bounds keep in time.

Why: a pick is a few small statements. Through aiosqlite every statement costs several round trips
to the driver's thread, and every transaction its own BEGIN and COMMIT; run whole by the writer,
a batch of picks costs one hand-over to the writer and back, and one commit.

- **SQLite**: the writer is a thread of its own (`WriterThread`) that owns a plain (sync) SQLite
  connection. A job there gets an `InlineSession`: the few `AsyncSession` methods jobs use, each
  running the sync `Session`'s at once, in that thread. A job's statements make no thread hops
  and skip the asyncio adapter layers, which cost more than SQLite itself (a prepared one-row
  statement: about 1.5 us in sqlite3, 30 us through a sync Session, 90 us through an
  AsyncSession). Batches and `Database.write()` share the one SQLite write lock, in FIFO order
  (a batch holds it while it runs).
- **PostgreSQL**: asyncpg is asynchronous already; batches run on the caller's event loop, in
  lanes (`Database.transact`'s `key`), each with a connection of its own. A job that loses a
  deadlock (another lane or process locking the same rows in the opposite order) is rolled back,
  which frees its locks, and runs again in the next batch.

A job must use only its session (on SQLite it runs on the writer's thread, and must not wait on
anything else), and may run more than once (see above), so it must not have side effects outside
the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Engine, event, exc
from sqlalchemy.engine import Connection, RootTransaction
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession
from sqlalchemy.orm import Session

from bot.store.outage import DatabaseUnavailable, is_database_outage

T = TypeVar("T")
Job = Callable[[AsyncSession], Awaitable[Any]]
THREAD_NAME = "sqlite-writer"
MAX_BATCH = 64  # jobs per transaction: bounds how long one batch holds the write lock
MAX_RETRIES = 3  # runs of a job that keeps losing deadlocks
RETRY_SQLSTATES = {"40P01", "40001"}  # deadlock detected, serialization failure
BUSY_TIMEOUT = "writer_busy_timeout_ms"  # connection.info: the SQLite busy timeout set on it
MIN_WAIT = 0.05  # seconds: the least a batch waits for the database (its turn, SQLite's lock)
log = logging.getLogger(__name__)


class InlineSession:
    """The `AsyncSession` methods jobs use, over a sync `Session` in the writer's thread: each one
    runs at once (nothing there waits on another thread). Results are the same `Result` objects."""

    def __init__(self, sync_session: Session) -> None:
        self.sync_session = sync_session
        self._connection: Connection | None = None

    def connection_now(self) -> Connection:
        """The connection under this session's transaction (begun, or its savepoint taken, on first use)."""
        if self._connection is None:
            self._connection = self.sync_session.connection()
        return self._connection

    @property
    def info(self) -> dict:
        return self.sync_session.info

    async def execute(self, statement, params=None, **kwargs):
        return self.sync_session.execute(statement, params, **kwargs)

    async def scalar(self, statement, params=None, **kwargs):
        return self.sync_session.scalar(statement, params, **kwargs)

    async def scalars(self, statement, params=None, **kwargs):
        return self.sync_session.scalars(statement, params, **kwargs)

    async def get(self, entity, ident, **kwargs):
        return self.sync_session.get(entity, ident, **kwargs)

    def add(self, instance) -> None:
        self.sync_session.add(instance)

    def add_all(self, instances) -> None:
        self.sync_session.add_all(instances)

    async def delete(self, instance) -> None:
        self.sync_session.delete(instance)

    async def flush(self) -> None:
        self.sync_session.flush()

    async def refresh(self, instance, attribute_names=None) -> None:
        self.sync_session.refresh(instance, attribute_names)

    async def merge(self, instance, **kwargs):
        return self.sync_session.merge(instance, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # What AsyncSession offers synchronously (in_transaction, expire, expunge, no_autoflush, new,
        # dirty, ...) is the sync Session's own. An async method missing above fails loudly: its
        # result is not awaitable.
        return getattr(self.sync_session, name)

    async def close(self) -> None:
        self.sync_session.close()

    async def commit(self) -> None:
        self.sync_session.commit()

    def begin(self) -> _SessionBegin:
        return _SessionBegin(self.sync_session)

    def begin_nested(self) -> _SessionBegin:
        return _SessionBegin(self.sync_session, nested=True)


class _SessionBegin:
    """`await session.begin()` or `async with session.begin():` (or `begin_nested()`, a
    SAVEPOINT), as AsyncSession allows."""

    def __init__(self, sync_session: Session, *, nested: bool = False) -> None:
        self._transaction = sync_session.begin_nested() if nested else sync_session.begin()

    def __await__(self):
        return self._started().__await__()

    async def _started(self) -> _SessionBegin:
        return self

    async def __aenter__(self) -> _SessionBegin:
        return self

    async def __aexit__(self, error_type, error, traceback) -> None:
        self._transaction.__exit__(error_type, error, traceback)


class _InlineTransaction:
    def __init__(self, transaction: RootTransaction) -> None:
        self._transaction = transaction

    @property
    def is_active(self) -> bool:
        return self._transaction.is_active

    async def commit(self) -> None:
        self._transaction.commit()

    async def rollback(self) -> None:
        self._transaction.rollback()

    async def __aenter__(self) -> _InlineTransaction:
        return self

    async def __aexit__(self, error_type, error, traceback) -> None:
        if error is None and self.is_active:
            await self.commit()
        elif self.is_active:
            await self.rollback()


class _InlineConnection:
    """The `AsyncConnection` methods `run_batch` uses, over the writer's sync connection."""

    def __init__(self, sync_connection: Connection) -> None:
        self.sync_connection = sync_connection

    def begin(self) -> _Begin:
        return _Begin(self.sync_connection)

    async def invalidate(self) -> None:
        self.sync_connection.invalidate()

    def set_busy_timeout(self, milliseconds: int) -> None:
        """SQLite's wait for another process's lock, on the driver's connection (outside any
        transaction: SQLAlchemy would begin one for a statement of its own)."""
        info = self.sync_connection.info
        if info.get(BUSY_TIMEOUT) != milliseconds:  # a PRAGMA only when it changes: under a lock
            self.sync_connection.connection.driver_connection.execute(f"PRAGMA busy_timeout={int(milliseconds)}")
            info[BUSY_TIMEOUT] = milliseconds

    def session(self, join_transaction_mode: str) -> InlineSession:
        return InlineSession(Session(bind=self.sync_connection, join_transaction_mode=join_transaction_mode,
                                     expire_on_commit=False))


class _Begin:
    """`await connection.begin()` or `async with connection.begin():`, as AsyncConnection allows."""

    def __init__(self, sync_connection: Connection) -> None:
        self._sync_connection = sync_connection
        self._transaction: _InlineTransaction | None = None

    def __await__(self):
        return self._start().__await__()

    async def _start(self) -> _InlineTransaction:
        self._transaction = _InlineTransaction(self._sync_connection.begin())
        return self._transaction

    async def __aenter__(self) -> _InlineTransaction:
        return await self._start()

    async def __aexit__(self, error_type, error, traceback) -> None:
        assert self._transaction is not None
        await self._transaction.__aexit__(error_type, error, traceback)


class InlineEngine:
    """The writer's sync engine behind the `AsyncEngine.connect()` that `run_batch` uses."""

    def __init__(self, sync_engine: Engine) -> None:
        self.sync_engine = sync_engine

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[_InlineConnection]:
        with self.sync_engine.connect() as connection:
            yield _InlineConnection(connection)

    async def dispose(self) -> None:
        self.sync_engine.dispose()


def _session(connection: AsyncConnection | _InlineConnection, join_transaction_mode: str) -> AsyncSession:
    if isinstance(connection, _InlineConnection):
        return connection.session(join_transaction_mode)  # type: ignore[return-value]
    return AsyncSession(bind=connection, join_transaction_mode=join_transaction_mode, expire_on_commit=False)


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None
    retry: bool = False  # lost a deadlock: run it again in the next batch


def _is_retryable(error: BaseException) -> bool:
    if not isinstance(error, exc.DBAPIError):
        return False
    original = error.orig
    code = getattr(original, "sqlstate", None) or getattr(getattr(original, "__cause__", None), "sqlstate", None)
    return code in RETRY_SQLSTATES


WRITES = "writer_writes"  # connection.info: statements that changed data (see `count_writes`)


def count_writes(sync_engine: Engine) -> None:
    """Count, per connection, the statements that may have changed data: a batch must know whether
    a job that failed wrote anything before it failed."""

    @event.listens_for(sync_engine, "before_cursor_execute")
    def _count(connection, cursor, statement, parameters, context, executemany) -> None:
        if not statement.lstrip()[:6].upper() == "SELECT":
            connection.info[WRITES] = connection.info.get(WRITES, 0) + 1


def seconds_left(deadline: float | None) -> float | None:
    """Seconds until `deadline` (a `time.monotonic()`; None: no deadline), never below `MIN_WAIT`."""
    return None if deadline is None else max(deadline - time.monotonic(), MIN_WAIT)


def _unavailable(error: BaseException) -> bool:
    """The database could not be reached or was locked (asyncpg's refusals come unwrapped)."""
    return is_database_outage(error) or isinstance(error, OSError | TimeoutError)


def _too_late() -> Outcome:
    return Outcome(error=DatabaseUnavailable("the database did not take this change in time"))


async def run_batch(engine: AsyncEngine | InlineEngine, jobs: list[Job], *, deadline: float | None = None,
                    busy_timeout_ms: int | None = None) -> list[Outcome]:
    """Run `jobs` in one transaction and commit once. They run one after the other with no
    savepoints first (two statements fewer per job); if one fails after it wrote something, that
    transaction is rolled back and the batch runs again, each job in a savepoint of its own (jobs
    are pure database work, so running one again is safe). If the transaction fails as a whole
    (its COMMIT: a deferred constraint), each job runs again alone, so only the one that caused it
    fails. Raises if a lone job's transaction fails, or if the database is unavailable: then the
    batch is not run again job by job, each job waiting for the database anew; only once, whole,
    if its connection had died (a server restarted since its last batch) and `deadline` (a
    `time.monotonic()`) allows. `busy_timeout_ms`: SQLite's wait for another process's lock, for
    this batch (the writer's own connection)."""
    for first in (True, False):
        try:
            return await _run_once(engine, jobs, busy_timeout_ms)
        except Exception as error:
            if _unavailable(error):
                dead = getattr(error, "connection_invalidated", False) or isinstance(error, exc.InterfaceError)
                if first and dead and (deadline is None or time.monotonic() < deadline):
                    continue  # on a new connection
                raise
            if len(jobs) == 1:
                raise
            log.warning("a group commit of %d jobs failed (%s); each runs alone", len(jobs), type(error).__name__)
            break
    return [_too_late() if deadline is not None and time.monotonic() >= deadline
            else await _alone(engine, job, busy_timeout_ms) for job in jobs]


async def _alone(engine: AsyncEngine | InlineEngine, job: Job, busy_timeout_ms: int | None) -> Outcome:
    try:
        (outcome,) = await _run_once(engine, [job], busy_timeout_ms)
    except Exception as error:
        return Outcome(error=error, retry=_is_retryable(error))
    return outcome


async def _run_once(engine: AsyncEngine | InlineEngine, jobs: list[Job], busy_timeout_ms: int | None) -> list[Outcome]:
    async with engine.connect() as connection:
        try:
            if busy_timeout_ms is not None and isinstance(connection, _InlineConnection):
                connection.set_busy_timeout(busy_timeout_ms)
            outcomes = await _run_together(connection, jobs)
            if outcomes is None:
                outcomes = []
                async with connection.begin():
                    for job in jobs:
                        outcomes.append(await _run_in_savepoint(connection, job))
            return outcomes
        except BaseException:
            # Whatever state a failed COMMIT left the transaction in (SQLite keeps it open), it
            # goes with the connection: the next batch gets a fresh one.
            await connection.invalidate()
            raise


async def _run_together(connection: AsyncConnection, jobs: list[Job]) -> list[Outcome] | None:
    """The batch with no savepoints; None if a job failed after writing (nothing committed)."""
    transaction = await connection.begin()
    info = connection.sync_connection.info
    outcomes = []
    for job in jobs:
        writes = info.get(WRITES, 0)
        # rollback_only: the session joins the batch's transaction; its commit only flushes, and
        # closing it leaves the batch alone.
        session = _session(connection, "rollback_only")
        try:
            await session.begin()
            value = await job(session)
            await session.commit()
        except Exception as error:
            await session.close()
            if _unavailable(error):  # the whole batch's: its connection died, or the database is locked
                raise
            if info.get(WRITES, 0) == writes and not isinstance(error, exc.DBAPIError):
                outcomes.append(Outcome(error=error))  # failed before writing anything: nothing to undo
                continue
            if transaction.is_active:
                await transaction.rollback()
            if len(jobs) == 1:
                return [Outcome(error=error, retry=_is_retryable(error))]
            return None
        await session.close()
        outcomes.append(Outcome(value))
    await transaction.commit()
    return outcomes


async def _run_in_savepoint(connection: AsyncConnection, job: Job) -> Outcome:
    session = _session(connection, "create_savepoint")
    try:
        async with session.begin():  # released on success, rolled back to on an exception
            value = await job(session)
    except Exception as error:
        return Outcome(error=error, retry=_is_retryable(error))
    finally:
        await session.close()
    return Outcome(value)


class WriterThread:
    """A thread with its own event loop, where SQLite batches run (see the module's docstring)."""

    def __init__(self, name: str = THREAD_NAME) -> None:
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()
        self._ready.wait()

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on the writer's loop; the caller's loop waits without blocking."""
        assert self._loop is not None
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self._loop))

    async def stop(self) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.get_running_loop().run_in_executor(None, self._thread.join)


@dataclass
class Stats:
    batches: int = 0  # transactions the writer ran (batches run again after a failure count once)
    jobs: int = 0  # jobs in them (a job run again after a deadlock counts again)

    def __add__(self, other: Stats) -> Stats:
        return Stats(self.batches + other.batches, self.jobs + other.jobs)


@dataclass(eq=False)
class _Queued:
    job: Job
    future: asyncio.Future
    deadline: float | None  # time.monotonic() by which it must be taken into a batch (None: no bound)
    runs: int = 1
    taken: bool = False  # in a batch now: its caller waits for the outcome


def _give_up(item: _Queued) -> None:
    """The caller's time is up: a job not taken into a batch yet never runs, and its caller hears
    that nothing was changed; a job running now is answered by its batch (whose waits are bounded)."""
    if not item.taken and not item.future.done():
        item.future.set_exception(_too_late().error)


class GroupCommit:
    """Queues jobs on the caller's event loop and hands them to `execute(jobs, deadline)` in
    batches, one batch at a time, in FIFO order. `turn(deadline)` (SQLite's write lock, taken within
    a bounded wait) is held while a batch runs; if it can't be had, the batch's jobs fail with its
    error. `budget`: seconds a caller waits for its job to be taken into a batch (None: as long as
    it takes); the batch's `deadline` is its oldest job's."""

    def __init__(self, execute: Callable[[list[Job], float | None], Awaitable[list[Outcome]]],
                 turn: Callable[[float | None], contextlib.AbstractAsyncContextManager[None]] | None,
                 budget: float | None = None) -> None:
        self._execute = execute
        self._turn = turn
        self._budget = budget
        self._queue: deque[_Queued] = deque()
        self._draining: asyncio.Task | None = None
        self.stats = Stats()

    async def submit(self, job: Job) -> Any:
        loop = asyncio.get_running_loop()
        item = _Queued(job, loop.create_future(), None if self._budget is None else time.monotonic() + self._budget)
        self._queue.append(item)
        if self._draining is None or self._draining.done():
            self._draining = loop.create_task(self._drain(), name="group-commit")
        if self._budget is None:
            return await item.future
        timer = loop.call_later(self._budget, _give_up, item)
        try:
            return await item.future
        finally:
            timer.cancel()

    async def _drain(self) -> None:
        while self._queue:
            batch: list[_Queued] = []
            now = time.monotonic()
            while self._queue and len(batch) < MAX_BATCH:
                item = self._queue.popleft()
                if item.future.done():  # its caller gave up before it started
                    continue
                if item.deadline is not None and now >= item.deadline:  # too late to start (e.g. a retry)
                    item.future.set_exception(_too_late().error)
                    continue
                item.taken = True
                batch.append(item)
            if batch:
                await self._run(batch)

    async def _run(self, batch: list[_Queued]) -> None:
        deadlines = [item.deadline for item in batch if item.deadline is not None]
        deadline = min(deadlines) if deadlines else None
        try:
            async with self._turn(deadline) if self._turn is not None else contextlib.nullcontext():
                self.stats.batches += 1
                self.stats.jobs += len(batch)
                outcomes = await self._execute([item.job for item in batch], deadline)
        except Exception as error:  # the transaction failed: no job's changes stand
            outcomes = [Outcome(error=error, retry=_is_retryable(error)) for _ in batch]
        retries = []
        for item, outcome in zip(batch, outcomes, strict=True):
            item.taken = False
            if outcome.retry and item.runs < MAX_RETRIES:
                item.runs += 1
                retries.append(item)
            elif item.future.done():
                continue
            elif outcome.error is not None:
                item.future.set_exception(outcome.error)
            else:
                item.future.set_result(outcome.value)
        self._queue.extendleft(reversed(retries))

    async def idle(self) -> None:
        """Wait until every queued job has been answered (shutdown)."""
        while self._draining is not None and not self._draining.done():
            await asyncio.shield(self._draining)
