"""pod decks: the deck a player attaches to their pod report

`pod_matches.decks`: {"<user id>": {"main": [card names], "sideboard": [card names]}}, kept while the
pod runs and shown only after it ends.

Revision ID: 0031_pod_decks
Revises: 0030_pod_matches
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text
from sqlalchemy.dialects import postgresql

revision: str = "0031_pod_decks"
down_revision: str | None = "0030_pod_matches"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported: a migration must keep doing what it did when the code moves on.
_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("pod_matches") as batch:
        batch.add_column(sa.Column("decks", _JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("pod_matches") as batch:
        batch.drop_column("decks")
