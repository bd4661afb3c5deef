"""Migrations from empty give exactly the models' schema, and downgrade/upgrade round-trips."""

from __future__ import annotations

from datetime import UTC, datetime

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select, text

import bot.games
from bot.kit import event_results
from bot.store.db import Database
from bot.store.migrate import downgrade, upgrade
from bot.store.models import Base


def _schema_diff(sync_connection) -> list:
    context = MigrationContext.configure(
        sync_connection, opts={"compare_type": True, "compare_server_default": True}
    )
    return compare_metadata(context, Base.metadata)


def _table_names(sync_connection) -> set[str]:
    return set(inspect(sync_connection).get_table_names()) - {"alembic_version"}


async def _diff(db: Database) -> list:
    async with db.engine.connect() as connection:
        return await connection.run_sync(_schema_diff)


async def _tables(db: Database) -> set[str]:
    async with db.engine.connect() as connection:
        return await connection.run_sync(_table_names)


async def test_upgrade_from_empty_matches_models(db_url):
    db = Database(db_url)
    try:
        await upgrade(db)
        assert await _diff(db) == []
        assert await _tables(db) == set(Base.metadata.tables)
    finally:
        await db.dispose()


async def test_downgrade_then_upgrade_round_trips(db_url):
    db = Database(db_url)
    try:
        await upgrade(db)
        await downgrade(db, "base")
        assert await _tables(db) == set()
        await upgrade(db)
        assert await _diff(db) == []
    finally:
        await db.dispose()


async def test_upgrade_twice_is_a_no_op(db_url):
    db = Database(db_url)
    try:
        await upgrade(db)
        await upgrade(db)
        assert await _diff(db) == []
    finally:
        await db.dispose()


async def test_upgrading_keeps_existing_rows(db_url):
    """A server that ran an older version keeps its data: a pod from revision 0002, with its seats
    and picks, survives to head (on SQLite, table rebuilds must not cascade-delete child rows)."""
    db = Database(db_url)
    try:
        await upgrade(db, "0002")
        async with db.write() as session:
            await session.execute(
                text(
                    "INSERT INTO draft_pods (guild_id, channel_id, organizer_id, cube_name, status, max_seats, packs,"
                    " pack_size, pick_mode, seed, sequence, card_info, created_at)"
                    " VALUES (1, 2, 3, 'goldfish', 'complete', 8, 2, 15, 'both', 42, 240, '[]', :now)"
                ),
                {"now": datetime(2026, 1, 1, tzinfo=UTC)},
            )
            pod_id = (await session.execute(text("SELECT id FROM draft_pods"))).scalar_one()
            await session.execute(
                text(
                    "INSERT INTO draft_seats (pod_id, guild_id, user_id, seat, joined_at, picks, is_bot, dm_closed,"
                    " timeouts, reminded) VALUES (:pod, 1, 5, 0, :now, 30, false, false, 0, false)"
                ),
                {"pod": pod_id, "now": datetime(2026, 1, 1, tzinfo=UTC)},
            )
            await session.execute(
                text(
                    "INSERT INTO draft_picks (pod_id, guild_id, seat, round, pick_number, pack_id, pack_pick, card,"
                    " sequence, source, picked_at) VALUES (:pod, 1, 0, 0, 1, 0, 0, 'Opt', 1, 'button', :now)"
                ),
                {"pod": pod_id, "now": datetime(2026, 1, 1, tzinfo=UTC)},
            )
        await upgrade(db)
        async with db.read() as session:
            row = (await session.execute(text("SELECT cube_name, seed FROM draft_pods"))).one()
            seats = (await session.execute(text("SELECT user_id FROM draft_seats"))).scalars().all()
            picks = (await session.execute(text("SELECT card FROM draft_picks"))).scalars().all()
            owed = (await session.execute(text("SELECT kind, key FROM deadlines"))).all()
        assert (row.cube_name, row.seed) == ("goldfish", 42)
        assert (list(seats), list(picks)) == ([5], ["Opt"])
        # It was never announced: the upgrade leaves that to the new sweeper (0007).
        assert [tuple(r) for r in owed] == [("draft.recover", str(pod_id))]
        assert await _diff(db) == []
    finally:
        await db.dispose()


