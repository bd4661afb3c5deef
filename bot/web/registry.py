"""What each format adds to the web pages, from its own package (`bot/games/<format>/web.py`).

A format's `web.py` declares its pages in a `Pages` collection, which its `Format` carries
(`Format(web=web.PAGES)`); importing it registers nothing. The site builds its one table of pages
from every format's when it starts (`load`, from `bot.games.formats()`):

    from pathlib import Path
    from bot.web import registry

    PAGES = registry.Pages()
    PAGES.templates("turnabout", Path(__file__).parent / "templates")   # "turnabout/event.html"

    @PAGES.event_page("turnabout", other_events=True)   # /s/<address>/events/turnabout/<id>
    async def event(ctx: registry.PageContext, event_id: int) -> registry.Page | None:
        ...                                    # None: nothing to show (a 404, or the results page)
        return registry.Page("turnabout/event.html", f"Turnabout #{event_id}", {"rounds": ...},
                             final=ended)           # final: kept rendered (`bot.web.page_cache`)

    @PAGES.private_page("draft-pool")          # a player's own page, behind a signed link
    async def pool(ctx: registry.PageContext, grant: access.Grant) -> registry.Page | None: ...

    @PAGES.private_action("draft-take")        # a form posted on a private page (POST to its address)
    async def take(ctx: registry.PageContext, grant: access.Grant, form: Mapping[str, str]) -> str | registry.Page: ...
                                               # a path: 303 to it (the page again); a Page: a refusal

    @PAGES.private_file("draft-pool")          # its downloads: /s/<address>/me/<token>/files/<name>
    async def pool_file(ctx: registry.PageContext, grant: access.Grant, name: str) -> registry.File | None: ...

    @PAGES.event_file("draft")                 # /s/<address>/events/draft/<id>/files/<name>: a download
    async def export(ctx: registry.PageContext, event_id: int, name: str) -> registry.File | None: ...

    @PAGES.running_events                      # events that are no table (Goldfish scoring)
    async def open_events(session, guild_id) -> list[registry.RunningEvent]: ...

    @PAGES.own_pages                           # a player's own pages, for `/web me`
    async def player_pages(session, guild_id, user_id) -> list[registry.OwnPage]: ...

    @PAGES.finished_events("draft", newest=...)  # finished events that have no results (plain drafts)
    async def finished(session, guild_id, limit, before) -> list[queries.FinishedEvent]: ...

An event page is found by the event's kind: a table's `TableSpec.kind` for a running table, the
leaderboard's format key for a finished event (`EventResult.format`). Without a page of its format a
finished event shows its results (placements and points); a running table shows in the home page's
list without a link. A page must show only what its format's rules let everyone see, and only the
server's own: a handler reads rows of `ctx.guild_id` alone and returns None for an id of another
server's (the visitor then sees exactly what a forged id shows). A private page also checks that
the grant's object belongs to `ctx.guild_id` and to `grant.user_id`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, func, literal, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

import bot.games
from bot.kit import card_data, documents, tables
from bot.kit.errors import NotFound
from bot.settings import Settings
from bot.store.db import Database
from bot.store.models import EventResult
from bot.store.types import Snowflake
from bot.web import access, queries
from bot.web import names as player_names
from bot.web.access import Grant, Site
from bot.web.cards import Facts
from bot.web.links import SiteLinks

OPEN, RUNNING = "open", "running"  # what the home page says of an event not finished


@dataclass(frozen=True)
class RunningEvent:
    kind: str  # its page's kind (a TableSpec kind)
    event_id: int
    title: str  # "Turnabout event #12"
    status: str  # OPEN (players may join) or RUNNING
    players: int
    since: datetime


@dataclass(frozen=True)
class OwnPage:
    """A player's own page (a `private_page` of `kind`, of object `ref`), as `/web me` lists it."""

    kind: str
    ref: int
    title: str  # "Draft #12"
    status: str  # "drafting", "complete"
    since: datetime


@dataclass(frozen=True)
class Page:
    """What a page handler returns: the template, the page's title, and what the template needs
    (besides what every page gets: `site`, `links`, `card` and the other macros of `_macros.html`)."""

    template: str
    title: str
    context: Mapping[str, Any] = field(default_factory=dict)
    # The object can no longer change (a complete draft, an ended event): the site may keep the page
    # rendered (`bot.web.page_cache`). Never for anything running: its page would go stale.
    final: bool = False


