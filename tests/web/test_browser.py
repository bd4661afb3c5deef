"""The web pages in a real browser (headless Chromium, `tests/browser.py`): every page kind loads,
every link on it leads to a page, nothing is logged to the console (a blocked style or picture
would be), pages work without JavaScript, nothing scrolls sideways on a phone, and a card name
shows its picture on hover and on a tap.

One site (a SQLite copy of the migrated database, with a server's events, seasons and players)
serves the module. A demo format's pages are registered as a format's `web.py` would. The site and every test's
browser work run in the browser's event loop (`tests/browser.py`).

Screenshots go to the test's temporary directory; `UPDATE_SCREENSHOTS=1` writes them to docs/
(the README shows them)."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from aiohttp import web
from PIL import Image, ImageDraw

from bot.features.leaderboard import service as leaderboard
from bot.games.draft.service.state import GAMES
from bot.games.draft.web import TAKE
from bot.games.turnabout import service as turnabout
from bot.settings import Settings
from bot.store.db import Database
from bot.web import access, names, registry
from bot.web.app import make_app
from bot.web.links import SiteLinks
from tests.browser import Browser
from tests.common import GUILD, ORG
from tests.conftest import SCRATCH
from tests.web import seed_formats
from tests.web.helpers import START, add_card_data, add_results, name_key_path

DOCS = Path(__file__).resolve().parents[2] / "docs"
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
PHONE_390 = {**PHONE, "viewport": {"width": 390, "height": 844}}
DESKTOP = {"viewport": {"width": 1100, "height": 900}}
PLAYERS = {2001: "Alice", 2002: "Bob", 2003: "Chandra", 2004: "Dmitri", 2005: "Emeka", 2006: "Fatima",
           2007: "Gideon", 2008: "Hana",
           2009: "Maximiliana-Wilhelmina von Überlangername-Schwarzenberg",
           2010: "Z" * 60}  # a name with no place to break
DECK = ["Lightning Bolt", "Counterspell", "Fire // Ice", "Brainstorm", "Llanowar Elves", "Swords to Plowshares",
        "Dark Ritual", "Sol Ring"]


def card_picture(name: str) -> bytes:
    """A stand-in for Scryfall's picture of card `name` (the tests never reach the internet)."""
    picture = Image.new("RGB", (244, 340), (60, 52, 70))
    draw = ImageDraw.Draw(picture)
    draw.rounded_rectangle((10, 10, 233, 329), radius=10, fill=(226, 218, 200))
    draw.rectangle((20, 44, 223, 190), fill=(107, 63, 160))
    draw.text((20, 20), name[:30], fill=(20, 20, 20))
    draw.text((20, 200), "(a stand-in picture)", fill=(80, 80, 80))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return out.getvalue()


KINDS = ("Creature — Human", "Instant", "Sorcery", "Artifact", "Enchantment", "Creature — Spirit", "Land")


def card_facts() -> dict[str, tuple[float, str]]:
    """Made-up mana values and types of the seeded cubes' cards: enough to fill a pool's piles."""
    return {name: (float(i % 8), KINDS[i % len(KINDS)]) for i, name in enumerate(seed_formats.CARDS)}


class ImageHost:
    """A loopback stand-in for Scryfall's image host (`Settings.scryfall_images`): a card's picture
    at the path its card data names (`tests.web.helpers.image_of`), and what it served."""

    def __init__(self) -> None:
        self.names = {name_key_path(name): name for name in seed_formats.CARDS}
        self.served: list[str] = []
        self.runner: web.AppRunner | None = None
        self.origin = ""

    async def picture(self, request: web.Request) -> web.Response:
        name = self.names.get(request.match_info["file"].removesuffix(".jpg"))
        if name is None:
            raise web.HTTPNotFound()
        self.served.append(name)
        return web.Response(body=card_picture(name), content_type="image/png",
                            headers={"Cache-Control": "public, max-age=3600"})

    async def start(self) -> str:
        app = web.Application()
        app.router.add_get("/normal/front/{shard}/{file}", self.picture)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", 0).start()
        self.origin = f"http://127.0.0.1:{self.runner.addresses[0][1]}"
        return self.origin

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