async def test_running_draft_converts_to_the_state_document_and_back(db_url):
    """0006 moves packs and seat clocks into draft_pods.state; a draft in progress survives both ways."""
    from bot.games.draft import service as drafts

    db = Database(db_url)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    try:
        await upgrade(db, "0005")
        async with db.write() as session:
            await session.execute(
                text(
                    "INSERT INTO draft_pods (id, guild_id, channel_id, organizer_id, cube_name, status, max_seats,"
                    " packs, pack_size, pick_mode, seed, card_info, created_at, started_at, announced)"
                    " VALUES (7, 1, 2, 3, 'c', 'drafting', 2, 1, 2, 'both', 42, '[]', :now, :now, false)"
                ),
                {"now": now},
            )
            for seat, (user, picks) in enumerate([(11, 1), (12, 0)]):
                await session.execute(
                    text(
                        "INSERT INTO draft_seats (pod_id, guild_id, user_id, seat, joined_at, picks, is_bot,"
                        " dm_closed, timeouts, waiting_since, reminded) VALUES"
                        " (7, 1, :user, :seat, :now, :picks, false, false, 0, :now, false)"
                    ),
                    {"user": user, "seat": seat, "picks": picks, "now": now},
                )
            # Seat 0 took "a" from pack 0 (now at seat 1, behind seat 1's own pack 1).
            for pack_id, cards, made, arrived in [(0, '["b"]', 1, 1), (1, '["c", "d"]', 0, 0)]:
                await session.execute(
                    text(
                        "INSERT INTO draft_packs (pod_id, pack_id, round, origin, cards, picks_made, arrived)"
                        f" VALUES (7, :pack, 0, :pack, '{cards}', :made, :arrived)"
                    ),
                    {"pack": pack_id, "made": made, "arrived": arrived},
                )
        await upgrade(db)
        pod = await drafts.get_pod(db, 7)
        assert [(s.user_id, s.picks, s.queued) for s in pod.seats] == [(11, 1, 0), (12, 0, 2)]
        prompt = await drafts.current_prompt(db, 7, 12)
        assert (prompt.pack_id, prompt.cards) == (1, ("c", "d"))
        assert await _diff(db) == []

        await downgrade(db, "0005")
        async with db.read() as session:
            rows = (await session.execute(text("SELECT pack_id, picks_made FROM draft_packs ORDER BY pack_id"))).all()
            picks = (await session.execute(text("SELECT picks FROM draft_seats ORDER BY seat"))).scalars().all()
        assert [tuple(r) for r in rows] == [(0, 1), (1, 0)] and list(picks) == [1, 0]
    finally:
        await db.dispose()


async def test_names_get_unicode_keys_and_colliding_names_are_renamed(db_url):
    """0007 stores names cleaned and keyed by bot.kit.text.name_key, unique per guild. Names that
    collide under that key (possible before: SQL lower() is ASCII-only on SQLite) keep the oldest
    row's name and number the later ones; a cube hiding behind a shipped cube's name is renamed."""
    db = Database(db_url)
    now = {"now": datetime(2026, 1, 1, tzinfo=UTC)}
    try:
        await upgrade(db, "0006")
        async with db.write() as session:
            for guild, name in [(1, "Äpfel"), (1, "äpfel"), (1, " Club   Cube "), (1, "ＧＯＬＤＦＩＳＨ"), (2, "äpfel")]:
                await session.execute(
                    text(
                        "INSERT INTO cubes (guild_id, name, source, card_count, cards, created_by, created_at)"
                        " VALUES (:guild, :name, 'upload', 1, '[]', 5, :now)"
                    ),
                    {"guild": guild, "name": name, **now},
                )
            for name in ("Winter", "WINTER", "winter"):
                await session.execute(
                    text("INSERT INTO seasons (guild_id, name, started_at) VALUES (1, :name, :now)"),
                    {"name": name, **now},
                )
            for name in ("Straße", "STRASSE", "x" * 100, "X" * 100):
                await session.execute(
                    text(
                        "INSERT INTO goldfish_events (guild_id, channel_id, name, turns, method, organizer_id,"
                        " status, created_at) VALUES (1, 2, :name, 7, 'sum', 3, 'open', :now)"
                    ),
                    {"name": name, **now},
                )
        await upgrade(db)
        assert await _diff(db) == []

        async def names(table: str) -> list[tuple]:
            async with db.read() as session:
                query = f"SELECT guild_id, name, name_key FROM {table} ORDER BY id"  # noqa: S608 - a constant
                return [tuple(row) for row in (await session.execute(text(query))).all()]

        assert await names("cubes") == [
            (1, "Äpfel", "äpfel"), (1, "äpfel (2)", "äpfel (2)"), (1, "Club Cube", "club cube"),
            (1, "GOLDFISH (2)", "goldfish (2)"), (2, "äpfel", "äpfel"),
        ]
        assert [name for _, name, _ in await names("seasons")] == ["Winter", "WINTER (2)", "winter (3)"]
        events = [name for _, name, _ in await names("goldfish_events")]
        assert events == ["Straße", "STRASSE (2)", "x" * 100, "X" * 96 + " (2)"]
        async with db.read() as session:
            orders = (await session.execute(text("SELECT DISTINCT play_order FROM goldfish_events"))).scalars().all()
        assert list(orders) == ["first"]

        await downgrade(db, "0006")
        async with db.read() as session:
            kept = (await session.execute(text("SELECT name FROM cubes ORDER BY id"))).scalars().all()
        assert list(kept) == ["Äpfel", "äpfel (2)", "Club Cube", "GOLDFISH (2)", "äpfel"]
        await upgrade(db)
        assert await _diff(db) == []
    finally:
        await db.dispose()


