"""When the database is not there: telling an outage from a bug, and waiting one out.

An outage is the database refusing or dropping connections (PostgreSQL stopped, restarting, or not
accepting connections), or the SQLite file locked by another process for longer than the bot waits
(`Database(write_wait=…)`). Nothing the user did is wrong then and trying again later works:
interactions answer "try again in a moment" (`bot.kit.reporting`), background work retries
(`retry_while_unavailable`). Anything else (a constraint, a missing table, a bug) is not an outage.

An outage is one episode in the log (`OutageWatch`): one warning line when the first operation
meets it, one when the database answers again (how long it lasted, how many interactions were
answered "busy"), and nothing in between; listeners then catch up at once (messages owed, the
sweeper), rather than at the end of their leases or pauses.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy import exc

log = logging.getLogger(__name__)
T = TypeVar("T")

# PostgreSQL SQLSTATEs of a server that cannot serve now: connection exceptions (08…), out of
# connections or resources (53…), shutting down or starting up (57P01-57P03), and a database not
# accepting connections (55000 with ALLOW_CONNECTIONS false; asyncpg reports it when connecting).
_PG_OUTAGE_STATES = ("08", "53", "57P01", "57P02", "57P03")
_PG_NOT_ACCEPTING = ("55000", "not currently accepting connections")
# SQLite's words for a file another process holds (or that can't be reached right now).
_SQLITE_OUTAGE_WORDS = ("database is locked", "database is busy", "unable to open database", "disk i/o error")
# Errors that are about the data or the SQL, never about reaching the database.
_NOT_OUTAGES = (exc.IntegrityError, exc.DataError, exc.ProgrammingError)

# The bot's bound on any wait for the database (`Database(write_wait=…)`): a user hears "try again"
# well within the 3 seconds Discord gives an interaction.
BOT_WRITE_WAIT = 2.0
FIRST_PAUSE = 0.25  # seconds before the first retry; each pause doubles …
MAX_PAUSE = 5.0  # … up to this
PROBE_EVERY = 0.5  # seconds between two checks of whether the database is back
# Seconds without a failure before a success ends an outage: a connection that outlived it (a
# PostgreSQL server refusing new connections) does not end it while the others still fail.
QUIET_BEFORE_BACK = 2 * PROBE_EVERY


class DatabaseUnavailable(Exception):
    """The database did not answer in time, or could not be reached; nothing was changed."""


def is_database_outage(error: BaseException) -> bool:
    """Is `error` the database being unreachable or locked (try again later), not a bug?"""
    if isinstance(error, DatabaseUnavailable | exc.TimeoutError):  # TimeoutError: no pooled connection in time
        return True
    if not isinstance(error, exc.DBAPIError) or isinstance(error, _NOT_OUTAGES):
        return False
    if error.connection_invalidated or isinstance(error, exc.InterfaceError):
        return True
    state = str(getattr(error.orig, "sqlstate", None) or "")
    text = str(error.orig).lower()
    if state.startswith(_PG_OUTAGE_STATES) or (state == _PG_NOT_ACCEPTING[0] and _PG_NOT_ACCEPTING[1] in text):
        return True
    return isinstance(error, exc.OperationalError) and any(word in text for word in _SQLITE_OUTAGE_WORDS)


class OutageWatch:
    """One database's outage episodes. `failed(error)` when an operation meets an outage (the
    first one starts the episode: a warning line, and a probe that checks every `PROBE_EVERY`
    seconds whether the database is back), `worked()` when one reaches the database (that ends
    the episode once no failure came for `QUIET_BEFORE_BACK` seconds: a warning line with its
    length and the interactions refused, then the `on_back` listeners), `refused()` when an
    interaction was answered "busy" for it."""

    def __init__(self, probe: Callable[[], Awaitable[None]] | None = None) -> None:
        self._probe = probe  # reaches the database or raises
        self._since: float | None = None  # time.monotonic() the episode began
        self._failed_at = 0.0  # time.monotonic() of the latest failure
        self._refused = 0
        self._back = asyncio.Event()
        self._probing: asyncio.Task | None = None
        self._listeners: list[Callable[[], None]] = []

    @property
    def down(self) -> bool:
        return self._since is not None

    def on_back(self, listener: Callable[[], None]) -> None:
        """`listener()` runs when the database answers again after an outage (it must not block)."""
        self._listeners.append(listener)

    def failed(self, error: BaseException) -> None:
        self._failed_at = time.monotonic()
        if self._since is not None:
            log.debug("database still unavailable: %s", type(error).__name__)
            return
        self._since, self._refused = time.monotonic(), 0
        self._back = asyncio.Event()
        log.warning("the database is unavailable (%s: %s); requests are answered \"busy\" until it is back",
                    type(error).__name__, _first_line(error))
        if self._probe is not None:
            with contextlib.suppress(RuntimeError):  # no running loop (a tool): no probe
                # A context of its own: not the failed operation's (inside a write transaction, say).
                self._probing = asyncio.get_running_loop().create_task(
                    self._probe_until_back(), name="database-probe", context=contextvars.Context())

    def refused(self) -> None:
        self._refused += 1

    def worked(self) -> None:
        if self._since is None or time.monotonic() - self._failed_at < QUIET_BEFORE_BACK:
            return
        lasted, refused = time.monotonic() - self._since, self._refused
        self._since = None
        log.warning("the database is back after %.1f s; %d %s answered \"busy\" meanwhile", lasted, refused,
                    "interaction was" if refused == 1 else "interactions were")
        self._back.set()
        loop = asyncio.get_running_loop()
        for listener in self._listeners:  # soon, in a context of their own (not the operation's that worked)
            loop.call_soon(_call_listener, listener, context=contextvars.Context())

    async def back(self, timeout: float) -> None:
        """Wait until the database is back (returns at once when it is not down), or `timeout` seconds."""
        if self._since is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._back.wait(), timeout)

    async def _probe_until_back(self) -> None:
        assert self._probe is not None
        while self._since is not None:
            await self.back(PROBE_EVERY)  # pausing between checks, not synchronisation
            if self._since is None:
                return
            try:
                await self._probe()  # reports its own success or failure
            except Exception as error:
                if not is_database_outage(error):
                    log.warning("checking whether the database is back failed: %s", _first_line(error))

    async def close(self) -> None:
        if self._probing is not None:
            self._probing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._probing


def _call_listener(listener: Callable[[], None]) -> None:
    try:
        listener()
    except Exception:
        log.exception("a listener for the database's return failed")


def log_failure(logger: logging.Logger, level: int, error: BaseException, message: str, *args: object) -> None:
    """Log a failed piece of work with its traceback, unless it failed for a database outage: the
    database's watch logs that once, so here it is only a DEBUG line (an outage may last a while
    and fail the same work many times)."""
    if is_database_outage(error):
        logger.debug(message + " (the database is unavailable: %s)", *args, type(error).__name__)
    else:
        logger.log(level, message, *args, exc_info=error)


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [""])[0][:200]


async def unless_unavailable(read: Awaitable[T], default: T) -> T:
    """What `read` returns, or `default` when the database is unavailable: for what an answer adds
    to a change already committed (a picture, say), which is then shown without it, never reported
    as a change that failed."""
    try:
        return await read
    except Exception as error:
        if not is_database_outage(error):
            raise
        log.debug("answering without what the database could not give (%s)", type(error).__name__)
        return default


async def retry_while_unavailable(operation: Callable[[], Awaitable[T]], *, patience: float, what: str,
                                  watch: OutageWatch | None = None) -> T:
    """Run `operation`; while the database is unavailable, run it again after growing pauses for
    about `patience` seconds, then let the last error through. Only for work no user waits on
    (an interaction has 3 seconds): each attempt must be safe to repeat (one transaction). With
    `watch` (the database's), a pause ends as soon as the database is back. The outage is logged
    by the watch (once); each retry only at DEBUG."""
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + patience
    pause = FIRST_PAUSE
    while True:
        try:
            return await operation()
        except Exception as error:
            if not is_database_outage(error) or loop.time() + pause > give_up_at:
                raise
            log.debug("database unavailable while %s (%s); trying again in %.2f s", what, type(error).__name__, pause)
        if watch is not None and watch.down:
            await watch.back(pause)  # backing off from an outage, not synchronisation
        else:
            await asyncio.sleep(pause)  # backing off from an outage, not synchronisation
        pause = min(pause * 2, MAX_PAUSE)
