"""Card data and card images from Scryfall's API (``SCRYFALL_BASE``), by name.

* :meth:`ScryfallClient.collection` — ``POST <base>/cards/collection`` with up to
  :data:`COLLECTION_BATCH` (75, Scryfall's limit) ``{"name": …}`` identifiers per request; returns
  each name Scryfall knows with its :class:`CardData`, and the names it does not know.
* :meth:`ScryfallClient.fuzzy` — ``GET <base>/cards/named?fuzzy=<name>``: the closest card name, for
  suggestions when a name is unknown.
* :meth:`ScryfallClient.image` — the bytes of a card image (an ``image_uris`` address Scryfall gave).

Scryfall's API guidelines are kept: a descriptive ``User-Agent`` and an ``Accept`` header on every
request, API requests spaced at least 100 ms apart across the process (the same
:data:`bot.cards.sets.SCRYFALL_SPACING` the 421 set import uses: at most 10 per second in all), and
the answers are cached by the caller (the card table, the image cache) so a card is asked for once.
Image downloads are not spaced: Scryfall serves them from its image hosts, which have no rate limit.

Every failure to reach Scryfall (connection refused, timeout, 5xx, 429, an answer that is not
Scryfall's) is a :class:`ScryfallUnreachable`: callers save what they have and try again later.
"""

from __future__ import annotations

import asyncio
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import aiohttp
from yarl import URL

from bot.cards.sets import SCRYFALL_SPACING, RequestSpacing
from bot.kit.text import name_key

__all__ = [
    "COLLECTION_BATCH",
    "HEADERS",
    "CardData",
    "Collection",
    "ScryfallClient",
    "ScryfallUnreachable",
    "loose_key",
]

COLLECTION_BATCH = 75
MAX_JSON_BYTES = 8 * 1024 * 1024
MAX_IMAGE_BYTES = 4 * 1024 * 1024  # Scryfall's largest ("png") images are about 1 MiB
REQUEST_TIMEOUT = 15.0  # seconds, for one request
HEADERS = {
    "User-Agent": "mtg-async-bot/0.1 (Discord bot; cube card data and pack pictures)",
    "Accept": "application/json;q=0.9,*/*;q=0.8",
}
_IMAGE_HEADERS = {**HEADERS, "Accept": "image/jpeg, image/png;q=0.9, image/*;q=0.8"}
_WUBRG = "WUBRG"


class ScryfallUnreachable(Exception):
    """Scryfall could not be asked (down, too slow, rate-limiting us, or answering garbage)."""


def loose_key(name: str) -> str:
    """How a requested name is matched to Scryfall's answer: case, accents and punctuation aside
    (``"lim-dul's vault"`` finds ``"Lim-Dûl's Vault"``), as Scryfall itself matches names."""
    decomposed = unicodedata.normalize("NFKD", name_key(name))
    letters = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w/]+", " ", letters).split())


MAX_ORACLE_TEXT = 8000  # characters kept (the longest cards have about 1,500)


def _oracle_text(card: Mapping[str, Any], faces: Sequence[Mapping[str, Any]]) -> str | None:
    """The card's Oracle text: its own, else its faces' joined by a "//" line; None if none is given."""
    text = card.get("oracle_text")
    if not isinstance(text, str):
        parts = [face["oracle_text"] for face in faces if isinstance(face.get("oracle_text"), str)]
        text = "\n//\n".join(parts) if parts else None
    return None if text is None else text[:MAX_ORACLE_TEXT]


def _colours(value: Any) -> str | None:
    if not isinstance(value, list):
        return None
    return "".join(c for c in _WUBRG if c in value)


