"""Shared fixtures: a migrated database on a real SQLite file and on a real PostgreSQL server.

PostgreSQL: TEST_POSTGRES_URL (default postgresql+asyncpg://postgres@127.0.0.1:5432/test) names an
admin connection; every test gets its own fresh database created from it and dropped afterwards.
Without a reachable server the PostgreSQL variants are skipped (and the summary says so), except
under CI=true, where they fail.

Migrating is done once per test session and per backend, into a template (`ScratchDatabases`): a test
that needs a migrated database (`db`, the e2e bot's) gets a copy of it (SQLite: a file copy;
PostgreSQL: `CREATE DATABASE … TEMPLATE`). `db_url` alone is an empty database: the migration tests
(`tests/store/test_migrations.py`) migrate from empty. A PostgreSQL template is named per session
(`bot_template_<random>`), accepts no connection once migrated (a template must have none while it
is copied), and is dropped when the session ends, so test sessions of several engineers on one
server never clash. The next copy is made ahead and databases are dropped in the background (a
DROP DATABASE waits ~1 s for the server's checkpoint), all before the session ends.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import os
import shutil
import sqlite3
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from bot.store.db import Database
from bot.store.migrate import upgrade
from tests import browser as browsers
from tests.browser import browser  # noqa: F401 - headless Chromium, shared by the session
from tests.common import guild, organizer_fixture, players  # noqa: F401 - fixtures every test may take

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


def _database_url(admin: str, name: str) -> str:
    return make_url(admin).set(database=name).render_as_string(hide_password=False)


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


async def _admin_execute(url: str, *statements: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(_asyncpg_dsn(url))
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


def _test_database_settings(name: str) -> list[str]:
    """A test database's own settings (not copied from a template, so set on each copy): a commit
    returns without waiting for the server's disk flush. What a test sees is the same: a commit is
    visible to every connection at once either way, and only a crash of the server itself could
    lose one (the outage tests crash a private server of their own). It spares the flush, 1-2 ms
    per commit on this machine, across hundreds of tests."""
    return [f'ALTER DATABASE "{name}" SET synchronous_commit = off']


class ScratchDatabases:
    """The session's migrated templates, its next PostgreSQL copy, and its databases still to drop.

    This work runs on a background thread with an event loop of its own (each test module has its
    own loop; the templates outlive them), so a test doesn't wait for it: a template is built on
    first use; a copy of the PostgreSQL template is made ahead while the previous test runs; a drop
    (which waits ~1 s for the server's checkpoint) runs after the test. `close()`, at the end of the
    session, waits for every drop and drops the spare copy and the templates."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._templates: dict[tuple[str, str], concurrent.futures.Future[str]] = {}
        self._spares: dict[str, concurrent.futures.Future[str]] = {}  # admin URL -> the next copy
        self._drops: list[concurrent.futures.Future[None]] = []
        self._template_dir: Path | None = None
        self._lock = threading.Lock()

    def _submit(self, coroutine: Coroutine[Any, Any, Any]) -> concurrent.futures.Future:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="scratch-databases", daemon=True)
            self._thread.start()
            atexit.register(self.close)  # for a script using these outside a test session
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def _template_future(self, kind: str, admin: str = "") -> concurrent.futures.Future[str]:
        with self._lock:
            key = (kind, admin)
            if key not in self._templates:
                build = self._build_sqlite() if kind == "sqlite" else self._build_postgres(admin)
                self._templates[key] = self._submit(build)
            return self._templates[key]

    async def template(self, kind: str, admin: str = "") -> str:
        """The migrated template of `kind`: a SQLite file's path, or a PostgreSQL database's name."""
        return await asyncio.wrap_future(self._template_future(kind, admin))

    async def postgres_copy(self, admin: str) -> str:
        """The name of a new PostgreSQL database copied from the migrated template."""
        with self._lock:
            copy = self._spares.pop(admin, None) or self._submit(self._copy(admin))
            self._spares[admin] = self._submit(self._copy(admin))  # the next test's
        return await asyncio.wrap_future(copy)

    async def _copy(self, admin: str) -> str:
        template = await asyncio.wrap_future(self._template_future("postgresql", admin))
        name = f"bot_test_{uuid.uuid4().hex[:12]}"
        await _admin_execute(admin, f'CREATE DATABASE "{name}" TEMPLATE "{template}"', *_test_database_settings(name))
        return name

    async def _build_sqlite(self) -> str:
        self._template_dir = Path(tempfile.mkdtemp(prefix="bot-template-"))
        path = self._template_dir / "template.sqlite3"
        database = Database(f"sqlite+aiosqlite:///{path}")
        try:
            await upgrade(database)
        finally:
            await database.dispose()
        # Every connection is closed, so the write-ahead log is folded into the file; make sure.
        with contextlib.closing(sqlite3.connect(path)) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return str(path)

    async def _build_postgres(self, admin: str) -> str:
        name = f"bot_template_{uuid.uuid4().hex[:12]}"
        await _admin_execute(admin, f'CREATE DATABASE "{name}"')
        database = Database(_database_url(admin, name))
        try:
            await upgrade(database)
        finally:
            await database.dispose()
        # A template must have no connection open while it is copied: refuse new ones, end any left.
        await _admin_execute(
            admin,
            f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false',
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'",
        )
        return name

    def drop_later(self, admin: str, name: str) -> None:
        self._drops.append(self._submit(_admin_execute(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')))

    def close(self) -> list[BaseException]:
        """Wait for every drop; drop the spare copies and the templates; the errors met on the way."""
        if self._loop is None:
            return []
        for admin, spare in self._spares.items():
            if spare.exception() is None:
                self.drop_later(admin, spare.result())
        for (kind, admin), template in self._templates.items():
            if kind == "postgresql" and template.exception() is None:
                self.drop_later(admin, template.result())  # no copy is being made from it any more
        errors = [drop.exception() for drop in self._drops if drop.exception() is not None]
        errors += [future.exception() for future in [*self._spares.values(), *self._templates.values()]
                   if future.exception() is not None]
        self._loop.call_soon_threadsafe(self._loop.stop)
        assert self._thread is not None
        self._thread.join()
        self._loop.close()
        if self._template_dir is not None:
            shutil.rmtree(self._template_dir, ignore_errors=True)
        self._reset()
        atexit.unregister(self.close)
        return errors


SCRATCH = ScratchDatabases()


async def create_scratch_database(kind: str, tmp_path, *, migrated: bool = False) -> AsyncIterator[str]:
    """Yield the URL of a new database of `kind`, empty or (`migrated`) at head; removed afterwards."""
    if kind == "sqlite":
        path = Path(tmp_path) / "bot.sqlite3"
        if migrated:
            shutil.copyfile(await SCRATCH.template("sqlite"), path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    admin = await require_postgres()
    if migrated:
        name = await SCRATCH.postgres_copy(admin)
    else:
        name = f"bot_test_{uuid.uuid4().hex[:12]}"
        await _admin_execute(admin, f'CREATE DATABASE "{name}"', *_test_database_settings(name))
    try:
        yield _database_url(admin, name)
    finally:
        SCRATCH.drop_later(admin, name)


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
    """A new database's URL, on SQLite and on PostgreSQL: empty, unless the test also takes `db`
    (then it is `db`'s database, migrated to head)."""
    migrated = "db" in request.fixturenames
    async for url in create_scratch_database(request.param, tmp_path, migrated=migrated):
        yield url


@pytest.fixture
async def db(db_url) -> AsyncIterator[Database]:
    """A database migrated to head (a copy of the session's migrated template), on SQLite and on
    PostgreSQL."""
    database = Database(db_url)
    try:
        yield database
    finally:
        await database.dispose()


# ---------------------------------------------------------------------------------- scheduling
#
# pytest-xdist's `--dist loadscope` hands each worker a whole module at a time, the next one as soon
# as it is done. So the run ends together on every worker only if the long modules go first and the
# short ones fill the end: pytest-xdist's own order (most tests first) put one-test e2e modules of
# half a minute (the kill -9 endurance test) last. Its reordering is off (`--no-loadscope-reorder`
# in pyproject.toml) and the modules are sorted here by an estimate of their cost, the same in every
# worker (so their collections agree).

E2E_TEST_COST = 5.0  # seconds, roughly: a bot process, a fake Discord, a flow through both
ENDURANCE_TEST_COST = 30.0  # tests/e2e/test_endurance_*.py: a whole draft with kills or outages
BROWSER_TEST_COST = 5.0
POSTGRES_TEST_COST = 0.4  # a database copied from the template and dropped, a server round trip per statement
TEST_COST = 0.05


def estimated_cost(item: pytest.Item) -> float:
    """A rough guess of `item`'s seconds, only to order the modules (long ones first)."""
    if item.nodeid.startswith("tests/e2e/test_endurance_"):
        return ENDURANCE_TEST_COST
    if item.nodeid.startswith("tests/e2e/"):
        return E2E_TEST_COST
    if "browser" in getattr(item, "fixturenames", ()):
        return BROWSER_TEST_COST
    if item.get_closest_marker("postgres") is not None:
        return POSTGRES_TEST_COST
    return TEST_COST


def pytest_collection_modifyitems(config, items) -> None:
    """The modules longest first (a stable sort: a module's tests keep their order)."""
    module_cost: dict[str, float] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        module_cost[module] = module_cost.get(module, 0.0) + estimated_cost(item)
    items.sort(key=lambda item: -module_cost[item.nodeid.split("::", 1)[0]])


def pytest_runtest_logreport(report) -> None:
    # With pytest-xdist this runs in the controller for every worker's report: the summary counts all.
    if report.skipped and isinstance(report.longrepr, tuple) and "browser tests skipped: " in report.longrepr[2]:
        reason = report.longrepr[2].split("browser tests skipped: ", 1)[1]
        if reason not in browsers.not_run:
            browsers.not_run.append(reason)
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
    if browsers.not_run:
        terminalreporter.write_sep("=", f"Browser tests skipped: {browsers.not_run[0]}")
    for error in _cleanup_errors:
        terminalreporter.write_line(f"could not drop a test database: {type(error).__name__}: {error}", red=True)


_cleanup_errors: list[BaseException] = []


def pytest_sessionfinish(session, exitstatus) -> None:
    _cleanup_errors.extend(SCRATCH.close())
    # CI must prove the PostgreSQL path, not quietly skip it (judged where every report arrives:
    # pytest-xdist's controller, or the only process).
    is_worker = hasattr(session.config, "workerinput")
    if IN_CI and not is_worker and session.testscollected and _pg_results["passed"] == 0 and exitstatus == 0:
        session.exitstatus = 1


@pytest.fixture(autouse=True, scope="session")
def _hooks_connected():
    """The formats' hooks with the followers they declare, as the bot connects them when it starts
    (a service test completing a draft opens its Goldfish event as the bot would)."""
    import bot.games
    from bot.kit.formats import connect_hooks

    assert connect_hooks(bot.games.formats()) == []
