"""pod matches: a draft pod's matches after its draft (issue 38)

`pod_matches`: one row per completed draft (the "draft.complete" hook), waiting until its organizer
starts the matches, or started at once when `/draft start` asked for them; the engine's document in
`state`, the kit's claims in `bookkeeping`. `draft_pods.follow_options`: what the hook's followers
settled from `/draft start` beyond Goldfish's own columns (`matches`, `teams`).

Revision ID: 0030_pod_matches
Revises: 0029_draft_variants
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text
from sqlalchemy.dialects import postgresql

revision: str = "0030_pod_matches"
down_revision: str | None = "0029_draft_variants"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported: a migration must keep doing what it did when the code moves on.
_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql")
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "pod_matches",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("pod_id", _ID, sa.ForeignKey("draft_pods.id", ondelete="SET NULL"), nullable=True),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("organizer_id", sa.BigInteger(), nullable=False),
        sa.Column("seats", _JSON, nullable=False),
        sa.Column("bots", _JSON, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("auto_pair", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("state", _JSON, nullable=True),
        sa.Column("bookkeeping", _JSON, nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("pod_id"),
    )
    op.create_index("ix_pod_matches_guild_id", "pod_matches", ["guild_id"])
    op.create_index("ix_pod_matches_status", "pod_matches", ["status"])
    with op.batch_alter_table("draft_pods") as batch:
        batch.add_column(sa.Column("follow_options", _JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("draft_pods") as batch:
        batch.drop_column("follow_options")
    op.drop_index("ix_pod_matches_status", table_name="pod_matches")
    op.drop_index("ix_pod_matches_guild_id", table_name="pod_matches")
    op.drop_table("pod_matches")
