"""Sending what the outbox holds (`bot.kit.outbox`): the Discord half of it.

Each kind has one renderer, declared where the package's UI lives in a `Renderers` collection that
the package's declaration carries (`Format.renderers`):

    RENDERERS = Renderers()

    @RENDERERS.renders(turnabout.ANNOUNCE, Announcement)   # the kind, and the `Payload` its rows decode to
    async def announce(news: Announcement, ctx: Delivery) -> Outgoing | None: ...

It builds the message from the decoded payload (and, where it must, from the database: `ctx.db`);
None means the message is no longer wanted (its state moved on) and the row is skipped.
`ctx.fresh` is True when the row is sent right after the commit that queued it, so renderers may
skip re-checking that it is still current. A kind has one renderer: another is refused. The bot
builds its outbox's table of renderers when it starts (`Outbox.use`), from every format's, every
feature's and the kit's own: importing a module registers nothing. What every format says alike
is rendered here once: a post refused for a missing permission (`CANNOT_POST`), a player whose DMs
are closed (a format's kind, with its words: `Renderers.dms_closed`); a table's lobby redraw and
its cancellation are the kit's too (`bot.kit.table_cog.table_renderers`).

Rows queued by this process are sent as soon as their transaction commits (`on_commit`); the
sweeper sends the others (`sweep`). Sends are sequential within one commit, so a commit's messages
arrive in order. Results are settled in one transaction per batch: a closed DM (50007) runs the
kind's fallback, a permanent failure (4xx other than 429) is logged once and never retried, and
anything transient is retried with backoff. A result that can't be recorded because the database is
down is recorded when it is back (`SETTLE_PATIENCE`): what Discord showed is never sent twice for a
short outage. A row that could not be rendered because the database is down (a renderer reads it)
is owed: it is sent again as soon as the database is back (`OutageWatch.on_back`), not at the end
of its lease; the outage is logged once, by the watch, never as a traceback per row.

Exactly once: every message a row sends (and each of its `continued` messages) carries a nonce derived
from the row (`nonce_of`), which discord.py sends with `enforce_nonce`. When the bot dies after Discord
created a message and before the row was recorded as sent, the restart sends the row again, and
Discord answers with the message it created then instead of a second one (for a few minutes: after a
longer outage the row is sent again, a second copy). Whatever Discord answers is recorded. An edit
sets the message to the row's content, so an edit made twice shows once.

A results post refused for a missing permission (403) is failed and logged once like any 4xx, and
the organizer its row names is told once (`CANNOT_POST`): as a follow-up of the reply that ended the
event when that interaction is still open in this process (`Replies`), else by DM.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import aiohttp
import discord

from bot.kit import limits, outbox
from bot.kit.events import Payload
from bot.kit.host import Host
from bot.kit.outbox import CannotPost, DmsClosed, Outcome, Queued
from bot.kit.permissions import refused_text
from bot.kit.replies import Replies
from bot.store.db import Database
from bot.store.outage import is_database_outage, log_failure, retry_while_unavailable

log = logging.getLogger(__name__)
RECORD_WAIT = 10.0  # seconds a renderer waits at most for other batches' records (`wait_all_recorded`)
_BATCH: ContextVar[asyncio.Future | None] = ContextVar("outbox_batch", default=None)  # the batch being sent
DISCORD_CANNOT_DM = 50007
# Seconds a send's result waits for the database to come back before the row is left to the sweeper
# (which, after the row's lease, sends it again: a second message for a long outage).
SETTLE_PATIENCE = 60.0


def nonce_of(queued: Queued, part: int = 0) -> str:
    """The nonce of one message of an outbox row (`part` 0: the message, 1…: its `continued`
    messages): the same at every attempt and in every process, and no other row's. The row's id and
    the second it was queued (which tells apart rows of two databases that share an id), base 36:
    at most 25 characters, Discord's bound (13 for any id, 3 for the first 46,656 parts, 7 until 2100)."""
    return f"{_base36(queued.id)}.{_base36(part)}.{_base36(int(queued.created_at.timestamp()))}"


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, digit = divmod(number, 36)
        text = digits[digit] + text
        if not number:
            return text