async def test_0020_fills_the_leaderboard_totals_from_the_results_and_round_trips(db):
    """0020 sums the results stored before it into the totals, for all time and for each season, as
    the bot would have kept them; its downgrade drops only the totals, and upgrading again fills
    them the same."""
    import random

    from bot.store.models import EventResult, Season
    from tests.kit.test_event_results import kept_totals, summed_from_results

    await downgrade(db, "0019")
    assert "leaderboard_totals" not in await _tables(db)
    rng = random.Random(20)
    async with db.write() as session:
        seasons = [Season(guild_id=1, name=name, name_key=name.lower(), started_at=datetime(2026, 1, 1, tzinfo=UTC))
                   for name in ("Spring", "Summer")]
        session.add_all(seasons)
        await session.flush()
        for event_id in range(1, 25):
            guild_id = 1 if event_id % 4 else 2
            players = rng.sample(range(100, 110), rng.randint(2, 6))
            for place, user_id in enumerate(players, start=1):
                session.add(EventResult(
                    guild_id=guild_id, format=list(bot.games.leaderboard_titles())[event_id % 5], event_id=event_id,
                    event_name="before", season_id=seasons[event_id % 3].id if event_id % 3 < 2 and guild_id == 1
                    else None, user_id=user_id, placement=place, points=float(len(players) + 1 - place),
                    score=rng.choice([None, float(rng.randint(0, 30))])))
    await upgrade(db)
    filled = {guild_id: await kept_totals(db, guild_id) for guild_id in (1, 2)}
    assert filled == {guild_id: await summed_from_results(db, guild_id) for guild_id in (1, 2)}
    assert set(filled[1]) == {event_results.ALL_TIME_TOTALS, seasons[0].id, seasons[1].id} and filled[2]

    await downgrade(db, "0019")
    assert "leaderboard_totals" not in await _tables(db)
    async with db.read() as session:
        assert (await session.execute(text("SELECT COUNT(*) FROM event_results"))).scalar_one() > 48
    await upgrade(db)
    assert {guild_id: await kept_totals(db, guild_id) for guild_id in (1, 2)} == filled
    assert await _diff(db) == []


