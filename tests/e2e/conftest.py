"""End-to-end fixtures: the fake Discord (a server with an admin, an organizer role and players)
and the real bot process connected to it, on a fresh copy of the migrated database (SQLite, or
PostgreSQL with `backend="postgresql"`).

**Shared bot processes.** Starting a bot costs a few hundredths of a second of CPU (forked from the
worker's prefork server, `tests/e2e/prefork.py`) but a fresh fake Discord, world and database too,
and the bot's startup work (migration check, command sync, resends), so the tests of a module share
one bot process and one fake Discord where that can't change what a test sees:

- A test shares when it takes `bot` (directly or through a fixture) but never names `bot` in its
  body, nor does any fixture that takes `bot`: it needs a bot running and talks to it only through
  the fake Discord. Every other test that takes `bot` gets its own process, exactly as before; a
  test that kills, restarts or stops the bot, or opens its database (`bot.database_url`), names it
  and so always has its own; so does a test that takes `tmp_path` (the bot's working directory).
  `@pytest.mark.own_bot` gives a test its own process anyway; a module that overrides `fake`,
  `bot` or `world` never shares.
- Each sharing test gets a world of its own on the shared fake (`world`: a new server, channels,
  role and users whose ids no other test uses, see `World.numbered`), and the fake's REST and
  gateway logs, injected errors and held requests start empty (`FakeDiscord.forget_history`): the
  test sees no message, table or call of another test, nor the calls the bot made at its start
  (a test about the start names `bot` or is marked `own_bot`). Ids a test adds to the fake itself
  (another server, say) should be `world`'s moved by less than 10⁶, so they are its own too; a
  test that uses `WORLD` itself gets its own process.
- Before the next sharing test the bot must be idle: nothing owed in its outbox, no deadline due
  within 10 minutes that may talk to Discord, no REST call in flight, its gateway session up
  (`SharedBots.prepare`). If it isn't within a few seconds (or the process died) the process is
  retired and the test gets a new one, on a new database. The fake's settings a test may change
  (`callback_deadline`, …) and a held gateway are put back as a new fake has them. So does a test whose `bot_env` differs from the one the process started
  with (a module whose `bot_env` depends on a per-test server never shares in effect).
- The `bot` a sharing test gets (`SharedBot`) refuses `kill`, `restart`, `start`, `stop` and any
  other use of the process (its database included) with an error that says to mark the test
  `@pytest.mark.own_bot`; its logs are those written since the test began.

All e2e tests of a module run in the module's event loop (`asyncio_default_test_loop_scope` and
`asyncio_default_fixture_loop_scope` are "module" in pyproject.toml), which the shared fake needs.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import inspect
import textwrap
from collections.abc import AsyncIterator
from dataclasses import dataclass, fields
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.kit import card_data
from bot.store.db import Database
from bot.store.models import Deadline, OutboxMessage
from bot.store.types import utcnow
from tests.conftest import create_scratch_database
from tests.e2e.harness import BotProcess
from tests.fake_discord import MANAGE_GUILD, FakeDiscord


@dataclass(frozen=True)
class World:
    guild: int = 900_000_000_000_000_001
    channel: int = 900_000_000_000_000_010
    leaderboard_channel: int = 900_000_000_000_000_011
    organizer_role: int = 900_000_000_000_000_020
    admin: int = 900_000_000_000_000_100  # has Manage Server
    organizer: int = 900_000_000_000_000_101  # has the organizer role only
    member: int = 900_000_000_000_000_102  # plain member
    first_player: int = 900_000_000_000_000_200

    @property
    def players(self) -> list[int]:
        return [self.first_player + i for i in range(16)]

    @classmethod
    def numbered(cls, number: int) -> World:
        """World `number` of a shared fake Discord: every id of `WORLD` moved by number × 10⁶, so no
        two worlds share an id (ids keep their number of digits, so texts keep their lengths)."""
        return cls(**{field.name: getattr(WORLD, field.name) + number * 1_000_000 for field in fields(cls)})


WORLD = World()


def build_world(fake: FakeDiscord, world: World = WORLD) -> None:
    fake.add_guild(world.guild, "MTG Club", owner_id=world.admin)
    fake.add_channel(world.guild, world.channel, "drafts")
    fake.add_channel(world.guild, world.leaderboard_channel, "leaderboard")
    fake.add_role(world.guild, world.organizer_role, "Organizer")
    fake.add_member(world.guild, world.admin, "admin", permissions=MANAGE_GUILD)
    fake.add_member(world.guild, world.organizer, "organizer", roles=[world.organizer_role])
    fake.add_member(world.guild, world.member, "member")
    for index, user in enumerate(world.players):
        fake.add_member(world.guild, user, f"player{index}")


@pytest.fixture(autouse=True)
async def no_bot_left_behind():
    """After each e2e test (and its fixtures): no bot process it started may still run (a module's
    shared process is stopped with the module)."""
    yield
    left = await BotProcess.left_running()
    assert not left, f"the test left {len(left)} bot process(es) running: {[p.log_path for p in left]}"


@contextlib.asynccontextmanager
async def fake_discord(**options) -> AsyncIterator[FakeDiscord]:
    """A fake Discord serving the test server (`WORLD`)."""
    discord_fake = FakeDiscord(**options)
    await discord_fake.start()
    try:
        build_world(discord_fake)
        yield discord_fake
    finally:
        await discord_fake.stop()


@contextlib.asynccontextmanager
async def launched_bot(
    fake: FakeDiscord,
    workdir: Path,
    env: dict[str, str] | None = None,
    *,
    backend: str = "sqlite",
    show_log: bool = True,
) -> AsyncIterator[BotProcess]:
    """The bot process, started on a fresh database of `backend`, stopped (and its log shown) after.
    The database is a copy of the session's migrated template: the bot's own migration at startup
    runs and finds nothing to do."""
    workdir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - a local directory, once
    async for url in create_scratch_database(backend, workdir, migrated=True):
        process = BotProcess(fake, url, workdir, env)
        await process.start()
        try:
            yield process
        finally:
            await process.stop()
            if show_log:  # shown by pytest only when the test failed
                print(f"----- bot log ({process.log_path}) -----\n{process.log_tail(150)}")


# ---------------------------------------------------------------------------------- shared bots


class SharedBotMisuse(RuntimeError):
    pass


class SharedBot:
    """`bot` for a test that shares its module's bot process: it runs; it is not this test's to
    stop, kill, restart or read the database of."""

    def __init__(self, process: BotProcess) -> None:
        self._process = process
        self._log_start = process.log_path.stat().st_size if process.log_path.exists() else 0
        self.log_path = process.log_path

    @property
    def running(self) -> bool:
        return self._process.running

    def log_text(self) -> str:
        """What the bot logged since this test began."""
        with open(self.log_path, "rb") as log:
            log.seek(self._log_start)
            return log.read().decode(errors="replace")

    log_since_start = log_text

    def log_tail(self, lines: int = 80) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def _refuse(self, what: str):
        raise SharedBotMisuse(
            f"`bot.{what}`: this test shares its module's bot process, which is not its to change or "
            "read the database of; mark the test @pytest.mark.own_bot to give it a process of its own"
        )

    async def kill(self) -> None:
        self._refuse("kill()")

    async def restart(self) -> None:
        self._refuse("restart()")

    async def start(self, *args, **kwargs) -> None:
        self._refuse("start()")

    async def stop(self) -> None:
        self._refuse("stop()")

    def __getattr__(self, name: str):
        self._refuse(name)


SHARING_STOPPERS = {"bot", "WORLD"}  # names a sharing test (or a fixture of it that takes `bot`) never uses


def _names_bot(function) -> bool:
    """Whether `bot` (or `WORLD`, which a shared fake doesn't serve) appears in the body of
    `function`, its parameters aside. A function whose source can't be read counts as naming it."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return True
    definition = tree.body[0]
    if not isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef):
        return True
    return any(
        isinstance(node, ast.Name) and node.id in SHARING_STOPPERS
        for statement in definition.body
        for node in ast.walk(statement)
    )


