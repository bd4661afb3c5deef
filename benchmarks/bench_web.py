"""The web pages' render time with 10,000 finished events and 1,000 complete draft logs in one server.

    python -m benchmarks.bench_web [--events 10000] [--drafts 1000] [--requests 200] [--sqlite-only] [--postgres URL]

For each backend it fills a migrated database with one server's 10,000 finished events (4-12
players each, 300 players with names, every format, three seasons), a few events in progress and
another server's events, 1,000 complete drafts (8 players, 3 packs of 15: 360 picks each, the pod's
cube of 360 cards with its data), one event of every format played through its service
(`tests/web/seed_formats.py`), turns the server's pages on, and asks every kind of page (each
format's event page too) `--requests` times
in turn through aiohttp's test client. The time measured is the server's: from the request reaching
the site's first middleware to its answer (the database queries, the template, the ETag), as a
middleware wrapped around everything else records it. The goal: p99 ≤ 50 ms for every page.

The leaderboards are read from the players' totals (`leaderboard_totals`, a row per player and
format, kept by `event_results.record_results`; the fill's results, inserted in bulk, get theirs from
`event_results.rebuild_totals`). The pages keep the pages of finished events rendered
(`bot.web.page_cache`), and the lists' and leaderboards' data and pages under the server's stamp
(`page_cache.Computed`). Each backend is measured three times: as the pages are read between two
events' ends (a finished event's page, the lists and leaderboards kept since their first request);
with an event ending (through `record_results`) before each round of pages (every list and
leaderboard page built again: what the first request after an event ends costs); and with every
request building everything again (no page or data kept: what the first request of a new site
process costs). As a site process does once its app is built (`bot.web.server.WebServer.start`), the
process's objects are frozen out of the garbage collector's way before each measure; on PostgreSQL
the fill is followed by an ANALYZE, as autovacuum would soon after a bulk change.
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
from sqlalchemy import insert, text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_draft import ms, percentile, scratch_postgres  # noqa: E402
from bot.features.leaderboard import service as leaderboard  # noqa: E402
from bot.games import formats as all_formats  # noqa: E402
from bot.games import leaderboard_titles  # noqa: E402
from bot.games.draft import rules as draft_rules  # noqa: E402
from bot.games.draft.models import DraftPick, DraftPod, DraftSeat  # noqa: E402
from bot.games.turnabout import service as turnabout  # noqa: E402
from bot.kit import event_results  # noqa: E402
from bot.kit.formats import connect_hooks  # noqa: E402
from bot.kit.tables import Actor  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.store.db import Database  # noqa: E402
from bot.store.migrate import upgrade  # noqa: E402
from bot.store.models import EventResult, PlayerName  # noqa: E402
from bot.web import access  # noqa: E402
from bot.web.app import make_app  # noqa: E402
from bot.web.links import SiteLinks  # noqa: E402
from bot.web.page_cache import PageCache  # noqa: E402
from bot.web.server import freeze_startup_objects  # noqa: E402
from tests.web import seed_formats  # noqa: E402

GUILD, OTHER = 1, 2
PLAYERS = 300
BUDGET = 0.050
START = datetime(2024, 1, 1, tzinfo=UTC)
BATCH = 5_000
MODES = {"unchanged": "between two events' ends (leaderboards, lists, finished events' pages kept)",
         "event ended": "each round of pages just after an event's end (its results added: lists and leaderboards "
                        "built anew)",
         "recomputed": "every page built anew (nothing kept)"}


def _format_of(event_id: int) -> str:
    """The format `fill` gives event `event_id` (they take turns)."""
    formats = list(leaderboard_titles())
    return formats[(event_id - 1) % len(formats)]


async def fill(db: Database, events: int) -> tuple[access.Site, str]:
    """The server's events; the cursor of its events' list halfway back."""
    rng = random.Random(27)
    formats = list(leaderboard_titles())
    seasons = [await _season(db, name) for name in ("Spring", "Summer", "Autumn")]
    rows = []
    for index in range(events):
        players = rng.sample(range(1, PLAYERS + 1), rng.randint(4, 12))
        fmt = formats[index % len(formats)]
        season = seasons[index * len(seasons) // events]
        for place, user in enumerate(players, start=1):
            rows.append({"guild_id": GUILD, "format": fmt, "event_id": index + 1, "event_name": f"{fmt} event {index + 1}",
                         "season_id": season, "user_id": user, "placement": place,
                         "points": event_results.placement_points(place, range(1, len(players) + 1)),
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
        for guild_id in (GUILD, OTHER):  # the results went in without `record_results`: their totals
            await event_results.rebuild_totals(session, guild_id)
    organizer = Actor(99, GUILD, manage_guild=True)
    for channel in range(5):
        await turnabout.create_event(db, organizer, channel_id=100 + channel)
    site, _ = await access.turn_on(db, GUILD, "Benchmark club")
    micros = (START + timedelta(hours=events // 2) - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    return site, f"{micros}.{formats[(events // 2) % len(formats)]}.{events // 2 + 1}"


DRAFT_CONFIG = draft_rules.DraftConfig(8, 3, 15)
FORMAT_PLAYERS = list(range(2001, 2011))


def _one_draft() -> tuple[list[dict], list[dict], dict]:
    """A complete draft as the engine plays it (every seat takes its pack's first card): the cube's
    entries, the pick rows (without pod ids) and the final state document."""
    cube = [{"name": f"{seed_formats.CARDS[i % len(seed_formats.CARDS)]} {i}", "colour": "WUBRG"[i % 5],
             "type_line": "Creature — Test", "mana_value": i % 7, "rarity": "common"}
            for i in range(DRAFT_CONFIG.cards_needed)]
    state = draft_rules.DraftState.new(DRAFT_CONFIG, draft_rules.generate_packs([c["name"] for c in cube], DRAFT_CONFIG, 7))
    picks = []
    while not state.is_complete():
        for seat in range(DRAFT_CONFIG.seats):
            head = state.head(seat)
            if head is None:
                continue
            before = head.picks_made
            event = state.pick(seat, head.pack_id, head.cards[0])
            picks.append({"seat": seat, "round": event.round, "pick_number": event.pick_number,
                          "pack_id": event.pack_id, "pack_pick": before, "card": event.card,
                          "sequence": event.sequence, "source": "button", "picked_at": START})
    return cube, picks, state.to_dict()


async def fill_drafts(db: Database, count: int) -> list[int]:
    """`count` complete drafts of the server, each with its 360 picks (the same draft each time)."""
    cube, picks, document = _one_draft()
    async with db.write() as session:
        ids = []
        for start in range(0, count, 100):
            rows = [{"guild_id": GUILD, "channel_id": 900, "organizer_id": 99, "status": "complete", "max_seats": 8,
                     "seed": 7, "state": document, "version": 361, "created_at": START, "started_at": START,
                     "finished_at": START + timedelta(hours=1), "cube_name": "Benchmark cube", "packs": 3,
                     "pack_size": 15, "pick_mode": "both", "card_info": cube}
                    for _ in range(min(100, count - start))]
            ids += list((await session.execute(insert(DraftPod).returning(DraftPod.id), rows)).scalars())
        seats, rows = [], []
        for pod_id in ids:
            seats += [{"pod_id": pod_id, "guild_id": GUILD, "user_id": 1 + (pod_id * 8 + seat) % PLAYERS, "seat": seat,
                       "joined_at": START} for seat in range(8)]
            rows += [{**pick, "pod_id": pod_id, "guild_id": GUILD} for pick in picks]
            if len(rows) >= BATCH * 4:
                await session.execute(insert(DraftPick), rows)
                rows = []
        if rows:
            await session.execute(insert(DraftPick), rows)
        for start in range(0, len(seats), BATCH):
            await session.execute(insert(DraftSeat), seats[start:start + BATCH])
    return ids


async def _season(db: Database, name: str) -> int:
    season = await leaderboard.start_season(db, GUILD, name)
    await leaderboard.end_season(db, GUILD)
    return season.id


def pages(links: SiteLinks, cursor: str, events: int, formats: dict[str, tuple[str, int]] | None = None,
          draft: int | None = None) -> dict[str, tuple[str, int]]:
    """Every kind of page: (address, expected status)."""
    own = {}
    if draft is not None:
        own = {"a complete draft (8 × 45 picks): pools": (links.event("draft", draft), 200),
               "a complete draft: one player's 45 packs": (links.event("draft", draft) + "?seat=3", 200),
               "a complete draft: Draftmancer log (download)":
                   (links.event_file("draft", draft, f"draft-{draft}-draftmancer.json"), 200)}
    for what, (kind, event_id) in (formats or {}).items():
        own[f"{what} (its format's page)"] = (links.event(kind, event_id), 200)
    return {
        "home": (links.home, 200),
        "leaderboard, all formats, all time": (links.leaderboard(season="all"), 200),
        "leaderboard, one format, page 3": (links.leaderboard(format="421", season="all", page=3), 200),
        "finished events, newest": (links.events(), 200),
        "finished events, halfway back": (links.events(before=cursor), 200),
        "one event's results": (links.event(_format_of(events - 4), events - 4), 200),
        "not found (a forged address)": ("/s/" + "A" * 43, 404),
        **own,
    }


async def measure(db: Database, events: int, requests: int, site: access.Site, cursor: str,
                  *, recompute: bool, formats: dict | None = None, draft: int | None = None,
                  event_ends: bool = False) -> dict[str, list[float]]:
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

    app = make_app(db, Settings(_env_file=None, web_rate_limit=0), page_cache=PageCache(size=0) if recompute else None)
    app.middlewares.insert(0, timed)
    freeze_startup_objects()  # as a site process does once its app is built (`WebServer.start`)
    kinds = pages(SiteLinks(site.address), cursor, events, formats, draft)
    async with TestClient(TestServer(app)) as client:
        for _ in range(3):  # warm up: templates compiled, connections open
            for path, _status in kinds.values():
                await (await client.get(path)).read()
        times.clear()
        for round_ in range(requests):
            if event_ends:
                await _event_ends(db, events + 1000 + round_)
            for kind, (path, status) in kinds.items():
                current[0] = kind
                response = await client.get(path)
                await response.read()
                assert response.status == status, (kind, response.status)
    return times


async def _event_ends(db: Database, event_id: int) -> None:
    """One more finished event of the server (8 players), ended as every format ends one: its results,
    the server's newest, and its players' totals."""
    players = random.Random(event_id).sample(range(1, PLAYERS + 1), 8)
    async with db.write() as session:
        await event_results.record_results(session, guild_id=GUILD, format="421", event_id=event_id,
                                         event_name=f"421 event {event_id}",
                                         results=event_results.placed(list(zip(players, range(1, 9), strict=True))))


async def run_backend(url: str, events: int, requests: int, quiet: bool,
                      drafts: int = 1_000) -> dict[str, dict[str, list[float]]]:
    """{"unchanged": times by page, "event ended": times by page, "recomputed": times by page}."""
    # The formats' hooks, as the bot connects them when it starts: a seeded draft's completion opens
    # its Goldfish event (the Goldfish page is one of those measured).
    assert connect_hooks(all_formats()) == []
    db = Database(url)
    try:
        await upgrade(db)
        started = time.perf_counter()
        formats = await seed_formats.seed(db, FORMAT_PLAYERS)  # first: ids of its own, before the made-up results
        site, cursor = await fill(db, events)
        pods = await fill_drafts(db, drafts)
        if db.backend == "postgresql":
            # What a server's tables have: the planner's statistics. Autovacuum gathers them within
            # a minute of a bulk change; until then the planner takes the 40,000 older results of
            # "finished events, halfway back" for a few dozen and sorts them all (26 ms, not 0.3).
            async with db.write() as session:
                await session.execute(text("ANALYZE"))
        if not quiet:
            print(f"  filled {events:,} events, {drafts:,} complete drafts and every format's event in "
                  f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
        draft = pods[len(pods) // 2] if pods else None
        return {"unchanged": await measure(db, events, requests, site, cursor, recompute=False, formats=formats,
                                           draft=draft),
                "event ended": await measure(db, events, max(20, requests // 2), site, cursor, recompute=False,
                                             formats=formats, draft=draft, event_ends=True),
                "recomputed": await measure(db, events, max(20, requests // 2), site, cursor, recompute=True,
                                            formats=formats, draft=draft)}
    finally:
        await db.dispose()


async def run(events: int = 10_000, requests: int = 200, *, sqlite_only: bool = False,
              postgres: str = "postgresql+asyncpg://postgres@127.0.0.1:5432/test", quiet: bool = False,
              drafts: int = 1_000) -> dict:
    results: dict[str, dict | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["sqlite"] = await run_backend(f"sqlite+aiosqlite:///{tmp}/web.sqlite3", events, requests, quiet, drafts)
    if sqlite_only:
        results["postgresql"] = "not asked for (--sqlite-only)"
        return results
    url, drop = await scratch_postgres(postgres, quiet=quiet)
    if url is None:
        results["postgresql"] = drop
        return results
    try:
        results["postgresql"] = await run_backend(url, events, requests, quiet, drafts)
    finally:
        await drop()
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--drafts", type=int, default=1_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--sqlite-only", action="store_true")
    parser.add_argument("--postgres", default="postgresql+asyncpg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    results = await run(args.events, args.requests, sqlite_only=args.sqlite_only, postgres=args.postgres,
                        drafts=args.drafts)
    for backend, found in results.items():
        print(f"\n{backend}:")
        if isinstance(found, str):
            print(f"  skipped: {found}")
            continue
        for mode, by_page in found.items():
            print(f"  {MODES[mode]}:")
            for kind, values in by_page.items():
                if kind.endswith("(CPU)"):
                    continue
                verdict = "ok" if percentile(values, 0.99) <= BUDGET else "OVER 50 ms"
                print(f"    {kind:60s} p50 {ms(percentile(values, 0.50)):>9s}  p99 {ms(percentile(values, 0.99)):>9s}"
                      f"  (this process's CPU p50 {ms(percentile(by_page[kind + ' (CPU)'], 0.5))})  {verdict}")


if __name__ == "__main__":
    asyncio.run(main())
