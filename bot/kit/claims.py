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

A referee decides through one step (`decide`), and a report's messages are the kit's records
(`bot.kit.shown`, `showing` / `close`): every copy that still shows buttons says what became of the
claim once it ends, whichever way.

The formats keep what their rules make different (what a result is, where it is kept); the
decisions, the words and the buttons are these (`bot.kit.claims_ui` is the Discord side). No discord
import: services use this module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit import outbox, tables
from bot.kit import shown as shown_records
from bot.kit.errors import Conflict, PermissionDenied, UserError
from bot.kit.events import Payload, decode, encode
from bot.kit.server_settings import load_settings_row
from bot.store.db import Database

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


# --- the claims of a table: one typed record per reported result, kept by the kit ------------------

BOOK = "claim_book"  # the kit's section of a table's bookkeeping document (saved with its row)
REPORTED, DISPUTED, CONFIRMED, DECIDED = "reported", "disputed", "confirmed", "decided"
DECIDE, VOID, ENDED, AGAIN_SHOWN = "decide", "void", "ended", "again"  # besides CONFIRM, DISPUTE and AGREED
UNOPPOSED = "unopposed"  # a result final as reported: the opponent has dropped (no claim waited)
_STATUS_OF = {"confirm": CONFIRMED, "agreed": CONFIRMED, "decide": DECIDED, "settled": DECIDED, "void": DECIDED,
              "dispute": DISPUTED}
MAX_ANSWERED = 20  # ended claims remembered per table (a late click, a message id known late)
Result = TypeVar("Result")
T = TypeVar("T")


@dataclass(frozen=True)
class Claim(Payload):
    """A result reported in a match, as the kit keeps it (`Book`): the match (`key`, in the format's
    words), its players and reporter (user ids), the format's result (`result`, its own typed value,
    encoded: `result_as`), and where it stands: `REPORTED` (its opponent answers), `DISPUTED` (a
    referee decides), or ended (`CONFIRMED`, `DECIDED`: `how`, `by`, for the `absent` opponent).
    `round`: the round or phase it belongs to. (Its messages are the kit's records, `showing`; a claim
    kept before them may still carry their list, `shown`: ignored, as any key it no longer has.)"""

    number: int
    key: str
    round: int
    players: tuple[int, ...]
    reporter: int
    result: Any
    status: str = REPORTED
    how: str = ""
    by: int | None = None
    absent: int | None = None

    @property
    def opponent(self) -> int:
        return next(p for p in self.players if p != self.reporter)

    def result_as(self, kind: type[Result]) -> Result:
        return decode(self.result, kind)


NEW, AGAIN, AGREED, CONTRARY = "new", "again", "agreed", "contrary"


@dataclass(frozen=True)
class Met:
    """What a report met in the book (`Book.report`): `how` (`NEW`, `AGAIN`, `AGREED`, `CONTRARY` or
    `DISPUTED`) and the claim it concerns; `differs`: the reporter's own claim, reported otherwise now."""

    how: str
    claim: Claim
    differs: bool = False