_SHARES = pytest.StashKey[bool]()


def shares_bot(item: pytest.Item) -> bool:
    """Whether `item` runs on its module's shared bot process (see the module's docstring)."""
    if _SHARES not in item.stash:
        item.stash[_SHARES] = _decide_sharing(item)
    return item.stash[_SHARES]


def _decide_sharing(item: pytest.Item) -> bool:
    if "bot" not in getattr(item, "fixturenames", ()) or item.get_closest_marker("own_bot") is not None:
        return False
    definitions = item._fixtureinfo.name2fixturedefs
    here = definitions["shared_bots"][-1].baseid  # this conftest's
    if any(name in definitions and definitions[name][-1].baseid != here for name in ("fake", "bot", "world")):
        return False  # the module brings its own
    if _names_bot(item.function) or "tmp_path" in inspect.signature(item.function).parameters:
        return False  # it uses the process, or maybe the bot's working directory (its tmp_path)
    for name, defs in definitions.items():
        fixture_def = defs[-1]
        if name != "bot" and "bot" in fixture_def.argnames and _names_bot(_fixture_function(fixture_def)):
            return False
    return True


def _fixture_function(fixture_def):
    return inspect.unwrap(fixture_def.func)


QUIET_DEADLINES = {card_data.COMPLETE}  # deadline kinds whose work never talks to Discord
FAKE_SETTINGS = ("callback_deadline", "heartbeat_interval", "bot_permissions", "owner_id")  # a test may change them


