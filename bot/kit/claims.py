"""One claims flow for every format that plays matches (Turnabout, 421, Treasure Battler): a result is
reported → the opponent confirms or disputes it (a matching report counts by itself) → an organizer
who does not play in that match decides it.

Who may do what is decided here, once, from the match's players (user ids), its reporter and the
table's row (its organizer, its server):

- **The reporter** never answers their own report.
- **The opponent** confirms or disputes it.
- **A referee** is an organizer of the table (its organizer, the organizer role, Manage Server) who
  does *not* play in that match: an organizer who plays in a match is a player there, and can't
  confirm, decide or settle it for themselves. A referee's Confirm is its own action, *confirming
  for the absent opponent* (`AbsentConfirmNeeded`: the cog asks first, then the service confirms
  for them and the absent player is told by DM, `absent_dm`, what was decided and how to dispute it).
- **A dispute calls the referees** (`dispute_call`): the table's organizer, unless they play in the
  match; then the server's organizer role (or, without one, the words "an organizer who does not
  play in it").

The formats keep what their rules make different (what a result is, where it is kept); the
decisions, the words and the buttons are these (`bot.kit.claims_ui` is the Discord side). No discord
import: services use this module.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit import outbox, tables
from bot.kit.errors import PermissionDenied, UserError
from bot.kit.events import Payload
from bot.kit.server_settings import load_settings_row

CONFIRM, DISPUTE = "confirm", "dispute"
ACTIONS = (CONFIRM, DISPUTE)
OPPONENT, REFEREE = "opponent", "referee"
ABSENT_DM = "claims.absent"  # DM: an organizer confirmed a result for the absent player (AbsentConfirmed)
REFEREE_WORDS = "an organizer who does not play in it (or a member with Manage Server)"


class AbsentConfirmNeeded(UserError):
    """A referee pressed Confirm on a report whose opponent did not answer: that is confirming for
    the absent opponent, its own action, which the cog asks about first (then calls the service
    again with `for_absent=True`)."""

    def __init__(self, absent: int, what: str) -> None:
        super().__init__(f"Confirming {what} for <@{absent}> (absent) asks first.")
        self.absent = absent
        self.what = what


def _plays(actor: tables.Actor, players: Collection[int]) -> bool:
    return actor.user_id in players


async def answerer(
    session: AsyncSession, noun: str, row: Any, actor: tables.Actor, *, players: Collection[int], reporter: int | None,
    action: str = CONFIRM,
) -> str:
    """Who `actor` is for a waiting report of a match between `players` (user ids): `OPPONENT` (its
    player who did not report it) or `REFEREE` (an organizer who does not play in it; they may
    only confirm, for the absent opponent). Anyone else is refused, the reporter first."""
    tables.check_same_server(noun, row, actor)
    if reporter is not None and actor.user_id == reporter:
        raise UserError(f"You cannot {action} your own report; your opponent must.")
    if _plays(actor, players):
        return OPPONENT
    if action == CONFIRM and await tables.can_manage(session, row, actor):
        return REFEREE
    if action == CONFIRM:
        raise PermissionDenied("Only the reporter's opponent or an organizer who does not play in this match can "
                               "confirm this report.")
    raise PermissionDenied("Only the reporter's opponent can dispute this report.")


async def require_referee(
    session: AsyncSession, noun: str, row: Any, actor: tables.Actor, *, players: Collection[int], match: str,
    what: str = "decide it",
) -> None:
    """`actor` may `what` (decide, settle, override, reject) in `match` between `players`: an
    organizer of the table who does not play in it. An organizer who plays is refused: another
    organizer, or a member with Manage Server, can."""
    tables.check_same_server(noun, row, actor)
    if not await tables.can_manage(session, row, actor):
        raise PermissionDenied(f"Only an organizer who does not play in {match} can {what}.")
    if _plays(actor, players):
        raise UserError(f"You play in {match}, so you cannot {what}: another organizer (or a member with Manage "
                        "Server) can.")


@dataclass(frozen=True)
class Call:
    """Whom a dispute calls: users (the table's organizer) or the server's organizer role; nobody to
    ping when the only organizer plays and the server has no organizer role."""

    users: tuple[int, ...] = ()
    role: int | None = None

    def text(self) -> str:
        if self.users:
            return ", ".join(f"<@{u}>" for u in self.users)
        if self.role is not None:
            return f"<@&{self.role}> (an organizer who does not play in it)"
        return REFEREE_WORDS


async def dispute_call(session: AsyncSession, row: Any, players: Collection[int]) -> Call:
    """The referees a dispute in a match between `players` calls: the table's organizer, unless
    they play in it; then the server's organizer role, if it has one."""
    if row.organizer_id not in players:
        return Call(users=(row.organizer_id,))
    settings = await load_settings_row(session, row.guild_id)
    role = settings.organizer_role_id if settings is not None else None
    return Call(role=role)


MAX_ANSWERED = 20  # answered reports remembered per table (a late click, a message id known late)


def remember_answer(bookkeeping: dict, number: int, **answer: Any) -> None:
    """Keep what became of report `number` (how, by whom, what it said) in a table's bookkeeping, for
    a click or a message id that arrives after it (`answer_of`); the last `MAX_ANSWERED` are kept."""
    kept = {**bookkeeping.get("answered", {}), str(number): answer}
    bookkeeping["answered"] = dict(list(kept.items())[-MAX_ANSWERED:])


def answer_of(bookkeeping: dict, number: int) -> dict | None:
    """What became of report `number`, if it was answered lately (`remember_answer`)."""
    return bookkeeping.get("answered", {}).get(str(number))


@dataclass(frozen=True)
class AbsentConfirmed(Payload):
    """By DM to a player: an organizer confirmed a result for them while they were absent.
    `table`: its name ("Turnabout #3"); `result`: what counts now, in words; `dispute`: how and
    until when they can still dispute it (or correct their part)."""

    guild_id: int
    channel_id: int
    absent: int
    by: int
    table: str
    result: str
    dispute: str


def absent_dm(row: Any, *, absent: int, by: int, table: str, result: str, dispute: str) -> outbox.Message:
    """The DM that tells `absent` what `by` confirmed for them (queued in the same transaction)."""
    payload = AbsentConfirmed(row.guild_id, row.channel_id, absent, by, table, result, dispute)
    return outbox.Message(ABSENT_DM, payload.to_payload(), user_id=absent, guild_id=row.guild_id)
