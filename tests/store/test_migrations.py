"""Migrations from empty give exactly the models' schema, and downgrade/upgrade round-trips."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

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
