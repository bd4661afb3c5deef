"""The site as an aiohttp application: routes, Jinja2 templates (autoescaped), static files, and
what every request goes through (`bot.web.guard`). `make_app` serves the bot's own database, in
the bot process (`WEB_PORT`) or alone (`python -m bot.web`)."""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2
from aiohttp import hdrs, web

import bot.games
from bot.kit.errors import NotFound
from bot.kit.text import plural
from bot.settings import Settings
from bot.store.db import Database
from bot.store.outage import is_database_outage
from bot.web import guard, pages, params, registry, rules
from bot.web.cards import card_html
from bot.web.page_cache import Computed, PageCache

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
STATIC_DIR = HERE / "static"
STATIC_CACHE = "public, max-age=31536000, immutable"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def day(value: datetime | None) -> str:
    return "" if value is None else f"{value.day} {value:%b %Y}"


class Static:
    """The files under static/, read once, each served under its fingerprint for a year."""

    def __init__(self, directory: Path = STATIC_DIR) -> None:
        self.files: dict[str, tuple[bytes, str]] = {}
        for path in sorted(directory.iterdir()):
            body = path.read_bytes()
            self.files[path.name] = (body, hashlib.blake2b(body, digest_size=6).hexdigest())

    def url(self, name: str) -> str:
        return f"/static/{self.files[name][1]}/{name}"

    async def serve(self, request: web.Request) -> web.Response:
        name = request.match_info.get("name", "icon.svg")
        found = self.files.get(name)
        if found is None:
            raise web.HTTPNotFound()
        body, fingerprint = found
        response = web.Response(body=body, content_type=_content_type(name))
        # Another version's fingerprint (processes of two versions behind one proxy), or /favicon.ico:
        # kept a day, not a year.
        response.headers[hdrs.CACHE_CONTROL] = STATIC_CACHE if request.match_info.get("fingerprint") == fingerprint \
            else "public, max-age=86400"
        return response


def _content_type(name: str) -> str:
    return {".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png"}.get(Path(name).suffix, "application/octet-stream")


def environment(static: Static) -> jinja2.Environment:
    """Templates of the site and of every format (`registry.Pages.templates`), escaped everywhere."""
    loaders: list[jinja2.BaseLoader] = [jinja2.FileSystemLoader(HERE / "templates")]
    if registry.template_dirs():
        loaders.append(jinja2.PrefixLoader({prefix: jinja2.FileSystemLoader(path)
                                            for prefix, path in registry.template_dirs().items()}))
    env = jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, auto_reload=False)
    env.globals.update(static=static.url, formats=bot.games.leaderboard_titles(), card_html=card_html)
    env.filters.update(number=number, day=day)
    env.globals["plural"] = plural
    return env


class Renderer:
    def __init__(self, env: jinja2.Environment) -> None:
        self.env = env

    def page(self, template: str, status: int = 200, **context: Any) -> web.Response:
        html = self.env.get_template(template).render(**context)
        return web.Response(text=html, status=status, content_type="text/html", charset="utf-8")


ERRORS = {
    400: ("Not a page", "That address asks for something this site can't show."),
    404: ("Nothing here", "There is no page at this address. If a link from Discord brought you here, the "
                          "server's pages may have been turned off or given a new address: ask for the link again "
                          "with /web link."),
    405: ("Read only", "This site only shows pages."),
    413: ("Too long", "That form is longer than any this site gives."),
    429: ("Slow down", "Too many pages asked for at once from your address: wait a moment and try again."),
    500: ("Something went wrong", "This page could not be shown."),
    503: ("Busy", "The server's records can't be read right now: try again in a moment."),
}


def make_app(db: Database, settings: Settings, *, limiter: guard.RateLimiter | None = None,
             page_cache: PageCache | None = None, computed: Computed | None = None) -> web.Application:
    registry.load()
    static = Static()
    renderer = Renderer(environment(static))
    limiter = limiter or guard.RateLimiter(settings.web_rate_limit)
    headers = guard.security_headers(settings.scryfall_images)
    trusted = settings.trusted_proxies

    def error_page(status: int, detail: str | None = None, error_id: str | None = None) -> web.Response:
        title, text = ERRORS.get(status, ERRORS[500])
        response = renderer.page("error.html", status=status, title=title, text=detail or text, error_id=error_id,
                                 site=None)
        response.headers[hdrs.CACHE_CONTROL] = "no-store"
        return response

    @web.middleware
    async def every_request(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await _answer(request, handler)
        response.headers.update(headers)
        return response

    async def _answer(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not guard.accepted(request):
            response = error_page(405)
            response.headers[hdrs.ALLOW] = ", ".join(guard.ALLOWED_METHODS)
            return response
        client = guard.client_address(request.remote, request.headers.get(hdrs.X_FORWARDED_FOR), trusted)
        wait = limiter.wait(client)
        if wait:
            response = error_page(429)
            response.headers[hdrs.RETRY_AFTER] = guard.retry_after(wait)
            return response
        try:
            params.check_request(request)
            return guard.conditional(request, await handler(request))
        except params.BadRequest as error:
            return error_page(400, error.reason_text)
        except NotFound:
            return error_page(404)
        except web.HTTPRedirection as error:
            return web.Response(status=error.status, headers={hdrs.LOCATION: error.location})
        except web.HTTPException as error:
            return error_page(error.status if error.status in ERRORS else 404)
        except Exception as error:
            if is_database_outage(error):
                log.warning("web page %s: the database is unavailable (%s)", request.path, type(error).__name__)
                response = error_page(503)
                response.headers[hdrs.RETRY_AFTER] = "5"
                return response
            error_id = secrets.token_hex(4)
            log.exception("web page %s failed (error %s)", request.path, error_id)
            return error_page(500, error_id=error_id)

    # A request's body: none but a signed page's form (a Rotisserie's Take: a card's name, two tokens, the filter).
    app = web.Application(middlewares=[every_request], client_max_size=4096)
    site_pages = pages.SitePages(db, settings, renderer, page_cache, computed)
    app.router.add_get("/static/{fingerprint}/{name}", static.serve)
    app.router.add_get("/favicon.ico", static.serve)
    app.router.add_get("/healthz", _healthz)
    site_pages.add_routes(app.router)
    rules.RulesPages(renderer).add_routes(app.router)
    return app


async def _healthz(request: web.Request) -> web.Response:
    return web.Response(text="ok", headers={hdrs.CACHE_CONTROL: "no-store"})