@dataclass(frozen=True)
class Refusal:
    """What an action (`Pages.private_action`) answers when it does nothing: a page saying why, with
    `status` (409: the form is stale, it is not the player's turn) and a link `back` to the page."""

    title: str
    text: str
    back: str
    status: int = 409


@dataclass(frozen=True)
class File:
    """What a file handler returns: a download (`name` is what the browser saves it as)."""

    name: str
    content_type: str  # "application/json", "text/plain"
    body: bytes
    final: bool = False  # as `Page.final`


@dataclass
class PageContext:
    """What a page handler may use: the database (read it with `db.read()`), the server's site and
    its links (paths), the settings, and the request's query (`query`, read with `bot.web.params`)."""

    db: Database
    site: Site
    links: SiteLinks
    settings: Settings
    query: Mapping[str, str]
    token: str | None = None  # a private page's signed token (its address)

    @property
    def guild_id(self) -> int:
        return self.site.guild_id

    def form_token(self, bound: object) -> str:
        """The token a form of this private page carries (`access.form_token`), bound to `bound`:
        what the form acts on (a pick number); an action checks it with `form_token_valid`."""
        assert self.token is not None, "only a private page has forms"
        return access.form_token(self.site, self.token, str(bound), self._secret)

    def form_token_valid(self, bound: object, given: str) -> bool:
        assert self.token is not None, "only a private page has forms"
        return access.form_token_valid(self.site, self.token, str(bound), self._secret, given)

    @property
    def _secret(self) -> str | None:
        return self.settings.web_secret.get_secret_value() if self.settings.web_secret else None

    def private_file(self, name: str) -> str:
        """The address of a download of this private page (`private_file`), as private as the page."""
        assert self.token is not None, "only a private page has private downloads"
        return self.links.private_file(self.token, name)

    async def names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The name to show for each player."""
        async with self.db.read() as session:
            return await player_names.names_of(session, self.guild_id, user_ids)

    async def pictures(self, card_names: Iterable[str]) -> dict[str, str]:
        """The picture address of each card name the card data has an image of, from the image host
        the pages allow (`Settings.scryfall_images`); give it to `card(name, pictures)`. A card left
        out shows its name instead."""
        allowed = self.settings.scryfall_images + "/"
        known = await card_data.image_urls(self.db, dict.fromkeys(card_names))
        return {name: url for name, url in known.items() if url.startswith(allowed)}

    async def card_facts(self, card_names: Iterable[str]) -> dict[str, Facts]:
        """What places each card the card data knows in a pool's or deck's piles (`curve_html`)."""
        async with self.db.read() as session:
            known = await card_data.by_name(session, dict.fromkeys(card_names))
        return {name: Facts(card.mana_value or 0.0, card.type_line or "") for name, card in known.items()}

    async def own_table(self, games: documents.Documents, table_id: int) -> documents.Game | None:
        """A format's table `table_id` (read unlocked), or None when there is none in this server: a
        page then shows exactly what a forged id shows."""
        async with self.db.read() as session:
            try:
                loaded = await games.load(session, table_id, lock=False)
            except NotFound:
                return None
        return loaded if loaded.row.guild_id == self.guild_id else None


EventPage = Callable[[PageContext, int], Awaitable[Page | None]]
PrivatePage = Callable[[PageContext, Grant], Awaitable[Page | None]]
PrivateFile = Callable[[PageContext, Grant, str], Awaitable[File | None]]
# (ctx, grant, the posted form's fields) -> a path to send the browser to (303), or a refusal
PrivateAction = Callable[[PageContext, Grant, Mapping[str, str]], Awaitable[str | Refusal]]
EventFile = Callable[[PageContext, int, str], Awaitable[File | None]]
Lister = Callable[[AsyncSession, int], Awaitable[Iterable[RunningEvent]]]
OwnLister = Callable[[AsyncSession, int, int], Awaitable[Iterable[OwnPage]]]
# (session, guild_id, limit, before: (finished_at, kind, id) or None) -> the newest first
FinishedLister = queries.FinishedLister
# guild_id (a bind parameter) -> a scalar subquery that changes when one more such event finishes
Newest = Callable[[Any], Any]

class Pages:
    """What one format adds to the web pages, declared in its `web.py` (`PAGES = registry.Pages()`,
    then its decorators) and carried by its `Format` (`Format.web`): importing a module registers
    nothing. The site builds its one table from every format's when it starts (`load`); two
    declarations of one kind are refused there."""

    def __init__(self) -> None:
        self.event_pages: dict[str, EventPage] = {}
        self.reading_other_events: set[str] = set()
        self.private_pages: dict[str, PrivatePage] = {}
        self.private_files: dict[str, PrivateFile] = {}
        self.private_actions: dict[str, PrivateAction] = {}
        self.event_files: dict[str, EventFile] = {}
        self.listers: list[Lister] = []
        self.own_listers: list[OwnLister] = []
        self.finished: dict[str, tuple[FinishedLister, Newest]] = {}
        self.template_dirs: dict[str, Path] = {}

    def templates(self, prefix: str, directory: Path) -> None:
        """The format's templates, named "<prefix>/<file>" (they may use the site's `base.html` and `_macros.html`)."""
        self.template_dirs[prefix] = directory

    def event_page(self, kind: str, *, other_events: bool = False) -> Callable[[EventPage], EventPage]:
        """The page of events of `kind` (a decorator). `other_events`: a finished event's page shows
        what later events change (Turnabout's ratings sum every event), so its kept copy is built
        again whenever the server's results change; other pages of finished events are kept across them."""
        def add(page: EventPage) -> EventPage:
            self.event_pages[kind] = page
            if other_events:
                self.reading_other_events.add(kind)
            return page
        return add

    def private_page(self, kind: str) -> Callable[[PrivatePage], PrivatePage]:
        """A player's own page, shown behind a signed link of `kind` (a decorator)."""
        def add(page: PrivatePage) -> PrivatePage:
            self.private_pages[kind] = page
            return page
        return add

    def private_file(self, kind: str) -> Callable[[PrivateFile], PrivateFile]:
        """The downloads of a player's own page `kind` (a decorator): behind the same signed link
        (`PageContext.private_file(name)`), None for a name it has no file for (a 404)."""
        def add(handler: PrivateFile) -> PrivateFile:
            self.private_files[kind] = handler
            return handler
        return add

    def private_action(self, kind: str) -> Callable[[PrivateAction], PrivateAction]:
        """What a form posted on the player's own page `kind` does (a decorator): the site's one kind
        of write. The POST goes to the page's own address, so the signed link is checked as for the
        page (a forged or expired one: 404); the handler gets the form's fields (a few, short) and
        must check the form's token (`PageContext.form_token_valid`) and that the action is still
        the player's to make, then act through the format's service and return where to go (a 303
        there: a reload never posts twice), or a `Refusal`."""
        def add(handler: PrivateAction) -> PrivateAction:
            self.private_actions[kind] = handler
            return handler
        return add

    def event_file(self, kind: str) -> Callable[[EventFile], EventFile]:
        """The downloads of events of `kind` (a decorator): the handler gets the file's name from the
        address and returns None for a name or an event it has no file for (a 404)."""
        def add(handler: EventFile) -> EventFile:
            self.event_files[kind] = handler
            return handler
        return add

    def running_events(self, lister: Lister) -> Lister:
        """Where the home page finds more events in progress (a decorator)."""
        self.listers.append(lister)
        return lister

    def own_pages(self, lister: OwnLister) -> OwnLister:
        """Where `/web me` finds a player's own pages (a decorator): `lister(session, guild_id,
        user_id)` returns those of the server's events the player is in, newest first."""
        self.own_listers.append(lister)
        return lister

    def finished_events(self, kind: str, *, newest: Newest) -> Callable[[FinishedLister], FinishedLister]:
        """Finished events of `kind` that write no results (a plain draft), for the home page's recent
        events and the events list (a decorator). `newest(guild_id)` is a cheap scalar subquery that
        changes when one more of the server's finishes (their count, say): it is in the stamp of those
        lists (`page_cache.stamp`, read by every page), so a kept list is built again then."""
        def add(lister: FinishedLister) -> FinishedLister:
            self.finished[kind] = (lister, newest)
            return lister
        return add

    def finished_tables(self, spec: tables.TableSpec, *, name: Callable[[int, Any], str], detail: Any = None,
                        title: str | None = None) -> FinishedLister:
        """A format's finished tables that have no results (`finished_events`), read from its spec's
        shared table columns: `name(id, detail)` names one (`detail`: a column of its row, such as the
        cube's name); `title` names its format in the lists (default: the spec's)."""
        lister, newest = _finished_tables(spec, name=name, detail=detail, title=title)
        return self.finished_events(spec.kind, newest=newest)(lister)

    def include(self, other: Pages) -> None:
        """Add another format's declarations; a kind (or a template prefix) declared twice is refused."""
        for mine, theirs in ((self.event_pages, other.event_pages), (self.private_pages, other.private_pages),
                             (self.private_files, other.private_files), (self.event_files, other.event_files),
                             (self.private_actions, other.private_actions),
                             (self.finished, other.finished), (self.template_dirs, other.template_dirs)):
            twice = mine.keys() & theirs.keys()
            if twice:
                raise ValueError(f"web pages declared twice: {', '.join(sorted(twice))}")
            mine.update(theirs)
        self.reading_other_events |= other.reading_other_events
        self.listers += other.listers
        self.own_listers += other.own_listers


KEPT_ORDERS = 64  # servers whose finished tables' order each format keeps (`finished_tables`)


def _finished_tables(spec: tables.TableSpec, *, name: Callable[[int, Any], str], detail: Any = None,
                     title: str | None = None) -> tuple[FinishedLister, Newest]:
    """A format's finished tables that have no results (`Pages.finished_tables`): a plain draft, a
    game ended without a winner. `name(id, detail)` names one (`detail`: a column of its row, such as
    the cube's name); `title` names its format in the lists (default: the spec's).

    A table's times come after its engine document in its row, which SQLite reads through to reach
    them (some 15 ms for 1,000 complete drafts): the order of a server's finished tables is read once
    per count of them (one more finishes: read again) and kept, per process, for `KEPT_ORDERS` servers."""
    model, seat, kind, finished = spec.model, spec.seat_model, spec.kind, spec.statuses.finished
    shown_title = title or spec.title
    # (database, server) -> (their count, their order)
    kept: OrderedDict[tuple[str, int], tuple[int, list[tuple[datetime, int]]]] = OrderedDict()

    def newest(guild_id: Any) -> Any:
        # How many there are, from the index of the tables' server and status alone.
        return select(func.count()).where(model.guild_id == guild_id, model.status == finished).scalar_subquery()

    async def order_of(session: AsyncSession, guild_id: int) -> list[tuple[datetime, int]]:
        """(finished_at, id) of the server's finished tables without results, newest first."""
        count = (await session.execute(select(newest(guild_id)))).scalar_one()
        key = (str(session.bind.url if session.bind is not None else ""), guild_id)
        found = kept.get(key)
        if found is None or found[0] != count:
            results = select(EventResult.id).where(EventResult.guild_id == guild_id, EventResult.format == kind,
                                                   EventResult.event_id == model.id).exists()
            rows = await session.execute(
                select(model.finished_at, model.id)
                .where(model.guild_id == guild_id, model.status == finished, model.finished_at.is_not(None), ~results)
                .order_by(model.finished_at.desc(), model.id.desc()))
            found = kept[key] = (count, [(at, table_id) for at, table_id in rows])
        kept.move_to_end(key)
        while len(kept) > KEPT_ORDERS:
            kept.popitem(last=False)
        return found[1]

    async def lister(session: AsyncSession, guild_id: int, limit: int,
                     before: queries.Cursor | None) -> list[queries.FinishedEvent]:
        shown = [(at, table_id) for at, table_id in await order_of(session, guild_id)
                 if before is None or (at, kind, table_id) < before][:limit]
        if not shown:
            return []
        players = (select(func.count()).where(seat.table_id == model.id, seat.user_id > 0)
                   .correlate(model).scalar_subquery())
        rows = await session.execute(select(model.id, players, literal(None) if detail is None else detail)
                                     .where(model.id.in_([table_id for _, table_id in shown])))
        found = {table_id: (count, extra) for table_id, count, extra in rows}
        return [queries.FinishedEvent(kind, table_id, name(table_id, found[table_id][1]), at, found[table_id][0], (),
                                      shown_title)
                for at, table_id in shown if table_id in found]

    return lister, newest


_site: Pages | None = None  # every format's, built once by `load`


def load() -> Pages:
    """The site's one table of pages: every format's declared `Pages` (its `Format.web`), built once."""
    global _site
    if _site is None:
        site = Pages()
        for pages in dict.fromkeys(fmt.web for fmt in bot.games.formats() if fmt.web is not None):
            site.include(pages)
        _site = site
    return _site


def reads_other_events(kind: str) -> bool:
    return kind in load().reading_other_events


def private_file_of(kind: str) -> PrivateFile | None:
    return load().private_files.get(kind)


def private_action_of(kind: str) -> PrivateAction | None:
    return load().private_actions.get(kind)


def event_file_of(kind: str) -> EventFile | None:
    return load().event_files.get(kind)


def finished_listers() -> list[FinishedLister]:
    return [lister for lister, _ in load().finished.values()]


def newest_finished() -> list[Newest]:
    return [newest for _, newest in load().finished.values()]


async def own_pages_of(session: AsyncSession, guild_id: int, user_id: int, limit: int) -> list[OwnPage]:
    """A player's own pages in one server, newest first."""
    found = [page for lister in load().own_listers for page in await lister(session, guild_id, user_id)]
    return sorted(found, key=lambda page: page.since, reverse=True)[:limit]


def event_page_of(kind: str) -> EventPage | None:
    return load().event_pages.get(kind)


def private_page_of(kind: str) -> PrivatePage | None:
    return load().private_pages.get(kind)


def template_dirs() -> dict[str, Path]:
    return dict(load().template_dirs)


# --- events in progress -----------------------------------------------------------------------------

MAX_RUNNING = 50  # per kind
MAX_OWN_PAGES = 10  # a player's own pages that `/web me` gives, per format


_in_progress_statements: dict[tuple[str, ...], Any] = {}


def _in_progress_statement(specs: Mapping[str, Any]) -> Any:
    """Every format's tables of one server (`guild_id`, a parameter) open for players or running, in
    one statement built once (its construction costs more than its run)."""
    key = tuple(specs)
    if key not in _in_progress_statements:
        guild = bindparam("guild_id", type_=Snowflake)
        parts = []
        for spec in specs.values():
            model, seat = spec.model, spec.seat_model
            parts.append(select(
                select(literal(spec.kind).label("kind"), model.id.label("id"), model.status.label("status"),
                       model.created_at.label("created"), model.started_at.label("started"),
                       func.count(seat.id).label("players"))
                .outerjoin(seat, seat.table_id == model.id)
                .where(model.guild_id == guild, model.status.in_(spec.statuses.active))
                .group_by(model.id, model.status, model.created_at, model.started_at)
                .order_by(model.id.desc()).limit(MAX_RUNNING).subquery()
            ))
        _in_progress_statements[key] = union_all(*parts)
    return _in_progress_statements[key]


async def _tables_in_progress(session: AsyncSession, guild_id: int) -> list[RunningEvent]:
    """Every format's tables open for players or running (from the shared table columns), in one query."""
    specs = {fmt.spec.kind: fmt.spec for fmt in bot.games.formats() if fmt.spec is not None}
    if not specs:
        return []
    found = []
    for kind, table_id, status, created, started, players in await session.execute(
            _in_progress_statement(specs), {"guild_id": guild_id}):
        spec = specs[kind]
        running = status == spec.statuses.running
        found.append(RunningEvent(kind, table_id, f"{spec.title} #{table_id}", RUNNING if running else OPEN, players,
                                  (started if running else None) or created))
    return found


async def in_progress(session: AsyncSession, guild_id: int) -> list[RunningEvent]:
    """Every event of the server not finished yet, newest first."""
    events = await _tables_in_progress(session, guild_id)
    for lister in load().listers:
        events.extend(await lister(session, guild_id))
    return sorted(events, key=lambda e: e.since, reverse=True)
