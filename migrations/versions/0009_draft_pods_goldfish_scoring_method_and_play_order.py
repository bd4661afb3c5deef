"""draft pods: the Goldfish scoring method and play order chosen at /draft start

Pods created before keep NULL, which means what the Goldfish event always got until now: sum
scoring, playing first.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("draft_pods", schema=None) as batch_op:
        batch_op.add_column(sa.Column("goldfish_method", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("goldfish_play_order", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("draft_pods", schema=None) as batch_op:
        batch_op.drop_column("goldfish_play_order")
        batch_op.drop_column("goldfish_method")
