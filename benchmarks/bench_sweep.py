"""The background sweeper's cost with many running games and nothing due.

    python -m benchmarks.bench_sweep [--pods 1000 10000] [--sqlite-only]

For each backend and pod count it fills a database with that many running 8-seat draft pods, each
with a pick timer armed in the future and a delivered pack message, plus settled outbox rows, and
times one sweep pass exactly as the sweeper runs it (outbox rows due, deadlines due, next due
times), next to a bare indexed one-row SELECT on the same database. The goal is a pass whose cost
follows the work that is due, not the number of games: at most 50 ms at 10,000 pods.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from sqlalchemy import insert, select, text
from sqlalchemy.orm import undefer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_draft import cube, ms, scratch_postgres  # noqa: E402
from bot.games.draft import service as drafts
from bot.games.draft.models import DraftPod, DraftSeat
from bot.kit import deadlines, outbox
from bot.kit.tables import Actor
from bot.store.db import Database  # noqa: E402
from bot.store.migrate import upgrade  # noqa: E402
from bot.store.models import Deadline, OutboxMessage
from bot.store.types import utcnow  # noqa: E402

SEATS = 8
BATCH = 500


async def template_pod(db: Database) -> DraftPod:
    """One real running pod, made by the services, whose rows the others copy."""
    organizer = Actor(1, 1, manage_guild=True)
    pod = await drafts.create_pod(db, organizer, channel_id=1, cube=cube(), seed=7, pick_timer_seconds=3600)
    for seat in range(SEATS):
        await drafts.join(db, pod.id, Actor(10_000 + seat, 1))
    await drafts.begin(db, pod.id, organizer)
    async with db.read() as session:
        query = select(DraftPod).where(DraftPod.id == pod.id).options(undefer(DraftPod.card_info))
        return (await session.execute(query)).scalar_one()


async def fill(db: Database, template: DraftPod, count: int, first_channel: int) -> None:
    """`count` more running pods like the template, with their seats, timers and settled messages."""
    now = utcnow()
    columns = {c.key: getattr(template, c.key) for c in DraftPod.__table__.columns if c.key != "id"}
    for start in range(0, count, BATCH):
        size = min(BATCH, count - start)
        pods = [{**columns, "channel_id": first_channel + start + i} for i in range(size)]
        async with db.write() as session:
            ids = (await session.execute(insert(DraftPod).returning(DraftPod.id), pods)).scalars().all()
            await session.execute(insert(DraftSeat), [
                {"pod_id": pod_id, "guild_id": 1, "user_id": 100_000 + pod_id * 10 + seat, "seat": seat, "joined_at": now}
                for pod_id in ids for seat in range(SEATS)
            ])
            await session.execute(insert(Deadline), [
                {"kind": "draft.timer", "key": str(pod_id), "due_at": now + timedelta(minutes=30), "created_at": now}
                for pod_id in ids
            ])
            await session.execute(insert(OutboxMessage), [
                {"kind": drafts.PACK, "user_id": 100_000 + pod_id * 10, "payload": {}, "status": outbox.SENT,
                 "attempts": 1, "next_attempt_at": now, "created_at": now, "message_id": pod_id}
                for pod_id in ids
            ])


async def one_sweep(db: Database) -> None:
    """What SweeperCog.sweep_once and its sleep computation ask the database."""
    await outbox.take_due(db)
    await deadlines.run_due(db, deadlines.Handlers())  # nothing is due: no handler is asked for
    await deadlines.next_due_at(db)
    await outbox.next_due_at(db)


async def timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def run_backend(name: str, url: str, counts: list[int], repeats: int, *, quiet: bool = False) -> dict[int, float]:
    db = Database(url)
    results: dict[int, float] = {}
    try:
        await upgrade(db)
        template = await template_pod(db)
        made = 1

        async def bare_select() -> None:
            async with db.read() as session:
                await session.execute(text("SELECT id FROM draft_pods WHERE id = 1"))

        if not quiet:
            print(f"\n== {name} ==")
        for count in sorted(counts):
            await fill(db, template, count - made, 100_000 + made)
            made = count
            sweep = await timed(lambda: one_sweep(db), repeats)
            floor = await timed(bare_select, repeats)
            results[count] = sweep
            if not quiet:
                print(f"{count:>6} running pods, nothing due: one sweep {ms(sweep)}   "
                      f"(a bare 1-row SELECT {ms(floor)}; ratio {sweep / floor:.1f}x)")
    finally:
        await db.dispose()
    return results


async def run(counts: list[int], *, repeats: int = 50, sqlite_only: bool = False, postgres: str | None = None,
              quiet: bool = False) -> dict[str, dict[int, float] | str]:
    """{"sqlite": {pods: seconds per sweep}, "postgresql": the same, or why it was skipped}."""
    figures: dict[str, dict[int, float] | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        figures["sqlite"] = await run_backend("SQLite (file, WAL)", f"sqlite+aiosqlite:///{tmp}/sweep.sqlite3", counts,
                                              repeats, quiet=quiet)
    if sqlite_only or not postgres:
        figures["postgresql"] = "not asked for"
        return figures
    url, drop = await scratch_postgres(postgres, quiet=quiet)
    if url is None:
        figures["postgresql"] = drop
        return figures
    try:
        figures["postgresql"] = await run_backend("PostgreSQL", url, counts, repeats, quiet=quiet)
    finally:
        await drop()
    return figures


def main() -> None:
    import os

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--sqlite-only", action="store_true")
    parser.add_argument(
        "--postgres", default=os.environ.get("TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
    )
    args = parser.parse_args()
    asyncio.run(run(args.pods, repeats=args.repeats, sqlite_only=args.sqlite_only, postgres=args.postgres))


if __name__ == "__main__":
    main()
