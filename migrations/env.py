"""Alembic environment: async engines, batch mode for SQLite, the models' naming convention.

Run from the command line (`alembic upgrade head`, reading DATABASE_URL from the settings) or
from `bot.store.migrate`, which passes an open connection in `config.attributes["connection"]`.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

import bot.features.clock.models  # noqa: F401 - its table is in the metadata
import bot.games
from bot.store.models import Base

bot.games.modules("models")  # every format's tables are in the metadata

config = context.config
target_metadata = Base.metadata


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
        compare_server_default=True,
    )


def _run_with_connection(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_online_from_settings() -> None:
    from bot.settings import Settings
    from bot.store.db import Database

    db = Database(config.get_main_option("sqlalchemy.url") or Settings().database_url)
    try:
        async with db.engine.connect() as connection:
            await connection.run_sync(_run_with_connection)
            await connection.commit()
    finally:
        await db.dispose()


def run_migrations_offline() -> None:
    from bot.settings import Settings

    context.configure(
        url=config.get_main_option("sqlalchemy.url") or Settings().database_url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
elif (connection := config.attributes.get("connection")) is not None:
    _run_with_connection(connection)
else:
    asyncio.run(_run_online_from_settings())
