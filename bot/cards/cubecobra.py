"""A small async client for importing cube lists from CubeCobra.

``fetch_cube`` asks ``<base>/cube/api/cubejson/<id>`` first and falls back to the plain-text
``<base>/cube/api/cubelist/<id>`` when the JSON endpoint fails (any status other than 200
and 404) or answers with something that is not a cube. Every problem is raised as a
:class:`CubeCobraError` subclass whose message can be shown to the user:

* :class:`InvalidCubeId` — the id is not 1–100 letters, digits, ``-`` or ``_``; raised
  before any request is made;
* :class:`CubeNotFound` — CubeCobra answered 404;
* :class:`CubeCobraUnavailable` — timeout, connection error, or a 5xx/429 answer;
* :class:`CubeCobraBadResponse` — an answer that is not a usable card list (HTML, empty,
  too large, garbage, or more cards than an upload may have).

``timeout`` bounds the whole call, both requests together. Responses are read up to
:data:`MAX_RESPONSE_BYTES`; the plain-text list must additionally pass the same checks as an
upload (:func:`bot.cards.parse.parse_cube_bytes`), and the JSON the same card limits.
"""

from __future__ import annotations

import asyncio
import json
import re
from urllib.parse import quote

import aiohttp

from bot.cards.model import CardList
from bot.cards.parse import CubeFormatError, parse_cube_bytes, parse_cube_json

__all__ = [
    "CUBE_ID_RE",
    "MAX_RESPONSE_BYTES",
    "CubeCobraBadResponse",
    "CubeCobraError",
    "CubeCobraUnavailable",
    "CubeNotFound",
    "InvalidCubeId",
    "fetch_cube",
    "validate_cube_id",
]

CUBE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
MAX_RESPONSE_BYTES = 5 * 1024 * 1024
_HEADERS = {
    "User-Agent": "mtg-async-bot (cube import)",
    "Accept": "application/json, text/plain;q=0.9, */*;q=0.1",
}


class CubeCobraError(Exception):
    """Base class; ``str(error)`` / ``error.message`` is fit to show the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidCubeId(CubeCobraError):
    pass


class CubeNotFound(CubeCobraError):
    pass


class CubeCobraUnavailable(CubeCobraError):
    pass


class CubeCobraBadResponse(CubeCobraError):
    pass


def validate_cube_id(cube_id: str) -> str:
    """Return the stripped id, or raise :class:`InvalidCubeId`."""
    cleaned = cube_id.strip() if isinstance(cube_id, str) else ""
    if not CUBE_ID_RE.match(cleaned):
        raise InvalidCubeId(
            "That is not a CubeCobra cube id: use the id from the cube's address "
            "(1–100 letters, digits, '-' or '_'), e.g. 'mtb' for cubecobra.com/cube/list/mtb."
        )
    return cleaned


def _looks_like_html(body: bytes) -> bool:
    head = body[:4096].lstrip().lower()
    return head.startswith(b"<") or b"<html" in head or b"<!doctype" in head


async def _get(session: aiohttp.ClientSession, url: str) -> tuple[int, bytes]:
    async with session.get(url, headers=_HEADERS) as resp:
        if resp.status != 200:
            return resp.status, b""
        if resp.content_length is not None and resp.content_length > MAX_RESPONSE_BYTES:
            raise CubeCobraBadResponse("CubeCobra sent a response that is too large to be a cube list.")
        chunks: list[bytes] = []
        total = 0
        async for chunk in resp.content.iter_chunked(64 * 1024):
            total += len(chunk)
            if total > MAX_RESPONSE_BYTES:
                raise CubeCobraBadResponse("CubeCobra sent a response that is too large to be a cube list.")
            chunks.append(chunk)
        return resp.status, b"".join(chunks)


def _cards_from_json(body: bytes) -> CardList | None:
    """The card list in a cubejson answer, or None when it is not a usable cube."""
    if not body.strip() or _looks_like_html(body):
        return None
    try:
        data = json.loads(body.decode("utf-8-sig"))
        return parse_cube_json(data)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, CubeFormatError):
        return None


def _cards_from_list(body: bytes) -> CardList:
    if not body.strip():
        raise CubeCobraBadResponse("CubeCobra sent an empty card list.")
    if _looks_like_html(body):
        raise CubeCobraBadResponse(
            "CubeCobra sent a web page instead of a card list (the site may be having trouble)."
        )
    try:
        cards = parse_cube_bytes(body, filename="cubelist.txt")
    except CubeFormatError as exc:
        raise CubeCobraBadResponse(f"CubeCobra's card list could not be read: {exc.message}") from None
    if any("<" in name and ">" in name for name in cards.names()):
        raise CubeCobraBadResponse("CubeCobra sent something that does not look like a card list.")
    return cards


async def _fetch(session: aiohttp.ClientSession, base: str, cube_id: str) -> CardList:
    quoted = quote(cube_id, safe="")
    status, body = await _get(session, f"{base}/cube/api/cubejson/{quoted}")
    if status == 404:
        raise CubeNotFound(f"There is no CubeCobra cube with the id '{cube_id}'.")
    if status == 200:
        cards = _cards_from_json(body)
        if cards is not None:
            return cards
    status, body = await _get(session, f"{base}/cube/api/cubelist/{quoted}")
    if status == 404:
        raise CubeNotFound(f"There is no CubeCobra cube with the id '{cube_id}'.")
    if status == 429 or status >= 500:
        raise CubeCobraUnavailable(f"CubeCobra is not answering properly (HTTP {status}); try again later.")
    if status != 200:
        raise CubeCobraBadResponse(f"CubeCobra refused the request (HTTP {status}).")
    return _cards_from_list(body)


async def fetch_cube(
    cube_id: str,
    *,
    base: str,
    session: aiohttp.ClientSession | None = None,
    timeout: float = 10.0,  # noqa: ASYNC109 - bounds the whole call via asyncio.timeout
) -> CardList:
    """Fetch a cube's mainboard from CubeCobra (``base`` e.g. ``https://cubecobra.com``).

    Makes no request when the id is invalid. ``session`` is used if given (and left open);
    otherwise a private session is created and closed.
    """
    cube_id = validate_cube_id(cube_id)
    base = base.strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ValueError(f"CubeCobra base must be an http(s) URL, not {base!r}")
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    own_session = session is None
    client = session or aiohttp.ClientSession()
    try:
        async with asyncio.timeout(timeout):
            return await _fetch(client, base, cube_id)
    except TimeoutError:
        raise CubeCobraUnavailable(
            f"CubeCobra did not answer within {timeout:g} seconds; try again later."
        ) from None
    except aiohttp.ClientError:
        raise CubeCobraUnavailable("Could not reach CubeCobra; try again later.") from None
    finally:
        if own_session:
            await client.close()
