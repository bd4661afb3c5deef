"""Draft picks through the service layer: 100 concurrent 8-seat pods on SQLite and PostgreSQL.

    python -m benchmarks.bench_draft                 # SQLite, plus PostgreSQL if reachable
    python -m benchmarks.bench_draft --pods 100 --picks-per-pod 48 --rate 500

For each backend it measures, in one run on the same database:
  * a bare one-row INSERT write transaction (the floor any write costs there): through
    `db.write()` (the way every other service writes) and through the writer (`db.transact`, the
    way picks are written),
  * one pick on an idle database (service time), and the ratio pick / bare insert for both,
  * saturation: every pod picking as fast as it can at once (closed loop): picks/s, and the
    process's CPU time per pick (what the machine's load cannot distort: 1 / that = the picks/s
    one idle core sustains),
  * latency at an offered load of --rate picks/s spread over the pods (open loop; default 500/s,
    10x the 50 requests/s Discord allows a bot): p50 / p99, including queueing.

`run(...)` returns the figures for the unified command (`python -m benchmarks`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cards.model import Card  # noqa: E402
from bot.features.cubes.service import CubeDetail
from bot.games.draft import service as drafts
from bot.kit.tables import Actor
from bot.store.db import Database  # noqa: E402
from bot.store.migrate import upgrade  # noqa: E402

SEATS = 8
DISCORD_LIMIT = 50  # requests per second Discord allows a bot (global)


def cube(size: int = SEATS * 30) -> CubeDetail:
    cards = tuple(Card(name=f"Card {i:03d}", colour="WUBRG"[i % 5], rating=float(i % 9)) for i in range(size))
    return CubeDetail(name="bench", size=size, source="upload", source_ref=None, cards=cards)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Pod:
    """A pod's pending prompts, so a driver always knows who can pick."""

    def __init__(self, pod_id: int, prompts: list[drafts.PackPrompt], rng: random.Random):
        self.pod_id, self.rng = pod_id, rng
        self.pending = {p.user_id: p for p in prompts}
        self.done = False

    async def pick(self, db: Database) -> float:
        prompt = self.pending.pop(self.rng.choice(sorted(self.pending)))
        start = time.perf_counter()
        result = await drafts.pick(
            db, self.pod_id, Actor(prompt.user_id, None), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
            card_index=self.rng.randrange(len(prompt.cards)), source="button",
        )
        elapsed = time.perf_counter() - start
        for nxt in [result.next_for_picker, *result.others]:
            if nxt is not None:
                self.pending[nxt.user_id] = nxt
        self.done = result.completed or not self.pending
        return elapsed


async def make_pods(db: Database, count: int, channel_base: int) -> list[Pod]:
    pods, detail = [], cube()
    for index in range(count):
        organizer = Actor(1, 1, manage_guild=True)
        pod = await drafts.create_pod(db, organizer, channel_id=channel_base + index, cube=detail, seed=index)
        for seat in range(SEATS):
            await drafts.join(db, pod.id, Actor(10_000 + seat, 1))
        begun = await drafts.begin(db, pod.id, organizer)
        pods.append(Pod(pod.id, begun.prompts, random.Random(index)))
    return pods


VARIANT_TABLES = {"rotisserie": 4, "winston": 2, "grid": 3}  # seats of each variant's pod measured


async def variant_pod(db: Database, variant: str, channel_id: int) -> Pod:
    """A running pod of a draft variant (`service.variants`) on the same cube: a Rotisserie of 4 × 30
    picks, a Winston draft of 90 cards, a Grid draft of 18 grids for 3."""
    organizer, seats = Actor(1, 1, manage_guild=True), VARIANT_TABLES[variant]
    columns = ({"variant": "rotisserie", "packs": 1, "pack_size": 30, "offer": None} if variant == "rotisserie"
               else drafts.variants.start_options(variant, seats, None))
    pod = await drafts.create_pod(db, organizer, channel_id=channel_id, cube=cube(), seed=1, max_seats=seats, **columns)
    for seat in range(seats):
        await drafts.join(db, pod.id, Actor(10_000 + seat, 1))
    begun = await drafts.begin(db, pod.id, organizer)
    return Pod(pod.id, begun.prompts, random.Random(1))


async def variant_pick_times(db: Database, n: int) -> dict[str, list[float]]:
    """One pick of each variant through the service, idle: a Rotisserie card, a Winston take or pass, a
    Grid line (the pick of whoever is on turn, as a player's button makes it)."""
    return {variant: await idle_pick_times(db, await variant_pod(db, variant, 8_000_000 + index), n)
            for index, variant in enumerate(VARIANT_TABLES)}


async def bare_insert_times(db: Database, n: int) -> list[float]:
    """A one-row INSERT transaction through `db.write()`."""
    async with db.write() as session:
        await session.execute(text("CREATE TABLE IF NOT EXISTS bench_insert (id integer primary key, v integer)"))
    times = []
    for i in range(n):
        start = time.perf_counter()
        async with db.write() as session:
            await session.execute(text("INSERT INTO bench_insert (id, v) VALUES (:i, :i)"), {"i": i})
        times.append(time.perf_counter() - start)
    return times


