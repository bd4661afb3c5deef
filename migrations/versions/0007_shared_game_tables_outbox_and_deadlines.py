"""shared game tables: bookkeeping documents, versions, seats, the outbox and deadlines

- draft_pods and battler_games get the shared table columns: `bookkeeping` (the service's own
  document, split off `state`, which keeps only the engine's document with a schema version) and,
  for pods, `version`. The `announced` flags go: messages the bot owes now live in `outbox`.
- battler_players get the engine's `seat` once a game runs (as draft seats have).
- `outbox` and `deadlines` are created.
- Work an older version would have done by scanning tables is left as deadlines due at once, which
  the new sweeper runs after the upgrade: re-sending packs and DMs of running games that no message
  shows, re-arming pick timers, and announcing finished tables that were never announced.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-22
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import bot.store.types

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
UTC_DATETIME = bot.store.types.UTCDateTime(timezone=True)
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

pods = sa.table(
    "draft_pods",
    sa.column("id", sa.Integer),
    sa.column("status", sa.String),
    sa.column("state", JSON),
    sa.column("bookkeeping", JSON),
    sa.column("announced", sa.Boolean),
    sa.column("pick_timer_seconds", sa.Integer),
)
games = sa.table(
    "battler_games",
    sa.column("id", sa.Integer),
    sa.column("status", sa.String),
    sa.column("state", JSON),
    sa.column("bookkeeping", JSON),
    sa.column("announced", sa.Boolean),
)
players = sa.table(
    "battler_players", sa.column("id", sa.Integer), sa.column("game_id", sa.Integer),
    sa.column("user_id", sa.BigInteger), sa.column("seat", sa.Integer),
)
deadlines = sa.table(
    "deadlines", sa.column("kind", sa.String), sa.column("key", sa.String), sa.column("due_at", UTC_DATETIME),
    sa.column("payload", JSON), sa.column("created_at", UTC_DATETIME),
)


def _create_outbox_and_deadlines() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", ID, nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", UTC_DATETIME, nullable=False),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("error", sa.String(length=300), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
    )
    op.create_index("ix_outbox_due", "outbox", ["status", "next_attempt_at"], unique=False)
    op.create_table(
        "deadlines",
        sa.Column("id", ID, nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("due_at", UTC_DATETIME, nullable=False),
        sa.Column("payload", JSON, nullable=True),
        sa.Column("created_at", UTC_DATETIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deadlines")),
        sa.UniqueConstraint("kind", "key", name=op.f("uq_deadlines_kind_key")),
    )
    op.create_index(op.f("ix_deadlines_due_at"), "deadlines", ["due_at"], unique=False)


def _due_now(bind, kind: str, table_id: int) -> None:
    now = datetime.now(UTC)
    bind.execute(deadlines.insert().values(kind=kind, key=str(table_id), due_at=now, payload=None, created_at=now))


def _split_draft_documents(bind) -> None:
    """state = the engine's document (+ schema version); bookkeeping = the seats' clocks."""
    for pod_id, status, state, announced, timer in bind.execute(
        sa.select(pods.c.id, pods.c.status, pods.c.state, pods.c.announced, pods.c.pick_timer_seconds)
    ):
        if state is not None:
            engine_doc = {"v": 1, "packs": state["packs"], "picks_by_seat": state["picks_by_seat"]}
            bind.execute(
                pods.update().where(pods.c.id == pod_id).values(state=engine_doc, bookkeeping={"seats": state["seats"]})
            )
        if status == "drafting":
            _due_now(bind, "draft.recover", pod_id)
            if timer:
                _due_now(bind, "draft.timer", pod_id)
        elif status == "complete" and not announced:
            _due_now(bind, "draft.recover", pod_id)


def _split_battler_documents(bind) -> None:
    """state = the engine's document (+ schema version); bookkeeping = what was under state["bot"];
    seats = the engine's order."""
    for game_id, status, state, announced in bind.execute(
        sa.select(games.c.id, games.c.status, games.c.state, games.c.announced)
    ):
        if state is not None:
            document = dict(state)
            bookkeeping = document.pop("bot", None) or {}
            document["v"] = 1
            bind.execute(games.update().where(games.c.id == game_id).values(state=document, bookkeeping=bookkeeping))
            for seat, player in enumerate(document["players"]):
                bind.execute(
                    players.update()
                    .where(players.c.game_id == game_id, players.c.user_id == player["user_id"])
                    .values(seat=seat)
                )
        if status == "running" or (status == "over" and not announced):
            _due_now(bind, "battler.recover", game_id)


def upgrade() -> None:
    _create_outbox_and_deadlines()
    with op.batch_alter_table("draft_pods", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bookkeeping", JSON, nullable=True))
        batch_op.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("battler_games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bookkeeping", JSON, nullable=True))
    with op.batch_alter_table("battler_players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("seat", sa.Integer(), nullable=True))

    bind = op.get_bind()
    _split_draft_documents(bind)
    _split_battler_documents(bind)

    with op.batch_alter_table("draft_pods", schema=None) as batch_op:
        batch_op.alter_column("version", server_default=None)
        batch_op.drop_column("announced")
    with op.batch_alter_table("battler_games", schema=None) as batch_op:
        batch_op.drop_column("announced")
    with op.batch_alter_table("battler_players", schema=None) as batch_op:
        batch_op.create_unique_constraint(batch_op.f("uq_battler_players_game_id_seat"), ["game_id", "seat"])


def _join_documents(bind) -> None:
    for pod_id, state, bookkeeping in bind.execute(sa.select(pods.c.id, pods.c.state, pods.c.bookkeeping)):
        if state is not None:
            joined = {"packs": state["packs"], "picks_by_seat": state["picks_by_seat"],
                      "seats": (bookkeeping or {}).get("seats", [])}
            bind.execute(pods.update().where(pods.c.id == pod_id).values(state=joined))
    for game_id, state, bookkeeping in bind.execute(sa.select(games.c.id, games.c.state, games.c.bookkeeping)):
        if state is not None:
            joined = {key: value for key, value in state.items() if key != "v"}
            joined["bot"] = bookkeeping or {}
            bind.execute(games.update().where(games.c.id == game_id).values(state=joined))


def downgrade() -> None:
    # Everything already owed counts as announced: the old code never retried a finished table's posts.
    with op.batch_alter_table("draft_pods", schema=None) as batch_op:
        batch_op.add_column(sa.Column("announced", sa.Boolean(), nullable=False, server_default=sa.true()))
    with op.batch_alter_table("battler_games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("announced", sa.Boolean(), nullable=False, server_default=sa.true()))
    _join_documents(op.get_bind())
    with op.batch_alter_table("draft_pods", schema=None) as batch_op:
        batch_op.alter_column("announced", server_default=None)
        batch_op.drop_column("version")
        batch_op.drop_column("bookkeeping")
    with op.batch_alter_table("battler_games", schema=None) as batch_op:
        batch_op.alter_column("announced", server_default=None)
        batch_op.drop_column("bookkeeping")
    with op.batch_alter_table("battler_players", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_battler_players_game_id_seat"), type_="unique")
        batch_op.drop_column("seat")
    op.drop_index(op.f("ix_deadlines_due_at"), table_name="deadlines")
    op.drop_table("deadlines")
    op.drop_index("ix_outbox_due", table_name="outbox")
    op.drop_table("outbox")
