"""A loopback fake CubeCobra for end-to-end tests: the bot process reaches it through CUBECOBRA_BASE.

Cube ids and what the fake answers (``cubejson`` first, then the ``cubelist`` fallback):

* ``good``      — a cubejson with :data:`GOOD_CARDS` in the mainboard, each with an Elo
  (:func:`good_elo`), and a maybeboard card;
* ``listonly``  — cubejson fails (HTTP 500), the plain-text cubelist has :data:`LIST_CARDS`;
* ``missing``   — 404 (any id the fake does not know is a 404 too);
* ``hang``      — never answers (waits on an :class:`asyncio.Event` that is only set at shutdown);
* ``garbage``   — cubejson is not JSON, cubelist is binary junk;
* ``html``      — both endpoints send an HTML error page with status 200.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.test_utils import TestServer

GOOD_CARDS = [f"Cobra Card {i:02d}" for i in range(1, 41)]
LIST_CARDS = ["Ancestral Recall", "Black Lotus", "Time Walk", "Mox Pearl", "Mox Sapphire"]
HTML = "<!DOCTYPE html><html><head><title>CubeCobra</title></head><body>Something went wrong</body></html>"


def good_elo(name: str) -> float:
    """The Elo CubeCobra gives a card of the ``good`` cube (as its cubejson does, in the details)."""
    return 1200.0 + 7.5 * GOOD_CARDS.index(name)


def good_json() -> dict:
    return {
        "id": "good",
        "name": "Good Cube",
        "cards": {
            "mainboard": [
                {"details": {"name": name, "cmc": 2, "type": "Creature", "colors": ["G"], "elo": good_elo(name)}}
                for name in GOOD_CARDS
            ],
            "maybeboard": [{"details": {"name": "Maybe Card"}}],
        },
    }


@dataclass
class FakeCubeCobra:
    base: str = ""
    requests: list[str] = field(default_factory=list)
    never: asyncio.Event = field(default_factory=asyncio.Event)

    def app(self) -> web.Application:
        @web.middleware
        async def record(request: web.Request, handler):  # type: ignore[no-untyped-def]
            self.requests.append(request.path)
            return await handler(request)

        async def cubejson(request: web.Request) -> web.StreamResponse:
            cube_id = request.match_info["id"]
            if cube_id == "good":
                return web.json_response(good_json())
            if cube_id == "listonly":
                return web.Response(status=500, text="Internal Server Error")
            if cube_id == "hang":
                await self.never.wait()
                return web.Response(text="too late")
            if cube_id == "garbage":
                return web.Response(text="{{{ this is not json", content_type="application/json")
            if cube_id == "html":
                return web.Response(text=HTML, content_type="text/html")
            return web.Response(status=404, text="Cube not found")

        async def cubelist(request: web.Request) -> web.StreamResponse:
            cube_id = request.match_info["id"]
            if cube_id == "listonly":
                return web.Response(text="\n".join(LIST_CARDS) + "\n")
            if cube_id == "garbage":
                return web.Response(body=bytes(range(256)) * 8, content_type="application/octet-stream")
            if cube_id == "html":
                return web.Response(text=HTML, content_type="text/html")
            return web.Response(status=404, text="Cube not found")

        app = web.Application(middlewares=[record])
        app.router.add_get("/cube/api/cubejson/{id}", cubejson)
        app.router.add_get("/cube/api/cubelist/{id}", cubelist)
        return app


@asynccontextmanager
async def serve_fake_cubecobra() -> AsyncIterator[FakeCubeCobra]:
    """Serve a :class:`FakeCubeCobra` on 127.0.0.1 (random port) for the duration of the block."""
    state = FakeCubeCobra()
    server = TestServer(state.app(), host="127.0.0.1", port=0)
    await server.start_server()
    state.base = str(server.make_url("")).rstrip("/")
    try:
        yield state
    finally:
        state.never.set()  # release a hanging handler so the server closes at once
        await server.close()
