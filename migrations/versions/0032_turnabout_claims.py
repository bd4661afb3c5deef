"""turnabout claims: a Turnabout game's waiting or disputed report leaves the engine's state

Turnabout's engine kept a report that waits in its game (status "reported" or "disputed",
`reported_by`, the reported `winner` and `value`; `confirmed_by` once confirmed), beside the kit's
claim book in the event's bookkeeping (`claim_book`, since 0025). The kit's book is now the only
place: each such game gets its open claim there (a "reported" game has had one since 0025; a
"disputed" one gets one, status "disputed", unless it has it), and the game goes back to "pending"
(or "flagged", keeping the flag fall's winner) without the report's fields; the state's schema
version becomes 2. The downgrade puts the open claims' reports back into their games (version 1).

Revision ID: 0032_turnabout_claims
Revises: 0031_pod_decks
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text
from sqlalchemy.dialects import postgresql

revision: str = "0032_turnabout_claims"
down_revision: str | None = "0031_pod_decks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported: a migration must keep doing what it did when the code moves on.
_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql")
_BOOK = "claim_book"
_WAITING = ("reported", "disputed")
_REPORT_FIELDS = ("reported_by", "confirmed_by")


def _claim(number, key, round_, players, reporter, result, status, by) -> dict:
    return {"number": number, "key": key, "round": round_, "players": list(players), "reporter": reporter,
            "result": result, "status": status, "how": "dispute" if status == "disputed" else "", "by": by,
            "absent": None, "shown": []}


def _up(state: dict, kept: dict) -> tuple[dict, dict]:
    """Every waiting or disputed report of the state's games, as an open claim of the kit's book."""
    users = [p["user_id"] for p in state.get("players", [])]
    book = dict(kept.get(_BOOK) or {})
    opened = dict(book.get("open") or {})
    number = int(book.get("next", 1))
    matches = []
    for match in state.get("matches", []):
        games = []
        for game in match.get("games", []):
            status, reporter = game.get("status"), game.get("reported_by")
            if status in _WAITING and reporter is not None and match.get("b") is not None:
                key = f"{match['number']}.{game['number']}"
                opponent = match["b"] if reporter == match["a"] else match["a"]
                disputer = users[opponent] if status == "disputed" else None
                kept_claim = opened.get(key)
                if kept_claim is None:
                    winner = users[game["winner"]] if game.get("winner") is not None else None
                    result = {"game": game["number"], "winner": winner, "value": game.get("value")}
                    kept_claim = _claim(number, key, match["round"], (users[match["a"]], users[match["b"]]),
                                        users[reporter], result, status, disputer)
                    number += 1
                elif status == "disputed" and kept_claim.get("status") != "disputed":
                    kept_claim = {**kept_claim, "status": "disputed", "how": "dispute", "by": disputer, "shown": []}
                opened[key] = kept_claim
                flagged = game.get("flagged") is not None
                game = {**game, "status": "flagged" if flagged else "pending",
                        "winner": game.get("winner") if flagged else None, "value": None}
            games.append({k: v for k, v in game.items() if k not in _REPORT_FIELDS})
        matches.append({**match, "games": games})
    book = {**book, "open": opened, "next": number}
    return {**state, "matches": matches, "v": 2}, {**kept, _BOOK: book}


def _down(state: dict, kept: dict) -> tuple[dict, dict]:
    """The open claims' reports back in their games, as the engine kept them before."""
    users = [p["user_id"] for p in state.get("players", [])]
    seat = {user: number for number, user in enumerate(users)}
    opened = (kept.get(_BOOK) or {}).get("open") or {}
    matches = []
    for match in state.get("matches", []):
        games = []
        for game in match.get("games", []):
            claim = opened.get(f"{match['number']}.{game['number']}")
            game = {**game, "reported_by": None, "confirmed_by": None}
            if claim is not None and game.get("status") != "final" and claim.get("reporter") in seat:
                result = claim.get("result") or {}
                winner = result.get("winner")
                game.update(status="disputed" if claim.get("status") == "disputed" else "reported",
                            reported_by=seat[claim["reporter"]], winner=seat.get(winner) if winner is not None else None,
                            value=result.get("value"))
            games.append(game)
        matches.append({**match, "games": games})
    return {**state, "matches": matches, "v": 1}, kept


def _move(direction: int) -> None:
    bind = op.get_bind()
    table = sa.table("turnabout_events", sa.column("id", sa.BigInteger()), sa.column("state", _JSON),
                     sa.column("bookkeeping", _JSON))
    for row_id, state, bookkeeping in bind.execute(sa.select(table.c.id, table.c.state, table.c.bookkeeping)).all():
        if not state or state.get("v") != (1, 2)[direction]:
            continue  # registration still open (no state), or moved already
        moved_state, moved = (_up, _down)[direction](state, dict(bookkeeping or {}))
        bind.execute(table.update().where(table.c.id == row_id).values(state=moved_state, bookkeeping=moved))


def upgrade() -> None:
    _move(0)


def downgrade() -> None:
    _move(1)