class SharedBots:
    """The fake Discord and the bot process the sharing tests of one module share."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.settle_timeout = 5.0  # seconds the bot may take to finish a test's work before the next test
        self.fake: FakeDiscord | None = None
        self.process: BotProcess | None = None
        self._env: dict[str, str] | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._worlds = 0
        self._processes = 0
        self._settings: dict[str, object] = {}

    def new_world(self) -> World:
        self._worlds += 1
        return World.numbered(self._worlds)

    async def prepare(self, test_world: World) -> FakeDiscord:
        """The shared fake, ready for a new test in `test_world`: the previous test's process stays
        if it becomes idle, else it is retired (`bot_for` retires it too if `bot_env` changed)."""
        if self.process is not None and (why := await self._busy()) is not None:
            print(f"shared bot: a new process for this test, because {why}")
            await self.retire()
        if self.fake is None:
            self.fake = FakeDiscord()
            await self.fake.start()
            self._settings = {name: getattr(self.fake, name) for name in FAKE_SETTINGS}
        for name, value in self._settings.items():  # as a new fake has them
            setattr(self.fake, name, value)
        if not self.fake._gateway_open.is_set():
            self.fake.restore_gateway()
        build_world(self.fake, test_world)
        self.fake.forget_history()
        return self.fake

    async def bot_for(self, env: dict[str, str]) -> BotProcess:
        """The shared process, started with `env` unless one runs with it."""
        if self.process is not None and self._env != env:
            print("shared bot: a new process for this test, because it runs with another bot_env")
            await self.retire()
        if self.process is None:
            assert self.fake is not None
            self._processes += 1
            self._stack = contextlib.AsyncExitStack()
            workdir = self.workdir / f"bot{self._processes}"
            self.process = await self._stack.enter_async_context(
                launched_bot(self.fake, workdir, dict(env), show_log=False)
            )
            self.process.shared = True
            self._env = dict(env)
        return self.process

    async def _busy(self) -> str | None:
        """None once the bot owes no message, has no deadline due within 10 minutes that may talk to
        Discord, has no REST call in flight and its gateway session is up (waiting up to
        `settle_timeout`); else what it still does."""
        assert self.fake is not None and self.process is not None
        fake_discord_, process = self.fake, self.process
        database = Database(process.database_url)

        if not fake_discord_._gateway_open.is_set():
            return "a test held its gateway closed"

        async def still_doing() -> str | None:
            async with database.read() as session:
                owed = (await session.execute(
                    select(OutboxMessage.kind).where(OutboxMessage.status == "pending")
                )).scalars().all()
                due = (await session.execute(
                    select(Deadline.kind).where(
                        Deadline.due_at < utcnow() + timedelta(minutes=10), Deadline.kind.not_in(QUIET_DEADLINES)
                    )
                )).scalars().all()
            in_flight = fake_discord_.requests_in_flight()
            connected = fake_discord_.gateway_connected()
            if owed or due or in_flight or not connected:
                return (f"messages owed {sorted(owed)}, deadlines due {sorted(due)}, {in_flight} REST call(s) in "
                        f"flight, gateway {'connected' if connected else 'not connected'}")
            return None

        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.settle_timeout
        try:
            while process.running:
                doing = await still_doing()
                if doing is None:
                    return None
                if loop.time() > give_up:
                    return f"the previous test left it busy ({doing})"
                # The outbox is in the bot's database, which tells nobody when it changes: look again
                # on the fake's next change, or after a short while.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.05):
                        await fake_discord_._changed_event.wait()
            return "it died"
        finally:
            await database.dispose()

    async def retire(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
        self.process = self._env = self._stack = None

    async def close(self) -> None:
        await self.retire()
        if self.fake is not None:
            await self.fake.stop()
            self.fake = None


@pytest.fixture(scope="module")
async def shared_bots(tmp_path_factory) -> AsyncIterator[SharedBots]:
    """This module's shared fake Discord and bot process, started when a test first needs them."""
    bots = SharedBots(tmp_path_factory.mktemp("shared-bot"))
    try:
        yield bots
    finally:
        await bots.close()


# ---------------------------------------------------------------------------------- the fixtures


@pytest.fixture
def world(request, shared_bots) -> World:
    """The test's server and users: `WORLD`, or a world of its own on a shared fake Discord."""
    return shared_bots.new_world() if shares_bot(request.node) else WORLD


@pytest.fixture
async def fake(request, shared_bots, world) -> AsyncIterator[FakeDiscord]:
    if shares_bot(request.node):
        yield await shared_bots.prepare(world)
        return
    async with fake_discord() as discord_fake:
        yield discord_fake


@pytest.fixture
def bot_env() -> dict[str, str]:
    """Extra environment for the bot process; tests may override this fixture."""
    return {}


@pytest.fixture
async def bot(request, shared_bots, fake, tmp_path, bot_env) -> AsyncIterator[BotProcess | SharedBot]:
    if not shares_bot(request.node):
        async with launched_bot(fake, tmp_path, bot_env) as process:
            yield process
        return
    shared = SharedBot(await shared_bots.bot_for(bot_env))
    yield shared
    print(f"----- this test's part of the shared bot's log ({shared.log_path}) -----\n{shared.log_tail(150)}")
