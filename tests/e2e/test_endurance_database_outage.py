"""The database taken away in the middle of a draft while several players click at once, as it
happens in production: a SQLite file write-locked by another process (`BEGIN IMMEDIATE`, as a
backup tool would), and a PostgreSQL server stopped hard (`pg_ctl stop -m immediate`: a server of
the test's own, never the shared one) and started again.

Proves, on both: every click is answered within Discord's 3 seconds, truthfully (every "you took"
is in the pool; a click answered "busy" never commits later); the packs owed meanwhile arrive
within seconds of the database's return, not at the end of a lease; the draft completes; the log
holds one warning line when the outage starts and one when it ends, and no traceback. And a pick
whose commit is followed at once by the outage is still answered "you took".

The figures measured (answers' latency, seconds from the return to the owed packs, log lines) are
printed: `pytest -s` shows them.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from bot.kit.reporting import DATABASE_BUSY
from bot.store.db import Database
from bot.store.migrate import upgrade
from tests.conftest import _admin_execute, postgres_admin_url
from tests.e2e.conftest import launched_bot
from tests.e2e.drivers.common import eventually
from tests.e2e.drivers.draft import stored_picks
from tests.e2e.drivers.private_postgres import PrivatePostgres, require_private_postgres
from tests.e2e.drivers.scripted_draft import Pick, ScriptedDraft
from tests.e2e.harness import BotProcess

pytestmark = pytest.mark.e2e
ANSWER_WITHIN = 3.0  # seconds: Discord's limit for an interaction's first answer
OWED_WITHIN = 10.0  # seconds from the database's return to every owed pack shown
OUTAGE = 5.0  # seconds the database stays away while players keep clicking
STARTED = "the database is unavailable ("
ENDED = "the database is back after"

# Another process that takes SQLite's write lock when told to (a line on stdin) and holds it until
# told to let go (another line).
LOCK_HOLDER = """
import sqlite3, sys
holder = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
print("ready", flush=True)
sys.stdin.readline()
holder.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
holder.execute("ROLLBACK")
"""


@dataclass
class Outage:
    bot: BotProcess
    take_away: Callable[[], Awaitable[None]]
    give_back: Callable[[], Awaitable[None]]
    prepare: Callable[[], Awaitable[None]] | None = None  # makes `take_away` take no time
    holders: list[asyncio.subprocess.Process] = field(default_factory=list)  # SQLite: the locking process

    async def end(self) -> None:
        """A test that failed half-way leaves no process holding the lock."""
        for process in self.holders:
            if process.returncode is None:
                process.kill()
                await process.wait()


@pytest.fixture(params=["sqlite", "postgresql"])
async def outage(request, fake, tmp_path) -> AsyncIterator[Outage]:
    """The bot on a database that can be taken away: its SQLite file locked by another process, or
    its own PostgreSQL server stopped hard."""
    if request.param == "sqlite":
        async with launched_bot(fake, tmp_path) as bot:
            outage = _sqlite_outage(bot)
            try:
                yield outage
            finally:
                await outage.end()
        return
    require_private_postgres()
    server = PrivatePostgres()
    try:
        await server.create()
        url = await server.create_database("bot")
        migrating = Database(url)
        try:
            await upgrade(migrating)
        finally:
            await migrating.dispose()
        bot = BotProcess(fake, url, tmp_path)
        await bot.start()
        try:
            yield Outage(bot, server.crash, server.start)
        finally:
            await bot.stop()
            print(f"----- bot log ({bot.log_path}) -----\n{bot.log_tail(150)}")
    finally:
        await server.remove()


def _sqlite_outage(bot: BotProcess) -> Outage:
    holder: list[asyncio.subprocess.Process] = []  # the one process of this outage, while it holds the lock

    async def prepare() -> None:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", LOCK_HOLDER, make_url(bot.database_url).database,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        holder.append(process)
        outage.holders.append(process)
        assert await asyncio.wait_for(process.stdout.readline(), 30) == b"ready\n"

    async def take_away() -> None:
        await _tell(holder[0], b"locked\n")

    async def give_back() -> None:
        process = holder.pop()
        process.stdin.write(b"\n")
        await process.stdin.drain()
        assert await asyncio.wait_for(process.wait(), 30) == 0

    outage = Outage(bot, take_away, give_back, prepare)
    return outage


async def _tell(process: asyncio.subprocess.Process, expect: bytes) -> None:
    process.stdin.write(b"\n")
    await process.stdin.drain()
    assert await asyncio.wait_for(process.stdout.readline(), 30) == expect


@dataclass
class Click:
    pick: Pick
    seconds: float
    content: str

    @property
    def took(self) -> bool:
        return "you took" in self.content


async def _click_everyone(draft: ScriptedDraft) -> list[Click]:
    """Every player whose current pack is shown clicks its card at once. A pick answered "you took"
    is the draft's (the test's replay): picks of different seats at once commute."""
    picks = [draft.pick_for(seat, "button") for seat in draft.ready_seats()]
    shown = [(pick, message) for pick in picks if (message := draft._showing(pick)) is not None]
    clicks = await asyncio.gather(*(_click(draft, pick, message) for pick, message in shown))
    for click in clicks:
        if click.took:
            draft.apply(click.pick)
    return list(clicks)


async def _click(draft: ScriptedDraft, pick: Pick, message: dict) -> Click:
    started = time.monotonic()
    answer = await (await draft.send(pick, message))
    return Click(pick, time.monotonic() - started, answer.content or "")


async def test_the_database_taken_away_mid_draft_answers_every_click_in_time_and_truly(fake, world, outage):
    bot = outage.bot
    draft = ScriptedDraft(fake, world, bot, seed=37, seats=4, packs=2, pack_size=5)
    try:
        await draft.begin(picks=4)
        for seat in draft.ready_seats():
            await draft.pack_message(draft.pick_for(seat, "button"))
        if outage.prepare is not None:
            await outage.prepare()

        # --- every player holding a pack clicks at once, the database goes away meanwhile, and they
        # keep clicking every half second: those answered "you took" on their next pack, if shown ---
        clicks: list[Click] = []
        first = asyncio.ensure_future(_click_everyone(draft))
        await outage.take_away()
        away_at = time.monotonic()
        clicks += await first
        while time.monotonic() - away_at < OUTAGE:
            await asyncio.sleep(0.5)  # a player's pause between two clicks, not synchronisation
            clicks += await _click_everyone(draft)
        await outage.give_back()
        back_at = time.monotonic()

        # --- every click answered in time, and truly -------------------------------------------------
        slowest = max(click.seconds for click in clicks)
        assert slowest < ANSWER_WITHIN, [(c.pick.seat, round(c.seconds, 2), c.content[:40]) for c in clicks]
        assert all(click.took or click.content == DATABASE_BUSY for click in clicks), [c.content for c in clicks]
        took = [click.pick for click in clicks if click.took]
        busy = [click for click in clicks if not click.took]
        assert busy, "the outage refused no click: it came too late to test anything"

        # --- what is owed arrives on return: every player holding a pack sees it -----------------------
        for seat in draft.ready_seats():
            await fake.wait_for(lambda s=seat: draft._showing(draft.pick_for(s, "button")), timeout=OWED_WITHIN,
                                what=f"seat {seat}'s pack after the database came back")
        owed_after = time.monotonic() - back_at
        assert owed_after < OWED_WITHIN
        # Every "you took" is in the pool, and nothing else: no click answered "busy" committed later.
        stored = await stored_picks(bot, draft.pod_id)
        assert sorted((e["seat"], e["card"]) for e in stored["picks"]) == sorted((p.seat, p.card) for p in draft.picks)

        while not draft.done:
            await draft.pick(draft.next_pick())
        stored = await stored_picks(bot, draft.pod_id)
        assert stored["status"] == "complete" and len(stored["picks"]) == draft.total
        assert sorted((e["seat"], e["card"]) for e in stored["picks"]) == sorted((p.seat, p.card) for p in draft.picks)

        await eventually(lambda: _logged(bot, ENDED), timeout=OWED_WITHIN, what="the line saying the database is back")
        log = bot.log_since_start()
        started, ended = log.count(STARTED), log.count(ENDED)
        assert started >= 1 and ended == started, log[-3000:]
        assert "Traceback" not in log, log[-3000:]
        if started == 1:  # the "back" line counts the clicks answered "busy"
            back_line = next(line for line in log.splitlines() if ENDED in line)
            assert f"; {len(busy)} interaction" in back_line, (back_line, len(busy))
        print(f"\n[{make_url(bot.database_url).get_backend_name()}] {len(clicks)} clicks ({len(took)} took, "
              f"{len(busy)} busy) during a {back_at - away_at:.1f} s outage; slowest answer {slowest:.2f} s; "
              f"owed packs shown {owed_after:.2f} s after the return; {started} outage(s), "
              f"{_outage_lines(log)} log lines about it")
    finally:
        await draft.close()


def _handing_to_a_waiting_seat(draft: ScriptedDraft) -> tuple[Pick, int] | None:
    """A pick (by button) that passes its pack to a seat holding none, and that seat."""
    for seat in draft.ready_seats():
        pick = draft.pick_for(seat, "button")
        after = draft.mirror.copy()
        after.pick(pick.seat, pick.pack_id, pick.card)
        for other in range(draft.options["seats"]):
            if other != seat and draft.mirror.head(other) is None and after.head(other) is not None:
                return pick, other
    return None


async def _logged(bot: BotProcess, text: str) -> bool:
    return text in bot.log_since_start()


def _outage_lines(log: str) -> int:
    return sum(1 for line in log.splitlines() if "database" in line and (" WARNING " in line or " ERROR " in line))


# A trigger that takes the database away in the very transaction that records a pick: every other
# connection is ended at once, and new ones are refused from its commit on (what ALTER DATABASE …
# ALLOW_CONNECTIONS false does, which the current database can't do to itself), so whatever the bot
# reads to build the pick's answer fails.
OUTAGE_ON_PICK = ("""
CREATE FUNCTION outage_on_pick() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE pg_database SET datallowconn = false WHERE datname = current_database();
    PERFORM pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid();
    RETURN NULL;
