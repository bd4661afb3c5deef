"""turnabout shown: a Turnabout report's messages become the kit's records (`shown_messages`)

Turnabout kept the messages that show a waiting report with its claim in the kit's book (the claim's
``shown``: ``[channel_id, message_id]`` pairs, in the event's ``bookkeeping.claim_book``), the last
format to do so. They are now the kit's records, like 421's, Battler's and Pods' (`bot.kit.shown`,
owner kind ``turnabout``, key ``claim.<number>``, version 0 while the claim waits for its opponent):
the newest message of each waiting claim moves there (one message per key has live buttons; an
older copy keeps its buttons, and a click on it is answered privately with what became of the
report), and ``shown`` leaves every claim. The downgrade puts each record back into its waiting
claim's ``shown``.

Revision ID: 0033_turnabout_shown
Revises: 0032_turnabout_claims
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text
from sqlalchemy.dialects import postgresql

revision: str = "0033_turnabout_shown"
down_revision: str | None = "0032_turnabout_claims"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported: a migration must keep doing what it did when the code moves on.
_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql")
_BIG = sa.BigInteger()
_SHOWN = sa.table("shown_messages", sa.column("owner_kind", sa.String()), sa.column("owner_id", _BIG),
                  sa.column("key", sa.String()), sa.column("version", sa.Integer()), sa.column("channel_id", _BIG),
                  sa.column("message_id", _BIG), sa.column("payload", _JSON))
_EVENTS = sa.table("turnabout_events", sa.column("id", _BIG), sa.column("bookkeeping", _JSON))
_KIND, _BOOK, _PREFIX = "turnabout", "claim_book", "claim."


def _events() -> list[tuple[int, dict]]:
    rows = op.get_bind().execute(sa.select(_EVENTS.c.id, _EVENTS.c.bookkeeping)).all()
    return [(row_id, dict(kept)) for row_id, kept in rows if kept and (kept.get(_BOOK) or {}).get("open")]


def _save(row_id: int, kept: dict, opened: dict) -> None:
    book = {**kept[_BOOK], "open": opened}
    op.get_bind().execute(_EVENTS.update().where(_EVENTS.c.id == row_id).values(bookkeeping={**kept, _BOOK: book}))


def upgrade() -> None:
    bind = op.get_bind()
    recorded = {(owner, key) for owner, key in bind.execute(
        sa.select(_SHOWN.c.owner_id, _SHOWN.c.key).where(_SHOWN.c.owner_kind == _KIND)).all()}
    for row_id, kept in _events():
        opened = {}
        for match, claim in kept[_BOOK]["open"].items():
            shown, key = claim.get("shown") or [], f"{_PREFIX}{claim['number']}"
            if shown and claim.get("status") == "reported" and (row_id, key) not in recorded:
                channel_id, message_id = shown[-1]
                bind.execute(_SHOWN.insert().values(owner_kind=_KIND, owner_id=row_id, key=key, version=0,
                                                    channel_id=channel_id, message_id=message_id, payload=None))
            opened[match] = {k: v for k, v in claim.items() if k != "shown"}
        _save(row_id, kept, opened)


def downgrade() -> None:
    bind = op.get_bind()
    records = bind.execute(sa.select(_SHOWN.c.owner_id, _SHOWN.c.key, _SHOWN.c.channel_id, _SHOWN.c.message_id)
                           .where(_SHOWN.c.owner_kind == _KIND, _SHOWN.c.key.like(f"{_PREFIX}%"))).all()
    shown = {(owner, key): [[channel_id, message_id]] for owner, key, channel_id, message_id in records
             if message_id is not None}
    for row_id, kept in _events():
        opened = {match: {**claim, "shown": shown.get((row_id, f"{_PREFIX}{claim['number']}"), [])}
                  for match, claim in kept[_BOOK]["open"].items()}
        _save(row_id, kept, opened)
    bind.execute(_SHOWN.delete().where(_SHOWN.c.owner_kind == _KIND, _SHOWN.c.key.like(f"{_PREFIX}%")))
