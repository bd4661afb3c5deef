"""What a format declares about itself, in one place: a `Format`, exported as `FORMAT` by its package
(`bot/games/<package>/__init__.py`). The bot (its cogs, components, forms), the web site, `/help` and
the leaderboards read the list of formats (`bot.games.formats()`) instead of tables of their own.

A format's renderers and deadline handlers are part of its declaration (`renderers`, `deadlines`:
collections its modules fill, never a registry of the kit's), and so are its event families
(`events`), its paged lists (`page_lists`), the hooks it declares and follows (`hooks`, `follows`) and
what it posts in outside its tables (`channels`): importing a module registers nothing anywhere. When the bot starts it builds its
tables from the formats' (`renderers_of`, `deadlines_of`, with the features' and the kit's own), and
`missing_pieces` checks each format's declared kinds against them (`connect_hooks` gives each
declared hook its followers, `event_problems` checks the event families): every outbox kind has a renderer
and every deadline kind a handler (and `dispatch` checks that every component and form has one), or
the bot refuses to start with one line per missing piece.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bot.kit import channels, events, hooks, tables
from bot.kit.claims_ui import Declared
from bot.kit.deadlines import Handlers
from bot.kit.delivery import Renderers
from bot.kit.dispatch import Component, ModalRoute
from bot.kit.paginate import PageList
from bot.kit.table_cog import table_renderers
from bot.kit.tables import TableSpec

RULES_HOME = "docs/rules/"  # in the bot's repository; a link where RULES_URL says where that folder is read


@dataclass(frozen=True)
class FormatHelp:
    """A format's page of `/help`: short enough for a phone's screen (at most 1,000 characters, a
    test measures it); its full rules are `rules_page`, which the page links to."""

    key: str  # /help format:<key>, and docs/rules/<key>.md
    name: str
    start: str  # the overview's one line: how to start it
    about: str  # what it is, in a sentence or two
    flow: tuple[str, ...]  # start → join → begin → … → end, with the commands of each step
    more: str  # the other commands

    @property
    def rules_page(self) -> str:
        return f"{RULES_HOME}{self.key}.md"


@dataclass(frozen=True)
class Format:
    """One format: everything the rest of the bot needs to know about it.

    `order` places it in lists (/help, the leaderboards, the site); `cog` is the extension module
    whose `setup` adds its cog; `spec` its table (None for one without the kit's table lifecycle);
    `bookkeeping` the dataclass its rows' `bookkeeping` document decodes to; `components` and
    `forms` what its messages carry (each answered by a cog method marked `@handles`); `claims` the
    presses of the kit's report buttons it answers: a `claims_ui.Answering` and a `claims_ui.Deciding`
    (the kit's press and decide handlers call them) or `claims_ui.answers(key)` (a cog method `@handles` it);
    `outbox_kinds` and `deadline_kinds` what its services queue and arm, `renderers` and `deadlines`
    their renderers and handlers (its table's lobby and cancel notice are the kit's); `events` the
    bases of its event families (`bot.kit.events`); `page_lists` its lists shown in pages (each
    answered by a cog method marked `@handles`); `hooks` the hooks it fires and `follows` its
    followers of other formats' hooks (`bot.kit.hooks`); `channels` the queries of where it posts
    outside its tables (`bot.kit.channels`, for `/config show`); `web` the
    web pages it declares (`bot.web.registry.Pages`); `help` its /help page; `leaderboard` its title
    on the leaderboards (None: its results do not go there)."""

    key: str
    name: str
    order: int
    cog: str
    spec: TableSpec | None = None
    bookkeeping: type | None = None
    components: tuple[type[Component], ...] = ()
    forms: tuple[ModalRoute, ...] = ()
    claims: tuple[Declared, ...] = ()
    outbox_kinds: tuple[str, ...] = ()
    deadline_kinds: tuple[str, ...] = ()
    renderers: Renderers = field(default_factory=Renderers)
    deadlines: Handlers = field(default_factory=Handlers)
    events: tuple[type, ...] = ()
    page_lists: tuple[PageList, ...] = ()
    hooks: tuple[hooks.Hook, ...] = ()
    follows: tuple[hooks.Follower, ...] = ()
    channels: tuple[channels.UsesQuery, ...] = ()
    web: Any = None  # its web pages: a `bot.web.registry.Pages` (the kit imports nothing of the site)
    help: FormatHelp | None = None
    leaderboard: str | None = None


def renderers_of(formats: Iterable[Format], *more: Renderers) -> Renderers:
    """The bot's one table of renderers: `more` (the kit's, the features'), every format's, and the
    kit's for each format's table. Two renderers of one kind are refused (a ValueError)."""
    formats = list(formats)
    specs = {fmt.spec.kind: fmt.spec for fmt in formats if fmt.spec is not None}
    return Renderers(*more, *(fmt.renderers for fmt in formats), *map(table_renderers, specs.values()))


def deadlines_of(formats: Iterable[Format], *more: Handlers) -> Handlers:
    """The bot's one table of deadline handlers: `more` (the kit's, the features'), every format's."""
    return Handlers(*more, *(fmt.deadlines for fmt in formats))


def posting_of(formats: Iterable[Format], *queries: channels.UsesQuery) -> channels.Posting:
    """Where the bot posts: every format's tables, its declared queries and `queries` (the features')."""
    formats = list(formats)
    return channels.Posting(tuple(fmt.spec for fmt in formats if fmt.spec is not None),
                            (*queries, *(query for fmt in formats for query in fmt.channels)))


def connect_hooks(formats: Iterable[Format]) -> list[str]:
    """Give every hook a format declares the followers the formats declare; one line per follower of
    a hook nobody declares (`bot.kit.hooks.connect`)."""
    formats = list(formats)
    return hooks.connect([hook for fmt in formats for hook in fmt.hooks],
                         [follower for fmt in formats for follower in fmt.follows])


def event_problems(formats: Iterable[Format], *bases: type) -> list[str]:
    """One line per event of no declared family and per name two classes share (`events.table`):
    the formats' event families and `bases` (the features')."""
    return events.table(*bases, *(base for fmt in formats for base in fmt.events), within="bot.")[1]


def missing_pieces(formats: Iterable[Format], renderers: Renderers, handlers: Handlers) -> list[str]:
    """One line per outbox kind a format declares that has no renderer in `renderers` and deadline
    kind without a handler in `handlers` (the bot's tables), and per kind a format renders or
    handles without declaring it."""
    problems = []
    for fmt in formats:
        kinds = [*fmt.outbox_kinds, *(_table_kinds(fmt.spec) if fmt.spec else ())]
        problems += [f"format {fmt.key}: outbox kind {kind!r} has no renderer"
                     for kind in kinds if kind not in renderers]
        problems += [f"format {fmt.key}: deadline kind {kind!r} has no handler"
                     for kind in fmt.deadline_kinds if kind not in handlers]
        problems += [f"format {fmt.key}: renders outbox kind {kind!r}, which it does not declare"
                     for kind in sorted(fmt.renderers.kinds() - set(kinds))]
        problems += [f"format {fmt.key}: handles deadline kind {kind!r}, which it does not declare"
                     for kind in sorted(fmt.deadlines.kinds() - set(fmt.deadline_kinds))]
    return problems


def _table_kinds(spec: TableSpec) -> list[str]:
    """What the kit's table lifecycle queues for a format: its lobby's redraw, its cancel notice."""
    return [tables.lobby_kind(spec.kind), *([spec.cancel_notice] if spec.cancel_notice else [])]