@dataclass(frozen=True)
class Site:
    base: str
    links: SiteLinks
    private: str  # a signed link to a player's own page
    formats: dict[str, tuple[str, int]]  # every format's event, played through its service (seed_formats)
    pool: str  # a signed link to a player's own pool during a draft
    own_pool: str  # a signed link to a player's own pool of a complete draft
    images: ImageHost
    take: str = ""  # a signed link to the running Rotisserie's page of the player on turn

    def url(self, path: str) -> str:
        return self.base + path

    @property
    def page_kinds(self) -> dict[str, str]:
        """One address of every kind of page."""
        return {"home": self.links.home, "leaderboard": self.links.leaderboard(),
                "leaderboard of a format": self.links.leaderboard(format="goldfish", season="all"),
                "events": self.links.events(), "results": self.links.event("421", 3),
                "a format's page": self.links.event("demo", 9), "a player's own page": self.private,
                **{what: self.links.event(kind, event_id) for what, (kind, event_id) in self.formats.items()},
                "a draft's packs of one player": self.links.event(*self.formats["draft"]) + "?seat=1",
                "a player's own pool": self.pool, "a player's own pool, complete": self.own_pool,
                "a Rotisserie player's page": self.take}


async def demo_event(ctx: registry.PageContext, event_id: int) -> registry.Page | None:
    users = [2001, 2002, 2009]
    decks = {user: DECK[i:] + DECK[:i] for i, user in enumerate(users)}
    results = [type("R", (), {"placement": place, "user_id": user}) for place, user in enumerate(users, 1)]
    return registry.Page("demo/event.html", f"Demo event #{event_id}",
                         {"results": results, "decks": decks, "names": await ctx.names(users),
                          "pictures": await ctx.pictures(DECK)})


async def demo_pool(ctx: registry.PageContext, grant: access.Grant) -> registry.Page | None:
    return registry.Page("demo/pool.html", "Your pool", {"cards": DECK, "pictures": await ctx.pictures(DECK)})


async def fill(db: Database) -> access.Site:
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    for user_id, name in PLAYERS.items():
        await names.remember(db, GUILD, user_id, name)
    users = list(PLAYERS)
    await add_results(db, GUILD, "goldfish", 1, "Goldfish night", users[:8], scores=[41, 38, 30, 27, 22, 20, 13, 9])
    await add_results(db, GUILD, "turnabout", 2, "Turnabout #2", users[2:10], finished_at=START + timedelta(days=2))
    season = await leaderboard.start_season(db, GUILD, "Winter 2026")
    await add_results(db, GUILD, "421", 3, "421 league: Dominaria", [2009, 2001, 2004, 2010, 2005],
                      finished_at=START + timedelta(days=5), season_id=season.id)
    await add_results(db, GUILD, "vortex", 4, "Vortex #4", [2003, 2006, 2007], finished_at=START + timedelta(days=6),
                      season_id=season.id)
    await add_results(db, GUILD, "battler", 5, "Treasure Battler #5", users[:6], finished_at=START + timedelta(days=7),
                      season_id=season.id, scores=[6, 5, 4, 3, 2, 1])
    await add_results(db, GUILD, "demo", 9, "Demo event #9", [2001, 2002, 2009], finished_at=START + timedelta(days=8),
                      season_id=season.id)
    await turnabout.create_event(db, ORG, channel_id=10)
    return site


async def downloads(tab: Tab, site: Site) -> None:
    """Every download a page offers answers with its file (a browser saves it, so it is no page to open)."""
    hrefs = await tab.page.eval_on_selector_all("a[download]", "links => links.map(a => a.getAttribute('href'))")
    for href in hrefs:
        response = await tab.page.request.get(site.url(href))
        assert response.status == 200 and response.headers["content-disposition"].startswith("attachment;"), href
        assert await response.body()


