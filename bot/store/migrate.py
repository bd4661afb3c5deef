"""Apply Alembic migrations from code (the bot upgrades to head at startup)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection

from bot.store.db import Database

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
# Any constant works; it only has to be the same for every bot process sharing a database.
_PG_MIGRATION_LOCK = 7_357_421


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def _run(connection: Connection, revision: str, downgrade: bool) -> None:
    if connection.dialect.name == "postgresql":
        # Several shard processes may start at once: only one migrates, the others wait.
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
    config = alembic_config()
    config.attributes["connection"] = connection
    if downgrade:
        command.downgrade(config, revision)
    else:
        command.upgrade(config, revision)


async def _migrate(db: Database, revision: str, downgrade: bool) -> None:
    if db.backend != "sqlite":
        async with db.write() as session:
            connection = await session.connection()
            await connection.run_sync(_run, revision, downgrade)
        return
    # SQLite alters a table by rebuilding it; with foreign keys on, dropping the old copy would
    # cascade-delete every child row. So migrate with them off, then check nothing dangles.
    migrator = Database(db.url, sqlite_foreign_keys=False)
    try:
        async with migrator.write() as session:
            connection = await session.connection()
            await connection.run_sync(_run, revision, downgrade)
            problems = (await session.execute(text("PRAGMA foreign_key_check"))).all()
            if problems:
                raise RuntimeError(f"migration to {revision} left rows with broken foreign keys: {problems[:5]}")
    finally:
        await migrator.dispose()


async def upgrade(db: Database, revision: str = "head") -> None:
    await _migrate(db, revision, False)


async def downgrade(db: Database, revision: str = "base") -> None:
    await _migrate(db, revision, True)