def _positive_int(value: Any) -> bool:
    """A whole number a 32-bit column holds, above 0 (Scryfall's ids and ranks)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**31


def _text(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


@dataclass(frozen=True)
class CardData:
    """What the bot keeps of a Scryfall card (one row of the shared card table).

    ``name`` is Scryfall's (oracle) name, ``"A // B"`` for cards with two faces; ``front_name`` the
    first face's. ``colours`` and ``colour_identity`` are WUBRG letters (``""``: colourless);
    a card with faces takes its colours, type and image from its front face, as a draft shows it.
    ``image_uris`` maps Scryfall's image versions (``small``, ``normal``, ``large``, ``png``…) to
    addresses. ``oracle_text`` is the card's rules text as Scryfall gives it (reminder text
    included; the faces of a card with two joined by a ``//`` line); None when the answer had none.
    ``edhrec_rank`` is the card's EDHREC popularity rank (1 is the most played) when Scryfall gives
    one: the bot drafters' popularity signal for cubes without ratings.

    The printing Scryfall answered with, for deck files and draft logs: ``scryfall_id`` (its id),
    ``oracle_id``, ``collector_number``, ``mana_cost`` (the front face's for a card with faces) and
    ``mtgo_id``, Magic Online's catalogue id of the printing (its foil one when it has no other;
    None when the printing is not on Magic Online). ``scryfall_id`` is None only for data stored
    before these were kept.
    """

    name: str
    front_name: str
    colours: str
    colour_identity: str
    type_line: str
    mana_value: float
    rarity: str
    set_code: str
    layout: str = "normal"
    image_uris: Mapping[str, str] = field(default_factory=dict)
    oracle_text: str | None = None
    edhrec_rank: int | None = None
    scryfall_id: str | None = None
    oracle_id: str | None = None
    collector_number: str = ""
    mana_cost: str = ""
    mtgo_id: int | None = None

    @classmethod
    def from_scryfall(cls, card: Mapping[str, Any]) -> CardData:
        """Read a Scryfall ``card`` object (raises ValueError when it has no name)."""
        name = card.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ValueError("a Scryfall card without a name")
        faces = [f for f in card.get("card_faces") or [] if isinstance(f, Mapping)]
        front = faces[0] if faces else {}
        colours = _colours(card.get("colors"))
        if colours is None:
            colours = _colours(front.get("colors")) or ""
        images = card.get("image_uris") or front.get("image_uris") or {}
        cmc = card.get("cmc")
        rank = card.get("edhrec_rank")
        return cls(
            name=name[:200],
            front_name=str(front.get("name") or name)[:200],
            colours=colours,
            colour_identity=_colours(card.get("color_identity")) or "",
            type_line=str(card.get("type_line") or front.get("type_line") or "")[:300],
            mana_value=float(cmc) if isinstance(cmc, int | float) and not isinstance(cmc, bool) else 0.0,
            rarity=str(card.get("rarity") or "")[:16],
            set_code=str(card.get("set") or "")[:16],
            layout=str(card.get("layout") or "normal")[:32],
            image_uris={k: v for k, v in images.items() if isinstance(k, str) and isinstance(v, str)}
            if isinstance(images, Mapping) else {},
            oracle_text=_oracle_text(card, faces),
            edhrec_rank=rank if _positive_int(rank) else None,
            scryfall_id=_text(card.get("id"), 40) or None,
            oracle_id=_text(card.get("oracle_id") or front.get("oracle_id"), 40) or None,
            collector_number=_text(card.get("collector_number"), 16),
            mana_cost=_text(card.get("mana_cost") or front.get("mana_cost"), 100),
            mtgo_id=next((v for v in (card.get("mtgo_id"), card.get("mtgo_foil_id")) if _positive_int(v)), None),
        )

    @property
    def names(self) -> list[str]:
        """Every name this card answers to: its full name, and each face's."""
        parts = [part.strip() for part in self.name.split("//")] if "//" in self.name else []
        return list(dict.fromkeys([self.name, self.front_name, *parts]))

    def display_name(self, requested: str) -> str:
        """How a cube shows the card it listed as ``requested``: Scryfall's spelling of the name
        it asked for (a face's name stays a face's name, e.g. for a double-faced card)."""
        wanted = loose_key(requested)
        return next((n for n in self.names if loose_key(n) == wanted), self.name)

    @property
    def front_type(self) -> str:
        return self.type_line.split("//")[0].strip()

    def image_url(self, version: str = "normal") -> str | None:
        return self.image_uris.get(version) or next(iter(self.image_uris.values()), None)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "image_uris": dict(self.image_uris)}


@dataclass(frozen=True)
class Collection:
    """A collection lookup: ``found`` maps each requested name Scryfall knows to its card."""

    found: dict[str, CardData]
    not_found: list[str]