async def writer_insert_times(db: Database, n: int) -> list[float]:
    """The same INSERT as a job of the writer (`db.transact`), the path picks take."""
    times = []
    for i in range(n):
        async def job(session, i=i) -> None:
            await session.execute(text("INSERT INTO bench_insert (id, v) VALUES (:i, :i)"), {"i": 1_000_000 + i})

        start = time.perf_counter()
        await db.transact(job)
        times.append(time.perf_counter() - start)
    return times


async def idle_pick_times(db: Database, pod: Pod, n: int) -> list[float]:
    times = []
    while len(times) < n and not pod.done:
        times.append(await pod.pick(db))
    return times


class Traffic:
    """While active, counts the round trips the process makes to its database: writes to socket
    transports (asyncpg sends all of a request's messages in one write, then waits for the
    answer), calls aiosqlite hands to its driver thread, and (from the writer's counters) the
    writer thread's hand-overs, one there and one back per batch."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.socket_writes = self.aiosqlite_calls = 0

    def __enter__(self) -> Traffic:
        from asyncio import selector_events

        import aiosqlite.core

        transport, connection = selector_events._SelectorSocketTransport, aiosqlite.core.Connection
        self._patched = [(transport, "write", transport.write), (connection, "_execute", connection._execute)]
        write, execute = transport.write, connection._execute

        def counted_write(transport_self, data):
            self.socket_writes += 1
            return write(transport_self, data)

        async def counted_execute(connection_self, fn, *args, **kwargs):
            self.aiosqlite_calls += 1
            return await execute(connection_self, fn, *args, **kwargs)

        transport.write, connection._execute = counted_write, counted_execute
        self._batches = self.db.writer_stats().batches
        return self

    def __exit__(self, *exc) -> None:
        for owner, name, original in self._patched:
            setattr(owner, name, original)
        # PostgreSQL's batches run on the caller's event loop: no thread to hand over to.
        threaded = self.db.backend == "sqlite"
        self.writer_handovers = 2 * (self.db.writer_stats().batches - self._batches) if threaded else 0

    def per_pick(self, picks: int) -> dict[str, float]:
        picks = max(picks, 1)
        return {"socket_round_trips": self.socket_writes / picks, "aiosqlite_round_trips": self.aiosqlite_calls / picks,
                "writer_handovers": self.writer_handovers / picks}


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def saturation(db: Database, pods: list[Pod], picks_per_pod: int) -> tuple[int, float, list[float], float]:
    """(picks, seconds, latencies, process CPU seconds)."""
    latencies: list[float] = []

    async def drive(pod: Pod) -> None:
        for _ in range(picks_per_pod):
            if pod.done:
                return
            latencies.append(await pod.pick(db))

    start, cpu = time.perf_counter(), cpu_seconds()
    await asyncio.gather(*(drive(pod) for pod in pods))
    return len(latencies), time.perf_counter() - start, latencies, cpu_seconds() - cpu


async def offered_load(db: Database, pods: list[Pod], rate: float, total: int) -> tuple[list[float], float]:
    """Start one pick every 1/rate seconds (round-robin over the pods); latency includes queueing."""
    latencies: list[float] = []
    busy: set[int] = set()
    tasks = []
    interval = 1 / rate
    start = time.perf_counter()
    lagging = 0

    async def one(pod: Pod) -> None:
        try:
            latencies.append(await pod.pick(db))
        finally:
            busy.discard(pod.pod_id)

    index = 0
    for n in range(total):
        due = start + n * interval
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)  # pacing the load generator, not synchronising a test
        else:
            lagging += 1
        for _ in range(len(pods)):
            pod = pods[index % len(pods)]
            index += 1
            if not pod.done and pod.pod_id not in busy and pod.pending:
                busy.add(pod.pod_id)  # one pick in flight per pod, as one Discord user would
                tasks.append(asyncio.create_task(one(pod)))
                break
    await asyncio.gather(*tasks)
    return latencies, lagging / max(total, 1)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


async def run_backend(name: str, url: str, args, *, quiet: bool = False) -> dict:
    db = Database(url)
    try:
        await upgrade(db)
        inserts = await bare_insert_times(db, args.samples)
        writer_inserts = await writer_insert_times(db, args.samples)
        (lone,) = await make_pods(db, 1, 9_000_000)
        with Traffic(db) as idle_traffic:
            idle = await idle_pick_times(db, lone, min(args.samples, SEATS * 30))
        variant_picks = await variant_pick_times(db, min(args.samples, 60))
        pods = await make_pods(db, args.pods, 1_000)
        before = db.writer_stats()
        with Traffic(db) as busy_traffic:
            count, elapsed, sat_lat, cpu = await saturation(db, pods, args.picks_per_pod)
        during = db.writer_stats()
        load_pods = await make_pods(db, args.pods, 2_000_000)
        load_lat, lag = await offered_load(db, load_pods, args.rate, args.load_picks)
    finally:
        await db.dispose()
    figures = {
        "insert_p50": statistics.median(inserts), "writer_insert_p50": statistics.median(writer_inserts),
        "pick_p50": statistics.median(idle), "pick_p99": percentile(idle, 0.99),
        **{f"{variant}_pick_p50": statistics.median(times) for variant, times in variant_picks.items()},
        "throughput": count / elapsed, "cpu_per_pick": cpu / count,
        "jobs_per_batch": (during.jobs - before.jobs) / max(during.batches - before.batches, 1),
        "sat_p50": statistics.median(sat_lat), "sat_p99": percentile(sat_lat, 0.99),
        "load_p50": statistics.median(load_lat), "load_p99": percentile(load_lat, 0.99), "load_picks": len(load_lat),
        "lag": lag, "rate": args.rate, "pods": args.pods,
        "trips_idle": idle_traffic.per_pick(len(idle)), "trips_busy": busy_traffic.per_pick(count),
    }
    if not quiet:
        _print_backend(name, figures, inserts, writer_inserts, count, elapsed)
    return figures


def _print_backend(name: str, f: dict, inserts: list[float], writer_inserts: list[float], count: int, elapsed: float) -> None:
    print(f"\n== {name} ==")
    print(f"bare 1-row insert txn : db.write() p50 {ms(f['insert_p50'])}  p99 {ms(percentile(inserts, 0.99))};"
          f"  by the writer p50 {ms(f['writer_insert_p50'])}  p99 {ms(percentile(writer_inserts, 0.99))}")
    print(f"one pick, idle db     : p50 {ms(f['pick_p50'])}  p99 {ms(f['pick_p99'])}"
          f"   ratio pick/insert = {f['pick_p50'] / f['insert_p50']:.1f}x (db.write insert),"
          f" {f['pick_p50'] / f['writer_insert_p50']:.1f}x (writer insert)")
    throughput = f["throughput"]
    print(f"saturation            : {f['pods']} pods, {count} picks in {elapsed:.2f} s = {throughput:,.0f} picks/s"
          f" ({throughput / DISCORD_LIMIT:.0f}x Discord's {DISCORD_LIMIT}/s); p50 {ms(f['sat_p50'])}  p99 {ms(f['sat_p99'])}"
          f" (queueing included); CPU {f['cpu_per_pick'] * 1000:.2f} ms/pick; {f['jobs_per_batch']:.1f} jobs per commit")
    for label, trips in (("round trips, idle   ", f["trips_idle"]), ("round trips, busy   ", f["trips_busy"])):
        print(f"{label}   : per pick {trips['socket_round_trips']:.2f} over sockets,"
              f" {trips['aiosqlite_round_trips']:.2f} to aiosqlite's thread, {trips['writer_handovers']:.2f} to the writer's")
    print(f"offered {f['rate']:,.0f} picks/s      : {f['load_picks']} picks  p50 {ms(f['load_p50'])}"
          f"  p99 {ms(f['load_p99'])}" + (f"  (generator lagged on {f['lag']:.0%})" if f["lag"] > 0.05 else ""))


async def scratch_postgres(admin_url: str, *, quiet: bool = False):
    """(url of a new scratch database, async drop()), or (None, why it is unreachable)."""
    import asyncpg
    from sqlalchemy.engine import make_url

    dsn = make_url(admin_url).set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"bench_{uuid.uuid4().hex[:10]}"
    try:
        connection = await asyncio.wait_for(asyncpg.connect(dsn), 5)
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        why = f"PostgreSQL not reachable at {make_url(admin_url).render_as_string()}: {type(error).__name__}: {error}"
        if not quiet:
            print(f"\n({why}; skipped)")
        return None, why
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()

    async def drop() -> None:
        conn = await asyncpg.connect(dsn)
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()

    return make_url(admin_url).set(database=name).render_as_string(hide_password=False), drop


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, default=100)
    parser.add_argument("--picks-per-pod", type=int, default=48, help="picks each pod makes in the saturation run")
    parser.add_argument("--rate", type=float, default=500.0, help="offered picks/s in the latency run")
    parser.add_argument("--load-picks", type=int, default=2500)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument(
        "--postgres", default=os.environ.get("TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")
    )
    parser.add_argument("--sqlite-only", action="store_true")
    return parser.parse_args(argv)


async def run(args: argparse.Namespace, *, quiet: bool = False) -> dict[str, dict | str]:
    """{"sqlite": figures, "postgresql": figures, or a sentence saying why it was skipped}."""
    results: dict[str, dict | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["sqlite"] = await run_backend("SQLite (file, WAL)", f"sqlite+aiosqlite:///{tmp}/bench.sqlite3", args,
                                              quiet=quiet)
    if args.sqlite_only:
        results["postgresql"] = "not asked for (--sqlite-only)"
        return results
    url, drop = await scratch_postgres(args.postgres, quiet=quiet)
    if url is None:
        results["postgresql"] = drop
        return results
    try:
        results["postgresql"] = await run_backend("PostgreSQL", url, args, quiet=quiet)
    finally:
        await drop()
    return results


async def main() -> None:
    await run(options())


if __name__ == "__main__":
    asyncio.run(main())
