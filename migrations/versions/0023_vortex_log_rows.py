"""vortex log rows: a Vortex game's public log in a table of its own

`vortex_log`: one row per event a game's channel was told (`seq` numbers the game's events from 1,
with no gap), appended in the transaction of the action that told it, instead of a list in the
game's `bookkeeping` (``log``, at most 2,000 events, the dropped ones counted in ``log_dropped``)
that every action wrote again with the game. Filled here from those lists, which leave the
bookkeeping: a game that had dropped events starts its rows after them (its first `seq` is
``log_dropped + 1``). The downgrade puts the newest 2,000 back in the bookkeeping, with the count of
the older ones.

Revision ID: 0023_vortex_log_rows
Revises: 0020
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text  # autogenerate renders JSONB(astext_type=Text())
from sqlalchemy.dialects import postgresql

revision: str = "0023_vortex_log_rows"
down_revision: str | None = "0021_card_mtgo_ids"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported: a migration must keep doing what it did when the code moves on.
_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql")
_GAMES = sa.table("vortex_games", sa.column("id", sa.BigInteger()), sa.column("bookkeeping", _JSON))
_LOG = sa.table("vortex_log", sa.column("game_id", sa.BigInteger()), sa.column("seq", sa.Integer()),
                sa.column("event", _JSON))
_OLD_LIMIT = 2000  # events the bookkeeping kept (the bot's LOG_LIMIT when the log lived there)
_ROWS = 1000  # rows an INSERT statement: 3,000 parameters, well within SQLite's limit


def upgrade() -> None:
    op.create_table(
        "vortex_log",
        sa.Column("game_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("event", _JSON, nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["vortex_games.id"], name=op.f("fk_vortex_log_game_id_vortex_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_vortex_log")),
    )
    bind = op.get_bind()
    for game_id, bookkeeping in bind.execute(sa.select(_GAMES.c.id, _GAMES.c.bookkeeping)).all():
        if not isinstance(bookkeeping, dict) or "log" not in bookkeeping:
            continue  # dealt before the log was kept (or never dealt): the page reads the outbox
        first = int(bookkeeping.get("log_dropped") or 0) + 1
        rows = [{"game_id": game_id, "seq": first + i, "event": event}
                for i, event in enumerate(bookkeeping.get("log") or [])]
        for start in range(0, len(rows), _ROWS):
            bind.execute(_LOG.insert(), rows[start:start + _ROWS])
        rest = {key: value for key, value in bookkeeping.items() if key not in ("log", "log_dropped")}
        bind.execute(_GAMES.update().where(_GAMES.c.id == game_id).values(bookkeeping=rest))


def downgrade() -> None:
    bind = op.get_bind()
    logged = bind.execute(sa.select(_LOG.c.game_id, sa.func.max(_LOG.c.seq)).group_by(_LOG.c.game_id)).all()
    for game_id, last in logged:
        newest = bind.execute(sa.select(_LOG.c.event).where(_LOG.c.game_id == game_id, _LOG.c.seq > last - _OLD_LIMIT)
                              .order_by(_LOG.c.seq)).scalars().all()
        bookkeeping = bind.execute(sa.select(_GAMES.c.bookkeeping).where(_GAMES.c.id == game_id)).scalar_one()
        bookkeeping = {**(bookkeeping or {}), "log": list(newest)}
        if last > len(newest):
            bookkeeping["log_dropped"] = last - len(newest)
        bind.execute(_GAMES.update().where(_GAMES.c.id == game_id).values(bookkeeping=bookkeeping))
    op.drop_table("vortex_log")