class Book:
    """The claims of one table, in its bookkeeping document (`BOOK`): the open ones by match key,
    the last ended ones by number (for a late click), and the next number. Changed in the use case's
    transaction, with the row locked: a report and its answer are never half kept."""

    def __init__(self, bookkeeping: Any) -> None:
        # A plain bookkeeping dict, or a format's bookkeeping dataclass with its `claim_book` field.
        self._data = bookkeeping.setdefault(BOOK, {}) if isinstance(bookkeeping, dict) else bookkeeping.claim_book

    def waiting(self) -> list[Claim]:
        return sorted((decode(c, Claim) for c in self._data.get("open", {}).values()), key=lambda c: c.number)

    def of(self, key: str) -> Claim | None:
        kept = self._data.get("open", {}).get(key)
        return decode(kept, Claim) if kept is not None else None

    def find(self, number: int) -> Claim | None:
        return next((c for c in self.waiting() if c.number == number), None)

    def ended(self, number: int) -> Claim | None:
        kept = self._data.get("ended", {}).get(str(number))
        return decode(kept, Claim) if kept is not None else None

    def next_number(self) -> int:
        """The number the next claim takes (`add`)."""
        return int(self._data.get("next", 1))

    def add(self, key: str, round: int, players: Collection[int], reporter: int, result: Any) -> Claim:
        """A new claim for `key`, numbered (replacing the open one of that match, if any)."""
        number = int(self._data.get("next", 1))
        self._data["next"] = number + 1
        claim = Claim(number, key, round, tuple(players), reporter, encode(result))
        self.put(claim)
        return claim

    def put(self, claim: Claim) -> Claim:
        self._data["open"] = {**self._data.get("open", {}), claim.key: encode(claim)}
        return claim

    def dispute(self, claim: Claim, by: int) -> Claim:
        """`claim` disputed by `by`: it waits for a referee, and a late click on one of its messages
        shows the dispute (`ended`)."""
        disputed = self.put(replace(claim, status=DISPUTED, how=DISPUTE, by=by))
        self._remember(disputed)
        return disputed

    def end(self, claim: Claim, how: str, by: int | None = None, absent: int | None = None) -> Claim:
        """`claim` no longer waits (`how`: "confirm", "agreed", "decide", "void", ...): it leaves the
        open ones and is remembered a while (`ended`)."""
        ended = replace(claim, status=_STATUS_OF.get(how, claim.status), how=how, by=by, absent=absent)
        self._data["open"] = {k: c for k, c in self._data.get("open", {}).items() if c["number"] != claim.number}
        self._remember(ended)
        return ended

    def _remember(self, claim: Claim) -> None:
        kept = {**self._data.get("ended", {}), str(claim.number): encode(claim)}
        self._data["ended"] = dict(list(kept.items())[-MAX_ANSWERED:])

    def clear(self) -> list[Claim]:
        """A new round or phase (or the end): no claim waits any more; those that did are returned."""
        dropped = self.waiting()
        self._data["open"] = {}
        return dropped

    def report(self, key: str, round: int, players: Collection[int], reporter: int, result: Any, *,
               same: Callable[[Claim], bool]) -> Met:
        """The report step, the same in every format: `reporter` reports `result` for match `key` in
        `round` (`same(claim)`: a waiting claim says what this report says). A new claim waits for the
        opponent (`NEW`); a report meeting one that waits is not a second claim: it is the reporter's
        own again (`AGAIN`, unchanged, shown again), the opponent's matching report (`AGREED`: the claim
        counts by itself, ended here), the opponent's contrary report (`CONTRARY`) or one of a match
        whose dispute waits for a referee (`DISPUTED`: a disputer's matching report agrees). The format
        applies an `AGREED` claim to its engine and decides what `CONTRARY` and `DISPUTED` do."""
        waiting = self.of(key)
        if waiting is None or waiting.round != round:
            return Met(NEW, self.add(key, round, players, reporter, result))
        agrees = same(waiting)
        if waiting.reporter != reporter and agrees:
            return Met(AGREED, self.end(waiting, "agreed", reporter))
        if waiting.status == DISPUTED:
            return Met(DISPUTED, waiting)
        return Met(AGAIN if waiting.reporter == reporter else CONTRARY, waiting, differs=not agrees)


async def _answering(
    session: AsyncSession, rules: Rules, loaded: Any, number: int, actor: tables.Actor, action: str, *,
    round: int | None, adding: Callable[[Claim, str], Any] | None,
) -> tuple[Book, Claim, str]:
    """Claim `number`, still waiting for its opponent in this `round` (None: the format ends its
    claims with their rounds itself), who `actor` is for it (`answerer`: its opponent, or a referee
    who may confirm it for the absent opponent) and what they add to it (`adding(claim, role)`,
    Battler's treasures; first: what is added may be refused)."""
    tables.check_same_server(rules.noun, loaded.row, actor)
    book = Book(loaded.bookkeeping)
    claim = book.find(number)
    if claim is None or (round is not None and claim.round != round):
        raise Conflict("That report is no longer waiting: it was confirmed, disputed or replaced.")
    if claim.status == DISPUTED:
        raise Conflict("That report is no longer waiting: it is disputed, and an organizer who does not play in the "
                       "match decides it.")
    role = await answerer(session, rules.noun, loaded.row, actor, players=claim.players, reporter=claim.reporter,
                          action=action)
    if adding is not None:
        claim = replace(claim, result=encode(adding(claim, role)))
    return book, claim, role


