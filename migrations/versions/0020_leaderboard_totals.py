"""leaderboard totals: each player's sums per server, period and format

`leaderboard_totals`: one row per (server, period, format, player) with the player's events, wins,
points and best score, where the period is a season's id or 0 for all time. `/leaderboard` and the
web pages read these (a row per player) instead of summing every result of the server; the bot adds
each event's results to them in the transaction that writes the results. Filled here from the
results already stored.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# What the bot's `bot.kit.event_results.rebuild_totals` computes for one server, here for every server.
# Written out rather than imported: a migration must keep doing what it did when the code moves on.
# All time (period 0) from every result, then each season's from its results.
_SUMS = ("COUNT(*), SUM(CASE WHEN placement = 1 THEN 1 ELSE 0 END), SUM(points), MAX(score)"
         " FROM event_results")
_BACKFILL = (
    "INSERT INTO leaderboard_totals (guild_id, period, format, user_id, events, wins, points, best_score)"
    f" SELECT guild_id, 0, format, user_id, {_SUMS} GROUP BY guild_id, format, user_id"
    f" UNION ALL SELECT guild_id, season_id, format, user_id, {_SUMS} WHERE season_id IS NOT NULL"
    " GROUP BY guild_id, season_id, format, user_id"
)


def upgrade() -> None:
    op.create_table(
        "leaderboard_totals",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("period", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("format", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("events", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("points", sa.Double(), nullable=False),
        sa.Column("best_score", sa.Double(), nullable=True),
        sa.PrimaryKeyConstraint("guild_id", "period", "format", "user_id", name=op.f("pk_leaderboard_totals")),
    )
    op.execute(_BACKFILL)


def downgrade() -> None:
    op.drop_table("leaderboard_totals")