async def test_0021_adds_the_printings_ids_to_the_cards_and_round_trips(db):
    """0021 keeps the card rows stored before it (their printing's fields empty: exports ask
    Scryfall again); its downgrade drops only those columns, and upgrading again adds them back."""
    printing = ("scryfall_id", "oracle_id", "collector_number", "mana_cost", "mtgo_id")

    async def columns() -> set[str]:
        async with db.engine.connect() as connection:
            return await connection.run_sync(lambda c: {col["name"] for col in inspect(c).get_columns("cards")})

    await downgrade(db, "0020")
    assert not set(printing) & await columns()
    async with db.write() as session:
        await session.execute(text(
            "INSERT INTO cards (name_key, name, front_name, colours, colour_identity, type_line, mana_value, rarity,"
            " set_code, layout, image_uris, fetched_at) VALUES ('opt', 'Opt', 'Opt', 'U', 'U', 'Instant', 1, 'common',"
            " 'xln', 'normal', '{}', :now)"), {"now": datetime(2026, 1, 1, tzinfo=UTC)})
    await upgrade(db)
    assert set(printing) <= await columns()
    async with db.write() as session:
        row = (await session.execute(text(f"SELECT name, {', '.join(printing)} FROM cards"))).one()
        assert tuple(row) == ("Opt", None, None, None, None, None)
        await session.execute(text("UPDATE cards SET mtgo_id = 65543, scryfall_id = 'x'"))
    await downgrade(db, "0020")
    async with db.read() as session:
        assert (await session.execute(text("SELECT name FROM cards"))).scalars().all() == ["Opt"]
    await upgrade(db)
    assert await _diff(db) == []


async def test_0023_moves_the_vortex_logs_to_rows_and_back(db):
    """0023 moves each game's public log from its bookkeeping to rows numbered after its dropped
    events, and takes ``log`` and ``log_dropped`` out of the bookkeeping; its downgrade puts the newest
    2,000 back with the count of the older ones (rows the bot appended since included)."""
    from sqlalchemy import func, insert, select

    from bot.games.vortex.models import VortexGame, VortexLogEntry

    def event(n: int) -> dict:
        return {"type": "vortex.LifeChanged", "seat": n % 2, "delta": -1, "life": n, "reason": "reported"}

    await downgrade(db, "0020")
    assert "vortex_log" not in await _tables(db)
    long_log = [event(n) for n in range(1990)]
    games = {  # bookkeeping as the bot kept it before 0023
        "long": {"offer": 7, "winner": 1001, "log": long_log, "log_dropped": 15},
        "short": {"offer": 2, "log": [event(1), event(2)]},
        "unlogged": {"offer": 3},  # dealt before the log was kept
    }
    async with db.write() as session:
        rows = {name: VortexGame(guild_id=1, channel_id=2, organizer_id=3, status="running", max_seats=5, seed=1,
                                 cube_name="c", cube_cards=[], state={}, bookkeeping=bookkeeping, version=1,
                                 created_at=datetime(2026, 1, 1, tzinfo=UTC))
                for name, bookkeeping in games.items()}
        session.add_all(rows.values())
        await session.flush()
        ids = {name: row.id for name, row in rows.items()}

    async def logged(name: str) -> list[tuple[int, dict]]:
        async with db.read() as session:
            return [tuple(r) for r in await session.execute(
                select(VortexLogEntry.seq, VortexLogEntry.event).where(VortexLogEntry.game_id == ids[name])
                .order_by(VortexLogEntry.seq))]

    async def bookkeeping(name: str) -> dict:
        async with db.read() as session:
            return await session.scalar(select(VortexGame.bookkeeping).where(VortexGame.id == ids[name]))

    await upgrade(db)
    assert await logged("long") == [(16 + n, e) for n, e in enumerate(long_log)]
    assert await logged("short") == [(1, event(1)), (2, event(2))] and await logged("unlogged") == []
    assert [await bookkeeping(name) for name in games] == [{"offer": 7, "winner": 1001}, {"offer": 2}, {"offer": 3}]
    async with db.write() as session:  # the bot goes on: 20 more events for the long game
        await session.execute(insert(VortexLogEntry), [
            {"game_id": ids["long"], "seq": 2006 + n, "event": event(5000 + n)} for n in range(20)])

    await downgrade(db, "0020")
    assert "vortex_log" not in await _tables(db)
    newest = (long_log + [event(5000 + n) for n in range(20)])[-2000:]
    assert await bookkeeping("long") == {"offer": 7, "winner": 1001, "log": newest, "log_dropped": 25}
    assert [await bookkeeping(name) for name in ("short", "unlogged")] == [games["short"], games["unlogged"]]

    await upgrade(db)
    assert [seq for seq, _ in await logged("long")] == list(range(26, 2026))
    assert await logged("short") == [(1, event(1)), (2, event(2))]
    async with db.read() as session:
        assert await session.scalar(select(func.count()).select_from(VortexLogEntry)) == 2002
    assert await _diff(db) == []