async def start(directory: Path) -> tuple[Database, web.AppRunner, Site]:
    path = directory / "site.sqlite3"
    shutil.copyfile(await SCRATCH.template("sqlite"), path)
    db = Database(f"sqlite+aiosqlite:///{path}")
    images = ImageHost()
    await add_card_data(db, card_facts(), host=await images.start())  # the cards' data: their pictures there
    formats = await seed_formats.seed(db, list(PLAYERS))  # first: the results below are made-up ids
    site = await fill(db)
    settings = Settings(_env_file=None, web_rate_limit=0, scryfall_images=images.origin)
    runner = web.AppRunner(make_app(db, settings), access_log=None)
    await runner.setup()
    tcp = web.TCPSite(runner, "127.0.0.1", 0)
    await tcp.start()
    port = runner.addresses[0][1]
    grant = access.Grant("demo-pool", 2001, 1, 4_000_000_000)
    links = SiteLinks(site.address)
    pool = access.Grant("draft-pool", 2001, formats["running draft"][1], 4_000_000_000)
    own_pool = access.Grant("draft-pool", 2001, formats["draft"][1], 4_000_000_000)
    rotisserie = formats["running rotisserie"][1]
    take = access.Grant(TAKE, await on_turn(db, rotisserie), rotisserie, 4_000_000_000)
    return db, runner, Site(f"http://127.0.0.1:{port}", links, links.private(access.sign(site, grant, None)), formats,
                            links.private(access.sign(site, pool, None)), links.private(access.sign(site, own_pool, None)),
                            images, links.private(access.sign(site, take, None)))


async def on_turn(db: Database, pod_id: int) -> int:
    async with db.read() as session:
        pod = await GAMES.load(session, pod_id, lock=False)
    return pod.by_seat(pod.state.on_turn()).user_id


async def stop(db: Database, runner: web.AppRunner, images: ImageHost) -> None:
    await runner.cleanup()
    await images.stop()
    await db.dispose()


@pytest.fixture(scope="module")
def site(browser: Browser, tmp_path_factory) -> Iterator[Site]:
    """One site for the module, with a demo format's pages registered (and removed after)."""
    pages = registry.load()  # the site's table, built from the formats' declarations
    pages.template_dirs["demo"] = Path(__file__).parent / "demo"
    pages.event_pages["demo"] = demo_event
    pages.private_pages["demo-pool"] = demo_pool
    try:
        db, runner, found = browser.run(start(tmp_path_factory.mktemp("site")))
        try:
            yield found
        finally:
            browser.run(stop(db, runner, found.images))
    finally:
        pages.template_dirs.pop("demo")
        pages.event_pages.pop("demo")
        pages.private_pages.pop("demo-pool")


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    return DOCS if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path_factory.mktemp("screenshots")


