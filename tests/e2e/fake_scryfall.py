"""A loopback fake Scryfall for tests: the bot (or a client under test) reaches it through SCRYFALL_BASE.

It serves what the bot asks Scryfall, shaped like Scryfall's answers:

* ``GET /cards/search?q=e:<code> is:booster&unique=cards[&page=N]`` — the set's cards as a
  ``list`` object, :attr:`FakeScryfall.page_size` per page, with ``has_more``/``next_page``
  (an absolute URL on this server, like Scryfall's) and ``total_cards``. Unknown codes get
  Scryfall's 404 ``not_found`` error object.

Sets are :class:`FakeSet` entries in :attr:`FakeScryfall.sets` (``ala`` by default, see
:func:`default_sets`); add or replace them freely in a test. A few set codes misbehave on
purpose (:data:`MISBEHAVING`): ``hang`` never answers, ``down`` is 503, ``slow`` is 429,
``garbage`` is not JSON, ``html`` is an HTML error page, ``ignored`` answers like Scryfall does
for an unknown ``e:`` term (a warning, and cards from everywhere), ``loop`` sends a
``next_page`` forever and ``away`` links its next page to another host.

Every request is recorded (:attr:`FakeScryfall.requests`: path with query, headers, time).

Card data and card images (pack pictures, see :class:`CardsAndImages` below):

* ``POST /cards/collection`` — ``{"identifiers": [{"name": …}, …]}`` (at most 75, else Scryfall's
  422): a ``list`` of the known cards and ``not_found`` for the rest. Names match like Scryfall's
  (any case, accents and punctuation aside; a double-faced card by either face). Each card has a
  printing: Scryfall and Oracle ids (UUIDs), a collector number, a mana cost and its MTGO ids
  (:func:`mtgo_id_of`; ``add_card(mtgo=…)`` leaves them out, as Scryfall does off MTGO).
* ``GET /cards/named?fuzzy=<name>`` — the closest known card, or 404.
* ``GET /images/<n>.jpg`` — card n's generated image: a card-like JPEG whose art box is filled
  with card n's :func:`marker_colour`, so a test reads back which card a picture shows
  (:func:`marker_index`). :meth:`CardsAndImages.set_image` serves other bytes for a card, e.g.
  :func:`huge_png` (20 KB, 13,000 × 13,000 pixels).

Cards are known once added (:meth:`CardsAndImages.add_card`, :meth:`CardsAndImages.add_cards`);
with :attr:`CardsAndImages.down` set every one of these answers 503.

Extending: add a handler method and register it in :meth:`FakeScryfall.app` next to
``search`` (e.g. ``POST /cards/collection``, ``GET /cards/named?fuzzy=``, card images); build
card objects with :func:`scryfall_card` so every endpoint answers with the same cards.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestServer

from tests.e2e.fake_scryfall_cards import CardsAndImages, huge_png, marker_colour, marker_index, mtgo_id_of

__all__ = [
    "CardsAndImages", "FakeScryfall", "FakeSet", "fake_scryfall_with_client", "huge_png", "marker_colour",
    "marker_index", "mtgo_id_of", "serve_fake_scryfall",
]

HTML = "<!DOCTYPE html><html><head><title>Scryfall</title></head><body>Oops</body></html>"
MISBEHAVING = frozenset({"hang", "down", "slow", "garbage", "html", "ignored", "loop", "away"})
_QUERY_RE = re.compile(r"^e:(?P<code>[a-z0-9]+) is:booster$")


def scryfall_card(name: str, rarity: str, set_code: str, set_name: str, **extra: Any) -> dict[str, Any]:
    """A Scryfall ``card`` object with the fields the bot reads (more may be passed in ``extra``)."""
    card = {
        "object": "card",
        "name": name,
        "rarity": rarity,
        "set": set_code,
        "set_name": set_name,
        "type_line": "Basic Land" if name in _BASIC_NAMES else "Creature — Test",
        "colors": [],
        "cmc": 0.0 if name in _BASIC_NAMES else 2.0,
    }
    card.update(extra)
    return card


_BASIC_NAMES = frozenset({"Plains", "Island", "Swamp", "Mountain", "Forest", "Wastes"}) | {
    f"Snow-Covered {b}" for b in ("Plains", "Island", "Swamp", "Mountain", "Forest", "Wastes")
}


@dataclass
class FakeSet:
    code: str
    name: str
    cards: list[dict[str, Any]]

    @classmethod
    def make(
        cls,
        code: str,
        name: str,
        *,
        commons: int = 0,
        uncommons: int = 0,
        rares: int = 0,
        mythics: int = 0,
        basics: Iterable[str] = (),
    ) -> FakeSet:
        """A set of numbered cards (``"<CODE> Common 001"`` …) plus the given basic lands."""
        cards: list[dict[str, Any]] = []
        for rarity, count in (
            ("common", commons),
            ("uncommon", uncommons),
            ("rare", rares),
            ("mythic", mythics),
        ):
            cards += [
                scryfall_card(f"{code.upper()} {rarity.title()} {i:03d}", rarity, code, name)
                for i in range(1, count + 1)
            ]
        cards += [scryfall_card(b, "common", code, name) for b in basics]
        return cls(code, name, cards)


def default_sets() -> dict[str, FakeSet]:
    """``ala``: 101 commons, 60 uncommons, 53 rares, 15 mythics and the five basics (like Shards of Alara)."""
    ala = FakeSet.make(
        "ala",
        "Shards of Alara",
        commons=101,
        uncommons=60,
        rares=53,
        mythics=15,
        basics=("Plains", "Island", "Swamp", "Mountain", "Forest"),
    )
    return {ala.code: ala}


@dataclass
class Recorded:
    path_qs: str
    headers: dict[str, str]
    at: float


@dataclass
class FakeScryfall(CardsAndImages):
    base: str = ""
    page_size: int = 175
    sets: dict[str, FakeSet] = field(default_factory=default_sets)
    requests: list[Recorded] = field(default_factory=list)
    never: asyncio.Event = field(default_factory=asyncio.Event)

    def app(self) -> web.Application:
        @web.middleware
        async def record(request: web.Request, handler):  # type: ignore[no-untyped-def]
            self.requests.append(Recorded(request.path_qs, dict(request.headers), time.monotonic()))
            return await handler(request)

        app = web.Application(middlewares=[record])
        app.router.add_get("/cards/search", self.search)
        self.add_card_routes(app.router)
        return app

    # ------------------------------------------------------------------ /cards/search

    async def search(self, request: web.Request) -> web.StreamResponse:
        match = _QUERY_RE.match(request.query.get("q", ""))
        if match is None or request.query.get("unique") != "cards":
            return _error(
                400, "bad_request", "The fake only understands 'e:<code> is:booster' with unique=cards."
            )
        code = match["code"]
        page = int(request.query.get("page", "1"))
        if code in MISBEHAVING:
            return await self._misbehave(code, request, page)
        found = self.sets.get(code)
        if found is None:
            return _error(404, "not_found", "Your query didn’t match any cards. Adjust your search terms.")
        return web.json_response(self._page(request, found.cards, page))

    def _page(self, request: web.Request, cards: list[dict[str, Any]], page: int) -> dict[str, Any]:
        start = (page - 1) * self.page_size
        chunk = cards[start : start + self.page_size]
        body: dict[str, Any] = {
            "object": "list",
            "total_cards": len(cards),
            "has_more": start + self.page_size < len(cards),
            "data": chunk,
        }
        if body["has_more"]:
            body["next_page"] = self._next_url(request, page + 1)
        return body

    def _next_url(self, request: web.Request, page: int) -> str:
        # Scryfall's next_page is absolute and carries extra parameters; mimic both.
        query = {"format": "json", "include_extras": "false", **request.query, "page": str(page)}
        return str(request.url.with_query(query))

    async def _misbehave(self, code: str, request: web.Request, page: int) -> web.StreamResponse:
        if code == "hang":
            await self.never.wait()
            return web.Response(text="too late")
        if code == "down":
            return web.Response(status=503, text="Service Unavailable")
        if code == "slow":
            return _error(429, "rate_limited", "Too many requests.")
        if code == "garbage":
            return web.Response(text="{{{ not json", content_type="application/json")
        if code == "html":
            return web.Response(text=HTML, content_type="text/html")
        if code == "ignored":
            body = self._page(request, self.sets["ala"].cards, page)
            body["warnings"] = [f"Invalid expression “e:{code}” was ignored. Unknown set “{code}”."]
            return web.json_response(body)
        cards = [scryfall_card(f"Loop Card {page}", "common", code, "Loop")]
        body = {"object": "list", "total_cards": 10_000, "has_more": True, "data": cards}
        body["next_page"] = (
            self._next_url(request, page + 1)
            if code == "loop"
            else "https://evil.example/cards/search?page=2"
        )
        return web.json_response(body)


def _error(status: int, code: str, details: str) -> web.Response:
    return web.json_response(
        {"object": "error", "code": code, "status": status, "details": details}, status=status
    )


@asynccontextmanager
async def serve_fake_scryfall(**kwargs: Any) -> AsyncIterator[FakeScryfall]:
    """Serve a :class:`FakeScryfall` on 127.0.0.1 (random port) for the duration of the block."""
    state = FakeScryfall(**kwargs)
    server = TestServer(state.app(), host="127.0.0.1", port=0)
    await server.start_server()
    state.base = str(server.make_url("")).rstrip("/")
    try:
        yield state
    finally:
        state.never.set()  # release a hanging handler so the server closes at once
        await server.close()


@asynccontextmanager
async def fake_scryfall_with_client(**kwargs: Any) -> AsyncIterator[FakeScryfall]:
    """:func:`serve_fake_scryfall` with ``.client``, the bot's Scryfall client pointed at it, its
    requests not spaced out (for service tests that call the client directly)."""
    from bot.cards.scryfall_api import ScryfallClient
    from bot.cards.sets import RequestSpacing

    async with serve_fake_scryfall(**kwargs) as fake:
        fake.client = ScryfallClient(fake.base, spacing=RequestSpacing(interval=0.0))
        try:
            yield fake
        finally:
            await fake.client.close()