def absent_opponent(claim: Claim, role: str, *, for_absent: bool, what: str) -> int | None:
    """A referee's Confirm is confirming for the absent opponent (returned), which is asked first
    (`AbsentConfirmNeeded` until `for_absent`); the opponent's own Confirm: None."""
    if role != REFEREE:
        return None
    if not for_absent:
        raise AbsentConfirmNeeded(claim.opponent, what)
    return claim.opponent


class Rules(Protocol):
    """What a format tells the kit's use cases about its results (implemented once per format)."""

    noun: str  # "league", "game", "event"
    kind: str  # the format's key: the owner kind of its report messages' records (`bot.kit.shown`)

    def title(self, loaded: Any, claim: Claim) -> str:
        """The name a report's message gives it ("421 league #3, round 2, Match A", "Report #3")."""

    def reads(self, loaded: Any, claim: Claim) -> str:
        """How `claim`'s result reads in its message ("**<@1> won**", "a **draw**")."""

    def table(self, loaded: Any) -> str:
        """The table's name, for a DM ("421 league #3")."""

    def what(self, claim: Claim) -> str:
        """Which report `claim` is, in a question ("Match A", "report #3")."""

    def words(self, loaded: Any, claim: Claim) -> str:
        """What `claim` says, in plain words with mentions ("<@1> beat <@2>")."""

    def until(self, loaded: Any, claim: Claim) -> str:
        """How the absent opponent can still dispute `claim` (or add their part), and until when."""


@dataclass(frozen=True)
class Answer:
    """A claim disputed (`disputed`): as it is now, who answered (`OPPONENT`) and whom it calls."""

    claim: Claim
    role: str
    call: Call | None = None


def told(rules: Rules, loaded: Any, claim: Claim) -> list[outbox.Message]:
    """The DM that tells the absent opponent of `claim` (confirmed for them) what counts now and how
    to dispute it; none when they confirmed it themselves. After the result was applied: what they can
    still do may depend on it (`Rules.until`)."""
    if claim.absent is None or claim.by is None:
        return []
    return [absent_dm(loaded.row, absent=claim.absent, by=claim.by, table=rules.table(loaded),
                      result=rules.words(loaded, claim), dispute=rules.until(loaded, claim))]


Number = int | Callable[[Any], int]  # a claim's number, or how to find it in the loaded table
Adding = Callable[[Any], Callable[[Claim, str], Any]]  # from the loaded table: what the answerer adds


def _number(number: Number, loaded: Any) -> int:
    return number(loaded) if callable(number) else number


async def confirmed(
    db: Database, games: Any, rules: Rules, table_id: int, number: Number, actor: tables.Actor, *, for_absent: bool,
    apply: Callable[[AsyncSession, Any, Claim], Awaitable[T]], round: Callable[[Any], int | None] = lambda loaded: None,
    adding: Adding | None = None,
) -> T:
    """The confirm use case, one for every format, in one transaction under the table's lock: claim
    `number` (the claim's, or how to find it in the loaded table: Turnabout's buttons name the game)
    of this `round(loaded)` confirmed by its opponent, or by a referee for the absent opponent (asked
    first: `AbsentConfirmNeeded` until `for_absent`), with what the one who confirms adds
    (`adding(loaded)(claim, role)`); it ends in the kit's book, is applied by the format's one
    function `apply(session, loaded, claim)` (which saves the table and returns what the cog shows),
    and the absent opponent is told (`told`, after: what they can still do may depend on it)."""
    async with db.write() as session:
        loaded = await games.load(session, table_id)
        book, claim, role = await _answering(session, rules, loaded, _number(number, loaded), actor, CONFIRM,
                                             round=round(loaded), adding=adding(loaded) if adding else None)
        absent = absent_opponent(claim, role, for_absent=for_absent, what=rules.what(claim))
        ended = book.end(claim, CONFIRM, actor.user_id, absent)
        result = await apply(session, loaded, ended)
        await outbox.queue(session, *told(rules, loaded, ended))
        return result