async def test_0024_fills_the_score_sums_from_the_results_and_round_trips(db):
    """0024 adds each totals row's score sum (Turnabout's ratings), filled from the stored results for
    all time and each season, as the bot keeps it; its downgrade drops only that column."""
    from bot.features.leaderboard import service as leaderboard
    from bot.games.turnabout import service as turnabout
    from tests.games.turnabout.test_ratings import ratings_from_results
    from tests.kit.test_event_results import end_event, kept_totals, summed_from_results

    season = await leaderboard.start_season(db, 1, "Spring")
    for event_id, (fmt, scores) in enumerate([("turnabout", [12.0, 7.5, 3.0]), ("421", [30.0, None]),
                                              ("turnabout", [4.5, 9.0])], start=1):
        if event_id == 3:
            await leaderboard.end_season(db, 1)
        await end_event(db, 1, fmt, event_id, [(1000 + i, i + 1, score) for i, score in enumerate(scores)])
    kept = await kept_totals(db, 1)
    assert kept == await summed_from_results(db, 1) and set(kept) == {event_results.ALL_TIME_TOTALS, season.id}
    ratings = await turnabout.ratings(db, 1)
    assert [(r.user_id, r.rating, r.events) for r in ratings] == [(1000, 16.5, 2), (1001, 16.5, 2), (1002, 3.0, 1)]

    async def columns() -> set[str]:
        async with db.engine.connect() as connection:
            return await connection.run_sync(
                lambda sync: {c["name"] for c in inspect(sync).get_columns("leaderboard_totals")})

    await downgrade(db, "0023_vortex_log_rows")
    assert "score_total" not in await columns() and "best_score" in await columns()
    await upgrade(db)
    assert await kept_totals(db, 1) == kept
    assert await turnabout.ratings(db, 1) == ratings == await ratings_from_results(db, 1)
    assert await _diff(db) == []


