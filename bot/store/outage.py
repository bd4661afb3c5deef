"""When the database is not there: telling an outage from a bug, and waiting one out.

An outage is the database refusing or dropping connections (PostgreSQL stopped, restarting, or not
accepting connections), or the SQLite file locked by another process for longer than the bot waits
(`Database(write_wait=…)`). Nothing the user did is wrong then and trying again later works:
interactions answer "try again in a moment" (`bot.kit.reporting`), background work retries
(`retry_while_unavailable`). Anything else (a constraint, a missing table, a bug) is not an outage.
"""

from __future__ import annotations

import asyncio
import logging
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


async def retry_while_unavailable(operation: Callable[[], Awaitable[T]], *, patience: float, what: str) -> T:
    """Run `operation`; while the database is unavailable, run it again after growing pauses for
    about `patience` seconds, then let the last error through. Only for work no user waits on
    (an interaction has 3 seconds): each attempt must be safe to repeat (one transaction)."""
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + patience
    pause = FIRST_PAUSE
    while True:
        try:
            return await operation()
        except Exception as error:
            if not is_database_outage(error) or loop.time() + pause > give_up_at:
                raise
            log.warning("database unavailable while %s (%s); trying again in %.2f s",
                        what, type(error).__name__, pause)
        await asyncio.sleep(pause)  # backing off from an outage, not synchronisation
        pause = min(pause * 2, MAX_PAUSE)
