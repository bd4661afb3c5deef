"""turnabout rating totals: each player's score sum kept with the leaderboard totals

`leaderboard_totals.score_total`: the sum of the results' scores in the row's server, period and
format (0 when none has a score). A Turnabout result's score is the event's rating award, so a
player's Turnabout rating is their all-time row's `score_total`, and `/turnabout rating` and the
event page read a row per player instead of summing every result. The bot adds each event's scores
in the transaction that writes its results (`bot.kit.event_results.add_to_totals`). Filled here from
the results already stored, for every format and period.

Revision ID: 0024_turnabout_rating_totals
Revises: 0023_vortex_log_rows
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024_turnabout_rating_totals"
down_revision: str | None = "0023_vortex_log_rows"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# What the bot's `bot.kit.event_results.rebuild_totals` computes, here for every row at once (a row of
# period 0 sums all time, another period its season). Written out rather than imported: a
# migration must keep doing what it did when the code moves on.
_BACKFILL = (
    "UPDATE leaderboard_totals SET score_total = COALESCE((SELECT SUM(r.score) FROM event_results r"
    " WHERE r.guild_id = leaderboard_totals.guild_id AND r.format = leaderboard_totals.format"
    " AND r.user_id = leaderboard_totals.user_id"
    " AND (leaderboard_totals.period = 0 OR r.season_id = leaderboard_totals.period)), 0)"
)


def upgrade() -> None:
    with op.batch_alter_table("leaderboard_totals", schema=None) as batch_op:
        batch_op.add_column(sa.Column("score_total", sa.Double(), nullable=False, server_default=sa.text("0")))
    op.execute(_BACKFILL)
    with op.batch_alter_table("leaderboard_totals", schema=None) as batch_op:
        batch_op.alter_column("score_total", server_default=None)  # the bot always writes it


def downgrade() -> None:
    with op.batch_alter_table("leaderboard_totals", schema=None) as batch_op:
        batch_op.drop_column("score_total")