async def test_0025_moves_421_and_battler_reports_to_the_kits_claim_book_and_back(db):
    """0025 moves the reports each format kept in its bookkeeping (421's `claims` and `answered`,
    Battler's `reports` and `answered`, Turnabout's messages of a waiting report from its engine state) to
    the kit's claim book, numbers kept: a button of a report
    posted before the upgrade still answers it, and an answered one still says what became of it.
    The downgrade puts back the old shape, which the upgrade reads again."""
    from bot.games.battler import service as battler
    from bot.games.battler.models import BattlerGame
    from bot.games.four_two_one import service as four_two_one
    from bot.games.four_two_one.models import FourTwoOneLeague
    from bot.games.turnabout import service as turnabout
    from bot.games.turnabout.models import TurnaboutEvent
    from bot.kit import claims, shown
    from tests.common import player
    from tests.games.battler.test_service import member, setup_all, started_game
    from tests.games.four_two_one.test_service import begun, build_all
    from tests.games.turnabout.test_service import ORG, queued, registered

    league = await build_all(db, await begun(db, 4))
    first, second = league.state.matches[:2]
    answered = await four_two_one.report(db, league.id, player(league.user_of(first.a)), result="won")
    await four_two_one.claim_shown(db, answered.claim, channel_id=7, message_id=70)
    await four_two_one.confirm(db, league.id, answered.claim.number, player(league.user_of(first.b)))
    waiting = await four_two_one.report(db, league.id, player(league.user_of(second.a)), result="draw")
    await four_two_one.claim_shown(db, waiting.claim, channel_id=7, message_id=71)

    game, prompts = await started_game(db)
    state = (await setup_all(db, prompts)).game.state
    (a, b), (c, d) = [(state.players[p.a].user_id, state.players[p.b].user_id) for p in state.pairings]
    confirmed = (await battler.report(db, game.id, player(a), "won", treasures_left=0)).report
    await battler.confirm_report(db, game.id, confirmed.id, member(b, False))
    open_report = (await battler.report(db, game.id, player(c), "lost")).report

    async def bookkeeping(table, row_id: int) -> dict:
        async with db.read() as session:
            return (await session.get(table, row_id, populate_existing=True)).bookkeeping

    event = await registered(db, 4, rounds=1)
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m = event.state.round_matches()[0]
    a_user, b_user = event.user_of(m.a), event.user_of(m.b)
    reported = await turnabout.report(db, event.id, player(a_user), result="won", value=20, game=1)
    await turnabout.report_shown(db, reported.pending, 7, 80)

    async def turnabout_report() -> list:
        """The report's messages: the kit's records (since 0033)."""
        async with db.read() as session:
            return [[r.channel_id, r.message_id] for r in await shown.showing(session, shown.Owner(turnabout.KIND, event.id))]

    def as_kept(kept: dict) -> dict:
        """The book as the code keeps it: 0025 writes the claims of its time, whose `shown` (their messages,
        kept since as the kit's records) a claim no longer has (an extra key, ignored)."""
        book = kept[claims.BOOK]
        return {**kept, claims.BOOK: {**book, **{part: {k: {f: v for f, v in c.items() if f != "shown"}
                                                      for k, c in book.get(part, {}).items()}
                                                for part in ("open", "ended")}}}

    new_421, new_battler = await bookkeeping(FourTwoOneLeague, league.id), await bookkeeping(BattlerGame, game.id)
    await downgrade(db, "0024_turnabout_rating_totals")
    async with db.read() as session:  # the message is the game's again, in the engine's state
        row = await session.get(TurnaboutEvent, event.id, populate_existing=True)
        assert row.state["matches"][m.number - 1]["games"][0]["messages"] == [[7, 80]]
    old = await bookkeeping(FourTwoOneLeague, league.id)
    assert claims.BOOK not in old and old["next_claim"] == 3
    assert old["claims"][second.label] == {"number": 2, "round": 1, "match": second.label, "by": second.a, "winner": None,
                                           "disputed_by": None, "shown": []}  # its message: the kit's record
    assert old["answered"]["1"]["how"] == "confirm" and old["answered"]["1"]["claim"]["winner"] == league.user_of(first.a)
    old = await bookkeeping(BattlerGame, game.id)
    assert claims.BOOK not in old and old["next_report"] == 3 and list(old["reports"]) == [str(open_report.id)]
    assert old["answered"][str(confirmed.id)]["how"] == "confirm"

    await upgrade(db)
    assert as_kept(await bookkeeping(FourTwoOneLeague, league.id)) == new_421
    assert await turnabout_report() == [[7, 80]] and claims.Book(await bookkeeping(TurnaboutEvent, event.id)).waiting()
    edited = len(await queued(db, claims.ANSWERED))  # 421's so far
    await turnabout.confirm(db, event.id, m.number, 1, player(b_user))
    assert [e.payload["message_id"] for e in await queued(db, claims.ANSWERED)][edited:] == [80]
    assert as_kept(await bookkeeping(BattlerGame, game.id)) == new_battler
    late = await claims.late_words(db, four_two_one.GAMES, four_two_one.RULES, league.id, answered.claim.number,
                                   league.guild_id)
    assert late is not None and (late.how, late.by) == ("confirm", league.user_of(first.b))
    await four_two_one.confirm(db, league.id, waiting.claim.number, player(league.user_of(second.b)))
    assert (await claims.late_words(db, battler.GAMES, battler.RULES, game.id, confirmed.id, game.guild_id)).how == "confirm"
    done = await battler.confirm_report(db, game.id, open_report.id, member(d, False), treasures_left=0)
    assert done.applied is not None and done.applied.id == open_report.id
    assert await _diff(db) == []


async def test_0027_keeps_a_draft_events_players_from_its_seats_and_round_trips(db):
    """0027 gives each Goldfish event opened by a draft the players it used to read from the draft's
    seats (Goldfish no longer reads the draft's tables); a paper event keeps none (anyone reports)."""
    import random

    from bot.games.draft import service as drafts
    from bot.games.goldfish import service as goldfish
    from bot.games.goldfish.models import GoldfishEvent
    from tests.games.draft.test_service import ADMIN, new_pod, play_out

    pod = await new_pod(db, players=3, goldfish=drafts.GoldfishOptions(turns=7))
    begun = await drafts.begin(db, pod.id, ADMIN)
    await play_out(db, pod.id, begun.prompts, random.Random(1))
    paper = await goldfish.create_event(db, actor=ADMIN, channel_id=10, name="Paper", turns=7)

    async def players() -> dict[int | None, list | None]:
        async with db.read() as session:
            rows = await session.execute(select(GoldfishEvent.pod_id, GoldfishEvent.players))
            return {pod_id: kept for pod_id, kept in rows}

    kept = await players()
    assert sorted(kept[pod.id]) == sorted(pod.player_ids) and kept[None] is None
    await downgrade(db, "0026_set_drafts")
    await upgrade(db)
    assert await players() == kept and paper.id


