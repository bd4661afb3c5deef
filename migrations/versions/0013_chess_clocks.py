"""chess clocks: one row per /clock, its engine state, and one live clock per pair per channel

Revision ID: 0013
Revises: 0009
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text  # autogenerate renders JSONB(astext_type=Text())
from sqlalchemy.dialects import postgresql

import bot.store.types

revision: str = "0013"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chess_clocks",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("started_by", sa.BigInteger(), nullable=False),
        sa.Column("player_a", sa.BigInteger(), nullable=False),
        sa.Column("player_b", sa.BigInteger(), nullable=False),
        sa.Column("player_low", sa.BigInteger(), nullable=False),
        sa.Column("player_high", sa.BigInteger(), nullable=False),
        sa.Column("live", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("state", sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", bot.store.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", bot.store.types.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chess_clocks")),
        sa.UniqueConstraint(
            "channel_id", "player_low", "player_high", "live",
            name=op.f("uq_chess_clocks_channel_id_player_low_player_high_live"),
        ),
    )
    with op.batch_alter_table("chess_clocks", schema=None) as batch_op:
        batch_op.create_index("ix_chess_clocks_channel_status", ["guild_id", "channel_id", "status"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("chess_clocks", schema=None) as batch_op:
        batch_op.drop_index("ix_chess_clocks_channel_status")
    op.drop_table("chess_clocks")
