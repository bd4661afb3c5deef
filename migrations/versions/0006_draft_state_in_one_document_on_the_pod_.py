"""draft state in one document on the pod (packs and seat clocks)

A pick used to read the pod, its seats and its packs and write a pack row and one or two seat
rows. Now the packs and the seats' pick clocks live in draft_pods.state, so a pick reads one row
(with its seats, in the same statement) and writes it back, plus the pick row itself.
Running drafts are converted both ways.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-21
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import bot.store.types

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
UTC_DATETIME = bot.store.types.UTCDateTime(timezone=True)

pods = sa.table("draft_pods", sa.column("id", sa.Integer), sa.column("state", JSON))
seats_before = sa.table(
    "draft_seats",
    sa.column("pod_id", sa.Integer),
    sa.column("seat", sa.Integer),
    sa.column("picks", sa.Integer),
    sa.column("waiting_since", UTC_DATETIME),
    sa.column("reminded", sa.Boolean),
    sa.column("last_pick_at", UTC_DATETIME),
)
packs = sa.table(
    "draft_packs",
    sa.column("pod_id", sa.Integer),
    sa.column("pack_id", sa.Integer),
    sa.column("round", sa.Integer),
    sa.column("origin", sa.Integer),
    sa.column("cards", JSON),
    sa.column("picks_made", sa.Integer),
    sa.column("arrived", sa.Integer),
)


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def _states_from_rows(bind) -> dict[int, dict]:
    states: dict[int, dict] = {}
    for row in bind.execute(sa.select(packs).order_by(packs.c.pod_id, packs.c.pack_id)):
        state = states.setdefault(row.pod_id, {"packs": [], "picks_by_seat": [], "seats": []})
        state["packs"].append({"cards": list(row.cards), "picks_made": row.picks_made, "arrived": row.arrived})
    for row in bind.execute(sa.select(seats_before).order_by(seats_before.c.pod_id, seats_before.c.seat)):
        if row.pod_id in states and row.seat is not None:
            states[row.pod_id]["picks_by_seat"].append(row.picks)
            states[row.pod_id]["seats"].append(
                {"waiting_since": _iso(row.waiting_since), "reminded": bool(row.reminded), "last_pick_at": _iso(row.last_pick_at)}
            )
    return states


def upgrade() -> None:
    with op.batch_alter_table("draft_pods", schema=None) as batch_op:
        batch_op.add_column(sa.Column("state", JSON, nullable=True))
    bind = op.get_bind()
    for pod_id, state in _states_from_rows(bind).items():
        bind.execute(pods.update().where(pods.c.id == pod_id).values(state=state))
    op.drop_table("draft_packs")
    with op.batch_alter_table("draft_seats", schema=None) as batch_op:
        batch_op.drop_column("waiting_since")
        batch_op.drop_column("reminded")
        batch_op.drop_column("last_pick_at")
        batch_op.drop_column("picks")


def downgrade() -> None:
    with op.batch_alter_table("draft_seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("picks", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("last_pick_at", UTC_DATETIME, nullable=True))
        batch_op.add_column(sa.Column("reminded", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("waiting_since", UTC_DATETIME, nullable=True))
    op.create_table(
        "draft_packs",
        sa.Column("pod_id", bot.store.types.AutoId, nullable=False),
        sa.Column("pack_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("origin", sa.Integer(), nullable=False),
        sa.Column("cards", JSON, nullable=False),
        sa.Column("picks_made", sa.Integer(), nullable=False),
        sa.Column("arrived", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["pod_id"], ["draft_pods.id"], name=op.f("fk_draft_packs_pod_id_draft_pods"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("pod_id", "pack_id", name=op.f("pk_draft_packs")),
    )
    bind = op.get_bind()
    for pod_id, state in bind.execute(sa.select(pods.c.id, pods.c.state).where(pods.c.state.is_not(None))).all():
        seats = len(state["picks_by_seat"])
        for pack_id, pack in enumerate(state["packs"]):
            bind.execute(
                packs.insert().values(
                    pod_id=pod_id, pack_id=pack_id, round=pack_id // seats, origin=pack_id % seats,
                    cards=pack["cards"], picks_made=pack["picks_made"], arrived=pack["arrived"],
                )
            )
        for seat, (picks, clock) in enumerate(zip(state["picks_by_seat"], state["seats"], strict=True)):
            bind.execute(
                seats_before.update()
                .where(seats_before.c.pod_id == pod_id, seats_before.c.seat == seat)
                .values(
                    picks=picks,
                    reminded=clock["reminded"],
                    waiting_since=clock["waiting_since"] and datetime.fromisoformat(clock["waiting_since"]),
                    last_pick_at=clock["last_pick_at"] and datetime.fromisoformat(clock["last_pick_at"]),
                )
            )
    with op.batch_alter_table("draft_pods", schema=None) as batch_op:
        batch_op.drop_column("state")