@dataclass
class Outgoing:
    """A rendered message: sent to the row's DM or channel, or an edit of an existing message."""

    content: str | None = None
    embeds: list[discord.Embed] = field(default_factory=list)
    view: discord.ui.View | None = None
    files: list[discord.File] = field(default_factory=list)
    allowed_mentions: discord.AllowedMentions | None = None  # None: the client's default (no pings)
    edit: tuple[int, int] | None = None  # (channel id, message id) to edit instead of sending
    # An edit replaces the message's attachments with `files` (none: removes them), e.g. the
    # picture of the pack the message showed before; otherwise an edit keeps them.
    replace_attachments: bool = False
    continued: list[str] = field(default_factory=list)  # more text, sent as messages right after (also after an edit)
    # A new message sent as a reply to this (channel id, message id): Discord shows a jump link to it.
    reply_to: tuple[int, int] | None = None
    # A message (channel id, message id) deleted before a new message is sent (one already gone is
    # fine: a row sent again after a crash deletes it again), e.g. the notice this one replaces.
    delete: tuple[int, int] | None = None
    after_send: Callable[[discord.Message | discord.PartialMessage], None] | None = None
    # Called once the send's outcome is recorded (or could not be: it is called all the same), with
    # the message id sent (None: nothing was sent): the end of a change a format waits on.
    after_record: Callable[[int | None], None] | None = None
    # A DM sent instead as an ephemeral follow-up of this interaction (by DM if that fails).
    follow_up: discord.Interaction | None = None


@dataclass(frozen=True)
class Delivery:
    """What a renderer gets beside its payload: the bot, the queued row, and whether it is sent
    right after the commit that queued it (`fresh`). `shown_on`: the row was recorded as shown on
    this (channel id, message id) by an interaction response that may never have reached Discord
    (`outbox.show_in_place`); it is shown there again, if the renderer says it is still wanted."""

    bot: Host
    queued: Queued
    fresh: bool
    shown_on: tuple[int, int] | None = None

    @property
    def db(self) -> Database:
        return self.bot.db

    @property
    def message(self) -> outbox.Message:
        """Where the row goes: its DM user or its channel, and its server."""
        return self.queued.message


P = TypeVar("P", bound=Payload)
Render = Callable[[Any, Delivery], Awaitable[Outgoing | None]]


@dataclass(frozen=True)
class Renderer:
    kind: str
    payload: type[Payload]
    render: Render
    owner: str  # where it was defined: "module.qualname"

    async def __call__(self, queued: Queued, ctx: Delivery) -> Outgoing | None:
        return await self.render(self.payload.from_payload(queued.payload), ctx)


class Renderers:
    """Renderers, one per outbox kind, declared where a package's UI lives and carried by what
    declares the package (a format's `Format.renderers`; the bot names the kit's and the features'):
    importing a module registers nothing anywhere. The bot builds its outbox's table from them when
    it starts (`Renderers(*collections)`, `Outbox.use`).

        RENDERERS = Renderers()

        @RENDERERS.renders(turnabout.ANNOUNCE, Announcement)   # the kind, and the `Payload` its rows decode to
        async def announce(news: Announcement, ctx: Delivery) -> Outgoing | None: ...

    A kind has one renderer: a second one for it is refused, here or when collections are merged."""

    def __init__(self, *included: Renderers) -> None:
        self._by_kind: dict[str, Renderer] = {}
        for collection in included:
            for renderer in collection:
                self._take(renderer)

    def renders(self, kind: str, payload: type[P]) -> Callable[[Callable[[P, Delivery], Awaitable[Outgoing | None]]], Any]:
        """Make the decorated function the renderer of `kind`, whose rows' payloads decode to `payload`."""

        def register(render: Callable[[P, Delivery], Awaitable[Outgoing | None]]) -> Any:
            self.add(kind, payload, render)
            return render

        return register

    def add(self, kind: str, payload: type[P], render: Callable[[P, Delivery], Awaitable[Outgoing | None]], *,
            owner: str | None = None) -> None:
        """`renders`, for a renderer made at run time. `owner` names where it is defined (default: the
        function's module and name), for the message that refuses a second renderer of a kind."""
        self._take(Renderer(kind, payload, render, owner or f"{render.__module__}.{render.__qualname__}"))

    def dms_closed(self, kind: str, *, what: str, resend: str, meanwhile: str = "") -> None:
        """`kind` (payload: DmsClosed) tells a table's channel that a player's DMs are closed, in the
        kit's words with the format's: `what` could not reach them ("your Vortex cards"), `resend` is
        the command that sends it again once they open them ("/vortex resend"), `meanwhile` what they
        can do until then (a sentence, or nothing)."""

        async def dms_closed(closed: DmsClosed, ctx: Delivery) -> Outgoing:
            text = (f"<@{closed.user_id}>, I can't DM you {what}. Turn on Direct Messages from server members, "
                    f"then run `{resend}`.")
            if meanwhile:
                text += f" {meanwhile}"
            return Outgoing(content=limits.clip(text, limits.CONTENT), allowed_mentions=limits.ping(closed.user_id))

        self.add(kind, DmsClosed, dms_closed, owner=f"{__name__}.Renderers.dms_closed({what!r}, {resend!r})")

    def _take(self, renderer: Renderer) -> None:
        taken = self._by_kind.get(renderer.kind)
        if taken is not None and taken is not renderer:  # the same collection twice is fine
            raise ValueError(f"The outbox kind {renderer.kind!r} already has a renderer ({taken.owner}), "
                             f"so {renderer.owner} can't have it.")
        self._by_kind[renderer.kind] = renderer

    def of(self, kind: str) -> Renderer | None:
        return self._by_kind.get(kind)

    def __contains__(self, kind: object) -> bool:
        return kind in self._by_kind

    def __iter__(self) -> Iterator[Renderer]:
        return iter(list(self._by_kind.values()))

    def kinds(self) -> set[str]:
        return set(self._by_kind)


