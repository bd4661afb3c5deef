"""set drafts: a draft pod's `booster` says how its packs are dealt

NULL (every pod before) deals a seeded shuffle of the cube; "classic" collates a set's draft
boosters (`bot.cards.boosters`) from the pod's `card_info`, whose entries then carry a rarity.

Revision ID: 0026_set_drafts
Revises: 0025_claims
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026_set_drafts"
down_revision: str | None = "0025_claims"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("draft_pods") as batch:
        batch.add_column(sa.Column("booster", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("draft_pods") as batch:
        batch.drop_column("booster")