END $$
""", "CREATE TRIGGER outage_on_pick AFTER INSERT ON draft_picks FOR EACH ROW EXECUTE FUNCTION outage_on_pick()")


@pytest.mark.postgres
async def test_a_pick_committed_just_before_the_database_fails_is_answered_taken(fake, world, tmp_path):
    async with launched_bot(fake, tmp_path, backend="postgresql") as bot:
        draft = ScriptedDraft(fake, world, bot, seed=38, seats=3, packs=1, pack_size=5)
        name = make_url(bot.database_url).database
        try:
            await draft.begin()
            while not (handing := _handing_to_a_waiting_seat(draft)):
                await draft.pick(draft.next_pick("button"))
            pick, waiting = handing  # the pick passes its pack to a player who has none: a DM owed
            message = await draft.pack_message(pick)
            async with draft.db.write() as session:
                for statement in OUTAGE_ON_PICK:
                    await session.execute(text(statement))
            try:
                click = await _click(draft, pick, message)
                assert click.took, click.content  # was: "The database is busy right now, so nothing was changed."
                draft.apply(pick)
                await asyncio.sleep(2)  # the outage lasts a little (the scenario), not synchronisation
                owed = draft.pick_for(waiting, "button")
                assert draft._showing(owed) is None, "the pack was sent while the database was away"
            finally:
                await _admin_execute(postgres_admin_url(), f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            back_at = time.monotonic()
            assert click.seconds < ANSWER_WITHIN
            assert waiting in draft.ready_seats()
            for seat in draft.ready_seats():  # the packs owed since the pick arrive once it is back
                await fake.wait_for(lambda s=seat: draft._showing(draft.pick_for(s, "button")), timeout=OWED_WITHIN,
                                    what=f"seat {seat}'s pack after the database came back")
            owed_after = time.monotonic() - back_at
            async with draft.db.write() as session:
                await session.execute(text("DROP TRIGGER outage_on_pick ON draft_picks"))
            assert [(e["seat"], e["card"]) for e in (await stored_picks(bot, draft.pod_id))["picks"]] == [
                (p.seat, p.card) for p in draft.picks]
            while not draft.done:
                await draft.pick(draft.next_pick())
            assert (await stored_picks(bot, draft.pod_id))["status"] == "complete"
            await eventually(lambda: _logged(bot, ENDED), timeout=OWED_WITHIN, what="the line saying the database is back")
            log = bot.log_since_start()
            assert log.count(STARTED) == log.count(ENDED) >= 1 and "Traceback" not in log, log[-3000:]
            print(f"\n[postgresql, outage at a pick's commit] answered {click.content[:40]!r} in {click.seconds:.2f} s; "
                  f"owed packs shown {owed_after:.2f} s after the return; {_outage_lines(log)} log lines about it")
        finally:
            await draft.close()

