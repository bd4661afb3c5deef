"""The web pages' render time with 10,000 finished events in one server.

    python -m benchmarks.bench_web [--events 10000] [--requests 200] [--sqlite-only] [--postgres URL]

For each backend it fills a migrated database with one server's 10,000 finished events (4-12
players each, 300 players with names, every format, three seasons), a few events in progress and
another server's events, turns the server's pages on, and asks every kind of page `--requests` times
in turn through aiohttp's test client. The time measured is the server's: from the request reaching
the site's first middleware to its answer (the database queries, the template, the ETag), as a
middleware wrapped around everything else records it. The goal: p99 ≤ 50 ms for every page.

The pages reuse a server's leaderboards until its results change (`bot.web.boards`). Each backend
is measured twice: as the pages are read between two events' ends (the leaderboards unchanged),
and with every request computing them again (as the first request after an event ends does).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import insert

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_draft import ms, percentile, scratch_postgres  # noqa: E402
from bot.games.turnabout import service as turnabout  # noqa: E402
from bot.kit import leaderboard  # noqa: E402
from bot.kit.tables import Actor  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.store.db import Database  # noqa: E402
from bot.store.migrate import upgrade  # noqa: E402
from bot.store.models import EventResult, PlayerName  # noqa: E402
from bot.web import access  # noqa: E402
from bot.web.app import make_app  # noqa: E402
from bot.web.boards import Boards  # noqa: E402
from bot.web.links import SiteLinks  # noqa: E402

GUILD, OTHER = 1, 2
PLAYERS = 300
BUDGET = 0.050
START = datetime(2024, 1, 1, tzinfo=UTC)
BATCH = 5_000


async def fill(db: Database, events: int) -> tuple[access.Site, str]:
    """The server's events; the cursor of its events' list halfway back."""
    rng = random.Random(27)
    formats = list(leaderboard.FORMATS)
    seasons = [await _season(db, name) for name in ("Spring", "Summer", "Autumn")]
    rows = []
    for index in range(events):
        players = rng.sample(range(1, PLAYERS + 1), rng.randint(4, 12))
        fmt = formats[index % len(formats)]
        season = seasons[index * len(seasons) // events]
        for place, user in enumerate(players, start=1):
            rows.append({"guild_id": GUILD, "format": fmt, "event_id": index + 1, "event_name": f"{fmt} event {index + 1}",
                         "season_id": season, "user_id": user, "placement": place,
                         "points": leaderboard.placement_points(place, len(players)),
                         "score": float(rng.randint(0, 40)) if fmt in ("goldfish", "battler") else None,
                         "finished_at": START + timedelta(hours=index)})
    rows += [{"guild_id": OTHER, "format": "421", "event_id": i, "event_name": "theirs", "season_id": None,
              "user_id": 10_000 + i, "placement": 1, "points": 1.0, "score": None, "finished_at": START}
             for i in range(1, 200)]
    async with db.write() as session:
        for start in range(0, len(rows), BATCH):
            await session.execute(insert(EventResult), rows[start:start + BATCH])
        await session.execute(insert(PlayerName), [
            {"guild_id": GUILD, "user_id": user, "name": f"Player name {user}", "updated_at": START}
            for user in range(1, PLAYERS + 1)])
    organizer = Actor(99, GUILD, manage_guild=True)
    for channel in range(5):
        await turnabout.create_event(db, organizer, channel_id=100 + channel)
    site, _ = await access.turn_on(db, GUILD, "Benchmark club")
    micros = (START + timedelta(hours=events // 2) - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    return site, f"{micros}.{formats[(events // 2) % len(formats)]}.{events // 2 + 1}"


async def _season(db: Database, name: str) -> int:
    season = await leaderboard.start_season(db, GUILD, name)
    await leaderboard.end_season(db, GUILD)
    return season.id


def pages(links: SiteLinks, cursor: str, events: int) -> dict[str, tuple[str, int]]:
    """Every kind of page: (address, expected status)."""
    return {
        "home": (links.home, 200),
        "leaderboard, all formats, all time": (links.leaderboard(season="all"), 200),
        "leaderboard, one format, page 3": (links.leaderboard(format="421", season="all", page=3), 200),
        "finished events, newest": (links.events(), 200),
        "finished events, halfway back": (links.events(before=cursor), 200),
        "one event's results": (links.event("goldfish", events - 4), 200),
        "not found (a forged address)": ("/s/" + "A" * 43, 404),
    }


async def measure(db: Database, events: int, requests: int, site: access.Site, cursor: str,
                  *, recompute: bool) -> dict[str, list[float]]:
    times: dict[str, list[float]] = defaultdict(list)
    current: list[str] = [""]

    @web.middleware
    async def timed(request: web.Request, handler):
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return await handler(request)
        finally:
            times[current[0]].append(time.perf_counter() - started)
            times[f"{current[0]} (CPU)"].append(time.process_time() - cpu)

    app = make_app(db, Settings(_env_file=None, web_rate_limit=0), boards=Boards(db, size=0) if recompute else None)
    app.middlewares.insert(0, timed)
    kinds = pages(SiteLinks(site.address), cursor, events)
    async with TestClient(TestServer(app)) as client:
        for _ in range(3):  # warm up: templates compiled, connections open
            for path, _status in kinds.values():
                await (await client.get(path)).read()
        times.clear()
        for _ in range(requests):
            for kind, (path, status) in kinds.items():
                current[0] = kind
                response = await client.get(path)
                await response.read()
                assert response.status == status, (kind, response.status)
    return times


async def run_backend(url: str, events: int, requests: int, quiet: bool) -> dict[str, dict[str, list[float]]]:
    """{"unchanged": times by page, "recomputed": times by page}."""
    db = Database(url)
    try:
        await upgrade(db)
        started = time.perf_counter()
        site, cursor = await fill(db, events)
        if not quiet:
            print(f"  filled {events:,} events in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        return {"unchanged": await measure(db, events, requests, site, cursor, recompute=False),
                "recomputed": await measure(db, events, max(20, requests // 2), site, cursor, recompute=True)}
    finally:
        await db.dispose()


async def run(events: int = 10_000, requests: int = 200, *, sqlite_only: bool = False,
              postgres: str = "postgresql+asyncpg://postgres@127.0.0.1:5432/test", quiet: bool = False) -> dict:
    results: dict[str, dict | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["sqlite"] = await run_backend(f"sqlite+aiosqlite:///{tmp}/web.sqlite3", events, requests, quiet)
    if sqlite_only:
        results["postgresql"] = "not asked for (--sqlite-only)"
        return results
    url, drop = await scratch_postgres(postgres, quiet=quiet)
    if url is None:
        results["postgresql"] = drop
        return results
    try:
        results["postgresql"] = await run_backend(url, events, requests, quiet)
    finally:
        await drop()
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--sqlite-only", action="store_true")
    parser.add_argument("--postgres", default="postgresql+asyncpg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    results = await run(args.events, args.requests, sqlite_only=args.sqlite_only, postgres=args.postgres)
    for backend, found in results.items():
        print(f"\n{backend}:")
        if isinstance(found, str):
            print(f"  skipped: {found}")
            continue
        for mode, by_page in found.items():
            print(f"  leaderboards {mode}:")
            for kind, values in by_page.items():
                if kind.endswith("(CPU)"):
                    continue
                verdict = "ok" if percentile(values, 0.99) <= BUDGET else "OVER 50 ms"
                print(f"    {kind:40s} p50 {ms(percentile(values, 0.50)):>9s}  p99 {ms(percentile(values, 0.99)):>9s}"
                      f"  (this process's CPU p50 {ms(percentile(by_page[kind + ' (CPU)'], 0.5))})  {verdict}")


if __name__ == "__main__":
    asyncio.run(main())
