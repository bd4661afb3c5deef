"""The CubeCobra client against a fake CubeCobra served on 127.0.0.1 inside the test."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.cards import cubecobra
from bot.cards.cubecobra import (
    CubeCobraBadResponse,
    CubeCobraError,
    CubeCobraUnavailable,
    CubeNotFound,
    InvalidCubeId,
    fetch_cube,
    validate_cube_id,
)
from bot.cards.parse import MAX_CARDS

GOOD_JSON = {
    "id": "good",
    "cards": {
        "mainboard": [
            {
                "details": {
                    "name": "Lightning Bolt",
                    "cmc": 1,
                    "type": "Instant",
                    "colors": ["R"],
                    "rarity": "common",
                }
            },
            {
                "details": {
                    "name": "Counterspell",
                    "cmc": 2,
                    "type": "Instant",
                    "colors": ["U"],
                    "rarity": "common",
                }
            },
            {
                "details": {
                    "name": "Sol Ring",
                    "cmc": 1,
                    "type": "Artifact",
                    "colors": [],
                    "rarity": "uncommon",
                }
            },
        ],
        "maybeboard": [{"details": {"name": "Black Lotus"}}],
    },
}
HTML = "<!DOCTYPE html><html><head><title>CubeCobra</title></head><body>Oops</body></html>"


@dataclass
class FakeCubeCobra:
    base: str
    requests: list[str] = field(default_factory=list)
    never: asyncio.Event = field(default_factory=asyncio.Event)


def _app(fake: FakeCubeCobra) -> web.Application:
    @web.middleware
    async def count(request: web.Request, handler):  # type: ignore[no-untyped-def]
        fake.requests.append(request.path)
        return await handler(request)

    async def cubejson(request: web.Request) -> web.StreamResponse:
        cube_id = request.match_info["id"]
        if cube_id == "good":
            return web.json_response(GOOD_JSON)
        if cube_id == "missing":
            return web.Response(status=404, text="Cube not found")
        if cube_id in ("fallback", "empty", "listmissing", "huge", "toomany", "htmllist"):
            return web.Response(status=500, text="Internal Server Error")
        if cube_id == "badjson":
            return web.Response(text="{not json", content_type="application/json")
        if cube_id == "notacube":
            return web.json_response({"success": "false", "message": "nope"})
        if cube_id == "html":
            return web.Response(text=HTML, content_type="text/html")
        if cube_id == "down":
            return web.Response(status=503, text="Service Unavailable")
        if cube_id == "hang":
            await fake.never.wait()  # never set while the client waits
            return web.Response(text="too late")
        return web.Response(status=404)

    async def cubelist(request: web.Request) -> web.StreamResponse:
        cube_id = request.match_info["id"]
        if cube_id in ("fallback", "badjson", "notacube"):
            return web.Response(text="Ancestral Recall\nBlack Lotus\nTime Walk\n")
        if cube_id == "empty":
            return web.Response(text="  \n")
        if cube_id == "listmissing":
            return web.Response(status=404, text="not found")
        if cube_id in ("html", "htmllist"):
            return web.Response(text=HTML, content_type="text/html")
        if cube_id == "huge":
            return web.Response(body=b"Opt\n" * 4096)  # 16 KiB; the test lowers the limit
        if cube_id == "toomany":
            return web.Response(text="".join(f"Card {i}\n" for i in range(MAX_CARDS + 1)))
        if cube_id == "down":
            return web.Response(status=503, text="Service Unavailable")
        return web.Response(status=404)

    app = web.Application(middlewares=[count])
    app.router.add_get("/cube/api/cubejson/{id}", cubejson)
    app.router.add_get("/cube/api/cubelist/{id}", cubelist)
    return app


@pytest.fixture
async def fake() -> AsyncIterator[FakeCubeCobra]:
    state = FakeCubeCobra(base="")
    server = TestServer(_app(state), host="127.0.0.1", port=0)
    await server.start_server()
    state.base = str(server.make_url("")).rstrip("/")
    try:
        yield state
    finally:
        state.never.set()  # release a hanging handler so the server closes at once
        await server.close()


async def test_good_cubejson(fake: FakeCubeCobra) -> None:
    cards = await fetch_cube("good", base=fake.base)
    assert cards.source == "cubecobra-json"
    assert cards.names() == ["Lightning Bolt", "Counterspell", "Sol Ring"]
    assert cards.cards[0].colour == "R" and cards.cards[2].colour == "C"
    assert fake.requests == ["/cube/api/cubejson/good"]


async def test_shared_session_is_left_open(fake: FakeCubeCobra) -> None:
    async with aiohttp.ClientSession() as session:
        first = await fetch_cube("good", base=fake.base + "/", session=session)
        second = await fetch_cube("  good ", base=fake.base, session=session)
        assert not session.closed
    assert first.names() == second.names()


async def test_404_is_cube_not_found(fake: FakeCubeCobra) -> None:
    with pytest.raises(CubeNotFound, match="no CubeCobra cube with the id 'missing'"):
        await fetch_cube("missing", base=fake.base)
    assert fake.requests == ["/cube/api/cubejson/missing"]


@pytest.mark.parametrize("cube_id", ["fallback", "badjson", "notacube"])
async def test_cubejson_failure_falls_back_to_cubelist(fake: FakeCubeCobra, cube_id: str) -> None:
    cards = await fetch_cube(cube_id, base=fake.base)
    assert cards.source == "text"
    assert cards.names() == ["Ancestral Recall", "Black Lotus", "Time Walk"]
    assert fake.requests == [f"/cube/api/cubejson/{cube_id}", f"/cube/api/cubelist/{cube_id}"]


async def test_cubelist_404_is_not_found(fake: FakeCubeCobra) -> None:
    with pytest.raises(CubeNotFound):
        await fetch_cube("listmissing", base=fake.base)


async def test_hang_times_out_as_unavailable(fake: FakeCubeCobra) -> None:
    with pytest.raises(CubeCobraUnavailable, match="did not answer within 0.2 seconds"):
        await fetch_cube("hang", base=fake.base, timeout=0.2)
    assert fake.requests == ["/cube/api/cubejson/hang"]


@pytest.mark.parametrize("cube_id", ["html", "htmllist"])
async def test_html_garbage_is_bad_response(fake: FakeCubeCobra, cube_id: str) -> None:
    with pytest.raises(CubeCobraBadResponse, match="web page"):
        await fetch_cube(cube_id, base=fake.base)
    assert len(fake.requests) == 2


async def test_empty_list_is_bad_response(fake: FakeCubeCobra) -> None:
    with pytest.raises(CubeCobraBadResponse, match="empty"):
        await fetch_cube("empty", base=fake.base)


async def test_too_many_cards_is_bad_response(fake: FakeCubeCobra) -> None:
    with pytest.raises(CubeCobraBadResponse, match=f"more than {MAX_CARDS} cards"):
        await fetch_cube("toomany", base=fake.base)


async def test_response_size_is_bounded(fake: FakeCubeCobra, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cubecobra, "MAX_RESPONSE_BYTES", 1024)
    with pytest.raises(CubeCobraBadResponse, match="too large"):
        await fetch_cube("huge", base=fake.base)


async def test_server_errors_are_unavailable(fake: FakeCubeCobra) -> None:
    with pytest.raises(CubeCobraUnavailable, match="HTTP 503"):
        await fetch_cube("down", base=fake.base)


@pytest.mark.parametrize(
    "cube_id", ["", "   ", "bad id", "../etc/passwd", "a/b", "x" * 101, "café", "id?x=1", "%2e%2e"]
)
async def test_invalid_id_is_rejected_without_a_request(fake: FakeCubeCobra, cube_id: str) -> None:
    with pytest.raises(InvalidCubeId, match="not a CubeCobra cube id"):
        await fetch_cube(cube_id, base=fake.base)
    assert fake.requests == []


def test_valid_ids() -> None:
    assert validate_cube_id("mtb") == "mtb"
    assert validate_cube_id(" My_Cube-2 ") == "My_Cube-2"
    assert validate_cube_id("x" * 100) == "x" * 100


async def test_connection_refused_is_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # nothing listens on the port now
    with pytest.raises(CubeCobraUnavailable, match="Could not reach CubeCobra"):
        await fetch_cube("good", base=f"http://127.0.0.1:{port}", timeout=5)


def test_errors_share_a_base_with_user_messages() -> None:
    for cls in (InvalidCubeId, CubeNotFound, CubeCobraUnavailable, CubeCobraBadResponse):
        assert issubclass(cls, CubeCobraError)
        err = cls("message for the user")
        assert err.message == str(err) == "message for the user"
