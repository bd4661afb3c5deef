"""the web pages: each server's site address and signing key, players' names, result indexes

`guild_settings.web_address` / `web_key` / `web_title`: a server's web pages are on while it has an
address (unguessable, minted by `/config set web on`, changed by `/web rotate`); `player_names`: the
display names the pages show; three indexes on `event_results` for the pages' queries (a server's
newest result, its events newest first, its leaderboards grouped by player from the index alone).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("guild_settings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("web_address", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("web_key", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("web_title", sa.String(length=100), nullable=True))
        batch_op.create_unique_constraint(batch_op.f("uq_guild_settings_web_address"), ["web_address"])
    op.create_table(
        "player_names",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id", name=op.f("pk_player_names")),
    )
    with op.batch_alter_table("event_results", schema=None) as batch_op:
        batch_op.create_index("ix_event_results_newest", ["guild_id", "id"], unique=False)
        batch_op.create_index("ix_event_results_recent", ["guild_id", "finished_at", "format", "event_id"], unique=False)
        batch_op.create_index(
            "ix_event_results_players",
            ["guild_id", "user_id", "format", "season_id", "placement", "points", "score"], unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("event_results", schema=None) as batch_op:
        batch_op.drop_index("ix_event_results_players")
        batch_op.drop_index("ix_event_results_recent")
        batch_op.drop_index("ix_event_results_newest")
    op.drop_table("player_names")
    with op.batch_alter_table("guild_settings", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_guild_settings_web_address"), type_="unique")
        batch_op.drop_column("web_title")
        batch_op.drop_column("web_key")
        batch_op.drop_column("web_address")
