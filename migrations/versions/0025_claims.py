"""claims: the reports of 421 leagues and Treasure Battler games move to the kit's claim book

Each format kept its own waiting reports in its row's bookkeeping: 421 its `claims` by match label
(seats, a `disputed_by`, the messages that show it), `next_claim` and the `answered` ones; Battler its
`reports` by id (a `PendingReport` each), `next_report` and its `answered` ones. The kit now keeps
them, one typed record each (`bot.kit.claims.Claim`: number, match key, round, players and reporter
by user id, the format's result, status, how, by, absent, messages), in the bookkeeping's
`claim_book` (`open` by match key, `ended` by number, `next`). Numbers are kept, so a button on a
report's message posted before the upgrade still answers it (or, answered, says what became of it).
Turnabout's waiting reports (a game "reported", its `messages`) leave the engine's state the same
way, into the event's `bookkeeping` (which it did not use). The downgrade puts them back as they were.

Revision ID: 0025_claims
Revises: 0024_turnabout_rating_totals
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text
from sqlalchemy.dialects import postgresql

revision: str = "0025_claims"
down_revision: str | None = "0024_turnabout_rating_totals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported: a migration must keep doing what it did when the code moves on.
_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql")
_BOOK = "claim_book"
_STATUS_OF = {"confirm": "confirmed", "agreed": "confirmed", "decide": "decided", "settled": "decided",
              "void": "decided", "dispute": "disputed", "reject": "disputed"}


def _table(name: str) -> sa.TableClause:
    return sa.table(name, sa.column("id", sa.BigInteger()), sa.column("state", _JSON), sa.column("bookkeeping", _JSON))


def _claim(number, key, round_, players, reporter, result, status="reported", how="", by=None, absent=None, shown=()):
    return {"number": number, "key": key, "round": round_, "players": list(players), "reporter": reporter,
            "result": result, "status": status, "how": how, "by": by, "absent": absent,
            "shown": [list(s) for s in shown]}


def _users(state: dict | None) -> list[int]:
    return [p["user_id"] for p in (state or {}).get("players", [])]


def _421_up(row_id: int, state: dict | None, kept: dict) -> dict:
    users = _users(state)
    book: dict = {"next": int(kept.pop("next_claim", 1)), "open": {}, "ended": {}}
    matches = (state or {}).get("matches", [])
    for label, w in (kept.pop("claims", None) or {}).items():
        match = next((m for m in matches if m["label"] == label), None)
        if match is None or w["by"] >= len(users):
            continue  # a report of a match no longer in the league's state waits for nothing
        reporter = users[w["by"]]
        opponent = users[match["b"] if w["by"] == match["a"] else match["a"]]
        winner = users[w["winner"]] if w.get("winner") is not None else None
        disputed = w.get("disputed_by") is not None
        book["open"][label] = _claim(w["number"], label, w["round"], (reporter, opponent), reporter, winner,
                                     "disputed" if disputed else "reported", "dispute" if disputed else "",
                                     w.get("disputed_by"), None, w.get("shown", ()))
    for number, a in (kept.pop("answered", None) or {}).items():
        c = a.get("claim")
        if c is None:
            continue
        how = a.get("how", "")
        book["ended"][number] = _claim(c["number"], c["match"], c["round"], (c["reporter"], c["opponent"]),
                                       c["reporter"], c["winner"], _STATUS_OF.get(how, "reported"), how, a.get("by"),
                                       a.get("absent"))
    return {**kept, _BOOK: book}


def _421_down(row_id: int, state: dict | None, kept: dict) -> dict:
    users = _users(state)
    book = kept.pop(_BOOK, None) or {}
    claims, answered = {}, {}
    for key, c in book.get("open", {}).items():
        seat = users.index(c["reporter"]) if c["reporter"] in users else 0
        winner = users.index(c["result"]) if c["result"] in users else None
        claims[key] = {"number": c["number"], "round": c["round"], "match": key, "by": seat, "winner": winner,
                       "disputed_by": c["by"] if c["status"] == "disputed" else None, "shown": c.get("shown", [])}
    for number, c in book.get("ended", {}).items():
        opponent = next((p for p in c["players"] if p != c["reporter"]), c["reporter"])
        answered[number] = {"how": c["how"], "by": c["by"], "absent": c["absent"],
                            "claim": {"league_id": row_id, "number": c["number"], "round": c["round"], "match": c["key"],
                                      "reporter": c["reporter"], "opponent": opponent, "winner": c["result"]}}
    return {**kept, "claims": claims, "answered": answered, "next_claim": int(book.get("next", 1))}


def _battler_up(row_id: int, state: dict | None, kept: dict) -> dict:
    users = _users(state)
    book: dict = {"next": int(kept.pop("next_report", 1)), "open": {}, "ended": {}}

    def claim(r: dict, **ended) -> dict:
        a, b = r["a"], r["b"]
        players = (users[a], users[b]) if max(a, b) < len(users) else (a, b)
        reporter = users[r["reporter"]] if r["reporter"] < len(users) else r["reporter"]
        disputer = r.get("disputed_by")
        status = "disputed" if r.get("status") == "disputed" else "reported"
        by = users[disputer] if disputer is not None and disputer < len(users) else None
        return _claim(r["id"], f"{a}-{b}", 0, players, reporter, r, **({"status": status, "by": by} | ended))

    for r in (kept.pop("reports", None) or {}).values():
        book["open"][f"{r['a']}-{r['b']}"] = claim(r)
    for number, a in (kept.pop("answered", None) or {}).items():
        if "report" in a:
            how = a.get("how", "")
            book["ended"][number] = claim(a["report"], status=_STATUS_OF.get(how, "reported"), how=how,
                                          by=a.get("by"), absent=a.get("absent"))
    return {**kept, _BOOK: book}


def _battler_down(row_id: int, state: dict | None, kept: dict) -> dict:
    book = kept.pop(_BOOK, None) or {}
    reports = {str(c["number"]): c["result"] for c in book.get("open", {}).values()}
    answered = {number: {"report": c["result"], "how": c["how"], "by": c["by"], "absent": c["absent"]}
                for number, c in book.get("ended", {}).items()}
    return {**kept, "reports": reports, "answered": answered, "next_report": int(book.get("next", 1))}


def _turnabout_up(row_id: int, state: dict | None, kept: dict) -> tuple[dict | None, dict]:
    """The reports waiting for an answer, and their messages, leave the games of the event's state."""
    book: dict = {"next": 1, "open": {}, "ended": {}}
    if not state:
        return state, {_BOOK: book}
    users = _users(state)
    matches = []
    for match in state.get("matches", []):
        games = []
        for game in match.get("games", []):
            messages = game.get("messages") or []
            game = {k: v for k, v in game.items() if k != "messages"}
            if game.get("status") == "reported" and game.get("reported_by") is not None and match.get("b") is not None:
                key = f"{match['number']}.{game['number']}"
                winner = users[game["winner"]] if game.get("winner") is not None else None
                result = {"game": game["number"], "winner": winner, "value": game.get("value")}
                book["open"][key] = _claim(book["next"], key, match["round"], (users[match["a"]], users[match["b"]]),
                                           users[game["reported_by"]], result, shown=messages)
                book["next"] += 1
            games.append(game)
        matches.append({**match, "games": games})
    return {**state, "matches": matches}, {**kept, _BOOK: book}


