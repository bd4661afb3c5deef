"""the cards' printing: Scryfall and Oracle ids, set number, mana cost, Magic Online id

What deck files and draft logs need of the printing Scryfall answers with: `scryfall_id` (the
printing's id, which Draftmancer's logs name cards by), `oracle_id`, `collector_number`, `mana_cost`
(the front face's for a card with faces) and `mtgo_id` (Magic Online's catalogue id of the printing,
its foil one when it has no other: the CatID of a `.dek`). NULL for rows stored before; a row
without `scryfall_id` is asked of Scryfall again when an export or a log needs it.

Revision ID: 0021_card_mtgo_ids
Revises: 0020
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021_card_mtgo_ids"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = ("scryfall_id", "oracle_id", "collector_number", "mana_cost", "mtgo_id")


def upgrade() -> None:
    with op.batch_alter_table("cards", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scryfall_id", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("oracle_id", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("collector_number", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("mana_cost", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("mtgo_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("cards", schema=None) as batch_op:
        for column in reversed(_COLUMNS):
            batch_op.drop_column(column)