class ScryfallClient:
    """One per process: it keeps an HTTP session and shares the process-wide request spacing."""

    def __init__(self, base: str, *, spacing: RequestSpacing | None = None, timeout: float = REQUEST_TIMEOUT) -> None:
        base = base.strip().rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise ValueError(f"Scryfall base must be an http(s) URL, not {base!r}")
        self.base = URL(base)
        self.spacing = spacing or SCRYFALL_SPACING
        self.timeout = timeout
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout))
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    # --- the API ---------------------------------------------------------------------------------

    async def collection(self, names: Iterable[str]) -> Collection:
        """Look ``names`` up, :data:`COLLECTION_BATCH` per request (duplicates asked once)."""
        names = [n for n in names if n.strip()]
        unique: dict[str, str] = {}
        for name in names:
            unique.setdefault(loose_key(name), name)
        by_key: dict[str, CardData] = {}
        batches = list(unique.values())
        for start in range(0, len(batches), COLLECTION_BATCH):
            batch = batches[start : start + COLLECTION_BATCH]
            body = {"identifiers": [{"name": n} for n in batch]}
            answer = await self._json("POST", self.base / "cards" / "collection", body=body)
            cards = [CardData.from_scryfall(c) for c in _list(answer, "data") if _named(c)]
            by_key.update({loose_key(n): card for n, card in _match(batch, cards).items()})
        # Every spelling asked for gets its card (the batches asked each card once).
        found = {name: by_key[loose_key(name)] for name in names if loose_key(name) in by_key}
        return Collection(found, [n for n in unique.values() if loose_key(n) not in by_key])

    async def fuzzy(self, name: str) -> str | None:
        """Scryfall's closest card name to ``name``, or None (nothing close, or ambiguous)."""
        url = (self.base / "cards" / "named").with_query({"fuzzy": name})
        answer = await self._json("GET", url, missing_ok=True)
        return answer.get("name") if isinstance(answer, dict) and isinstance(answer.get("name"), str) else None

    async def image(self, url: str) -> bytes:
        """An image's bytes (bounded); no spacing: image hosts are not rate-limited."""
        try:
            async with self._client().get(url, headers=_IMAGE_HEADERS) as resp:
                if resp.status != 200:
                    raise ScryfallUnreachable(f"image {url}: HTTP {resp.status}")
                return await _read_bounded(resp, MAX_IMAGE_BYTES)
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            raise ScryfallUnreachable(f"image {url}: {type(error).__name__}") from None

    async def _json(self, method: str, url: URL, *, body: Any = None, missing_ok: bool = False) -> Any:
        await self.spacing.wait()
        try:
            async with self._client().request(method, url, json=body, headers=HEADERS) as resp:
                status = resp.status
                raw = await _read_bounded(resp, MAX_JSON_BYTES)
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            raise ScryfallUnreachable(f"{method} {url.path}: {type(error).__name__}: {error}") from None
        if status == 404 and missing_ok:
            return None
        if status != 200:
            raise ScryfallUnreachable(f"{method} {url.path}: HTTP {status}")
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise ScryfallUnreachable(f"{method} {url.path}: not JSON") from None


async def _read_bounded(resp: aiohttp.ClientResponse, limit: int) -> bytes:
    if resp.content_length is not None and resp.content_length > limit:
        raise ScryfallUnreachable("an answer too large")
    data = bytearray()
    async for chunk in resp.content.iter_chunked(64 * 1024):
        data += chunk
        if len(data) > limit:
            raise ScryfallUnreachable("an answer too large")
    return bytes(data)


def _list(answer: Any, key: str) -> list:
    if not isinstance(answer, dict) or not isinstance(answer.get(key), list):
        raise ScryfallUnreachable(f"an answer without a {key!r} list")
    return answer[key]


def _named(card: Any) -> bool:
    return isinstance(card, Mapping) and isinstance(card.get("name"), str) and bool(card["name"].strip())


def _match(requested: Sequence[str], cards: Sequence[CardData]) -> dict[str, CardData]:
    """Which card answers which requested name (Scryfall's list drops the names it did not find,
    so answers are matched by name, not by position)."""
    by_key: dict[str, CardData] = {}
    for card in cards:
        for name in card.names:
            by_key.setdefault(loose_key(name), card)
    return {name: by_key[loose_key(name)] for name in requested if loose_key(name) in by_key}


async def gather_limited(coroutines: Iterable, limit: int) -> list:
    """Run ``coroutines`` at most ``limit`` at a time; results (or exceptions) in order."""
    semaphore = asyncio.Semaphore(limit)

    async def one(coroutine):
        async with semaphore:
            return await coroutine

    return await asyncio.gather(*(one(c) for c in coroutines), return_exceptions=True)