async def test_0028_moves_vortex_and_421_message_records_to_shown_messages_and_back(db):
    """0028 moves what Vortex (`shown`: its look and search DMs) and 421 (`menu`: the take-apart
    menu's announcement) kept in their bookkeeping, and Battler's `battler_messages`, to the kit's
    `shown_messages`; the downgrade puts them back, and the upgrade reads them again."""
    from bot.games.battler import service as battler
    from bot.games.four_two_one import service as four_two_one
    from bot.games.four_two_one.models import FourTwoOneLeague
    from bot.games.vortex import service as vortex
    from bot.games.vortex.models import VortexGame
    from bot.kit import shown
    from tests.games.battler.test_service import started_game
    from tests.games.four_two_one.test_service import begun
    from tests.games.vortex.test_service import in_play

    game, _ = await in_play(db)
    league = await begun(db, 2)
    news = {"league_id": league.id, "events": []}
    records = {shown.Owner(vortex.KIND, game.id): (vortex.LOOK, 2, 7000, 501, None),
               shown.Owner(four_two_one.KIND, league.id): (four_two_one.MENU, 0, 7, 70, news)}
    async with db.write() as session:
        for owner, (key, version, channel_id, message_id, payload) in records.items():
            await shown.want(session, owner, key, version)
            await shown.record(session, owner, key, version, channel_id, message_id, payload)

    async def bookkeeping(table, row_id: int) -> dict:
        async with db.read() as session:
            return (await session.get(table, row_id, populate_existing=True)).bookkeeping

    battler_game, prompts = await started_game(db)  # each player's setup DM recorded as shown
    dm = next(iter(prompts.values()))
    await battler.record_shown(db, dm, channel_id=77, message_id=990)  # sent again: replaces its record
    battler_owner = shown.Owner("battler", battler_game.id)
    async with db.read() as session:
        battler_dms = await shown.showing(session, battler_owner)
    assert len(battler_dms) == len(prompts)

    await downgrade(db, "0027_goldfish")
    async with db.read() as session:
        old = (await session.execute(text("SELECT game_id, user_id, kind, version, channel_id, message_id"
                                          " FROM battler_messages"))).all()
    assert len(old) == len(prompts)
    assert (battler_game.id, dm.user_id, dm.kind, dm.version, 77, 990) in [tuple(r) for r in old]
    assert (await bookkeeping(VortexGame, game.id))["shown"] == [[vortex.LOOK, 2, 7000, 501]]
    assert (await bookkeeping(FourTwoOneLeague, league.id))["menu"] == {"channel_id": 7, "message_id": 70,
                                                                         "news": news}
    await upgrade(db)
    assert "shown" not in await bookkeeping(VortexGame, game.id)
    assert "menu" not in await bookkeeping(FourTwoOneLeague, league.id)
    async with db.read() as session:
        for owner, (key, version, channel_id, message_id, payload) in records.items():
            assert await shown.showing(session, owner) == [shown.Shown(key, version, channel_id, message_id, payload)]
        assert await shown.showing(session, battler_owner) == battler_dms
    assert await battler.shown_in(db, battler_game.id, dm.user_id) == (dm, 990)
    assert await _diff(db) == []


