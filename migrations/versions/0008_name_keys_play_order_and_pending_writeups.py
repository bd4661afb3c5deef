"""names compare by a Unicode key; Goldfish play order; uploaded write-ups wait in the database

- cubes, seasons and goldfish_events get `name_key` (bot.kit.text.name_key: NFKC + casefold), unique
  per guild, replacing the unique (guild_id, name) of cubes and seasons. SQL `lower()` is
  ASCII-only on SQLite, so "Äpfel" and "äpfel" used to be two cubes that no lookup could find.
  Existing names are stored cleaned (bot.kit.text.clean_name) and their keys computed in Python.
  **Rows whose keys collide today are renamed**: the oldest row (lowest id) keeps its name, the
  later ones become "name (2)", "name (3)", … (cut to fit 100 characters). A guild cube whose key
  is a shipped cube's (which the shipped cube hid) is renamed the same way.
- goldfish_events.play_order: who plays first, agreed per event ("first" for existing events).
- goldfish_pending_writeups: write-up files waiting for their score form (they were held in one
  process's memory, lost on restart and evictable by any member).

Downgrade drops the keys, the play order and the pending write-ups; renamed rows keep their new
names (which are unique, so the old unique constraints hold again).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.store.types
from bot.cards.shipped import load_shipped_cubes
from bot.kit.text import clean_name, name_key

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAMED_TABLES = ("cubes", "seasons", "goldfish_events")
NAME_LENGTH = 100
KEY_LENGTH = 400


def _free_name(name: str, taken: set[str]) -> str:
    """`name`, or the first of "name (2)", "name (3)", … whose key is not taken."""
    candidate, number = name, 1
    while name_key(candidate) in taken:
        number += 1
        suffix = f" ({number})"
        candidate = name[: NAME_LENGTH - len(suffix)].rstrip() + suffix
    return candidate


def _backfill_keys(bind, table_name: str, reserved: set[str]) -> None:
    table = sa.table(
        table_name,
        sa.column("id", sa.Integer),
        sa.column("guild_id", sa.BigInteger),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
    )
    taken: dict[int, set[str]] = {}
    for row in bind.execute(sa.select(table.c.id, table.c.guild_id, table.c.name).order_by(table.c.id)).all():
        keys = taken.setdefault(row.guild_id, set(reserved))
        name = _free_name(clean_name(row.name)[:NAME_LENGTH].rstrip() or f"unnamed {row.id}", keys)
        keys.add(name_key(name))
        bind.execute(table.update().where(table.c.id == row.id).values(name=name, name_key=name_key(name)))


def upgrade() -> None:
    bind = op.get_bind()
    for table_name in NAMED_TABLES:
        with op.batch_alter_table(table_name, schema=None) as batch_op:
            batch_op.add_column(sa.Column("name_key", sa.String(length=KEY_LENGTH), nullable=True))
    shipped_keys = {name_key(key) for key in load_shipped_cubes()}
    _backfill_keys(bind, "cubes", shipped_keys)
    _backfill_keys(bind, "seasons", set())
    _backfill_keys(bind, "goldfish_events", set())
    for table_name in ("cubes", "seasons"):
        with op.batch_alter_table(table_name, schema=None) as batch_op:
            batch_op.drop_constraint(f"uq_{table_name}_guild_id_name", type_="unique")
    for table_name in NAMED_TABLES:
        with op.batch_alter_table(table_name, schema=None) as batch_op:
            batch_op.alter_column("name_key", existing_type=sa.String(length=KEY_LENGTH), nullable=False)
            batch_op.create_unique_constraint(f"uq_{table_name}_guild_id_name_key", ["guild_id", "name_key"])

    with op.batch_alter_table("goldfish_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("play_order", sa.String(length=16), nullable=True))
    op.execute("UPDATE goldfish_events SET play_order = 'first'")
    with op.batch_alter_table("goldfish_events", schema=None) as batch_op:
        batch_op.alter_column("play_order", existing_type=sa.String(length=16), nullable=False)

    op.create_table(
        "goldfish_pending_writeups",
        sa.Column("key", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("expires_at", bot.store.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_goldfish_pending_writeups")),
    )
    with op.batch_alter_table("goldfish_pending_writeups", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_goldfish_pending_writeups_expires_at"), ["expires_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_goldfish_pending_writeups_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_table("goldfish_pending_writeups")
    with op.batch_alter_table("goldfish_events", schema=None) as batch_op:
        batch_op.drop_column("play_order")
    for table_name in NAMED_TABLES:
        with op.batch_alter_table(table_name, schema=None) as batch_op:
            batch_op.drop_constraint(f"uq_{table_name}_guild_id_name_key", type_="unique")
            batch_op.drop_column("name_key")
    for table_name in ("cubes", "seasons"):
        with op.batch_alter_table(table_name, schema=None) as batch_op:
            batch_op.create_unique_constraint(f"uq_{table_name}_guild_id_name", ["guild_id", "name"])
