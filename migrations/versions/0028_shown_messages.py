"""shown messages: which message shows what, in one table (`bot.kit.shown`)

`shown_messages`: one row per (owner kind, owner id, key): the version of a thing a table shows
(a Vortex game's look or search by its number, a 421 league's take-apart menu) and the Discord
message that shows it. Filled here from the records the formats kept in their bookkeeping, which
leave it: Vortex's ``shown`` (``[kind, number, channel_id, message_id]``, the newest message of each
kind kept: one message per key has live buttons now) and 421's ``menu`` (``{channel_id,
message_id, news}``, the announcement kept as the row's payload to redraw it without the menu);
and Treasure Battler's table ``battler_messages`` (a row per game, user, DM kind and version) goes,
the newest version of each game's, user's and kind's DM moving to key ``<kind>.<user id>``.
The downgrade puts them back (Battler's as one row per DM, sent at the downgrade's time).

Revision ID: 0028_shown_messages
Revises: 0027_goldfish
Create Date: 2026-12-02
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text
from sqlalchemy.dialects import postgresql

revision: str = "0028_shown_messages"
down_revision: str | None = "0027_goldfish"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported: a migration must keep doing what it did when the code moves on.
_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql")
_BIG = sa.BigInteger()
_SHOWN = sa.table("shown_messages", sa.column("owner_kind", sa.String()), sa.column("owner_id", _BIG),
                  sa.column("key", sa.String()), sa.column("version", sa.Integer()), sa.column("channel_id", _BIG),
                  sa.column("message_id", _BIG), sa.column("payload", _JSON))
_VORTEX, _421 = "vortex", "421"
_MENU = "421.menu"  # the key of a league's take-apart menu (the bot's `four_two_one.service.MENU`)
_TABLES = {_VORTEX: "vortex_games", _421: "four_two_one_leagues"}


def _games(kind: str) -> sa.TableClause:
    return sa.table(_TABLES[kind], sa.column("id", _BIG), sa.column("bookkeeping", _JSON))


def _vortex_rows(game_id: int, shown: list) -> list[dict]:
    newest: dict[str, dict] = {}
    for kind, number, channel_id, message_id in shown:
        newest[kind] = {"owner_kind": _VORTEX, "owner_id": game_id, "key": kind, "version": number,
                        "channel_id": channel_id, "message_id": message_id, "payload": None}
    return list(newest.values())


def _421_rows(league_id: int, menu: dict | None) -> list[dict]:
    if not menu:
        return []
    return [{"owner_kind": _421, "owner_id": league_id, "key": _MENU, "version": 0, "channel_id": menu["channel_id"],
             "message_id": menu["message_id"], "payload": menu["news"]}]


_MOVED = {_VORTEX: ("shown", _vortex_rows), _421: ("menu", _421_rows)}
_BATTLER = "battler"
_BATTLER_MESSAGES = sa.table("battler_messages", sa.column("game_id", _BIG), sa.column("user_id", _BIG),
                             sa.column("kind", sa.String()), sa.column("version", sa.Integer()),
                             sa.column("channel_id", _BIG), sa.column("message_id", _BIG),
                             sa.column("sent_at", sa.DateTime(timezone=True)))


def _battler_up(bind) -> None:
    m = _BATTLER_MESSAGES.c
    newest: dict[tuple[int, str], dict] = {}
    for game_id, user_id, kind, version, channel_id, message_id in bind.execute(
            sa.select(m.game_id, m.user_id, m.kind, m.version, m.channel_id, m.message_id).order_by(m.version)):
        newest[(game_id, f"{kind}.{user_id}")] = {
            "owner_kind": _BATTLER, "owner_id": game_id, "key": f"{kind}.{user_id}", "version": version,
            "channel_id": channel_id, "message_id": message_id, "payload": None}
    if newest:
        bind.execute(_SHOWN.insert(), list(newest.values()))
    with op.batch_alter_table("battler_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_battler_messages_message_id"))
        batch_op.drop_index(batch_op.f("ix_battler_messages_game_id"))
    op.drop_table("battler_messages")


def _battler_down(bind) -> None:
    op.create_table(
        "battler_messages",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("game_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["battler_games.id"], name=op.f("fk_battler_messages_game_id_battler_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_battler_messages")),
        sa.UniqueConstraint("game_id", "user_id", "kind", "version",
                            name=op.f("uq_battler_messages_game_id_user_id_kind_version")),
    )
    with op.batch_alter_table("battler_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_battler_messages_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_battler_messages_message_id"), ["message_id"], unique=False)
    s = _SHOWN.c
    rows = bind.execute(sa.select(s.owner_id, s.key, s.version, s.channel_id, s.message_id).where(
        s.owner_kind == _BATTLER, s.message_id.is_not(None))).all()
    now = datetime.now(UTC)
    back = [{"game_id": game_id, "user_id": int(key.rsplit(".", 1)[1]), "kind": key.rsplit(".", 1)[0],
             "version": version, "channel_id": channel_id, "message_id": message_id, "sent_at": now}
            for game_id, key, version, channel_id, message_id in rows]
    if back:
        bind.execute(_BATTLER_MESSAGES.insert(), back)


def upgrade() -> None:
    op.create_table(
        "shown_messages",
        sa.Column("owner_kind", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("payload", _JSON, nullable=True),
        sa.PrimaryKeyConstraint("owner_kind", "owner_id", "key", name=op.f("pk_shown_messages")),
    )
    bind = op.get_bind()
    for kind, (field, rows_of) in _MOVED.items():
        games = _games(kind)
        for game_id, bookkeeping in bind.execute(sa.select(games.c.id, games.c.bookkeeping)).all():
            if not isinstance(bookkeeping, dict) or field not in bookkeeping:
                continue
            rows = rows_of(game_id, bookkeeping[field])
            if rows:
                bind.execute(_SHOWN.insert(), rows)
            rest = {k: v for k, v in bookkeeping.items() if k != field}
            bind.execute(games.update().where(games.c.id == game_id).values(bookkeeping=rest))
    _battler_up(bind)


def downgrade() -> None:
    bind = op.get_bind()
    _battler_down(bind)
    rows = bind.execute(sa.select(_SHOWN).where(_SHOWN.c.message_id.is_not(None))).mappings().all()
    kept: dict[tuple[str, int], list] = {}
    for row in rows:
        if row["owner_kind"] in _TABLES:
            kept.setdefault((row["owner_kind"], row["owner_id"]), []).append(row)
    for (kind, owner_id), owned in kept.items():
        games = _games(kind)
        bookkeeping = bind.execute(sa.select(games.c.bookkeeping).where(games.c.id == owner_id)).scalar_one_or_none()
        if bookkeeping is None:
            continue
        if kind == _VORTEX:
            value = [[r["key"], r["version"], r["channel_id"], r["message_id"]] for r in owned
                     if r["key"] in ("vortex.look", "vortex.search")]
        else:
            menu = next((r for r in owned if r["key"] == _MENU), None)
            value = None if menu is None else {"channel_id": menu["channel_id"], "message_id": menu["message_id"],
                                                 "news": menu["payload"]}
        field = _MOVED[kind][0]
        bind.execute(games.update().where(games.c.id == owner_id).values(bookkeeping={**bookkeeping, field: value}))
    op.drop_table("shown_messages")