def chunked(chunks: Sequence[str], *, ping: Sequence[int] = ()) -> Outgoing | None:
    """A text split into messages (`limits.chunk_lines`): the first, then the others right after it,
    pinging only the users `ping` names (none: nobody). None when there is nothing to say."""
    if not chunks:
        return None
    return Outgoing(content=chunks[0], continued=list(chunks[1:]),
                    allowed_mentions=limits.ping(*ping) if ping else None)


class Outbox:
    def __init__(self, bot: Host, renderers: Renderers | None = None) -> None:
        self.bot = bot
        # One renderer per kind: the kit's, the features' and the formats' (`use`, when the bot starts).
        self.renderers = renderers if renderers is not None else Renderers()
        self._tasks: set[asyncio.Task] = set()
        # Messages sent but not recorded yet: a reaction on one waits for its record.
        self.replies = Replies()
        # Rows this process could not render for a database outage: sent again when it is back.
        self._owed: dict[int, Queued] = {}
        # Batches sent whose results are not kept yet (`wait_all_recorded`).
        self._unrecorded: set[asyncio.Future] = set()
        if getattr(bot, "db", None) is not None:
            bot.db.outage.on_back(self._send_owed)

    def use(self, renderers: Renderers) -> None:
        """Render with these (the bot's table of every kind, built when it starts)."""
        self.renderers = renderers

    # --- entry points ---------------------------------------------------------------------------

    def on_commit(self, queued: list[Queued]) -> None:
        """Send what a transaction queued, now, in the background (the caller does not wait)."""
        self._spawn(self.send_batch(queued, fresh=True), "outbox-send")

    async def send_batch(self, queued: list[Queued], *, fresh: bool) -> list[Outcome]:
        recorded = asyncio.get_running_loop().create_future()  # set once this batch's results are kept
        self._unrecorded.add(recorded)
        own = _BATCH.set(recorded)
        sends = []
        try:
            sends = [await self._send(item, fresh) for item in queued]
            outcomes = [outcome for outcome, _ in sends]
            # A fresh row that failed for now keeps its first lease: the sweeper retries it when that
            # ends (no write needed here); rows the sweeper took get their backoff recorded.
            await self._settle([o for o in outcomes if not (fresh and o.retry)])
        finally:
            for outcome, after_record in sends:
                if after_record is not None:
                    after_record(outcome.message_id)
            recorded.set_result(None)
            self._unrecorded.discard(recorded)
            _BATCH.reset(own)
        return outcomes

    async def sweep(self, *, created_before: datetime | None = None) -> int:
        """Send the rows that are due (at startup also everything queued before the process began)."""
        due = await outbox.take_due(self.bot.db, created_before=created_before)
        if due:
            await self.send_batch(due, fresh=False)
        return len(due)

    def _send_owed(self) -> None:
        """The database is back: send the rows owed since the outage, now (in the background)."""
        if self._owed:
            self._spawn(self._send_owed_now(), "outbox-owed")

    async def _send_owed_now(self) -> None:
        owed, self._owed = self._owed, {}
        try:
            taken = await outbox.take(self.bot.db, owed)  # still pending: leased here, nobody else sends them
        except Exception as error:  # gone again: they stay owed, or the sweeper has them after their lease
            log_failure(log, logging.ERROR, error, "could not take %d owed outbox rows", len(owed))
            self._owed.update(owed)
            return
        if taken:
            log.info("sending %d %s owed since the database outage", len(taken),
                     "message" if len(taken) == 1 else "messages")
            await self.send_batch(taken, fresh=False)

    def _spawn(self, work, name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def show_again(self, rows: Sequence[outbox.ShownInPlace]) -> int:
        """Edit each message recorded as showing a row (`outbox.show_in_place`) to show it again,
        where its renderer still wants it: a process that died between the commit and its
        interaction response never showed it. An edit made twice shows once; nothing is recorded
        (the row is recorded already). Returns how many messages were edited."""
        edited = 0
        for row in rows:
            where = (row.channel_id, row.message_id)
            try:
                renderer = self.renderers.of(row.queued.kind)
                outgoing = None if renderer is None else await renderer(
                    row.queued, Delivery(self.bot, row.queued, False, shown_on=where))
                if outgoing is None:
                    continue
                if outgoing.edit is None:
                    outgoing.edit, outgoing.replace_attachments = where, True
                try:
                    await self._deliver(row.queued, outgoing)
                finally:  # recorded already: what waits on its record waits no longer
                    if outgoing.after_record is not None:
                        outgoing.after_record(row.message_id)
                edited += 1
            except Exception as error:  # the player still has the command that shows it again
                log_failure(log, logging.WARNING, error, "could not show outbox row %s again", row.queued.id)
        return edited

    async def wait_all_recorded(self) -> None:
        """Let the records of every message sent so far by other batches land (at most
        `RECORD_WAIT`): for a renderer that edits a message its format records when sent
        (`outbox.on_sent`), queued by an action that came faster than that record (a player who
        clicked as soon as the message arrived). Its own batch is not waited for: it records after."""
        own = _BATCH.get()
        pending = [done for done in self._unrecorded if done is not own]
        if pending:
            await asyncio.wait(pending, timeout=RECORD_WAIT)

    async def drain(self) -> None:
        """Wait for the background sends (shutdown, tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # --- one message -------------------------------------------------------------------------------

    async def _render(self, queued: Queued, fresh: bool) -> Outgoing | None:
        renderer = self.renderers.of(queued.kind)
        if renderer is None:
            raise LookupError(f"no renderer for outbox kind {queued.kind}")
        return await renderer(queued, Delivery(self.bot, queued, fresh))

    async def _send(self, queued: Queued, fresh: bool) -> tuple[Outcome, Callable[[int | None], None] | None]:
        """How the send ended, and what to call once that is recorded (`Outgoing.after_record`)."""
        rendered: list[Outgoing] = []
        outcome = await self._try_send(queued, fresh, rendered)
        return outcome, (rendered[0].after_record if rendered else None)

    async def _try_send(self, queued: Queued, fresh: bool, rendered: list[Outgoing]) -> Outcome:
        if queued.kind not in self.renderers:
            log.error("no renderer for outbox kind %s (row %s)", queued.kind, queued.id)
            return Outcome(queued, error=f"no renderer for {queued.kind}")
        try:
            outgoing = await self._render(queued, fresh)
            if outgoing is None:
                return Outcome(queued, skipped=True, error="no longer wanted")
            rendered.append(outgoing)
            message = await self._deliver(queued, outgoing)
        except discord.Forbidden as error:
            if error.code == DISCORD_CANNOT_DM:
                return Outcome(queued, dm_closed=True, error="the user's DMs are closed")
            return self._permanent(queued, error, forbidden=error.code)
        except discord.HTTPException as error:
            if error.status == 429 or error.status >= 500:
                return Outcome(queued, retry=True, error=f"{error.status} {error.text}"[:300])
            return self._permanent(queued, error)
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            return Outcome(queued, retry=True, error=f"{type(error).__name__}: {error}"[:300])
        except Exception as error:  # a renderer's bug or a database outage: retried with backoff
            if is_database_outage(error):  # sent again once it is back
                self._owed[queued.id] = queued
            log_failure(log, logging.ERROR, error, "could not render or send outbox row %s (%s)", queued.id, queued.kind)
            return Outcome(queued, retry=True, error=f"{type(error).__name__}: {error}"[:300])
        if outgoing.after_send is not None:
            outgoing.after_send(message)
        return Outcome(queued, channel_id=message.channel.id, message_id=message.id)

    def _permanent(self, queued: Queued, error: discord.HTTPException, *, forbidden: int | None = None) -> Outcome:
        log.warning("outbox row %s (%s) failed for good: %s %s", queued.id, queued.kind, error.status, error.text)
        return Outcome(queued, error=f"{error.status} {error.text}"[:300], forbidden=forbidden)

    async def _deliver(self, queued: Queued, outgoing: Outgoing) -> discord.Message | discord.PartialMessage:
        kwargs: dict = {"content": outgoing.content, "embeds": limits.fit_embeds(outgoing.embeds)}
        if outgoing.view is not None:
            kwargs["view"] = outgoing.view
        if outgoing.allowed_mentions is not None:
            kwargs["allowed_mentions"] = outgoing.allowed_mentions
        if outgoing.edit is not None:
            channel_id, message_id = outgoing.edit
            message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
            if outgoing.view is None:
                kwargs["view"] = None
            if outgoing.files or outgoing.replace_attachments:
                kwargs["attachments"] = outgoing.files
            await message.edit(**kwargs)  # the same content again after a crash: shown once
            # e.g. a notification: edits notify nobody
            await self._send_continued(queued, outgoing, self.bot.get_partial_messageable(channel_id))
            return message
        if outgoing.files:
            kwargs["files"] = outgoing.files
        if outgoing.reply_to is not None:
            kwargs["reference"] = discord.MessageReference(
                message_id=outgoing.reply_to[1], channel_id=outgoing.reply_to[0], fail_if_not_exists=False)
        if outgoing.delete is not None:
            with contextlib.suppress(discord.NotFound):  # deleted already (by an earlier attempt, or by hand)
                await self.bot.get_partial_messageable(outgoing.delete[0]).get_partial_message(outgoing.delete[1]).delete()
        if outgoing.follow_up is not None:
            try:
                return await outgoing.follow_up.followup.send(**kwargs, ephemeral=True, wait=True)
            except discord.HTTPException as error:  # the reply is gone after all: by DM
                log.info("outbox row %s: follow-up refused (%s %s), sending it by DM", queued.id, error.status,
                         error.text)
        message = queued.message
        if message.user_id is not None:
            channel = await self.bot.create_dm(discord.Object(id=message.user_id))
        else:
            channel = self.bot.get_partial_messageable(message.channel_id, guild_id=message.guild_id)
        first = await channel.send(**kwargs, nonce=nonce_of(queued))
        await self._send_continued(queued, outgoing, channel)
        return first

    @staticmethod
    async def _send_continued(queued: Queued, outgoing: Outgoing, channel: discord.abc.Messageable) -> None:
        mentions = outgoing.allowed_mentions or discord.AllowedMentions.none()
        for part, content in enumerate(outgoing.continued, start=1):
            await channel.send(content, allowed_mentions=mentions, nonce=nonce_of(queued, part))

    async def record(self, outcomes: list[Outcome]) -> None:
        """Record how sends made elsewhere ended (e.g. a pack shown in an interaction response):
        never raises, waits out a database outage like every send's result."""
        await self._settle(outcomes)

    async def _settle(self, outcomes: list[Outcome]) -> None:
        if not outcomes:
            return
        try:
            await retry_while_unavailable(lambda: outbox.settle(self.bot.db, outcomes), patience=SETTLE_PATIENCE,
                                          what=f"recording {len(outcomes)} sent messages", watch=self.bot.db.outage)
        except Exception as error:  # the rows stay pending: the sweeper sends them again after their lease
            if is_database_outage(error):
                log.warning("could not record %d outbox results: the database is still unavailable", len(outcomes))
            else:
                log.exception("could not record %d outbox results", len(outcomes))


# --- what every format says alike ----------------------------------------------------------------------

RENDERERS = Renderers()  # the kit's own (the bot adds them to its table)


@RENDERERS.renders(outbox.CANNOT_POST, CannotPost)
async def cannot_post(refused: CannotPost, ctx: Delivery) -> Outgoing:
    """A results post was refused for a missing permission: the organizer hears it once, in the
    reply that ended the event if it is still open here, else by DM."""
    text = refused_text(ctx.bot, refused.guild_id, refused.channel_id, refused.what, refused.code)
    reply = await ctx.bot.outbox.replies.open_for(refused.guild_id, ctx.message.user_id)
    return Outgoing(content=limits.clip(text, limits.CONTENT), follow_up=reply)
