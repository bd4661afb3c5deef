"""draft variants: a draft pod's `variant` says how it is drafted

NULL (every pod before) is a booster draft; "rotisserie" a Rotisserie draft (`bot.games.draft.
rotisserie_rules`): the cards on offer face up, picked in snake order, its state document the
variant's, its `packs` 1 and its `pack_size` the picks each player makes. `offer`: how many of the
cube's cards are on offer (NULL: all of them).

Revision ID: 0029_draft_variants
Revises: 0028_shown_messages
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029_draft_variants"
down_revision: str | None = "0028_shown_messages"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("draft_pods") as batch:
        batch.add_column(sa.Column("variant", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("offer", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("draft_pods") as batch:
        batch.drop_column("offer")
        batch.drop_column("variant")
