"""the game a chess clock decides, and the cards' Oracle text

`chess_clocks.game_ref`: the format's game a clock was started for (what its flag fall decides, if
anything). `cards.oracle_text`: Scryfall's Oracle text, for deck rules judged by what a card does
(Turnabout's bans); rows stored before stay NULL and are asked for again when needed.

Revision ID: 0017
Revises: 0011
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text  # autogenerate renders JSONB(astext_type=Text())
from sqlalchemy.dialects import postgresql

revision: str = "0017"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("cards", schema=None) as batch_op:
        batch_op.add_column(sa.Column("oracle_text", sa.Text(), nullable=True))
    with op.batch_alter_table("chess_clocks", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("game_ref", sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql"),
                      nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("chess_clocks", schema=None) as batch_op:
        batch_op.drop_column("game_ref")
    with op.batch_alter_table("cards", schema=None) as batch_op:
        batch_op.drop_column("oracle_text")
