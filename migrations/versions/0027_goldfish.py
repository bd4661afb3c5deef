"""goldfish: a Goldfish event keeps who may report in it

Goldfish Draft moved out of the draft's package into its own (`bot/games/goldfish/`), reached from the
draft only through the "draft.complete" hook. A Goldfish event opened by a draft read its players from
the draft's seats (`draft_seats`) whenever a score came in; it now keeps them, as the hook gives them,
in `goldfish_events.players` (the seats' user ids; NULL for a paper event, where anyone may report).
The upgrade fills it for the events of existing drafts from their seats; the downgrade drops it.

A refused score form is kept as the player typed it, to be offered again: in the table where uploaded
write-ups wait for their form (`goldfish_pending_writeups.form`, NULL for an upload).

Revision ID: 0027_goldfish
Revises: 0026_set_drafts
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text
from sqlalchemy.dialects import postgresql

revision: str = "0027_goldfish"
down_revision: str | None = "0026_set_drafts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported: a migration must keep doing what it did when the code moves on.
_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("goldfish_events") as batch:
        batch.add_column(sa.Column("players", _JSON, nullable=True))
    with op.batch_alter_table("goldfish_pending_writeups") as batch:
        batch.add_column(sa.Column("form", _JSON, nullable=True))
    events = sa.table("goldfish_events", sa.column("id", sa.BigInteger()), sa.column("pod_id", sa.BigInteger()),
                      sa.column("players", _JSON))
    seats = sa.table("draft_seats", sa.column("pod_id", sa.BigInteger()), sa.column("user_id", sa.BigInteger()))
    bind = op.get_bind()
    players: dict[int, list[int]] = {}
    for pod_id, user_id in bind.execute(sa.select(seats.c.pod_id, seats.c.user_id)
                                        .where(seats.c.pod_id.in_(sa.select(events.c.pod_id)))):
        players.setdefault(pod_id, []).append(user_id)
    for event_id, pod_id in bind.execute(sa.select(events.c.id, events.c.pod_id).where(events.c.pod_id.is_not(None))):
        bind.execute(events.update().where(events.c.id == event_id).values(players=sorted(players.get(pod_id, []))))


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM goldfish_pending_writeups WHERE form IS NOT NULL"))
    with op.batch_alter_table("goldfish_pending_writeups") as batch:
        batch.drop_column("form")
    with op.batch_alter_table("goldfish_events") as batch:
        batch.drop_column("players")