class Tab:
    """A browser tab that keeps what the console said in error."""

    def __init__(self, page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    async def open(self, url: str, status: int = 200):
        response = await self.page.goto(url)
        assert response is not None and response.status == status, (url, response and response.status)
        if status != 200:  # Chromium logs the page's own status; nothing else may be logged
            own = f"the server responded with a status of {status}"
            assert sum(own in error for error in self.errors) == 1, self.errors
            self.errors[:] = [error for error in self.errors if own not in error]
        assert self.errors == [], (url, self.errors)
        return response

    async def width(self) -> tuple[int, int]:
        """(the page's width, the window's): a page wider than its window scrolls sideways."""
        return tuple(await self.page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]"))


def in_a_tab(browser: Browser, scenario: Callable[[Tab], Awaitable[None]], **options) -> None:
    """Run `scenario` in a new tab of a new browser context (card pictures from the loopback image host)."""
    async def run() -> None:
        context = await browser.chromium.new_context(**options)
        try:
            await scenario(Tab(await context.new_page()))
        finally:
            await context.close()

    browser.run(run())


def expect(locator):
    from playwright.async_api import expect as playwright_expect  # imported once a browser exists

    return playwright_expect(locator)


async def internal_links(tab: Tab, site: Site) -> set[str]:
    """The page's links to pages (its downloads apart: see `downloads`)."""
    hrefs = await tab.page.eval_on_selector_all("a[href]:not([download])",
                                                "links => links.map(a => a.getAttribute('href'))")
    outside = {h for h in hrefs if not h.startswith("/")}
    assert all(h.startswith("https://scryfall.com/search?q=") for h in outside), outside
    return {site.url(h) for h in hrefs if h.startswith("/")}


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_every_page_kind_loads_and_every_link_on_it_leads_to_a_page(browser, site, javascript):
    async def scenario(tab: Tab) -> None:
        followed: set[str] = set()
        for kind, path in site.page_kinds.items():
            await tab.open(site.url(path))
            assert await tab.page.title(), kind
            await downloads(tab, site)
            for link in sorted(await internal_links(tab, site) - followed):
                await tab.open(link)
                followed.add(link)
        assert len(followed) >= 12, followed
        # The leaderboard's choice of format and season is a plain form.
        await tab.open(site.url(site.links.leaderboard()))
        await tab.page.select_option("select[name=format]", "421")
        await tab.page.select_option("select[name=season]", "all")
        async with tab.page.expect_navigation():
            await tab.page.click("button[type=submit]")
        assert "format=421" in tab.page.url and "season=all" in tab.page.url
        assert "421 · all time" in await tab.page.inner_text("main")
        await tab.open(site.url("/s/" + "A" * 43), status=404)  # an error page too: its style loads, nothing logged
        assert "Nothing here" in await tab.page.inner_text("main")

    in_a_tab(browser, scenario, java_script_enabled=javascript, **DESKTOP)


def test_on_a_phone_no_page_scrolls_sideways(browser, site, screenshots):
    async def scenario(tab: Tab) -> None:
        for kind, path in site.page_kinds.items():
            await tab.open(site.url(path))
            page_width, window = await tab.width()
            assert page_width <= window, (kind, page_width, window)
        await tab.open(site.url(site.links.home))
        await tab.page.screenshot(path=screenshots / "web-home-phone.png")

    in_a_tab(browser, scenario, **PHONE)


def test_a_rotisserie_player_filters_the_offer_and_takes_a_card_with_its_button(browser, site, screenshots):
    """Without a script: the filter is a GET form, the Take button a POST form whose answer (a 303)
    brings the page back, filtered as it was, the card gone from the offer; the old page's buttons
    do nothing."""
    async def scenario(tab: Tab) -> None:
        await tab.open(site.url(site.links.event(*site.formats["running rotisserie"])))
        assert "22 cards on offer" in await tab.page.inner_text("main")
        assert await tab.page.locator("form[method=post]").count() == 0  # the public page takes nothing
        await tab.page.screenshot(path=screenshots / "web-rotisserie.png", full_page=True)
        await tab.open(site.url(site.take))
        assert "It is your pick" in await tab.page.inner_text("main")
        await tab.page.select_option("select[name=colour]", "R")
        async with tab.page.expect_navigation():
            await tab.page.click("form.filter button[type=submit]")
        assert "colour=R" in tab.page.url
        offered = await tab.page.eval_on_selector_all(".offer input[name=card]", "inputs => inputs.map(i => i.value)")
        assert 0 < len(offered) < 22
        stale = await tab.page.eval_on_selector_all(
            ".offer form >> nth=1 >> input", "inputs => Object.fromEntries(inputs.map(i => [i.name, i.value]))")
        async with tab.page.expect_navigation():
            await tab.page.click(".offer button[type=submit] >> nth=0")
        assert tab.page.url == site.url(site.take) + "?colour=R"  # back to the page, filtered as it was
        assert "of 21 on offer match" in await tab.page.inner_text("main")  # snake order: this seat picks again
        assert offered[0] not in await tab.page.eval_on_selector_all(".offer img", "images => images.map(i => i.alt)")
        refused = await tab.page.request.post(site.url(site.take), form=stale, max_redirects=0)
        assert refused.status == 409 and "Not taken" in await refused.text()

    in_a_tab(browser, scenario, java_script_enabled=False, **DESKTOP)


def test_a_card_shows_its_picture_on_hover(browser, site, screenshots):
    async def scenario(tab: Tab) -> None:
        await tab.open(site.url(site.links.home))
        await tab.page.screenshot(path=screenshots / "web-home.png", full_page=True)
        await tab.open(site.url(site.links.event("demo", 9)))
        picture = tab.page.locator(".card-pic").first
        assert not await picture.is_visible()
        await tab.page.hover(".card-name >> nth=0")
        await expect(picture).to_be_visible(timeout=5000)
        assert await tab.page.evaluate("document.querySelector('.card-pic img').naturalWidth") > 0
        await tab.page.screenshot(path=screenshots / "web-event.png")
        assert tab.errors == []

    in_a_tab(browser, scenario, **DESKTOP)


def test_a_card_shows_its_picture_on_a_tap(browser, site):
    async def scenario(tab: Tab) -> None:
        url = site.url(site.links.event("demo", 9))
        await tab.open(url)
        picture = tab.page.locator(".card-pic").nth(1)
        assert not await picture.is_visible()
        await tab.page.tap(".card >> nth=1")
        await expect(picture).to_be_visible(timeout=5000)  # the tap showed the picture, and went nowhere
        assert tab.page.url == url
        page_width, window = await tab.width()
        assert page_width <= window
        await tab.page.tap("h1")  # elsewhere: the picture goes
        await expect(picture).to_be_hidden(timeout=5000)
        assert tab.errors == []

    in_a_tab(browser, scenario, **PHONE)


SHOTS = {"draft": "web-draft.png", "a draft's packs of one player": "web-draft-picks.png",
         "goldfish": "web-goldfish.png", "battler": "web-battler.png", "turnabout": "web-turnabout.png",
         "421": "web-421.png", "vortex": "web-vortex.png", "running draft": "web-draft-running.png"}


def test_every_formats_page_and_its_screenshot(browser, site, screenshots):
    """Each format's event page in a desktop window (docs/web-<format>.png) and on a phone
    (docs/web-turnabout-phone.png): nothing logged, nothing sideways."""
    async def desktop(tab: Tab) -> None:
        for kind, name in SHOTS.items():
            await tab.open(site.url(site.page_kinds[kind]))
            page_width, window = await tab.width()
            assert page_width <= window, kind
            await tab.page.screenshot(path=screenshots / name)

    async def phone(tab: Tab) -> None:
        await tab.open(site.url(site.page_kinds["turnabout"]))
        await tab.page.screenshot(path=screenshots / "web-turnabout-phone.png")
        await tab.open(site.url(site.page_kinds["draft"]))
        await tab.page.screenshot(path=screenshots / "web-draft-phone.png")

    in_a_tab(browser, desktop, **DESKTOP)
    in_a_tab(browser, phone, **PHONE)


@pytest.mark.parametrize("window", ["desktop", "phone"])
def test_a_pool_page_shows_its_cards_images(browser, site, screenshots, window):
    """Issue 32, item 6: a player's own pool shows each card's image, from the image host the pages
    allow (a loopback stand-in here), in piles by mana value; nothing scrolls sideways on a
    390-pixel phone; no Content-Security-Policy violation (which the console would show: an image
    from any other host is refused, and logged)."""
    async def scenario(tab: Tab) -> None:
        await tab.open(site.url(site.own_pool))
        images = tab.page.locator(".curve img")
        count = await images.count()
        alts = await images.evaluate_all("images => images.map(i => i.alt)")
        assert count >= 10 and set(alts) <= set(seed_formats.CARDS), alts
        assert await images.evaluate_all("images => images.every(i => i.loading === 'lazy')")
        for index in range(count):  # lazy: each loads once scrolled to
            await images.nth(index).scroll_into_view_if_needed()
            await expect(images.nth(index)).to_have_js_property("complete", True, timeout=5000)
        widths = await images.evaluate_all("images => images.map(i => i.naturalWidth)")
        assert all(width > 0 for width in widths), widths
        assert set(alts) <= set(site.images.served)
        assert await tab.page.locator(".curve .pile").count() >= 3
        page_width, shown = await tab.width()
        assert page_width <= shown, (page_width, shown)
        await tab.page.evaluate("window.scrollTo(0, 0)")
        await tab.page.screenshot(path=screenshots / f"web-pool{'-phone' if window == 'phone' else ''}.png",
                                  full_page=window == "desktop")
        assert tab.errors == []
        # The check is real: an image from another host (the same stand-in under another name) is refused.
        elsewhere = site.images.origin.replace("127.0.0.1", "localhost") + "/normal/front/0/sol-ring.jpg"
        await tab.page.evaluate("src => { const i = new Image(); i.src = src; document.body.append(i); }", elsewhere)
        await expect(tab.page.locator(f'img[src="{elsewhere}"]')).to_have_count(1)
        for _ in range(100):  # the console's report comes a moment later (bounded: 100 turns of the browser's loop)
            if tab.errors:
                break
            await tab.page.evaluate("new Promise(done => requestAnimationFrame(() => done()))")
        assert any("Content Security Policy" in error for error in tab.errors), tab.errors

    in_a_tab(browser, scenario, **(PHONE_390 if window == "phone" else DESKTOP))