def _turnabout_down(row_id: int, state: dict | None, kept: dict) -> tuple[dict | None, dict]:
    """The messages of the reports that wait go back to their games."""
    if not state:
        return state, kept
    shown = {key: c.get("shown", []) for key, c in (kept.get(_BOOK) or {}).get("open", {}).items()}
    matches = [{**m, "games": [{**g, "messages": shown.get(f"{m['number']}.{g['number']}", [])}
                               for g in m.get("games", [])]} for m in state.get("matches", [])]
    return {**state, "matches": matches}, kept


def _move_turnabout(direction: int) -> None:
    bind = op.get_bind()
    table = _table("turnabout_events")
    for row_id, state, bookkeeping in bind.execute(sa.select(table.c.id, table.c.state, table.c.bookkeeping)).all():
        moved_state, moved = (_turnabout_up, _turnabout_down)[direction](row_id, state, dict(bookkeeping or {}))
        bind.execute(table.update().where(table.c.id == row_id).values(state=moved_state, bookkeeping=moved))


_MOVES = {"four_two_one_leagues": (_421_up, _421_down), "battler_games": (_battler_up, _battler_down)}


def _move(direction: int) -> None:
    bind = op.get_bind()
    for name, moves in _MOVES.items():
        table = _table(name)
        for row_id, state, bookkeeping in bind.execute(sa.select(table.c.id, table.c.state, table.c.bookkeeping)).all():
            if not bookkeeping or (direction == 0) == (_BOOK in bookkeeping):
                continue  # nothing kept, or kept the new way already (up) / the old way (down)
            moved = moves[direction](row_id, state, dict(bookkeeping))
            bind.execute(table.update().where(table.c.id == row_id).values(bookkeeping=moved))


def upgrade() -> None:
    _move_turnabout(0)
    _move(0)


def downgrade() -> None:
    _move(1)
    _move_turnabout(1)
