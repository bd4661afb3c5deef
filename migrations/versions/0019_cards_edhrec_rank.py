"""the cards' EDHREC rank

`cards.edhrec_rank`: Scryfall's EDHREC popularity rank of a card (1: the most played), a signal of a
card's strength for the bot drafters when a cube carries no ratings; NULL when Scryfall gives none
and for rows stored before.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("cards", schema=None) as batch_op:
        batch_op.add_column(sa.Column("edhrec_rank", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("cards", schema=None) as batch_op:
        batch_op.drop_column("edhrec_rank")