async def test_0032_moves_turnabout_reports_out_of_the_engine_and_back(db):
    """0032: a Turnabout game's waiting or disputed report leaves the engine's state for the kit's claim
    book (state version 2); the downgrade puts it back in its game (version 1), and the upgrade reads
    that again, opening the claim of a dispute only the engine knew: the report still waits, and its
    opponent's Confirm still makes it count."""
    from bot.games.turnabout import service as turnabout
    from bot.games.turnabout.models import TurnaboutEvent
    from bot.kit import claims
    from tests.common import player
    from tests.games.turnabout.test_service import ORG, registered

    event = await registered(db, 4, rounds=1)
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m, other = event.state.round_matches()
    b, c, d = event.user_of(m.b), event.user_of(other.a), event.user_of(other.b)
    await turnabout.report(db, event.id, player(event.user_of(m.a)), result="won", value=20, game=1)
    await turnabout.report(db, event.id, player(c), result="won", value=5, game=1)
    await turnabout.dispute(db, event.id, other.number, 1, player(d))

    async def stored() -> tuple[dict, dict]:
        async with db.read() as session:
            row = await session.get(TurnaboutEvent, event.id, populate_existing=True)
            return dict(row.state), dict(row.bookkeeping or {})

    new_state, _ = await stored()
    await downgrade(db, "0031_pod_decks")
    old_state, old_book = await stored()
    reported, disputed = (old_state["matches"][x.number - 1]["games"][0] for x in (m, other))
    assert old_state["v"] == 1
    assert (reported["status"], reported["reported_by"], reported["winner"], reported["value"]) == ("reported", m.a, m.a, 20)
    assert (disputed["status"], disputed["reported_by"], disputed["winner"], disputed["value"]) == (
        "disputed", other.a, other.a, 5)
    old_book[claims.BOOK]["open"].pop(f"{other.number}.1")  # a dispute of before the book kept disputes
    async with db.write() as session:
        (await session.get(TurnaboutEvent, event.id)).bookkeeping = old_book

    await upgrade(db)
    state, book = await stored()
    assert state == new_state and state["v"] == 2
    waiting = claims.Book(book).waiting()
    assert [(x.key, x.status, x.reporter) for x in waiting] == [
        (f"{m.number}.1", claims.REPORTED, event.user_of(m.a)), (f"{other.number}.1", claims.DISPUTED, c)]
    assert waiting[1].by == d and waiting[1].result_as(turnabout.Reported) == turnabout.Reported(1, c, 5)
    await turnabout.confirm(db, event.id, m.number, 1, player(b))
    assert (await turnabout.get_event(db, event.id)).state.match(m.number).games[0].status == "final"
    assert await _diff(db) == []


async def test_0033_moves_turnabout_report_messages_to_the_kits_records_and_back(db):
    """0033: the messages Turnabout kept with a waiting claim (its `shown`) become the kit's records
    (`bot.kit.shown`, key `claim.<number>`: the newest, one message per key has live buttons), and
    `shown` leaves the book; the report's opponent's Confirm then edits that message (the kit's
    `claims.answered`). The downgrade puts the record back in the claim; the upgrade reads it again."""
    from bot.games.turnabout import service as turnabout
    from bot.games.turnabout.models import TurnaboutEvent
    from bot.kit import claims, shown
    from tests.common import player
    from tests.games.turnabout.test_service import ORG, queued, registered

    event = await registered(db, 4, rounds=1)
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m, other = event.state.round_matches()
    reported = (await turnabout.report(db, event.id, player(event.user_of(m.a)), result="won", value=20, game=1)).pending
    await turnabout.report(db, event.id, player(event.user_of(other.a)), result="won", value=5, game=1)
    await turnabout.dispute(db, event.id, other.number, 1, player(event.user_of(other.b)))
    owner = shown.Owner(turnabout.KIND, event.id)

    async def book() -> dict:
        async with db.read() as session:
            return dict((await session.get(TurnaboutEvent, event.id, populate_existing=True)).bookkeeping or {})

    async def records() -> list[shown.Shown]:
        async with db.read() as session:
            return await shown.showing(session, owner)

    await downgrade(db, "0032_turnabout_claims")
    kept = await book()
    kept[claims.BOOK]["open"][f"{m.number}.1"]["shown"] = [[7, 80], [7, 81]]  # as Turnabout kept them: a repeat
    async with db.write() as session:
        (await session.get(TurnaboutEvent, event.id)).bookkeeping = kept

    await upgrade(db)
    assert await records() == [shown.Shown(f"claim.{reported.claim}", 0, 7, 81)]
    assert not any("shown" in c for c in (await book())[claims.BOOK]["open"].values())
    await downgrade(db, "0032_turnabout_claims")
    assert (await book())[claims.BOOK]["open"][f"{m.number}.1"]["shown"] == [[7, 81]] and await records() == []
    await upgrade(db)
    await turnabout.confirm(db, event.id, m.number, 1, player(event.user_of(m.b)))
    [edit] = await queued(db, claims.ANSWERED)
    assert edit.payload["message_id"] == 81 and edit.payload["words"]["how"] == claims.CONFIRM and await records() == []
    assert await _diff(db) == []