async def disputed(
    db: Database, games: Any, rules: Rules, table_id: int, number: Number, actor: tables.Actor, *,
    apply: Callable[[AsyncSession, Any, Answer], Awaitable[T]], round: Callable[[Any], int | None] = lambda loaded: None,
    adding: Adding | None = None,
) -> T:
    """The dispute use case, one for every format: claim `number` disputed by its opponent (as for
    `confirmed`); it waits for a referee, whom `Answer.call` names, and the format's `apply(session,
    loaded, answer)` saves it and tells the channel."""
    async with db.write() as session:
        loaded = await games.load(session, table_id)
        book, claim, role = await _answering(session, rules, loaded, _number(number, loaded), actor, DISPUTE,
                                             round=round(loaded), adding=adding(loaded) if adding else None)
        call = await dispute_call(session, loaded.row, claim.players)
        return await apply(session, loaded, Answer(book.dispute(claim, actor.user_id), role, call))


async def late(db: Database, games: Any, table_id: int, number: int, guild_id: int | None, *,
               deciding: bool = False) -> tuple[Any, Claim] | None:
    """The late-click lookup, one for every format, for a report button that was refused: the table
    (`games.load`, unlocked) and claim `number` as it ended lately (the pressed message is an
    out-of-date copy), else None (the refusal stands). A report disputed meanwhile ended for its
    [Confirm] [Dispute] (`deciding` False), not for a referee's decide buttons: it still waits for them."""
    async with db.read() as session:
        try:
            loaded = await games.load(session, table_id, lock=False)
        except UserError:
            return None
    book = Book(loaded.bookkeeping)
    still = book.find(number)
    if loaded.row.guild_id != guild_id or (still is not None and (deciding or still.status == REPORTED)):
        return None
    ended = book.ended(number)
    return (loaded, ended) if ended is not None else None


async def late_words(db: Database, games: Any, rules: Rules, table_id: int, number: int, guild_id: int | None, *,
                     deciding: bool = False) -> Words | None:
    """What a late click's copy says from then on (`late`): the words of what became of the claim."""
    found = await late(db, games, table_id, number, guild_id, deciding=deciding)
    return None if found is None else words(rules, found[0], found[1])


# --- a report's messages: recorded with `bot.kit.shown`, edited by the kit once it no longer waits ---------
# One record per claim (owner: the format's table, key `claim.<number>`; version 0 while it waits for its
# opponent, with [Confirm] [Dispute]; 1 while disputed, with a referee's decide buttons): one copy has
# live buttons, an older one says it was shown again, and every copy says what became of the claim once
# it ends (`ANSWERED`, rendered by `bot.kit.claims_ui`), but the one whose button ended it.

ANSWERED = "claims.answered"  # a copy of a report's message, edited to what became of it (Closed)


@dataclass(frozen=True)
class Words(Payload):
    """What a report's message says once it no longer waits for this stage (`claims_ui.answered_text`):
    its name and result in the format's words (`Rules.title`, `Rules.reads`), how it ended and by whom."""

    what: str
    result: str
    how: str
    by: int | None = None
    absent: int | None = None
    reporter: int | None = None


@dataclass(frozen=True)
class Closed(Payload):
    """A copy of a report's message to edit (no buttons) to `words` (None: a claim forgotten since)."""

    channel_id: int
    message_id: int
    words: Words | None = None


def words(rules: Rules, loaded: Any, claim: Claim, how: str | None = None) -> Words:
    return Words(rules.title(loaded, claim), rules.reads(loaded, claim), how or claim.how, claim.by, claim.absent,
                 claim.reporter)


def _key(number: int) -> str:
    return f"claim.{number}"


def _edits(rules: Rules, loaded: Any, messages: Collection[tuple[int, int]], claim: Claim | None,
           how: str | None = None) -> list[outbox.Message]:
    said = words(rules, loaded, claim, how) if claim is not None and messages else None
    return [outbox.Message(ANSWERED, Closed(channel, message, said).to_payload(), channel_id=channel,
                           guild_id=loaded.row.guild_id) for channel, message in messages]


