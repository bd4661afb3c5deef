"""The hottest statements (those of a pick), compiled once and run on the session's own driver
connection.

SQLAlchemy compiles a statement once and caches it, but every execution still builds an execution
context, processes parameters and results through several layers, and, behind `AsyncSession`, hops
through greenlets and the driver adapter: 30-150 us per statement, several times what SQLite or a
local PostgreSQL takes to run a pick's statements. A `Prepared` statement is compiled by SQLAlchemy
(for each dialect it meets), converts its parameters and results with the column types' own
processors (so the stored values are exactly those SQLAlchemy would store), and runs them on the
DBAPI/driver connection that the session's transaction already holds: sqlite3 in the SQLite writer's
thread, asyncpg on PostgreSQL.

The statement runs in the session's transaction (its savepoint, when the writer uses one), and
counts as a write for the writer (`writer.WRITES`) unless it is a SELECT. Driver errors are raised
as SQLAlchemy's `DBAPIError`, with the driver's exception as `orig`. Elsewhere (an aiosqlite session
outside the writer) it runs through `session.execute`, with the same results.

Only plain statements qualify: every inserted column is given (no Python-side defaults run here),
no ORM entities. Everything else goes through `session.execute`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import exc
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql import Executable

from bot.store import writer

_DRIVER = "prepared_driver"  # session.info: the session's connection, and its asyncpg connection


@dataclass(frozen=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # the bound parameters, in the order the driver takes them
    binds: tuple[Any, ...]  # a bind processor (or None) per parameter
    results: tuple[tuple[int, Any], ...]  # (column index, result processor) of the columns that have one
    is_select: bool


class Prepared:
    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def _compile(self, dialect: Dialect) -> _Compiled:
        found = self._compiled.get(dialect.name)
        if found is None:
            compiled = self.statement.compile(dialect=dialect)
            names = tuple(compiled.positiontup or ())
            binds = tuple(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names)
            columns = getattr(self.statement, "exported_columns", ())
            processors = (column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns)
            results = tuple((index, process) for index, process in enumerate(processors) if process is not None)
            is_select = compiled.string.lstrip()[:6].upper() == "SELECT"
            found = self._compiled[dialect.name] = _Compiled(compiled.string, names, binds, results, is_select)
        return found

    async def rows(self, session: AsyncSession | writer.InlineSession, params: dict[str, Any]) -> list[tuple]:
        """Run it and return the result rows, processed (an empty list for a statement without)."""
        if isinstance(session, writer.InlineSession):
            connection = session.connection_now()
            compiled = self._compile(connection.dialect)
            args = _arguments(compiled, params)
            _count_write(connection.info, compiled)
            try:
                raw = connection.connection.driver_connection.execute(compiled.sql, args).fetchall()
            except Exception as error:
                raise _wrapped(compiled, args, error) from error
        else:
            held = session.info.get(_DRIVER)
            if held is None:
                connection = await session.connection()
                driver = None
                if connection.dialect.driver == "asyncpg":
                    driver = (await connection.get_raw_connection()).driver_connection
                held = session.info[_DRIVER] = (connection, driver)
            connection, driver = held
            if driver is None or not driver.is_in_transaction():
                # aiosqlite (outside the writer), or an asyncpg transaction the adapter has not begun
                # yet (it begins with its first statement): SQLAlchemy's own way.
                result = await session.execute(self.statement, params)
                return [tuple(row) for row in result] if result.returns_rows else []
            compiled = self._compile(connection.dialect)
            args = _arguments(compiled, params)
            _count_write(connection.sync_connection.info, compiled)
            try:
                raw = await driver.fetch(compiled.sql, *args)
            except Exception as error:
                raise _wrapped(compiled, args, error) from error
        if not compiled.results:
            return [tuple(row) for row in raw]
        rows = []
        for row in raw:
            values = list(row)
            for index, process in compiled.results:
                values[index] = process(values[index])
            rows.append(tuple(values))
        return rows

    async def run(self, session: AsyncSession | writer.InlineSession, params: dict[str, Any]) -> None:
        await self.rows(session, params)

    async def scalar(self, session: AsyncSession | writer.InlineSession, params: dict[str, Any]) -> Any:
        (row,) = await self.rows(session, params)
        return row[0]


def _arguments(compiled: _Compiled, params: dict[str, Any]) -> list[Any]:
    return [
        params[name] if process is None else process(params[name])
        for name, process in zip(compiled.names, compiled.binds, strict=True)
    ]


def _count_write(info: dict, compiled: _Compiled) -> None:
    if not compiled.is_select:
        info[writer.WRITES] = info.get(writer.WRITES, 0) + 1


def _wrapped(compiled: _Compiled, args: list[Any], error: Exception) -> exc.DBAPIError:
    return exc.DBAPIError(compiled.sql, args, error)
