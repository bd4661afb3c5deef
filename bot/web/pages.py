"""The server-level pages: the home (events in progress and finished, leaderboards), the
leaderboard, every finished event, one event (its format's page, or its results), and a player's
own pages behind signed links. Every page is found under the server's address and reads only that
server's rows."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession

import bot.games
from bot.features.leaderboard import service as leaderboard
from bot.features.leaderboard import web as leaderboard_web
from bot.kit.errors import NotFound
from bot.settings import Settings
from bot.store.db import Database
from bot.web import access, page_cache, params, queries, registry
from bot.web.links import PREFIX, SiteLinks
from bot.web.names import names_of

HOME_EVENTS = 10  # finished events on the home page
HOME_BOARD, HOME_FORMAT_BOARD = 10, 5  # rows of the leaderboards on the home page
EVENTS_PER_PAGE = 50
ADDRESS = r"{address:[A-Za-z0-9_-]{1,64}}"
FILE_NAME = r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}"
PRIVATE = "private, no-store"


def _download(found: registry.File) -> web.Response:
    response = web.Response(body=found.body, content_type=found.content_type,
                            charset="utf-8" if found.content_type.startswith(("text/", "application/xml")) else None)
    response.headers["Content-Disposition"] = f'attachment; filename="{found.name}"'
    return response


class SitePages:
    def __init__(self, db: Database, settings: Settings, renderer: Any, cache: page_cache.PageCache | None = None,
                 computed: page_cache.Computed | None = None) -> None:
        self.db, self.settings, self.renderer = db, settings, renderer
        self.format_titles = bot.games.leaderboard_titles()  # the formats on the leaderboards, key -> title
        self.cache = cache if cache is not None else page_cache.PageCache()
        # The lists and leaderboards of the pages, kept per server and stamp; off with the page cache
        # unless given (`make_app(page_cache=PageCache(size=0))`: every page built anew).
        self.computed = computed if computed is not None else page_cache.Computed(size=256 if self.cache.enabled else 0)
        # The leaderboards' and events lists' pages themselves (everything they show is in their key),
        # kept as long as their data.
        self.lists = page_cache.PageCache(size=self.computed.size, ttl=self.computed.ttl)
        self.secret = settings.web_secret.get_secret_value() if settings.web_secret else None

    def add_routes(self, router: web.UrlDispatcher) -> None:
        base = f"{PREFIX}/{ADDRESS}"
        router.add_get(base, self.home)
        router.add_get(f"{base}/", self.home_slash)
        router.add_get(f"{base}/leaderboard", self.leaderboard)
        router.add_get(f"{base}/events", self.events)
        router.add_get(f"{base}/events/{{kind:[a-z0-9_-]{{1,32}}}}/{{event_id:\\d{{1,19}}}}", self.event)
        router.add_get(f"{base}/events/{{kind:[a-z0-9_-]{{1,32}}}}/{{event_id:\\d{{1,19}}}}/files/{{name:{FILE_NAME}}}",
                       self.event_file)
        router.add_get(f"{base}/me/{{token:[A-Za-z0-9_.-]{{1,200}}}}", self.private)
        router.add_post(f"{base}/me/{{token:[A-Za-z0-9_.-]{{1,200}}}}", self.private_action)
        router.add_get(f"{base}/me/{{token:[A-Za-z0-9_.-]{{1,200}}}}/files/{{name:{FILE_NAME}}}", self.private_file)

    # --- helpers ------------------------------------------------------------------------------

    async def _site(self, session: AsyncSession, request: web.Request) -> access.Site:
        site = await access.site_at(session, request.match_info["address"])
        if site is None:
            raise NotFound("no such site")
        return site

    def _render(self, site: access.Site, template: str, title: str, **context: Any) -> web.Response:
        return self.renderer.page(template, site=site, links=SiteLinks(site.address), title=title, **context)

    async def _site_and_key(self, request: web.Request, *parts: Any, other_events: bool) -> tuple[access.Site, Any]:
        """The server the address finds (else a 404), and the key its page of a finished object is kept
        under (`bot.web.page_cache`; None while the cache is off). `other_events`: the page shows what
        later events change, so the server's newest result is in the key (else only its names are)."""
        async with self.db.read() as session:
            site = await self._site(session, request)
            if not self.cache.enabled:
                return site, None
            newest_result, newest_name, *_ = await page_cache.stamp(session, site.guild_id)
        stamped = (newest_result if other_events else None, newest_name)
        return site, page_cache.key(site, stamped, *parts, query=tuple(sorted(request.query.items())))

    def _keep(self, key: Any, response: web.Response, final: bool) -> web.Response:
        if final and key is not None:
            self.cache.put(key, response)
        return response

    def _keep_list(self, key: Any, response: web.Response) -> web.Response:
        self.lists.put(key, response)
        return response

    def _context(self, site: access.Site, request: web.Request) -> registry.PageContext:
        return registry.PageContext(self.db, site, SiteLinks(site.address), self.settings, request.query,
                                    request.match_info.get("token"))

    def _format_page(self, site: access.Site, page: registry.Page | None) -> web.Response:
        if page is None:
            raise NotFound("nothing to show")
        return self._render(site, page.template, page.title, **page.context)

    # --- pages --------------------------------------------------------------------------------

    async def home_slash(self, request: web.Request) -> web.Response:
        raise web.HTTPMovedPermanently(f"{PREFIX}/{request.match_info['address']}")

    async def home(self, request: web.Request) -> web.Response:
        async with self.db.read() as session:
            site = await self._site(session, request)
            guild_id = site.guild_id
            stamped = await page_cache.stamp(session, guild_id)
            running = await registry.in_progress(session, guild_id)  # changes without a result: never kept
            seasons = await leaderboard_web.season_rows(session, guild_id)
            period = await leaderboard.current_period(session, guild_id)

        async def compute() -> tuple:
            boards = await leaderboard.boards(self.db, guild_id, period, limit=max(HOME_BOARD, HOME_FORMAT_BOARD))
            overall = boards.get(None, [])[:HOME_BOARD]
            by_format = [(fmt, title, boards[fmt][:HOME_FORMAT_BOARD]) for fmt, title in self.format_titles.items()
                         if boards.get(fmt)]
            async with self.db.read() as session:
                recent = await queries.recent_events(session, guild_id, HOME_EVENTS,
                                                     more=registry.finished_listers())
                ids = [*(u for e in recent for u in e.winners), *(r.user_id for r in overall),
                       *(r.user_id for _, _, rows in by_format for r in rows)]
                names = await names_of(session, guild_id, ids)
            return recent, overall, by_format, names

        recent, overall, by_format, names = await self.computed.get((guild_id, stamped, "home", period), compute)
        return self._render(site, "home.html", site.title, running=running, recent=recent, seasons=seasons,
                            period=period, overall=overall, by_format=by_format, names=names,
                            has_page=registry.event_page_of)

    async def leaderboard(self, request: web.Request) -> web.Response:
        return await leaderboard_web.leaderboard_page(self, request)

    async def events(self, request: web.Request) -> web.Response:
        before = params.shaped(request.query, "before", queries.CURSOR)
        async with self.db.read() as session:
            site = await self._site(session, request)
            guild_id = site.guild_id
            stamped = await page_cache.stamp(session, guild_id)
            key = page_cache.key(site, stamped, "events", before)
            kept = self.lists.get(key)
            if kept is not None:
                return kept

            async def compute() -> tuple:
                found = await queries.recent_events(session, guild_id, EVENTS_PER_PAGE + 1, before,
                                                    more=registry.finished_listers())
                shown = found[:EVENTS_PER_PAGE]
                names = await names_of(session, guild_id, [u for e in shown for u in e.winners])
                return shown, names, shown[-1].cursor if len(found) > EVENTS_PER_PAGE else None

            shown, names, older = await self.computed.get((guild_id, stamped, "events", before), compute)
        return self._keep_list(key, self._render(site, "events.html", "Finished events", events=shown, names=names,
                                                 older=older, first=before is None))

    async def event(self, request: web.Request) -> web.Response:
        kind, event_id = request.match_info["kind"], int(request.match_info["event_id"])
        site, key = await self._site_and_key(request, "page", kind, event_id,
                                             other_events=registry.reads_other_events(kind))
        kept = self.cache.get(key) if key is not None else None
        if kept is not None:
            return kept
        own = registry.event_page_of(kind)
        if own is not None:
            page = await own(self._context(site, request), event_id)
            if page is not None:
                return self._keep(key, self._format_page(site, page), page.final)
        async with self.db.read() as session:
            found = await queries.event_results(session, site.guild_id, kind, event_id)
            if found is None:
                raise NotFound("no such event")
            event, results = found
            names = await names_of(session, site.guild_id, [r.user_id for r in results])
        # Results are written once, when the event ends: final (the names are in the key's stamp).
        return self._keep(key, self._render(site, "event.html", event.name, event=event, results=results, names=names,
                                            format_title=self.format_titles.get(kind, kind),
                                            has_scores=any(r.score is not None for r in results)), True)

    async def event_file(self, request: web.Request) -> web.Response:
        """A format's download of one event (`registry.event_file`), under the same rules as its page."""
        kind, event_id, name = request.match_info["kind"], int(request.match_info["event_id"]), request.match_info["name"]
        site, key = await self._site_and_key(request, "file", kind, event_id, name, other_events=False)
        kept = self.cache.get(key) if key is not None else None
        if kept is not None:
            return kept
        own = registry.event_file_of(kind)
        found = await own(self._context(site, request), event_id, name) if own else None
        if found is None:
            raise NotFound("no such file")
        return self._keep(key, _download(found), found.final)

    async def _granted(self, request: web.Request) -> tuple[access.Site, access.Grant]:
        """The server and the grant of a signed link (a 404 for a forged, expired or foreign one)."""
        async with self.db.read() as session:
            site = await self._site(session, request)
        grant = access.verify(site, request.match_info["token"], self.secret)
        if grant is None:
            raise NotFound("no such page")
        return site, grant

    async def private(self, request: web.Request) -> web.Response:
        site, grant = await self._granted(request)
        page = registry.private_page_of(grant.kind)
        if page is None:
            raise NotFound("no such page")
        response = self._format_page(site, await page(self._context(site, request), grant))
        response.headers["Cache-Control"] = PRIVATE  # a player's own: not kept by the browser
        return response

    async def private_action(self, request: web.Request) -> web.Response:
        """A form posted on a player's own page (`registry.private_action`): the signed link checked
        as for the page, the form bounded (`params.form`), then a 303 back to the page (a reload
        never posts twice) or the action's refusal."""
        site, grant = await self._granted(request)
        act = registry.private_action_of(grant.kind)
        if act is None:
            raise NotFound("no such page")
        done = await act(self._context(site, request), grant, await params.form(request))
        if isinstance(done, registry.Refusal):
            response = self.renderer.page("refused.html", status=done.status, site=site, links=SiteLinks(site.address),
                                          title=done.title, text=done.text, back=done.back)
            response.headers["Cache-Control"] = "no-store"
            return response
        raise web.HTTPSeeOther(done)

    async def private_file(self, request: web.Request) -> web.Response:
        """A download of a player's own page (`registry.private_file`), behind the same signed link."""
        site, grant = await self._granted(request)
        own = registry.private_file_of(grant.kind)
        found = await own(self._context(site, request), grant, request.match_info["name"]) if own else None
        if found is None:
            raise NotFound("no such file")
        response = _download(found)
        response.headers["Cache-Control"] = PRIVATE
        return response
