"""Migrations from empty give exactly the models' schema, and downgrade/upgrade round-trips."""

from __future__ import annotations

from datetime import UTC, datetime

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

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
    """A server that ran an older version keeps its data: a pod from revision 0002 survives to head."""
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
        await upgrade(db)
        async with db.read() as session:
            row = (await session.execute(text("SELECT cube_name, announced, seed FROM draft_pods"))).one()
        assert (row.cube_name, bool(row.announced), row.seed) == ("goldfish", False, 42)
        assert await _diff(db) == []
    finally:
        await db.dispose()