async def close(session: AsyncSession, rules: Rules, loaded: Any, claim: Claim, *,
                answered_in: int | None = None) -> list[tuple[int, int]]:
    """`claim` no longer waits for this stage (confirmed, agreed, disputed, decided, ended): the copies of
    its message that still show buttons say what became of it, but `answered_in` (the message whose
    button answered it: its interaction edits it). Returns the copies edited (channel, message): none
    when no message showed it (then the format may post what became of it)."""
    retired = await shown_records.retire(session, shown_records.Owner(rules.kind, loaded.row.id), _key(claim.number),
                                         answered=answered_in)
    messages = list(dict.fromkeys((m.channel_id, m.message_id) for m in retired))
    await outbox.queue(session, *_edits(rules, loaded, messages, claim))
    return messages


async def end_all(session: AsyncSession, rules: Rules, loaded: Any, how: str = ENDED) -> list[Claim]:
    """A new round or phase, or the end: no claim waits any more, and their copies say so."""
    book = Book(loaded.bookkeeping)
    ended = [book.end(claim, how) for claim in book.waiting()]
    for claim in ended:
        await close(session, rules, loaded, claim)
    return ended


async def showing(session: AsyncSession, games: Any, rules: Rules, table_id: int, number: int, *, channel_id: int,
                  message_id: int, status: str = REPORTED, waits: Callable[[Any, Claim], bool] = lambda *_: True) -> None:
    """A message shows claim `number` at `status` with its buttons ([Confirm] [Dispute] while `REPORTED`, a
    referee's decide buttons while `DISPUTED`): recorded under the table's lock, so its buttons go once
    the claim is past that stage; at once when it already is (`waits`: the format's check that the
    table still plays its round). An older copy of the same stage says it was shown again."""
    loaded = await games.load(session, table_id)
    book = Book(loaded.bookkeeping)
    claim = book.find(number)
    this = (channel_id, message_id)
    if claim is None or claim.status != status:  # past that stage: as it ended (None: forgotten)
        await outbox.queue(session, *_edits(rules, loaded, [this], book.ended(number)))
        return
    if not waits(loaded, claim):
        await outbox.queue(session, *_edits(rules, loaded, [this], claim, ENDED))
        return
    owner = shown_records.Owner(rules.kind, loaded.row.id)
    older = await shown_records.show(session, owner, _key(number), int(status == DISPUTED), *this)
    await outbox.queue(session, *_edits(rules, loaded, [(m.channel_id, m.message_id) for m in older], claim,
                                        AGAIN_SHOWN))


async def shown_in(db: Database, games: Any, rules: Rules, table_id: int, number: int, *, channel_id: int,
                   message_id: int, status: str = REPORTED, waits: Callable[[Any, Claim], bool] = lambda *_: True) -> None:
    """`showing`, for a message an interaction posted (a report's answer): in its own transaction."""
    async with db.write() as session:
        await showing(session, games, rules, table_id, number, channel_id=channel_id, message_id=message_id,
                      status=status, waits=waits)


async def decide(
    session: AsyncSession, rules: Rules, loaded: Any, claim: Claim | None, actor: tables.Actor, *, match: str,
    what: str = "decide it", result: Any = ..., how: str = DECIDE, answered_in: int | None = None,
) -> Claim:
    """The decide step, one for every format (a disputed report decided by buttons, `/421 settle`, `/turnabout settle`,
    `/pod decide`): refused when there is no `claim`, or to an organizer who plays in `match`
    (`require_referee`); else `claim` ends in the book as decided by `actor` (`result`, if given: the
    format's decision, encoded, unless `...`; `how`: `DECIDE`, or `VOID` when its players report again), and its
    copies that still show buttons say so, but `answered_in`. The format applies the returned claim
    to its engine; the pressed message shows `words(rules, loaded, claim)`."""
    if claim is None:
        raise Conflict("That report is no longer waiting: it was confirmed, replaced or decided.")
    await require_referee(session, rules.noun, loaded.row, actor, players=claim.players, match=match, what=what)
    if result is not ...:  # (None is a result: 421's draw)
        claim = replace(claim, result=encode(result))
    ended = Book(loaded.bookkeeping).end(claim, how, actor.user_id)
    await close(session, rules, loaded, ended, answered_in=answered_in)
    return ended


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
